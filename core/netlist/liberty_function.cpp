#include "netlist/liberty_function.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>

namespace gsr::netlist {

namespace {

/// Nested '(' and prefix '!' a function may have; real libraries use a handful.
constexpr int kMaxDepth = 256;

/// A character of an operand's name (pins and bus bits: "A0", "D[3]", "x.y", "$n").
bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '[' || c == ']' || c == '.' || c == '$';
}

/// Recursive descent over the function text, each operand's value a whole truth table. Each
/// '(' or prefix '!' is a level of recursion: kMaxDepth of them keep the stack small on any
/// thread (50,000 '(' overflowed the main thread's 8 MB).
class FunctionParser {
public:
    FunctionParser(std::string_view text, std::span<const std::string_view> variables)
        : text_(text), variables_(variables),
          words_(variables.size() <= 6 ? 1 : std::size_t{1} << (variables.size() - 6)),
          used_bits_(variables.size() >= 6 ? ~std::uint64_t{0}
                                           : (std::uint64_t{1} << (std::uint64_t{1} << variables.size())) - 1)
    {
    }

    std::vector<std::uint64_t> parse()
    {
        Table t = parse_or();
        skip_blanks();
        if (at_ < text_.size()) fail("expected an operator or the end, found '" + rest() + "'");
        for (std::uint64_t& w : t) w &= used_bits_;
        return t;
    }

private:
    using Table = std::vector<std::uint64_t>;

    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error("function \"" + std::string(text_) + "\": " + what);
    }
    std::string rest() const { return std::string(text_.substr(at_, 20)); }
    void skip_blanks()
    {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
    }

    Table parse_or()
    {
        Table t = parse_and();
        for (;;) {
            skip_blanks();
            if (at_ >= text_.size() || (text_[at_] != '+' && text_[at_] != '|')) return t;
            ++at_;
            const Table r = parse_and();
            for (std::size_t i = 0; i < t.size(); ++i) t[i] |= r[i];
        }
    }

    /// AND is '&', '*', or operands side by side ("A B", "(A)(B)").
    Table parse_and()
    {
        Table t = parse_xor();
        for (;;) {
            skip_blanks();
            if (at_ >= text_.size()) return t;
            const char c = text_[at_];
            if (c == '&' || c == '*') ++at_;
            else if (!(c == '!' || c == '(' || name_char(c))) return t;
            const Table r = parse_xor();
            for (std::size_t i = 0; i < t.size(); ++i) t[i] &= r[i];
        }
    }

    Table parse_xor()
    {
        Table t = parse_unary();
        for (;;) {
            skip_blanks();
            if (at_ >= text_.size() || text_[at_] != '^') return t;
            ++at_;
            const Table r = parse_unary();
            for (std::size_t i = 0; i < t.size(); ++i) t[i] ^= r[i];
        }
    }

    Table parse_unary()
    {
        skip_blanks();
        if (at_ >= text_.size()) fail("expected an operand at its end");
        Table t;
        if ((text_[at_] == '!' || text_[at_] == '(') && depth_ >= kMaxDepth)
            fail("expected at most " + std::to_string(kMaxDepth) +
                 " nested '(' or '!', found more at byte " + std::to_string(at_ + 1));
        const DepthGuard guard(depth_);
        if (text_[at_] == '!') {
            ++at_;
            t = parse_unary();
            for (std::uint64_t& w : t) w = ~w;
        } else if (text_[at_] == '(') {
            ++at_;
            t = parse_or();
            skip_blanks();
            if (at_ >= text_.size() || text_[at_] != ')') fail("expected ')'");
            ++at_;
        } else {
            const std::size_t start = at_;
            while (at_ < text_.size() && name_char(text_[at_])) ++at_;
            if (at_ == start) fail("expected an operand, found '" + rest() + "'");
            t = operand(text_.substr(start, at_ - start));
        }
        while (at_ < text_.size() && text_[at_] == '\'') { // postfix NOT
            ++at_;
            for (std::uint64_t& w : t) w = ~w;
        }
        return t;
    }

    /// Counts one level of nesting for as long as it lives.
    struct DepthGuard {
        explicit DepthGuard(int& d) : depth(d) { ++depth; }
        ~DepthGuard() { --depth; }
        DepthGuard(const DepthGuard&) = delete;
        DepthGuard& operator=(const DepthGuard&) = delete;
        int& depth;
    };

    Table operand(std::string_view name) const
    {
        if (name == "0" || name == "1") return Table(words_, name == "1" ? ~std::uint64_t{0} : 0);
        const auto it = std::find(variables_.begin(), variables_.end(), name);
        if (it == variables_.end()) fail("'" + std::string(name) + "' is not one of its pins");
        const std::size_t v = static_cast<std::size_t>(it - variables_.begin());
        Table t(words_, 0);
        if (v >= 6) { // whole words: word w holds rows 64 w .. 64 w + 63, bit v of the row is w's bit v - 6
            for (std::size_t w = 0; w < words_; ++w)
                if ((w >> (v - 6)) & 1u) t[w] = ~std::uint64_t{0};
        } else { // within a word: the pattern of bit v over 64 rows
            std::uint64_t pattern = 0;
            for (unsigned r = 0; r < 64; ++r)
                if ((r >> v) & 1u) pattern |= std::uint64_t{1} << r;
            std::fill(t.begin(), t.end(), pattern);
        }
        return t;
    }

    std::string_view text_;
    std::span<const std::string_view> variables_;
    std::size_t words_;
    std::uint64_t used_bits_;
    std::size_t at_ = 0;
    int depth_ = 0; ///< parse_unary calls open
};

} // namespace

std::vector<std::uint64_t> function_truth_table(std::string_view function,
                                                std::span<const std::string_view> variables)
{
    if (variables.size() > kMaxFunctionInputs)
        throw Error("function \"" + std::string(function) + "\": " +
                    std::to_string(variables.size()) + " inputs, more than the " +
                    std::to_string(kMaxFunctionInputs) + " a truth table is made for");
    return FunctionParser(function, variables).parse();
}

bool function_mentions(std::string_view function, std::string_view name)
{
    if (name.empty()) return false;
    for (std::size_t at = function.find(name); at != std::string_view::npos;
         at = function.find(name, at + 1)) {
        const std::size_t end = at + name.size();
        if ((at == 0 || !name_char(function[at - 1])) &&
            (end == function.size() || !name_char(function[end])))
            return true;
    }
    return false;
}

} // namespace gsr::netlist
