// Liberty: a tree of groups `name (args) { ... }` holding simple attributes `name : value ;` and
// complex attributes `name (args) ;`. The tree is walked with an explicit stack (groups nest
// deeply in timing tables); kept are cells, their pins, bus/bundle members, ff/latch groups,
// area, and the NLDM model: the units, lu_table_templates, wire_load groups, pin capacitances
// and, per `timing ()` group of a pin, the cell_rise/cell_fall/rise_transition/fall_transition
// tables. Tables are put in (transition, load) order and converted to ns and pF once the whole
// library is read, so time_unit may come anywhere in the library group. Timing groups of bus
// members, CCS and power tables are not kept.
#include "netlist/hierarchy_budget.hpp"
#include "netlist/lefdef_lexer.hpp"
#include "netlist/readers.hpp"
#include "util/ascii.hpp"
#include "util/source_text.hpp"
#include "util/utf8_text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace gsr::netlist {

namespace {

enum class Tok : std::uint8_t {
    Word,
    String,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Colon,
    Semi,
    Comma,
    End
};

struct Token {
    Tok kind = Tok::End;
    std::string_view text;    ///< a word, or a string without its quotes
    std::size_t offset = 0;   ///< first byte (the opening quote of a string)
    bool line_before = false; ///< a line break separates it from the token before
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

class LibertyLexer {
public:
    explicit LibertyLexer(const SourceText& src)
        : src_(src), text_(src.text()), pos_(bom_length(src.text()))
    {
    }

    Token next()
    {
        if (has_peeked_) {
            has_peeked_ = false;
            return peeked_;
        }
        return scan();
    }
    const Token& peek()
    {
        if (!has_peeked_) {
            peeked_ = scan();
            has_peeked_ = true;
        }
        return peeked_;
    }

private:
    Token scan()
    {
        const char* const begin = text_.data();
        const char* const end = begin + text_.size();
        const char* p = begin + pos_;
        bool line = false;
        for (;;) {
            while (p < end && is_blank(*p)) ++p;
            if (p >= end) break;
            if (*p == '\n') {
                line = true;
                ++p;
            } else if (*p == '\\' && continuation(p, end)) {
                // `\` at the end of a line joins the lines: not a line break.
            } else if (*p == '/' && p + 1 < end && p[1] == '*') {
                const char* q = p + 2;
                for (;;) {
                    const void* star = std::memchr(q, '*', static_cast<std::size_t>(end - q));
                    if (!star || static_cast<const char*>(star) + 1 >= end)
                        src_.fail(
                            static_cast<std::size_t>(p - begin),
                            "unterminated comment: expected '*/' before the end of the file");
                    q = static_cast<const char*>(star) + 1;
                    if (*q == '/') break;
                }
                if (std::memchr(p, '\n', static_cast<std::size_t>(q - p))) line = true;
                p = q + 1;
            } else if (*p == '/' && p + 1 < end && p[1] == '/') {
                const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
                p = nl ? static_cast<const char*>(nl) : end;
            } else {
                break;
            }
        }
        Token t;
        t.offset = static_cast<std::size_t>(p - begin);
        t.line_before = line;
        if (p >= end) {
            pos_ = text_.size();
            return t;
        }
        const char c = *p;
        Tok single = Tok::End;
        switch (c) {
        case '(': single = Tok::LParen; break;
        case ')': single = Tok::RParen; break;
        case '{': single = Tok::LBrace; break;
        case '}': single = Tok::RBrace; break;
        case ':': single = Tok::Colon; break;
        case ';': single = Tok::Semi; break;
        case ',': single = Tok::Comma; break;
        default: break;
        }
        if (single != Tok::End) {
            t.kind = single;
            t.text = std::string_view(p, 1);
            pos_ = t.offset + 1;
            return t;
        }
        if (c == '"') {
            const char* q = p + 1;
            while (q < end && *q != '"') q += (*q == '\\' && q + 1 < end) ? 2 : 1;
            if (q >= end)
                src_.fail(
                    t.offset,
                    "unterminated string: expected a closing '\"' before the end of the file");
            t.kind = Tok::String;
            t.text = std::string_view(p + 1, static_cast<std::size_t>(q - p - 1));
            pos_ = static_cast<std::size_t>(q + 1 - begin);
            return t;
        }
        // A word: names, numbers, unquoted expressions. ':' belongs to it inside brackets,
        // as in the bus range A[0:3].
        const char* q = p;
        int bracket = 0;
        while (q < end) {
            const char d = *q;
            if (is_blank(d) || d == '\n' || d == '(' || d == ')' || d == '{' || d == '}' ||
                d == ';' || d == ',' || d == '"')
                break;
            if (d == ':' && bracket == 0) break;
            if (d == '/' && q + 1 < end && (q[1] == '*' || q[1] == '/')) break;
            if (d == '\\' && continuation_ahead(q, end)) break;
            if (d == '[')
                ++bracket;
            else if (d == ']' && bracket > 0)
                --bracket;
            const unsigned char u = static_cast<unsigned char>(d);
            if (u < 0x20 || u == 0x7f) {
                src_.fail(static_cast<std::size_t>(q - begin),
                          "unexpected byte " + hex_byte(u) + ": expected Liberty text");
            }
            ++q;
        }
        t.kind = Tok::Word;
        t.text = std::string_view(p, static_cast<std::size_t>(q - p));
        pos_ = static_cast<std::size_t>(q - begin);
        return t;
    }

