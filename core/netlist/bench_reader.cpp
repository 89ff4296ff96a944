// ISCAS .bench: INPUT(x), OUTPUT(x), x = GATE(a, b, ...), plus the MUX and LUT lines ABC writes.
#include "netlist/line_scanner.hpp"
#include "netlist/readers.hpp"
#include "util/ascii.hpp"
#include "util/source_text.hpp"

#include <cctype>
#include <string>
#include <vector>

namespace gsr::netlist {

namespace {

bool is_name_char(char c)
{
    return !is_space(c) && c != '(' && c != ')' && c != ',' && c != '=' && c != '#';
}

std::string upper(std::string_view s) { return ascii_upper(s); }

class BenchParser {
public:
    explicit BenchParser(const SourceText& src) : src_(src), lines_(src) {}

    Circuit parse()
    {
        c_.format = "bench";
        c_.source = src_.name();
        c_.top = top_name();
        std::string_view line;
        while (lines_.next(line)) parse_line(line);
        finish();
        return std::move(c_);
    }

private:
    std::string top_name() const
    {
        std::string_view n = src_.name();
        std::size_t slash = n.find_last_of('/');
        if (slash != std::string_view::npos) n.remove_prefix(slash + 1);
        std::size_t dot = n.find('.');
        return std::string(n.substr(0, dot));
    }

    void skip_space(const char*& p, const char* end) { while (p < end && is_space(*p)) ++p; }

    std::string_view name(std::string_view line, const char*& p, const char* end, const char* what)
    {
        skip_space(p, end);
        const char* b = p;
        while (p < end && is_name_char(*p)) ++p;
        if (p == b) lines_.fail(line, p, std::string("expected ") + what);
        return {b, static_cast<std::size_t>(p - b)};
    }

    void expect(std::string_view line, const char*& p, const char* end, char c, const char* what)
    {
        skip_space(p, end);
        if (p >= end || *p != c) lines_.fail(line, p, std::string("expected ") + what);
        ++p;
    }

    void expect_end(std::string_view line, const char* p, const char* end)
    {
        skip_space(p, end);
        if (p < end && *p != '#') lines_.fail(line, p, "expected the end of the line");
    }

    void parse_line(std::string_view line)
    {
        const char* p = line.data();
        const char* end = p + line.size();
        // Anywhere, comments included: a NUL in a name would make a signal nothing else names.
        refuse_control_bytes(src_, lines_.offset_of(line, p), lines_.offset_of(line, end), "bench");
        skip_space(p, end);
        if (p == end || *p == '#') return;
        const std::string_view first = name(line, p, end, "INPUT(...), OUTPUT(...) or NAME = GATE(...)");
        skip_space(p, end);
        if (p < end && *p == '(') {
            const std::string kw = upper(first);
            if (kw != "INPUT" && kw != "OUTPUT")
                lines_.fail(line, first.data(), "expected INPUT, OUTPUT or an assignment 'NAME = GATE(...)'");
            ++p;
            const std::string_view n = name(line, p, end, "a signal name");
            expect(line, p, end, ')', "')'");
            expect_end(line, p, end);
            const NetId net = c_.net(n);
            note_net(net);
            if (kw == "INPUT") {
                c_.add_port(n, net, Direction::Input);
                set_driver(net, line, first.data());
                ++inputs_;
            } else {
                c_.add_port(n, net, Direction::Output);
                ++outputs_;
            }
            return;
        }
        expect(line, p, end, '=', "'=' after the signal name");
        parse_gate(line, first, p, end);
    }

