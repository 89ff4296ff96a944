// AIGER 1.9, ASCII (aag) and binary (aig): inputs, latches, outputs, AND gates with
// delta-encoded varints, and the symbol table. Inversions are pin attributes, not nodes.
#include "netlist/hierarchy_budget.hpp"
#include "netlist/readers.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gsr::netlist {

namespace {

/// A value per AIGER variable: a vector while M is within reach of the file's size, a hash
/// map past it. ASCII AIGER allows gaps, so "aag 200000000 0 0 0 0" (23 bytes) declares M
/// = 2e8: a vector took 1.6 GB for it.
template <class T> class VarTable {
public:
    void reset(std::uint64_t max_var, std::uint64_t dense_limit, T empty)
    {
        empty_ = empty;
        dense_ = max_var < dense_limit;
        if (dense_) values_.assign(static_cast<std::size_t>(max_var) + 1, empty);
    }
    T& operator[](std::uint64_t v)
    {
        return dense_ ? values_[static_cast<std::size_t>(v)]
                      : sparse_.try_emplace(v, empty_).first->second;
    }

private:
    bool dense_ = true;
    T empty_{};
    std::vector<T> values_;
    std::unordered_map<std::uint64_t, T> sparse_;
};

class AigerParser {
public:
    explicit AigerParser(const SourceText& src) : src_(src), t_(src.text()) {}

    Circuit parse()
    {
        c_.format = "aiger";
        c_.source = src_.name();
        header();
        const std::uint64_t dense_limit = 32 * (t_.size() + 16);
        var_net_.reset(M_, dense_limit, kNoNet);
        var_defined_.reset(M_, dense_limit, 0);
        c_.cells.reserve(I_ + L_ + A_);
        c_.pins.reserve(3 * A_ + 2 * L_);
        if (binary_) {
            for (std::uint64_t i = 0; i < I_; ++i) define_input(i, 2 * (i + 1));
            for (std::uint64_t i = 0; i < L_; ++i) latch_line(i, 2 * (I_ + i + 1));
        } else {
            for (std::uint64_t i = 0; i < I_; ++i) define_input(i, read_literal("an input literal", true));
            for (std::uint64_t i = 0; i < L_; ++i) {
                const std::uint64_t cur = read_literal("a latch literal", false);
                expect_char(' ', "a space between latch literals");
                latch_line(i, cur);
            }
        }
        for (std::uint64_t i = 0; i < O_; ++i) output_lits_.push_back(read_literal("an output literal", true));
        for (std::uint64_t i = 0; i < B_ + C_; ++i) read_literal("a bad-state or constraint literal", true);
        if (B_ + C_ > 0) // model-checking properties: no function of the circuit's own
            c_.diagnostics.warn({src_.name(), 1},
                                std::to_string(B_) + " bad-state propert" + (B_ == 1 ? "y" : "ies") +
                                    " and " + std::to_string(C_) + " invariant constraint" +
                                    (C_ == 1 ? "" : "s") +
                                    " are read but not kept: they become no outputs");
        if (J_ || F_) fail("expected no justice or fairness properties (AIGER 1.9 liveness is not supported)");
        if (binary_) binary_ands();
        else ascii_ands();
        symbols();
        build();
        return std::move(c_);
    }

private:
    static constexpr CellId kNoCell = 0xffffffffu;

    [[noreturn]] void fail(const std::string& msg) const { src_.fail(pos_, msg); }
    /// Fails at the start of the number read last (after its line end was consumed).
    [[noreturn]] void fail_at_number(const std::string& msg) const { src_.fail(number_at_, msg); }

    bool at_end() const { return pos_ >= t_.size(); }

    std::uint64_t number(const char* what)
    {
        if (at_end()) fail(std::string("unexpected end of file: expected ") + what);
        if (t_[pos_] < '0' || t_[pos_] > '9') fail(std::string("expected ") + what + " (a decimal number)");
        number_at_ = pos_;
        std::uint64_t v = 0;
        while (!at_end() && t_[pos_] >= '0' && t_[pos_] <= '9') {
            if (v > (UINT64_MAX - 9) / 10) fail(std::string("expected ") + what + " that fits in 64 bits");
            v = v * 10 + static_cast<std::uint64_t>(t_[pos_++] - '0');
        }
        return v;
    }

    void expect_char(char c, const char* what)
    {
        if (at_end()) fail(std::string("unexpected end of file: expected ") + what);
        if (t_[pos_] != c) fail(std::string("expected ") + what);
        ++pos_;
    }

    void end_of_line()
    {
        if (!at_end() && t_[pos_] == '\r') ++pos_;
        expect_char('\n', "the end of the line");
        ++lines_ended_;
    }