    /// True (and steps over it) when p starts `\` + blanks + newline.
    static bool continuation(const char*& p, const char* end)
    {
        const char* q = p + 1;
        while (q < end && is_blank(*q)) ++q;
        if (q < end && *q != '\n') return false;
        p = q < end ? q + 1 : q;
        return true;
    }
    static bool continuation_ahead(const char* p, const char* end)
    {
        const char* q = p;
        return continuation(q, end);
    }

    const SourceText& src_;
    std::string_view text_;
    std::size_t pos_ = 0;
    Token peeked_;
    bool has_peeked_ = false;
};

enum class Group : std::uint8_t {
    Library,
    Cell,
    Pin,
    Bus,
    Bundle,
    Type,
    Template, ///< lu_table_template
    Timing,   ///< timing () of a pin
    Table,    ///< cell_rise, cell_fall, rise_transition, fall_transition
    WireLoad, ///< wire_load
    FlipFlop, ///< ff (IQ, IQN) of a cell
    Other
};

/// What a table template's variable_1/variable_2 says an axis is.
enum class Axis : std::uint8_t { None, Transition, Load, Other };

struct Template {
    Axis var1 = Axis::None, var2 = Axis::None;
    std::vector<double> index_1, index_2;
};

/// A table group being read: its own indices (when it overrides the template's) and values.
struct RawTable {
    std::string_view kind;     ///< cell_rise ...
    std::string_view tmpl;     ///< template name
    std::size_t offset = 0;
    std::vector<double> index_1, index_2, values;
    bool has_index_1 = false, has_index_2 = false;
    std::size_t rows = 0; ///< strings in values (): the rows of a 2-D table
};

struct Frame {
    Group kind = Group::Other;
    std::string_view name; ///< the group keyword: cell, pin, timing ...
    std::string_view arg;  ///< its first argument
    std::size_t offset = 0;
    std::vector<std::uint32_t> pins; ///< Pin: the cell pins it declares
    std::uint32_t first_member = 0;  ///< Bus, Bundle: cell pins added inside it start here
    Direction dir = Direction::Unknown;
    std::string_view function;
    bool has_function = false;
    std::string_view bus_type;
    std::vector<std::string_view> members;             ///< Bundle
    long long bit_from = 0, bit_to = 0, bit_width = 0; ///< Type
    bool has_from = false, has_to = false;
    double capacitance = -1.0, rise_fall_capacitance = -1.0; ///< Pin: raw library units
};

struct BusType {
    long long from = 0, to = 0;
};

/// Bits one bus or pin range may have: far beyond any memory macro, and a bound on what a
/// few bytes of text (A[0:1000000000]) may cost.
constexpr std::uint64_t kMaxBusBits = std::uint64_t{1} << 20;

/// Members of the range a..b, without the overflow of b - a at the ends of long long.
std::uint64_t range_bits(long long a, long long b)
{
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    const std::uint64_t span = a <= b ? ub - ua : ua - ub;
    return span == UINT64_MAX ? span : span + 1;
}

class LibertyParser {
public:
    explicit LibertyParser(const SourceText& src)
        : src_(src), lex_(src), locator_(src), pin_budget_(flattening_budget(src.size()))
    {
    }

    Library parse()
    {
        check_text_input(src_, "Liberty");
        lib_.source = src_.name();
        lib_.format = "liberty";
        for (;;) {
            const Token t = lex_.next();
            if (t.kind == Tok::End) break;
            if (t.kind == Tok::RBrace) {
                if (stack_.empty()) src_.fail(t.offset, "unexpected '}': no group is open");
                close_group();
                if (lex_.peek().kind == Tok::Semi) lex_.next(); // `};` is common and harmless
                continue;
            }
            if (t.kind == Tok::Semi && !stack_.empty()) continue; // a stray ';'
            if (t.kind != Tok::Word) {
                if (stack_.empty()) fail_expected(t, "'library (NAME) {' at the top level");
                fail_expected(t, "an attribute or group name");
            }
            statement(t);
        }
        if (!stack_.empty()) {
            const Frame& f = stack_.back();
            src_.fail(src_.size(), "unexpected end of file: expected '}' to close the group '" +
                                       std::string(f.name) + " (" + std::string(f.arg) +
                                       ")' opened on line " +
                                       std::to_string(src_.location(f.offset).line));
        }
        if (!seen_library_)
            src_.fail(src_.size(),
                      "unexpected end of file: expected a 'library (NAME) { ... }' group");
        apply_units();
        lib_.counts.cells = cells_;
        lib_.counts.flip_flops = ff_groups_ + latch_groups_;
        lib_.counts.extra["pin_groups"] = pin_groups_;
        lib_.counts.extra["ff_groups"] = ff_groups_;
        lib_.counts.extra["latch_groups"] = latch_groups_;
        lib_.index();
        return std::move(lib_);
    }

private:
    static std::string show(const Token& t)
    {
        if (t.kind == Tok::End) return "the end of the file";
        std::string_view s = t.text;
        const bool cut = s.size() > 40;
        if (cut) s = s.substr(0, utf8_cut(s, 40));
        const char q = t.kind == Tok::String ? '"' : '\'';
        std::string out(1, q);
        out.append(s);
        if (cut) out += "...";
        out += q;
        return out;
    }

