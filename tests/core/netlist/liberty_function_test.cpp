// Liberty's `function` syntax as a truth table: precedence, the three spellings of AND, both
// NOTs, constants, and the errors that name the function.
#include "netlist/liberty_function.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <string_view>

using gsr::netlist::function_truth_table;

namespace {

/// The table an evaluator gives: bit m is f(bit i of m for each variable i).
std::uint64_t table_of(std::size_t k, const std::function<bool(unsigned)>& f)
{
    std::uint64_t t = 0;
    for (unsigned m = 0; m < (1u << k); ++m)
        if (f(m)) t |= std::uint64_t{1} << m;
    return t;
}

bool bit(unsigned m, unsigned i) { return (m >> i) & 1u; }

} // namespace

TEST(LibertyFunction, OperatorsAndPrecedence)
{
    const std::array<std::string_view, 3> abc{"A", "B", "C"};
    const auto t = [&](std::string_view f) { return function_truth_table(f, abc).at(0); };
    // AND binds tighter than OR, XOR tighter than AND, NOT tightest: A + B C = A + (B C).
    EXPECT_EQ(t("A + B C"), table_of(3, [](unsigned m) { return bit(m, 0) || (bit(m, 1) && bit(m, 2)); }));
    EXPECT_EQ(t("A|B&C"), t("A + B C"));
    EXPECT_EQ(t("A*B+C"), table_of(3, [](unsigned m) { return (bit(m, 0) && bit(m, 1)) || bit(m, 2); }));
    EXPECT_EQ(t("A B ^ C"), table_of(3, [](unsigned m) { return bit(m, 0) && (bit(m, 1) != bit(m, 2)); }));
    EXPECT_EQ(t("!A B"), table_of(3, [](unsigned m) { return !bit(m, 0) && bit(m, 1); }));
    EXPECT_EQ(t("(A B)'"), table_of(3, [](unsigned m) { return !(bit(m, 0) && bit(m, 1)); }));
    EXPECT_EQ(t("A' B'"), table_of(3, [](unsigned m) { return !bit(m, 0) && !bit(m, 1); }));
    EXPECT_EQ(t("(A)(B)"), table_of(3, [](unsigned m) { return bit(m, 0) && bit(m, 1); }));
    EXPECT_EQ(t("!!C"), table_of(3, [](unsigned m) { return bit(m, 2); }));
    EXPECT_EQ(t("0"), 0u);
    EXPECT_EQ(t("1"), 0xffu); // the 8 rows of three variables, no more
    // GSCLib's own: AOI21, the full adder's carry, the scan flip-flop's next state.
    const std::array<std::string_view, 3> aoi{"A0", "A1", "B0"};
    EXPECT_EQ(function_truth_table("(!((A0 A1)+B0))", aoi).at(0),
              table_of(3, [](unsigned m) { return !((bit(m, 0) && bit(m, 1)) || bit(m, 2)); }));
    const std::array<std::string_view, 3> fa{"A", "B", "CI"};
    EXPECT_EQ(function_truth_table("(((A B)+(B CI))+(CI A))", fa).at(0),
              table_of(3, [](unsigned m) { return bit(m, 0) + bit(m, 1) + bit(m, 2) >= 2; }));
    const std::array<std::string_view, 4> scan{"CK", "D", "SE", "SI"};
    EXPECT_EQ(function_truth_table("((SE SI) + (!SE D))", scan).at(0),
              table_of(4, [](unsigned m) { return bit(m, 2) ? bit(m, 3) : bit(m, 1); }));
}

TEST(LibertyFunction, WideTablesSpanWords)
{
    // Eight variables: four words; variable 7 is word-aligned, variable 0 within the word.
    std::array<std::string_view, 8> v{"a", "b", "c", "d", "e", "f", "g", "h"};
    const auto t = function_truth_table("h ^ a", v);
    ASSERT_EQ(t.size(), 4u);
    for (unsigned m = 0; m < 256; ++m)
        EXPECT_EQ((t[m / 64] >> (m % 64)) & 1u, bit(m, 7) != bit(m, 0)) << m;
}

TEST(LibertyFunction, MentionsAWholeOperandOnly)
{
    EXPECT_TRUE(gsr::netlist::function_mentions("(!((A0 A1)+B0))", "B0"));
    EXPECT_TRUE(gsr::netlist::function_mentions("A", "A"));
    EXPECT_FALSE(gsr::netlist::function_mentions("(!((A0 A1)+B0))", "A")); // only in A0, A1
    EXPECT_FALSE(gsr::netlist::function_mentions("D[1]", "D"));
    EXPECT_FALSE(gsr::netlist::function_mentions("A", ""));
}

TEST(LibertyFunction, ErrorsNameTheFunctionAndWhatWasExpected)
{
    const std::array<std::string_view, 2> ab{"A", "B"};
    const auto message = [&](std::string_view f) {
        try {
            (void)function_truth_table(f, ab);
        } catch (const gsr::Error& e) {
            return e.message();
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(message("A + Q"), "function \"A + Q\": 'Q' is not one of its pins");
    EXPECT_EQ(message("(A B"), "function \"(A B\": expected ')'");
    EXPECT_EQ(message("A +"), "function \"A +\": expected an operand at its end");
    EXPECT_EQ(message("A ) B"), "function \"A ) B\": expected an operator or the end, found ') B'");
    std::array<std::string_view, 17> many{};
    for (auto& n : many) n = "x";
    EXPECT_THROW((void)function_truth_table("x", many), gsr::Error);
}

TEST(LibertyFunction, NestingPast256LevelsIsAnErrorNotAStackOverflow)
{
    // 50,000 '(' overflowed the stack (gsr labels: SIGSEGV); a worker thread's, sooner.
    const std::array<std::string_view, 1> a{"A"};
    const auto nested = [](int n, char open) {
        return std::string(static_cast<std::size_t>(n), open) + "A" +
               (open == '(' ? std::string(static_cast<std::size_t>(n), ')') : std::string());
    };
    EXPECT_EQ(function_truth_table(nested(256, '('), a)[0], 0b10u);
    EXPECT_EQ(function_truth_table(nested(256, '!'), a)[0], 0b10u);
    for (const char open : {'(', '!'}) {
        for (const int n : {257, 100000}) {
            try {
                (void)function_truth_table(nested(n, open), a);
                ADD_FAILURE() << n << " x " << open << " read";
            } catch (const gsr::Error& e) {
                EXPECT_NE(e.message().find("expected at most 256 nested '(' or '!', found more "
                                           "at byte 257"),
                          std::string::npos)
                    << e.message().substr(0, 200);
            }
        }
    }
}