    void header()
    {
        // A text editor's byte order mark before an ASCII header is skipped, as other readers do.
        const std::size_t bom = t_.substr(bom_length(t_), 4) == "aag " ? bom_length(t_) : 0;
        if (t_.size() < bom + 4 || (t_.substr(bom, 4) != "aig " && t_.substr(bom, 4) != "aag "))
            fail("expected an AIGER header 'aig M I L O A' or 'aag M I L O A'");
        binary_ = t_[bom + 1] == 'i';
        pos_ = bom + 4;
        std::uint64_t* fields[] = {&M_, &I_, &L_, &O_, &A_, &B_, &C_, &J_, &F_};
        static const char* names[] = {"M", "I", "L", "O", "A", "B", "C", "J", "F"};
        for (int k = 0; k < 9; ++k) {
            if (k >= 5 && (at_end() || t_[pos_] == '\n' || t_[pos_] == '\r')) break;
            if (k > 0) expect_char(' ', "a space between header fields");
            *fields[k] = number((std::string("the header field ") + names[k]).c_str());
        }
        end_of_line();
        number_at_ = bom + 4; // header problems are reported on line 1
        if (M_ > 0x7ffffffeull) fail_at_number("expected M below 2^31: this AIG is too large");
        if (binary_ && M_ != I_ + L_ + A_)
            fail_at_number("expected M = I + L + A in a binary AIGER header (M=" + std::to_string(M_) + ", I+L+A=" +
                 std::to_string(I_ + L_ + A_) + ")");
        if (!binary_ && M_ < I_ + L_ + A_) fail_at_number("expected M >= I + L + A in the header");
        const std::uint64_t budget = t_.size() + 16;
        if (O_ > budget || (!binary_ && I_ > budget * 8) || L_ > budget ||
            (binary_ ? A_ > budget * 8 : A_ > budget))
            fail_at_number("expected header counts that fit the file size: the file is truncated or the header is wrong");
        // In a binary file the inputs take no bytes (input k is variable k + 1), so a short
        // file may have many. Only memory bounds them, as it bounds Verilog's bits.
        const std::uint64_t max_inputs = flattening_budget(t_.size());
        if (binary_ && I_ > max_inputs)
            fail_at_number("expected at most " + std::to_string(max_inputs) +
                           " inputs in a binary AIGER file of this size, found " +
                           std::to_string(I_));
    }

    std::uint64_t read_literal(const char* what, bool line)
    {
        std::uint64_t lit = number(what);
        if (lit > 2 * M_ + 1)
            fail_at_number("expected " + std::string(what) + " of at most 2*M+1 = " +
                           std::to_string(2 * M_ + 1) + ", found " + std::to_string(lit));
        if (line) end_of_line();
        return lit;
    }

    void define_var(std::uint64_t lit, const char* what)
    {
        if (lit & 1) fail_at_number(std::string("expected an even literal for ") + what);
        if (lit < 2) fail_at_number(std::string("expected a variable, not a constant, for ") + what);
        if (var_defined_[lit / 2]) fail_at_number("expected each variable to be defined once: variable " + std::to_string(lit / 2) + " is defined twice");
        var_defined_[lit / 2] = 1;
    }

    void define_input(std::uint64_t i, std::uint64_t lit)
    {
        define_var(lit, "an input");
        inputs_.push_back(lit / 2);
        (void)i;
    }

    void latch_line(std::uint64_t i, std::uint64_t cur)
    {
        (void)i;
        const int line = lines_ended_ + 1;
        const std::uint64_t next = number("the latch next-state literal");
        if (next > 2 * M_ + 1)
            fail_at_number("expected a latch next-state literal of at most 2*M+1 = " +
                           std::to_string(2 * M_ + 1) + ", found " + std::to_string(next));
        std::uint64_t init = 0;
        if (!at_end() && t_[pos_] == ' ') {
            ++pos_;
            init = number("the latch initial value");
            if (init != 0 && init != 1 && init != cur) fail("expected a latch initial value 0, 1 or the latch literal");
        }
        end_of_line();
        define_var(cur, "a latch");
        latches_.push_back({cur / 2, next, init, line});
    }

    void binary_ands()
    {
        for (std::uint64_t i = 0; i < A_; ++i) {
            const std::uint64_t lhs = 2 * (I_ + L_ + i + 1);
            const std::uint64_t d0 = varint(i);
            const std::uint64_t d1 = varint(i);
            if (d0 == 0 || d0 > lhs) fail("expected AND gate " + std::to_string(i) + " to have rhs0 < lhs (bad delta)");
            const std::uint64_t rhs0 = lhs - d0;
            if (d1 > rhs0) fail("expected AND gate " + std::to_string(i) + " to have rhs1 <= rhs0 (bad delta)");
            ands_.push_back({lhs / 2, rhs0, rhs0 - d1, 0}); // binary: no line
            define_var(lhs, "an AND gate");
        }
    }