    [[noreturn]] void fail_expected(const Token& t, const std::string& what) const
    {
        src_.fail(t.offset, "expected " + what + ", found " + show(t));
    }

    void warn(std::size_t offset, std::string message)
    {
        if (warned_++ < 100) lib_.diagnostics.warn(locator_.locate(offset), std::move(message));
    }

    void statement(const Token& name)
    {
        const Token t = lex_.next();
        if (t.kind == Tok::Colon) return simple_attribute(name);
        if (t.kind == Tok::LParen) return parenthesized(name, t);
        fail_expected(t, "':' or '(' after '" + std::string(name.text) + "'");
    }

    void simple_attribute(const Token& name)
    {
        if (stack_.empty()) fail_expected(name, "'library (NAME) {' at the top level");
        const Token first = lex_.next();
        if (first.kind != Tok::Word && first.kind != Tok::String)
            fail_expected(first, "a value after '" + std::string(name.text) + " :'");
        auto end_of = [](const Token& t) {
            return t.offset + t.text.size() + (t.kind == Tok::String ? 2 : 0);
        };
        std::string_view value = first.text;
        // Unquoted expressions (`0.5 * VDD`) run to the end of the line.
        Token second;
        std::size_t last_end = end_of(first);
        while ((lex_.peek().kind == Tok::Word || lex_.peek().kind == Tok::String) &&
               !lex_.peek().line_before) {
            const Token more = lex_.next();
            if (second.kind == Tok::End) second = more;
            last_end = end_of(more);
            value = src_.text().substr(first.offset, last_end - first.offset);
        }
        const Token& end = lex_.peek();
        if (end.kind == Tok::Semi) {
            lex_.next();
        } else if (!(end.line_before || end.kind == Tok::RBrace || end.kind == Tok::End)) {
            // The ';' is optional at the end of a line, as most readers accept. When several
            // words were taken for one value, the ';' most likely belonged after the first.
            const std::string what =
                "expected ';' after the value of '" + std::string(name.text) + "', found ";
            if (second.kind != Tok::End) src_.fail(end_of(first), what + show(second));
            src_.fail(last_end, what + show(end));
        }
        on_simple(name, value, first.offset);
    }

    void parenthesized(const Token& name, const Token& open)
    {
        args_.clear();
        int depth = 0;
        bool want_arg = true;
        for (;;) {
            const Token t = lex_.next();
            switch (t.kind) {
            case Tok::Word:
            case Tok::String:
                if (depth == 0) {
                    if (!want_arg)
                        fail_expected(t, "',' or ')' between the arguments of '" +
                                             std::string(name.text) + "'");
                    args_.push_back(t.text);
                    want_arg = false;
                }
                continue;
            case Tok::Comma:
                if (depth == 0) want_arg = true;
                continue;
            case Tok::LParen: ++depth; continue;
            case Tok::RParen:
                if (depth-- > 0) continue;
                break;
            case Tok::End:
                src_.fail(t.offset,
                          "unexpected end of file: expected ')' to close the arguments of '" +
                              std::string(name.text) + "' opened on line " +
                              std::to_string(src_.location(open.offset).line));
            default:
                fail_expected(t, "')' to close the arguments of '" + std::string(name.text) + "'");
            }
            break;
        }
        const Token& after = lex_.peek();
        if (after.kind == Tok::LBrace) {
            lex_.next();
            open_group(name);
            return;
        }
        if (stack_.empty()) fail_expected(after, "'{' after 'library (...)'");
        if (after.kind == Tok::Semi)
            lex_.next();
        else if (!(after.line_before || after.kind == Tok::RBrace || after.kind == Tok::End))
            fail_expected(after, "';' or '{' after '" + std::string(name.text) + " (...)'");
        on_complex(name);
    }

    LibraryCell* cell()
    {
        return current_cell_ < lib_.cells.size() ? &lib_.cells[current_cell_] : nullptr;
    }

    /// The cell pin named `name`, added when new.
    std::uint32_t cell_pin(std::string_view name)
    {
        LibraryCell& c = lib_.cells[current_cell_];
        // A map, not a scan: memory macros have thousands of bus bits.
        const auto [it, added] =
            pin_index_.emplace(std::string(name), static_cast<std::uint32_t>(c.pins.size()));
        if (!added) return it->second;
        LibraryPin p;
        p.name = it->first;
        c.pins.push_back(std::move(p));
        return it->second;
    }

