#pragma once
// Liberty's Boolean `function` syntax as a truth table: "(!((A0 A1)+B0))", "((SE SI) + (!SE D))".
// Operators by precedence, highest first: ! (prefix) and ' (postfix) NOT; ^ XOR; & * or a
// space AND; | + OR. Operands: a name of the variables given, 0, 1, or a parenthesised
// expression.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::netlist {

/// Variables a truth table may have: 2^16 rows, 1,024 words.
inline constexpr std::size_t kMaxFunctionInputs = 16;

/// The function's truth table over `variables`: bit m of the table (word m / 64, bit m % 64)
/// is its value when variable i is bit i of m; at least one word. Throws gsr::Error (no
/// location: the caller names the library and cell) for a syntax error or a name that is not
/// one of the variables, naming it and the function; and for more than kMaxFunctionInputs.
std::vector<std::uint64_t> function_truth_table(std::string_view function,
                                                std::span<const std::string_view> variables);

/// Whether `name` is one of the function's operands (a whole name, not part of a longer one).
bool function_mentions(std::string_view function, std::string_view name);

} // namespace gsr::netlist