    std::uint64_t varint(std::uint64_t gate)
    {
        std::uint64_t v = 0;
        int shift = 0;
        for (;;) {
            if (at_end()) fail("unexpected end of file inside the binary AND section (gate " + std::to_string(gate) + " of " + std::to_string(A_) + ")");
            const unsigned char b = static_cast<unsigned char>(t_[pos_++]);
            if (shift > 56) fail("expected a delta that fits in 64 bits");
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
            shift += 7;
        }
    }

    void ascii_ands()
    {
        for (std::uint64_t i = 0; i < A_; ++i) {
            const int line = lines_ended_ + 1;
            const std::uint64_t lhs = read_literal("an AND gate output literal", false);
            expect_char(' ', "a space after the AND output literal");
            const std::uint64_t a = read_literal("an AND gate input literal", false);
            expect_char(' ', "a space between AND input literals");
            const std::uint64_t b = read_literal("an AND gate input literal", true);
            define_var(lhs, "an AND gate");
            ands_.push_back({lhs / 2, a, b, line});
        }
    }

    void symbols()
    {
        while (!at_end()) {
            const char kind = t_[pos_];
            if (kind == 'c') return; // comment section runs to the end of the file
            if (kind == '\n') { ++pos_; continue; }
            if (kind == '\r' && pos_ + 1 < t_.size() && t_[pos_ + 1] == '\n') { // a blank CRLF line
                pos_ += 2;
                continue;
            }
            if (kind != 'i' && kind != 'l' && kind != 'o' && kind != 'b' && kind != 'c' && kind != 'j' && kind != 'f')
                fail("expected a symbol line (i, l or o followed by a position and a name) or 'c'");
            ++pos_;
            const std::uint64_t idx = number("a symbol position");
            expect_char(' ', "a space before the symbol name");
            const std::size_t b = pos_;
            while (!at_end() && t_[pos_] != '\n') ++pos_;
            // As for a literal line: a name cut by the end of the file is no name.
            if (at_end())
                fail("unexpected end of file: expected the end of the symbol line (the file may "
                     "be truncated)");
            std::string_view name = t_.substr(b, pos_ - b);
            if (!name.empty() && name.back() == '\r') name.remove_suffix(1);
            ++pos_;
            if (kind == 'i') { if (idx >= I_) fail("expected an input position below I"); input_names_.resize(I_); input_names_[idx] = name; }
            if (kind == 'l') { if (idx >= L_) fail("expected a latch position below L"); latch_names_.resize(L_); latch_names_[idx] = name; }
            if (kind == 'o') { if (idx >= O_) fail("expected an output position below O"); output_names_.resize(O_); output_names_[idx] = name; }
        }
    }

    /// The net of a literal's variable; constants get one Constant cell on first use.
    NetId net_of(std::uint64_t lit)
    {
        const std::uint64_t v = lit / 2;
        if (v == 0 && var_net_[0] == kNoNet) {
            var_net_[0] = c_.net(own_name("$false")); // an input may be named $false
            c_.add_cell("$false", "CONST0", CellKind::Constant, 0); // the reader's own cell
            c_.add_pin(var_net_[0], Direction::Output);
        }
        if (var_net_[v] == kNoNet) {
            if (!undefined_warned_)
                c_.diagnostics.warn({src_.name()}, "variable " + std::to_string(v) + " is used but never defined");
            undefined_warned_ = true;
            var_net_[v] = c_.net(own_name("n" + std::to_string(v)));
        }
        return var_net_[v];
    }

    /// A name the reader makes (i<k>, l<k>, n<var>), kept apart from the symbol table's names
    /// and from those already given: an input named "n3" merged with AND variable 3.
    std::string own_name(std::string name) const
    {
        while (symbols_.count(name) || c_.net_names.find(name) != kNoName) name += '\'';
        return name;
    }