    /// Counts `bits` pins about to be made against the library's budget (as for the
    /// flattening readers, 8 a byte of the file + 2^22); `what()` names them in the error,
    /// made only then (this runs for every pin).
    template <class What>
    void charge_pins(std::uint64_t bits, std::size_t offset, const What& what)
    {
        pins_charged_ = saturating_add(pins_charged_, bits);
        if (pins_charged_ > pin_budget_)
            src_.fail(offset, "expected at most " + std::to_string(pin_budget_) +
                                  " pins in a library of " + std::to_string(src_.size()) +
                                  " bytes (8 a byte + 4194304), found more at " + what());
    }

    /// `A[0:3]` names four pins A[0]..A[3]; anything else names one.
    template <class Fn>
    void expand_range(std::string_view name, Fn&& add)
    {
        const std::size_t offset = offset_of(name);
        const std::size_t lb = name.find('[');
        const std::size_t colon = name.find(':', lb == std::string_view::npos ? 0 : lb);
        if (lb != std::string_view::npos && colon != std::string_view::npos &&
            name.back() == ']') {
            long long a = 0, b = 0;
            const char* s = name.data();
            auto ra = std::from_chars(s + lb + 1, s + colon, a);
            auto rb = std::from_chars(s + colon + 1, s + name.size() - 1, b);
            if (ra.ec == std::errc() && ra.ptr == s + colon && rb.ec == std::errc() &&
                rb.ptr == s + name.size() - 1) {
                const std::uint64_t bits = range_bits(a, b);
                if (bits > kMaxBusBits)
                    src_.fail(offset, "expected a bus range of at most " +
                                          std::to_string(kMaxBusBits) + " bits, found " +
                                          shortened_utf8(name, 83) + " (" + std::to_string(bits) + " bits)");
                charge_pins(bits, offset, [&] { return shortened_utf8(name, 83); });
                const std::string base(name.substr(0, lb));
                const long long step = a <= b ? 1 : -1;
                for (long long i = a;; i += step) {
                    add(base + "[" + std::to_string(i) + "]");
                    if (i == b) break;
                }
                return;
            }
        }
        charge_pins(1, offset, [&] { return "pin " + shortened_utf8(name, 83); });
        add(std::string(name));
    }

    void open_group(const Token& name)
    {
        Frame f;
        f.name = name.text;
        f.arg = args_.empty() ? std::string_view{} : args_.front();
        f.offset = name.offset;
        const std::string_view kw = name.text;
        const Group parent = stack_.empty() ? Group::Other : stack_.back().kind;
        const bool in_cell = cell() != nullptr;
        if (stack_.empty()) {
            if (kw != "library") fail_expected(name, "'library (NAME) {' at the top level");
            f.kind = Group::Library;
            seen_library_ = true;
            if (lib_.name.empty()) lib_.name = std::string(f.arg);
        } else if (kw == "cell" && parent == Group::Library) {
            if (args_.empty()) src_.fail(name.offset, "expected a cell name in 'cell (NAME)'");
            f.kind = Group::Cell;
            ++cells_;
            if (seen_cells_.count(std::string(f.arg)))
                warn(name.offset,
                     "cell " + std::string(f.arg) + " is defined twice; the first is kept");
            seen_cells_.emplace(std::string(f.arg), lib_.cells.size());
            LibraryCell c;
            c.storage_known = true;
            c.name = std::string(f.arg);
            lib_.cells.push_back(std::move(c));
            current_cell_ = lib_.cells.size() - 1;
            pin_index_.clear();
        } else if (kw == "pin") {
            ++pin_groups_;
            if (in_cell &&
                (parent == Group::Cell || parent == Group::Bus || parent == Group::Bundle)) {
                if (args_.empty()) src_.fail(name.offset, "expected a pin name in 'pin (NAME)'");
                f.kind = Group::Pin;
                for (std::string_view a : args_)
                    expand_range(a, [&](const std::string& n) { f.pins.push_back(cell_pin(n)); });
            }
        } else if ((kw == "bus" || kw == "bundle") && in_cell && parent == Group::Cell) {
            if (args_.empty())
                src_.fail(name.offset, "expected a name in '" + std::string(kw) + " (NAME)'");
            f.kind = kw == "bus" ? Group::Bus : Group::Bundle;
            f.first_member = static_cast<std::uint32_t>(lib_.cells[current_cell_].pins.size());
        } else if (kw == "ff" || kw == "latch" || kw == "ff_bank" || kw == "latch_bank") {
            const bool ff = kw[0] == 'f';
            if (kw == "ff")
                ++ff_groups_;
            else if (kw == "latch")
                ++latch_groups_;
            if (in_cell) {
                LibraryCell& cell = lib_.cells[current_cell_];
                if (kw == "ff" && parent == Group::Cell && !cell.is_ff) {
                    f.kind = Group::FlipFlop; // its attributes are the cell's ff
                    cell.ff.state = args_.size() > 0 ? std::string(args_[0]) : std::string();
                    cell.ff.state_inverse = args_.size() > 1 ? std::string(args_[1]) : std::string();
                }
                (ff ? cell.is_ff : cell.is_latch) = true;
            }
        } else if (kw == "type") {
            f.kind = Group::Type;
        } else if (kw == "lu_table_template" && parent == Group::Library) {
            f.kind = Group::Template;
            template_ = Template{};
        } else if (kw == "wire_load" && parent == Group::Library) {
            f.kind = Group::WireLoad;
            wire_ = WireLoad{};
            wire_.name = std::string(f.arg);
        } else if (kw == "timing" && parent == Group::Pin && in_cell) {
            f.kind = Group::Timing;
            arc_ = TimingArc{};
            arc_pins_ = stack_.back().pins;
        } else if (parent == Group::Timing &&
                   (kw == "cell_rise" || kw == "cell_fall" || kw == "rise_transition" ||
                    kw == "fall_transition")) {
            f.kind = Group::Table;
            table_ = RawTable{};
            table_.kind = kw;
            table_.tmpl = f.arg;
            table_.offset = name.offset;
        }
        stack_.push_back(std::move(f));
    }