    void parse_gate(std::string_view line, std::string_view out, const char*& p, const char* end)
    {
        const std::string_view type_tok = name(line, p, end, "a gate type after '='");
        std::string type = upper(type_tok);
        if (type == "BUFF") type = "BUF";
        std::string lut_mask;
        const char* lut_at = nullptr;
        skip_space(p, end);
        if (type == "LUT") { // ABC: x = LUT 0x8 ( a, b )
            const char* b = p;
            lut_at = p;
            while (p < end && !is_space(*p) && *p != '(') ++p;
            if (p == b) lines_.fail(line, p, "expected a LUT truth table such as 0x8");
            lut_mask.assign(b, p);
            skip_space(p, end);
        }
        std::vector<std::string_view> ins;
        if (p < end && *p == '(') {
            ++p;
            skip_space(p, end);
            if (p < end && *p == ')') {
                ++p;
            } else {
                for (;;) {
                    ins.push_back(name(line, p, end, "an input signal name"));
                    skip_space(p, end);
                    if (p < end && *p == ',') { ++p; continue; }
                    if (p < end && *p == ')') { ++p; break; }
                    lines_.fail(line, p, "expected ',' or ')' in the input list");
                }
            }
        } else if (type != "VDD" && type != "GND" && type != "CONST0" && type != "CONST1") {
            lines_.fail(line, p, "expected '(' after the gate type");
        }
        expect_end(line, p, end);

        CellKind kind = CellKind::Logic;
        if (type == "DFF") kind = CellKind::FlipFlop;
        else if (type == "VDD" || type == "GND" || type == "CONST0" || type == "CONST1") kind = CellKind::Constant;
        check_arity(line, type_tok, type, ins.size());

        const NetId onet = c_.net(out);
        note_net(onet);
        set_driver(onet, line, out.data());
        const CellId cell = c_.add_cell({}, type, kind, lines_.line()); // named by its output net
        if (lut_at) store_lut(line, lut_at, lut_mask, cell, ins.size());
        for (std::string_view in : ins) {
            const NetId n = c_.net(in);
            note_net(n);
            c_.add_pin(n, Direction::Input);
        }
        c_.add_pin(onet, Direction::Output);
        if (kind == CellKind::FlipFlop) ++flip_flops_;
        else ++gates_;
        fanin_edges_ += static_cast<std::int64_t>(ins.size());
        if (!lut_mask.empty()) c_.counts.extra["lut_cells"] += 1;
    }

    /// `0xHEX`: bit i is the output for input assignment i, the first input being bit 0 of i
    /// (as ABC writes and reads LUT lines: Abc_SopFromTruthHex makes minterm bit b the cube's
    /// column b, i.e. fan-in b). The first hex digit is the most significant.
    void store_lut(std::string_view line, const char* at, const std::string& mask, CellId cell,
                   std::size_t inputs)
    {
        if (inputs > Circuit::kMaxLutInputs)
            lines_.fail(line, at, "expected at most " + std::to_string(Circuit::kMaxLutInputs) +
                                      " inputs for a LUT, found " + std::to_string(inputs));
        if (mask.size() < 3 || mask[0] != '0' || (mask[1] != 'x' && mask[1] != 'X'))
            lines_.fail(line, at, "expected a LUT truth table in hexadecimal such as 0xE8, "
                                  "found '" + mask + "'");
        const std::uint64_t rows = std::uint64_t{1} << inputs;
        const std::size_t words = rows <= 64 ? 1 : static_cast<std::size_t>(rows / 64);
        Circuit::Lut lut;
        lut.cell = cell;
        lut.inputs = static_cast<std::uint32_t>(inputs);
        lut.offset = c_.lut_words.size();
        c_.lut_words.resize(c_.lut_words.size() + words, 0);
        std::uint64_t* table = c_.lut_words.data() + lut.offset;
        for (std::size_t j = 0; j + 2 < mask.size(); ++j) { // j: digit from the right
            const char ch = mask[mask.size() - 1 - j];
            int digit = -1;
            if (ch >= '0' && ch <= '9') digit = ch - '0';
            else if (ch >= 'a' && ch <= 'f') digit = ch - 'a' + 10;
            else if (ch >= 'A' && ch <= 'F') digit = ch - 'A' + 10;
            if (digit < 0)
                lines_.fail(line, at + (mask.size() - 1 - j),
                            std::string("expected a hexadecimal digit in the LUT truth table, "
                                        "found '") + ch + "'");
            for (int b = 0; b < 4; ++b) {
                if (!((digit >> b) & 1)) continue;
                const std::uint64_t row = 4 * static_cast<std::uint64_t>(j) + b;
                if (row >= rows)
                    lines_.fail(line, at, "expected a LUT truth table of at most " +
                                              std::to_string(rows) + " bits for " +
                                              std::to_string(inputs) + " inputs, found " + mask);
                table[row / 64] |= std::uint64_t{1} << (row % 64);
            }
        }
        c_.luts.push_back(lut);
    }