    void build()
    {
        for (const auto* names : {&input_names_, &latch_names_})
            for (std::string_view s : *names) {
                if (s.empty()) continue;
                symbols_.insert(std::string(s));
                // Shaped like the reader's own (n12): only these can meet an AND's name.
                if (s.size() > 1 && (s[0] == 'n' || s[0] == 'i' || s[0] == 'l') &&
                    s.find_first_not_of("0123456789", 1) == std::string_view::npos)
                    reader_like_ = true;
            }
        // Names first, so that each net is known before its readers refer to it.
        // A symbol given twice (two inputs named a) would merge two variables into one net:
        // the second gets a prime, and one warning says how many.
        std::size_t repeated = 0;
        std::string first_repeated;
        const auto fresh = [&](std::string name) {
            if (c_.net_names.find(name) == kNoName) return name;
            if (repeated++ == 0) first_repeated = name;
            while (c_.net_names.find(name) != kNoName) name += '\'';
            return name;
        };
        for (std::size_t i = 0; i < inputs_.size(); ++i) {
            std::string name = fresh(i < input_names_.size() && !input_names_[i].empty() ? std::string(input_names_[i]) : own_name("i" + std::to_string(i)));
            var_net_[inputs_[i]] = c_.net(name);
            c_.add_port(name, var_net_[inputs_[i]], Direction::Input);
        }
        for (std::size_t i = 0; i < latches_.size(); ++i) {
            std::string name = fresh(i < latch_names_.size() && !latch_names_[i].empty() ? std::string(latch_names_[i]) : own_name("l" + std::to_string(i)));
            var_net_[latches_[i].var] = c_.net(name);
        }
        if (repeated)
            c_.diagnostics.warn({src_.name()}, std::to_string(repeated) + " input or latch name(s) of the symbol table repeat an earlier one (first '" + first_repeated + "'); each repeat got a prime (') to stay its own net");
        std::string buf;
        for (const And& a : ands_) {
            buf = "n";
            buf += std::to_string(a.var);
            // Only a symbol table with names like the reader's pays for the check.
            var_net_[a.var] = reader_like_ ? c_.net(own_name(buf)) : c_.net(buf);
        }
        for (std::size_t i = 0; i < latches_.size(); ++i) {
            const Latch& l = latches_[i];
            // The next state's net first: a constant's first use makes its cell, which must not
            // come between the latch and its pins.
            const NetId next = net_of(l.next);
            const CellId cell = c_.add_cell({}, "LATCH", CellKind::FlipFlop, l.line);
            // AIGER 1.9 reset: 0, 1, or the latch's own literal (uninitialised).
            c_.cells[cell].init = l.init == 0   ? InitValue::Zero
                                  : l.init == 1 ? InitValue::One
                                                : InitValue::Unknown;
            c_.add_pin(next, Direction::Input, "D", l.next & 1);
            c_.add_pin(var_net_[l.var], Direction::Output, "Q");
        }
        for (const And& a : ands_) {
            const NetId out = var_net_[a.var];
            const NetId n0 = net_of(a.rhs0), n1 = net_of(a.rhs1);
            c_.add_cell({}, "AND", CellKind::Logic, a.line);
            c_.add_pin(n0, Direction::Input, {}, a.rhs0 & 1);
            c_.add_pin(n1, Direction::Input, {}, a.rhs1 & 1);
            c_.add_pin(out, Direction::Output);
        }
        for (std::size_t i = 0; i < output_lits_.size(); ++i) {
            std::string name = i < output_names_.size() && !output_names_[i].empty() ? std::string(output_names_[i]) : "o" + std::to_string(i);
            c_.add_port(name, net_of(output_lits_[i]), Direction::Output, output_lits_[i] & 1);
        }
        c_.counts.inputs = static_cast<std::int64_t>(I_);
        c_.counts.outputs = static_cast<std::int64_t>(O_);
        c_.counts.flip_flops = static_cast<std::int64_t>(L_);
        c_.counts.cells = static_cast<std::int64_t>(A_);
        c_.counts.extra["max_variable"] = static_cast<std::int64_t>(M_);
        c_.top = top_name();
    }

    std::string top_name() const
    {
        std::string_view n = src_.name();
        std::size_t slash = n.find_last_of('/');
        if (slash != std::string_view::npos) n.remove_prefix(slash + 1);
        return std::string(n.substr(0, n.find('.')));
    }

    struct Latch { std::uint64_t var, next, init; int line; };
    struct And { std::uint64_t var, rhs0, rhs1; int line; }; ///< line 0: binary

    const SourceText& src_;
    std::string_view t_;
    std::size_t pos_ = 0;
    std::size_t number_at_ = 0;
    int lines_ended_ = 0; ///< newlines consumed by end_of_line
    bool binary_ = false;
    std::uint64_t M_ = 0, I_ = 0, L_ = 0, O_ = 0, A_ = 0, B_ = 0, C_ = 0, J_ = 0, F_ = 0;
    std::vector<std::uint64_t> inputs_;
    std::vector<Latch> latches_;
    std::vector<And> ands_;
    std::vector<std::uint64_t> output_lits_;
    VarTable<std::uint8_t> var_defined_;
    std::vector<std::string_view> input_names_, latch_names_, output_names_;
    std::unordered_set<std::string> symbols_; ///< the symbol table's input and latch names
    bool reader_like_ = false; ///< one of them is shaped like the reader's own, as n12
    VarTable<NetId> var_net_;
    bool undefined_warned_ = false;
    Circuit c_;
};

} // namespace

Circuit read_aiger(const SourceText& src)
{
    return AigerParser(src).parse();
}

} // namespace gsr::netlist