    void close_group()
    {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        switch (f.kind) {
        case Group::Cell: current_cell_ = static_cast<std::size_t>(-1); break;
        case Group::Pin: close_pin(f); break;
        case Group::Template: templates_[std::string(f.arg)] = std::move(template_); break;
        case Group::WireLoad: close_wire_load(); break;
        case Group::Timing: close_timing(); break;
        case Group::Table: close_table(f); break;
        case Group::Bus: close_bus(f); break;
        case Group::Bundle: close_bundle(f); break;
        case Group::Type:
            if (!f.arg.empty()) {
                BusType bt;
                if (f.has_from && f.has_to) {
                    bt.from = f.bit_from;
                    bt.to = f.bit_to;
                } else if (f.bit_width > 0) {
                    bt.from = 0;
                    bt.to = f.bit_width - 1;
                }
                types_[std::string(f.arg)] = bt;
            }
            break;
        default: break;
        }
    }

    /// Member pins without a direction of their own take the bus's.
    void inherit(const Frame& f)
    {
        LibraryCell& c = lib_.cells[current_cell_];
        for (std::size_t i = f.first_member; i < c.pins.size(); ++i) {
            if (c.pins[i].dir == Direction::Unknown) c.pins[i].dir = f.dir;
            if (c.pins[i].function.empty() && f.has_function)
                c.pins[i].function = std::string(f.function);
        }
    }

    void close_bus(const Frame& f)
    {
        auto it = types_.find(std::string(f.bus_type));
        if (it == types_.end()) {
            if (f.bus_type.empty())
                warn(f.offset, "bus " + std::string(f.arg) + " has no bus_type");
            else
                warn(f.offset, "bus " + std::string(f.arg) + " has bus_type " +
                                   std::string(f.bus_type) + ", which no type group defines");
            if (lib_.cells[current_cell_].pins.size() == f.first_member) {
                charge_pins(1, f.offset, [&] { return "bus " + std::string(f.arg); });
                cell_pin(f.arg);
            }
        } else {
            const long long a = it->second.from, b = it->second.to;
            const std::uint64_t bits = range_bits(a, b);
            const std::string what = "bus " + std::string(f.arg) + " (bus_type " +
                                     std::string(f.bus_type) + ": bits " + std::to_string(a) +
                                     " to " + std::to_string(b) + ")";
            if (bits > kMaxBusBits)
                src_.fail(f.offset, "expected a bus of at most " + std::to_string(kMaxBusBits) +
                                        " bits, found " + what);
            charge_pins(bits, f.offset, [&] { return what; });
            const long long step = a <= b ? 1 : -1;
            for (long long i = a;; i += step) {
                cell_pin(std::string(f.arg) + "[" + std::to_string(i) + "]");
                if (i == b) break;
            }
        }
        inherit(f);
    }

    void close_bundle(const Frame& f)
    {
        charge_pins(f.members.size() + 1, f.offset,
                    [&] { return "bundle " + std::string(f.arg); });
        for (std::string_view m : f.members) cell_pin(m);
        if (lib_.cells[current_cell_].pins.size() == f.first_member) cell_pin(f.arg);
        inherit(f);
    }

    Direction parse_direction(std::string_view v, std::size_t offset)
    {
        if (v == "input") return Direction::Input;
        if (v == "output") return Direction::Output;
        if (v == "inout") return Direction::InOut;
        // `internal` pins never meet a net; the model has no direction for them.
        if (v != "internal") warn(offset, "unknown pin direction '" + std::string(v) + "'");
        return Direction::Unknown;
    }

    /// A finite number: from_chars also reads "nan" and "inf", which no table or capacitance
    /// can mean (a NaN delay became 0 in the arrival times, without a word).
    static bool to_number(std::string_view v, double& out)
    {
        auto r = std::from_chars(v.data(), v.data() + v.size(), out);
        return r.ec == std::errc() && r.ptr == v.data() + v.size() && std::isfinite(out);
    }

    /// A type group's bit_width, bit_from or bit_to: a whole number that fits in 32 bits (a
    /// cast of -1e30 to long long was undefined, and gave LLONG_MIN).
    long long bit_number(double v, std::string_view attr, std::string_view value,
                         std::size_t offset) const
    {
        if (!(std::fabs(v) < 2147483648.0) || v != std::floor(v))
            src_.fail(offset, "expected " + std::string(attr) +
                                  " to be a whole number between -2147483647 and 2147483647, "
                                  "found '" + std::string(value.substr(0, 40)) + "'");
        return static_cast<long long>(v);
    }