    void check_arity(std::string_view line, std::string_view at, const std::string& type, std::size_t n)
    {
        auto need = [&](std::size_t lo, std::size_t hi, const char* what) {
            if (n < lo || n > hi)
                lines_.fail(line, at.data(), "expected " + std::string(what) + " for " + type +
                                                 ", found " + std::to_string(n));
        };
        if (type == "NOT" || type == "BUF" || type == "DFF") need(1, 1, "exactly 1 input");
        else if (type == "MUX") need(3, 3, "exactly 3 inputs (select, a, b)");
        // A constant's inputs would be fan-ins of a node whose level is 0 by definition.
        else if (type == "VDD" || type == "GND" || type == "CONST0" || type == "CONST1")
            need(0, 0, "no input");
        else if (type == "AND" || type == "NAND" || type == "OR" || type == "NOR" ||
                 type == "XOR" || type == "XNOR")
            need(1, static_cast<std::size_t>(-1), "at least 1 input");
        else if (type != "LUT" && unknown_types_warned_++ < 20)
            c_.diagnostics.warn(lines_.here(line, at.data()), "unknown gate type " + type + ", kept as a logic cell");
    }

    void note_net(NetId n)
    {
        if (n >= driver_line_.size()) driver_line_.resize(n + 1, 0);
    }

    void set_driver(NetId n, std::string_view line, const char* at)
    {
        if (driver_line_[n] != 0)
            lines_.fail(line, at, "expected each signal to be driven once: " + std::string(c_.net_name(n)) +
                                      " is already driven on line " + std::to_string(driver_line_[n]));
        driver_line_[n] = lines_.line();
    }

    void finish()
    {
        if (inputs_ + outputs_ + gates_ + flip_flops_ == 0) // blank lines and comments only
            throw Error(SourceLocation{src_.name(), 1, 1},
                        "expected INPUT(...), OUTPUT(...) or a gate: the file has no bench "
                        "statements");
        std::int64_t driven = 0, undriven = 0;
        for (NetId n = 0; n < driver_line_.size(); ++n) {
            if (driver_line_[n] != 0) { ++driven; continue; }
            ++undriven;
            c_.diagnostics.warn({src_.name()}, "signal " + std::string(c_.net_name(n)) + " is used but never driven");
        }
        c_.counts.inputs = inputs_;
        c_.counts.outputs = outputs_;
        c_.counts.flip_flops = flip_flops_;
        c_.counts.cells = gates_;
        c_.counts.nets = driven;
        c_.counts.extra["fanin_edges"] = fanin_edges_;
        if (undriven) c_.counts.extra["undriven_nets"] = undriven;
    }

    const SourceText& src_;
    LineScanner lines_;
    Circuit c_;
    std::vector<int> driver_line_; ///< per net: line of its driver, 0 when undriven
    std::int64_t inputs_ = 0, outputs_ = 0, flip_flops_ = 0, gates_ = 0, fanin_edges_ = 0;
    int unknown_types_warned_ = 0;
};

} // namespace

Circuit read_bench(const SourceText& src)
{
    check_text_input(src, "bench");
    return BenchParser(src).parse();
}

} // namespace gsr::netlist