    void on_simple(const Token& name, std::string_view value, std::size_t offset)
    {
        Frame& f = stack_.back();
        const std::string_view a = name.text;
        switch (f.kind) {
        case Group::Pin:
            if (a == "direction") {
                const Direction d = parse_direction(value, offset);
                for (std::uint32_t i : f.pins) lib_.cells[current_cell_].pins[i].dir = d;
            } else if (a == "function") {
                for (std::uint32_t i : f.pins)
                    lib_.cells[current_cell_].pins[i].function = std::string(value);
            } else if (a == "three_state") {
                for (std::uint32_t i : f.pins)
                    lib_.cells[current_cell_].pins[i].three_state = std::string(value);
            } else if (a == "capacitance") {
                f.capacitance = number(value, offset, "capacitance");
            } else if (a == "rise_capacitance" || a == "fall_capacitance") {
                f.rise_fall_capacitance =
                    std::max(f.rise_fall_capacitance, number(value, offset, "capacitance"));
            }
            break;
        case Group::Library:
            if (a == "time_unit")
                lib_.time_unit_ns = unit_scale(value, offset);
            else if (a == "default_wire_load")
                lib_.default_wire_load = std::string(value);
            break;
        case Group::Template:
            if (a == "variable_1")
                template_.var1 = axis_of(value);
            else if (a == "variable_2")
                template_.var2 = axis_of(value);
            break;
        case Group::WireLoad:
            if (a == "capacitance")
                wire_.capacitance = number(value, offset, "wire_load capacitance");
            else if (a == "slope")
                wire_.slope = number(value, offset, "wire_load slope");
            break;
        case Group::Timing:
            if (a == "related_pin") {
                arc_.related_pins.clear();
                std::size_t i = 0;
                while (i < value.size()) { // "A B": one arc from each
                    while (i < value.size() && (value[i] == ' ' || value[i] == '\t')) ++i;
                    const std::size_t j = std::min(value.find_first_of(" \t", i), value.size());
                    if (j > i) arc_.related_pins.emplace_back(value.substr(i, j - i));
                    i = j;
                }
            } else if (a == "timing_type") {
                arc_.type = arc_type(value);
            }
            break;
        case Group::Bus:
        case Group::Bundle:
            if (a == "direction")
                f.dir = parse_direction(value, offset);
            else if (a == "function") {
                f.function = value;
                f.has_function = true;
            } else if (a == "bus_type")
                f.bus_type = value;
            break;
        case Group::FlipFlop: {
            FlipFlopGroup& ff = lib_.cells[current_cell_].ff;
            if (a == "next_state") ff.next_state = std::string(value);
            else if (a == "clear") ff.clear = std::string(value);
            else if (a == "preset") ff.preset = std::string(value);
            else if (a == "clear_preset_var1") ff.clear_preset_var1 = std::string(value);
            else if (a == "clear_preset_var2") ff.clear_preset_var2 = std::string(value);
            break;
        }
        case Group::Cell:
            if (a == "area") {
                double v = 0;
                if (!to_number(value, v))
                    warn(offset, "area of cell " + std::string(f.arg) + " is not a number");
                lib_.cells[current_cell_].area = v;
            }
            break;
        case Group::Type: {
            double v = 0;
            const bool num = to_number(value, v);
            if (a == "bit_width" && num)
                f.bit_width = bit_number(v, a, value, offset);
            else if (a == "bit_from" && num) {
                f.bit_from = bit_number(v, a, value, offset);
                f.has_from = true;
            } else if (a == "bit_to" && num) {
                f.bit_to = bit_number(v, a, value, offset);
                f.has_to = true;
            }
            break;
        }
        default: break;
        }
    }

    void on_complex(const Token& name)
    {
        Frame& f = stack_.back();
        const std::string_view a = name.text;
        if (f.kind == Group::Bundle && a == "members")
            f.members.insert(f.members.end(), args_.begin(), args_.end());
        else if (f.kind == Group::Library && a == "capacitive_load_unit")
            lib_.cap_unit_pf = capacitance_scale(name);
        else if (f.kind == Group::Template && a == "index_1")
            template_.index_1 = numbers(name);
        else if (f.kind == Group::Template && a == "index_2")
            template_.index_2 = numbers(name);
        else if (f.kind == Group::Table && a == "index_1") {
            table_.index_1 = numbers(name);
            table_.has_index_1 = true;
        } else if (f.kind == Group::Table && a == "index_2") {
            table_.index_2 = numbers(name);
            table_.has_index_2 = true;
        } else if (f.kind == Group::Table && a == "values") {
            table_.values = numbers(name);
            table_.rows = args_.size();
        } else if (f.kind == Group::WireLoad && a == "fanout_length") {
            const std::vector<double> v = numbers(name);
            if (v.size() != 2)
                src_.fail(name.offset, "expected 'fanout_length (FANOUT, LENGTH)'");
            wire_.fanout_length.emplace_back(v[0], v[1]);
        }
    }

    // --- NLDM -----------------------------------------------------------------------------

    /// Offset of a view into the source text (every token is one).
    std::size_t offset_of(std::string_view v) const
    {
        return static_cast<std::size_t>(v.data() - src_.text().data());
    }

    double number(std::string_view v, std::size_t offset, const char* what)
    {
        double x = 0.0;
        if (!to_number(v, x))
            src_.fail(offset, std::string("expected a number for ") + what + ", found '" +
                                  std::string(v.substr(0, 40)) + "'");
        return x;
    }

    /// The numbers of all arguments of a complex attribute: `("1, 2", "3, 4")` or `(1, 2)`.
    std::vector<double> numbers(const Token& name)
    {
        std::vector<double> out;
        for (std::string_view arg : args_) {
            std::size_t i = 0;
            while (i < arg.size()) {
                while (i < arg.size() &&
                       (arg[i] == ',' || arg[i] == ' ' || arg[i] == '\t' || arg[i] == '\\' ||
                        arg[i] == '\n' || arg[i] == '\r'))
                    ++i;
                if (i >= arg.size()) break;
                std::size_t j = i;
                while (j < arg.size() && arg[j] != ',' && arg[j] != ' ' && arg[j] != '\t' &&
                       arg[j] != '\n' && arg[j] != '\r')
                    ++j;
                double x = 0.0;
                if (!to_number(arg.substr(i, j - i), x))
                    src_.fail(offset_of(arg) + i, "expected a number in '" +
                                                      std::string(name.text) + "', found '" +
                                                      std::string(arg.substr(i, j - i)) + "'");
                out.push_back(x);
                i = j;
            }
        }
        return out;
    }

    static Axis axis_of(std::string_view v)
    {
        if (v == "input_net_transition" || v == "input_transition_time")
            return Axis::Transition;
        if (v == "total_output_net_capacitance") return Axis::Load;
        return Axis::Other;
    }

    static TimingArc::Type arc_type(std::string_view v)
    {
        if (v.substr(0, 13) == "combinational" || v == "three_state_enable" ||
            v == "three_state_disable")
            return TimingArc::Type::Combinational;
        if (v == "rising_edge" || v == "falling_edge") return TimingArc::Type::ClockEdge;
        return TimingArc::Type::Other;
    }

    /// "1ns", "100ps", "1.0 ns": the unit in ns.
    double unit_scale(std::string_view v, std::size_t offset)
    {
        std::size_t i = 0;
        while (i < v.size() && (std::isdigit(static_cast<unsigned char>(v[i])) || v[i] == '.'))
            ++i;
        double x = 1.0;
        if (i > 0 && !to_number(v.substr(0, i), x)) x = 1.0;
        std::string_view u = v.substr(i);
        while (!u.empty() && u.front() == ' ') u.remove_prefix(1);
        static constexpr std::pair<std::string_view, double> kTime[] = {
            {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1.0}, {"ps", 1e-3}, {"fs", 1e-6}};
        for (const auto& [name, scale] : kTime)
            if (u == name) return x * scale;
        warn(offset, "unknown time_unit '" + std::string(v) + "'; taken as 1ns");
        return 1.0;
    }

    /// capacitive_load_unit (1, pf): the unit in pF.
    double capacitance_scale(const Token& name)
    {
        if (args_.size() != 2) {
            warn(name.offset, "expected 'capacitive_load_unit (VALUE, pf|ff)'; taken as 1pf");
            return 1.0;
        }
        double x = 1.0;
        if (!to_number(args_[0], x)) x = 1.0;
        const std::string u = ascii_lower(args_[1]);
        static constexpr std::pair<std::string_view, double> kCap[] = {
            {"f", 1e12}, {"mf", 1e9}, {"uf", 1e6}, {"nf", 1e3}, {"pf", 1.0}, {"ff", 1e-3}};
        for (const auto& [unit, scale] : kCap)
            if (u == unit) return x * scale;
        warn(name.offset, "unknown capacitive_load_unit '" + u + "'; taken as 1pf");
        return 1.0;
    }

    void close_pin(const Frame& f)
    {
        const double cap = f.capacitance >= 0.0 ? f.capacitance : f.rise_fall_capacitance;
        if (cap < 0.0) return;
        for (std::uint32_t i : f.pins) lib_.cells[current_cell_].pins[i].capacitance = cap;
    }

    void close_wire_load()
    {
        std::sort(wire_.fanout_length.begin(), wire_.fanout_length.end());
        lib_.wire_loads.push_back(std::move(wire_));
    }

    void close_timing()
    {
        const bool tables = !arc_.cell_rise.empty() || !arc_.cell_fall.empty();
        if (!tables || arc_.type == TimingArc::Type::Other || arc_.related_pins.empty()) return;
        LibraryCell& c = lib_.cells[current_cell_];
        for (std::uint32_t i : arc_pins_) {
            c.pins[i].timing.push_back(arc_);
            ++lib_.timing_arcs;
        }
    }

    /// Puts a table in (transition, load) order, whatever its template's variable order.
    void close_table(const Frame& f)
    {
        Template t;
        if (table_.tmpl != "scalar") {
            const auto it = templates_.find(std::string(table_.tmpl));
            if (it == templates_.end()) {
                warn(f.offset, std::string(table_.kind) + " uses the table template '" +
                                   std::string(table_.tmpl) +
                                   "', which no lu_table_template defines; table left out");
                return;
            }
            t = it->second;
        }
        const std::vector<double>& i1 = table_.has_index_1 ? table_.index_1 : t.index_1;
        const std::vector<double>& i2 = table_.has_index_2 ? table_.index_2 : t.index_2;
        const std::size_t n1 = t.var1 == Axis::None ? 1 : i1.size();
        const std::size_t n2 = t.var2 == Axis::None ? 1 : i2.size();
        // A table that does not fit its indices only costs the arrival label its arc: the
        // rest of the library is still good, so this is a warning, not an error.
        if (n1 == 0 || n2 == 0 || table_.values.size() != n1 * n2) {
            warn(table_.offset, "expected " + std::to_string(n1) + " x " + std::to_string(n2) +
                                    " values in " + std::string(table_.kind) + ", found " +
                                    std::to_string(table_.values.size()) + "; table left out");
            return;
        }
        for (const std::vector<double>* axis : {&i1, &i2})
            for (std::size_t k = 1; k < axis->size(); ++k)
                if (!((*axis)[k] > (*axis)[k - 1])) {
                    warn(table_.offset, "expected ascending index values in " +
                                            std::string(table_.kind) + "; table left out");
                    return;
                }
        if (t.var1 == Axis::Other || t.var2 == Axis::Other)
            warn(table_.offset, std::string(table_.kind) + " depends on a variable other than "
                                "input_net_transition and total_output_net_capacitance; it is "
                                "read at that variable's first index");
        TimingTable out;
        const auto axis = [&](Axis want, std::vector<double>& dst) {
            if (t.var1 == want && n1 > 0 && !i1.empty()) dst = i1;
            else if (t.var2 == want && n2 > 0 && !i2.empty()) dst = i2;
            else dst = {0.0};
        };
        axis(Axis::Transition, out.transition);
        axis(Axis::Load, out.load);
        out.values.resize(out.transition.size() * out.load.size());
        for (std::size_t ti = 0; ti < out.transition.size(); ++ti)
            for (std::size_t li = 0; li < out.load.size(); ++li) {
                const auto index = [&](Axis v) {
                    return v == Axis::Transition ? ti : v == Axis::Load ? li : 0;
                };
                const std::size_t k1 = n1 == 1 ? 0 : index(t.var1);
                const std::size_t k2 = n2 == 1 ? 0 : index(t.var2);
                out.values[ti * out.load.size() + li] = table_.values[k1 * n2 + k2];
            }
        const std::string_view k = table_.kind;
        (k == "cell_rise"         ? arc_.cell_rise
         : k == "cell_fall"       ? arc_.cell_fall
         : k == "rise_transition" ? arc_.rise_transition
                                  : arc_.fall_transition) = std::move(out);
    }

    /// Converts the NLDM figures to ns and pF once the units are known.
    void apply_units()
    {
        const double t = lib_.time_unit_ns, c = lib_.cap_unit_pf;
        for (WireLoad& w : lib_.wire_loads) w.capacitance *= c;
        if (t == 1.0 && c == 1.0) return;
        const auto scale = [&](TimingTable& tt) {
            for (double& x : tt.transition) x *= t;
            for (double& x : tt.load) x *= c;
            for (double& x : tt.values) x *= t;
        };
        for (LibraryCell& cell : lib_.cells)
            for (LibraryPin& p : cell.pins) {
                p.capacitance *= c;
                for (TimingArc& a : p.timing) {
                    scale(a.cell_rise);
                    scale(a.cell_fall);
                    scale(a.rise_transition);
                    scale(a.fall_transition);
                }
            }
    }

    const SourceText& src_;
    LibertyLexer lex_;
    OffsetLocator locator_;
    Library lib_;
    std::vector<Frame> stack_;
    std::vector<std::string_view> args_;
    std::unordered_map<std::string, BusType> types_;
    std::unordered_map<std::string, std::size_t> seen_cells_;
    std::unordered_map<std::string, std::uint32_t> pin_index_; ///< pins of the current cell
    std::unordered_map<std::string, Template> templates_;
    Template template_; ///< the lu_table_template being read
    WireLoad wire_;     ///< the wire_load being read
    TimingArc arc_;     ///< the timing group being read
    std::vector<std::uint32_t> arc_pins_; ///< the cell pins it belongs to
    RawTable table_;    ///< the table group being read
    std::size_t current_cell_ = static_cast<std::size_t>(-1);
    bool seen_library_ = false;
    std::int64_t cells_ = 0, pin_groups_ = 0, ff_groups_ = 0, latch_groups_ = 0;
    const std::uint64_t pin_budget_; ///< pins the library may make (flattening_budget)
    std::uint64_t pins_charged_ = 0; ///< pins made or about to be, all cells together
    int warned_ = 0;
};

} // namespace

Library read_liberty(const SourceText& src) { return LibertyParser(src).parse(); }

} // namespace gsr::netlist
