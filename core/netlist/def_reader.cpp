// DEF: the placed netlist of a design. COMPONENTS become instance cells with their placement,
// PINS become ports, NETS give each instance its pins. Routing, special nets, vias and the other
// physical sections are skipped entry by entry (so a missing ';' is still caught).
#include "netlist/lefdef_lexer.hpp"
#include "netlist/readers.hpp"

#include <string>
#include <unordered_map>
#include <vector>

namespace gsr::netlist {

namespace {

bool is_keyword_like(std::string_view s)
{
    if (s.empty()) return false;
    const char c = s[0];
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool is_orientation(std::string_view s)
{
    for (std::string_view o : {"N", "S", "E", "W", "FN", "FS", "FE", "FW"})
        if (s == o) return true;
    return false;
}

struct Component {
    std::string_view name;
    std::string_view macro;
    Placement place;
    std::size_t offset = 0;
};

/// One `( inst pin )` of a net, resolved to its component once all sections are read.
struct Connection {
    std::string_view inst;
    NameId pin = kNoName;
    NetId net = kNoNet;
    std::size_t offset = 0;
};

class DefParser {
public:
    explicit DefParser(const SourceText& src) : lex_(src, "DEF") {}

    Circuit parse()
    {
        c_.source = lex_.source().name();
        c_.format = "def";
        bool ended = false;
        for (;;) {
            const LefDefToken t = lex_.next();
            if (t.end) break;
            if (t.is("END")) {
                const LefDefToken n = lex_.next();
                if (!n.is("DESIGN")) lex_.fail_expected(n, "'DESIGN' after a top-level END");
                ended = true;
                break;
            }
            statement(t);
        }
        if (!ended)
            lex_.fail(lex_.source().size(), "unexpected end of file: expected 'END DESIGN'");
        build();
        return std::move(c_);
    }

private:
    void statement(const LefDefToken& t)
    {
        if (t.quoted || !is_keyword_like(t.text)) lex_.fail_expected(t, "a DEF statement keyword");
        const std::string_view kw = t.text;
        if (kw == "DESIGN") {
            c_.top = std::string(lex_.expect_word("a design name after DESIGN").text);
            expect_semicolon("the DESIGN statement");
        } else if (kw == "UNITS") {
            lex_.expect_keyword("DISTANCE", "after UNITS");
            lex_.expect_keyword("MICRONS", "after UNITS DISTANCE");
            c_.counts.extra["dbu_per_micron"] = lex_.expect_int("the database units per micron");
            expect_semicolon("the UNITS statement");
        } else if (kw == "DIEAREA") {
            diearea();
        } else if (kw == "COMPONENTS") {
            components(t);
        } else if (kw == "PINS") {
            pins(t);
        } else if (kw == "NETS") {
            nets(t);
        } else if (kw == "HISTORY") {
            skip_history(t);
        } else if (kw == "PROPERTYDEFINITIONS") {
            lex_.skip_block(kw, "the PROPERTYDEFINITIONS block", t.offset);
        } else if (kw == "BEGINEXT") {
            lex_.skip_extension(t);
        } else if (is_entry_section(kw)) {
            skip_section(t);
        } else {
            if (kw == "ROW")
                ++rows_;
            else if (kw == "TRACKS")
                ++tracks_;
            else if (!known_statement(kw) && unknown_warned_++ < 20)
                lex_.warn(c_.diagnostics, t.offset,
                          "unknown DEF statement " + std::string(kw) + " skipped");
            lex_.skip_statement("the " + std::string(kw) + " statement", t.offset);
        }
    }

    static bool known_statement(std::string_view kw)
    {
        for (std::string_view k : {"VERSION", "DIVIDERCHAR", "BUSBITCHARS", "NAMESCASESENSITIVE",
                                   "TECHNOLOGY", "GCELLGRID", "COMPONENTMASKSHIFT", "FIXEDMASK"})
            if (kw == k) return true;
        return false;
    }

    static bool is_entry_section(std::string_view kw)
    {
        for (std::string_view k :
             {"VIAS", "STYLES", "NONDEFAULTRULES", "REGIONS", "PINPROPERTIES", "BLOCKAGES",
              "SLOTS", "FILLS", "SPECIALNETS", "SCANCHAINS", "GROUPS"})
            if (kw == k) return true;
        return false;
    }

    void expect_semicolon(const std::string& what)
    {
        const LefDefToken& t = lex_.peek();
        if (!t.is(";"))
            lex_.fail(lex_.last_end(),
                      "expected ';' after " + what + ", found " + LefDefLexer::quote(t));
        lex_.next();
    }

    /// HISTORY is free text up to the ';', keywords included.
    void skip_history(const LefDefToken& t)
    {
        for (;;) {
            const LefDefToken n = lex_.next();
            if (n.end)
                lex_.fail(
                    n.offset,
                    "unexpected end of file: expected ';' to end the HISTORY statement (line " +
                        std::to_string(lex_.line_of(t.offset)) + ")");
            if (n.is(";")) return;
        }
    }

    void diearea()
    {
        std::int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
        int points = 0;
        while (lex_.peek().is("(")) {
            lex_.next();
            const std::int64_t x = lex_.expect_int("an x coordinate in DIEAREA");
            const std::int64_t y = lex_.expect_int("a y coordinate in DIEAREA");
            lex_.expect_keyword(")", "after a DIEAREA point");
            // A polygon die (DEF 5.6+) is kept as its bounding box.
            if (points == 0 || x < x0) x0 = x;
            if (points == 0 || y < y0) y0 = y;
            if (points == 0 || x > x1) x1 = x;
            if (points == 0 || y > y1) y1 = y;
            ++points;
        }
        if (points < 2) lex_.fail_expected(lex_.peek(), "a point '( x y )' in DIEAREA");
        if (!lex_.peek().is(";"))
            lex_.fail(lex_.last_end(), "expected ';' after the DIEAREA points, found " +
                                           LefDefLexer::quote(lex_.peek()));
        lex_.next();
        c_.die_area = std::array<std::int64_t, 4>{x0, y0, x1, y1};
    }

    static bool on_die(const std::array<std::int64_t, 4>& die, const Placement& p)
    {
        return p.x >= die[0] && p.x <= die[2] && p.y >= die[1] && p.y <= die[3];
    }

    /// `KW n ;` opening a section; returns the declared count.
    std::int64_t section_header(const LefDefToken& kw)
    {
        const std::int64_t n =
            lex_.expect_int("the number of entries after " + std::string(kw.text));
        expect_semicolon(std::string(kw.text) + " " + std::to_string(n));
        return n;
    }

    /// The next entry's '-', or false at the section's END (which it consumes).
    bool next_entry(const LefDefToken& kw, LefDefToken& dash)
    {
        dash = lex_.next();
        if (dash.is("-")) return true;
        if (dash.is("END")) {
            const LefDefToken n = lex_.next();
            if (n.end || n.quoted || n.text != kw.text)
                lex_.fail_expected(n, "'" + std::string(kw.text) + "' after END to close the " +
                                          std::string(kw.text) + " section");
            return false;
        }
        if (dash.end)
            lex_.fail(dash.offset, "unexpected end of file: expected 'END " +
                                       std::string(kw.text) +
                                       "' to close the section opened on line " +
                                       std::to_string(lex_.line_of(kw.offset)));
        lex_.fail_expected(dash, "'-' to start an entry or 'END " + std::string(kw.text) + "'");
    }

    void check_declared(const LefDefToken& kw, std::int64_t declared, std::int64_t found)
    {
        if (declared != found)
            lex_.warn(c_.diagnostics, kw.offset,
                      std::string(kw.text) + " declares " + std::to_string(declared) +
                          " entries but lists " + std::to_string(found));
    }

    void skip_section(const LefDefToken& kw)
    {
        const std::int64_t declared = section_header(kw);
        std::int64_t found = 0;
        LefDefToken dash;
        while (next_entry(kw, dash)) {
            ++found;
            lex_.skip_entry("the entry in " + std::string(kw.text), dash.offset);
        }
        check_declared(kw, declared, found);
    }

    /// Reads the name after '-', which must not be a ';' or an option.
    LefDefToken entry_name(const std::string& what)
    {
        const LefDefToken t = lex_.next();
        if (t.end || t.is(";") || t.is("+") || t.is("-") || t.is("END"))
            lex_.fail_expected(t, what);
        return t;
    }

    /// `( x y ) orient` after PLACED, FIXED or COVER.
    void point_and_orient(Placement& p, const std::string& where)
    {
        lex_.expect_keyword("(", "before the location of " + where);
        p.x = lex_.expect_int("an x coordinate for " + where);
        p.y = lex_.expect_int("a y coordinate for " + where);
        lex_.expect_keyword(")", "after the location of " + where);
        const LefDefToken o = lex_.next();
        if (o.quoted || !is_orientation(o.text))
            lex_.fail_expected(o, "an orientation (N, S, E, W, FN, FS, FE, FW) for " + where);
        p.orient = std::string(o.text);
        p.placed = true;
    }

    /// Tokens of an entry option up to the next '+' or ';' (not consumed).
    void skip_option(const std::string& what, std::size_t start)
    {
        for (;;) {
            const LefDefToken& t = lex_.peek();
            if (t.is("+") || t.is(";")) return;
            if (t.end)
                lex_.fail(t.offset, "unexpected end of file: expected ';' to end " + what +
                                        " (line " + std::to_string(lex_.line_of(start)) + ")");
            if (t.is("-") || t.is("END"))
                lex_.fail(lex_.last_end(), "expected ';' at the end of " + what);
            lex_.next();
        }
    }

    void components(const LefDefToken& kw)
    {
        const std::int64_t declared = section_header(kw);
        c_.counts.extra["declared_components"] = declared;
        const std::size_t first = comps_.size();
        // A component takes a dozen bytes of text at the least: the declared count may not
        // reserve past what the rest of the file can hold (60 million in a small file was
        // 6 GB reserved, or "out of memory" with no file named).
        const std::size_t can_hold = lex_.bytes_left() / 12 + 1;
        if (declared > 0 && declared < (1 << 26))
            comps_.reserve(first + std::min(static_cast<std::size_t>(declared), can_hold));
        LefDefToken dash;
        while (next_entry(kw, dash)) {
            Component comp;
            comp.offset = dash.offset;
            comp.name = entry_name("a component name after '-'").text;
            comp.macro = entry_name("the macro of component " + std::string(comp.name)).text;
            const std::string what = "component " + std::string(comp.name);
            for (;;) {
                const std::size_t before = lex_.last_end(); // where a missing ';' belongs
                const LefDefToken t = lex_.next();
                if (t.is(";")) break;
                if (!t.is("+")) {
                    if (t.end)
                        lex_.fail(t.offset, "unexpected end of file: expected ';' to end " + what);
                    if (t.is("-") || t.is("END"))
                        lex_.fail(before, "expected ';' at the end of " + what);
                    lex_.fail_expected(t, "'+' or ';' in " + what);
                }
                const LefDefToken opt = lex_.expect_word("an option after '+' in " + what);
                if (opt.is("PLACED") || opt.is("FIXED") || opt.is("COVER")) {
                    point_and_orient(comp.place, what);
                } else if (opt.is("UNPLACED")) {
                    comp.place.placed = false;
                    // Some writers keep a location after UNPLACED; it means nothing.
                    if (lex_.peek().is("(")) skip_option(what, dash.offset);
                } else {
                    skip_option(what, dash.offset);
                }
            }
            comps_.push_back(comp);
        }
        check_declared(kw, declared, static_cast<std::int64_t>(comps_.size() - first));
    }

    void pins(const LefDefToken& kw)
    {
        const std::int64_t declared = section_header(kw);
        c_.counts.extra["declared_pins"] = declared;
        std::int64_t found = 0, dups = 0;
        LefDefToken dash;
        while (next_entry(kw, dash)) {
            ++found;
            const LefDefToken name = entry_name("a pin name after '-'");
            const std::string what = "pin " + std::string(name.text);
            std::string_view net;
            bool has_net = false;
            Direction dir = Direction::Unknown;
            for (;;) {
                const std::size_t before = lex_.last_end(); // where a missing ';' belongs
                const LefDefToken t = lex_.next();
                if (t.is(";")) break;
                if (!t.is("+")) {
                    if (t.end)
                        lex_.fail(t.offset, "unexpected end of file: expected ';' to end " + what);
                    if (t.is("-") || t.is("END"))
                        lex_.fail(before, "expected ';' at the end of " + what);
                    lex_.fail_expected(t, "'+' or ';' in " + what);
                }
                const LefDefToken opt = lex_.expect_word("an option after '+' in " + what);
                if (opt.is("NET")) {
                    net = entry_name("a net name after '+ NET' in " + what).text;
                    has_net = true;
                } else if (opt.is("DIRECTION")) {
                    const LefDefToken d = lex_.next();
                    if (d.is("INPUT"))
                        dir = Direction::Input;
                    else if (d.is("OUTPUT"))
                        dir = Direction::Output;
                    else if (d.is("INOUT") || d.is("FEEDTHRU"))
                        dir = Direction::InOut;
                    else
                        lex_.fail_expected(
                            d, "INPUT, OUTPUT, INOUT or FEEDTHRU after DIRECTION in " + what);
                } else {
                    skip_option(what, dash.offset);
                }
            }
            // A second entry of one name would make a second port of that name: the first is
            // kept, as the Liberty reader keeps the first of two cells.
            const auto [first, added] = pin_entry_.emplace(name.text, name.offset);
            if (!added) {
                ++dups;
                if (dup_warned_++ < 20)
                    lex_.warn(c_.diagnostics, name.offset,
                              what + " is listed twice (first on line " +
                                  std::to_string(lex_.line_of(first->second)) +
                                  "); the first is kept");
                continue;
            }
            if (!has_net) {
                lex_.warn(c_.diagnostics, name.offset,
                          what + " has no '+ NET': connected to a net of its own name");
                net = name.text;
            }
            c_.add_port(name.text, c_.net(net), dir);
            if (dir == Direction::Input || dir == Direction::InOut) ++inputs_;
            if (dir == Direction::Output || dir == Direction::InOut) ++outputs_;
        }
        pins_found_ += found - dups;
        duplicate_pins_ += dups;
        check_declared(kw, declared, found);
    }

    void nets(const LefDefToken& kw)
    {
        const std::int64_t declared = section_header(kw);
        c_.counts.extra["declared_nets"] = declared;
        std::int64_t found = 0, dups = 0;
        LefDefToken dash;
        while (next_entry(kw, dash)) {
            ++found;
            LefDefToken name = entry_name("a net name after '-'");
            if (name.is("MUSTJOIN")) name = LefDefToken{}; // a join of pins, not a named net
            const NetId net = name.text.empty() ? kNoNet : c_.net(name.text);
            const std::string what =
                name.text.empty() ? "the MUSTJOIN entry" : "net " + std::string(name.text);
            if (net != kNoNet && !first_net_entry(net, name.offset)) {
                ++dups;
                if (dup_warned_++ < 20)
                    lex_.warn(c_.diagnostics, name.offset,
                              what + " is listed twice (first on line " +
                                  std::to_string(lex_.line_of(net_entry_[net])) +
                                  "); its connections are merged");
            }
            for (;;) {
                const std::size_t before = lex_.last_end(); // where a missing ';' belongs
                const LefDefToken t = lex_.next();
                if (t.is(";")) break;
                if (t.is("+")) {
                    // Options and routing: their parentheses are coordinates, not connections,
                    // but a SUBNET's own `( comp pin )` are connections of the net.
                    options(net, what, dash.offset);
                    break;
                }
                if (!t.is("(")) {
                    if (t.end)
                        lex_.fail(t.offset, "unexpected end of file: expected ';' to end " + what);
                    if (t.is("-") || t.is("END"))
                        lex_.fail(before, "expected ';' at the end of " + what);
                    lex_.fail_expected(t, "'( component pin )', '+' or ';' in " + what);
                }
                connection(t, net, what);
            }
        }
        nets_found_ += found - dups;
        duplicate_nets_ += dups;
        check_declared(kw, declared, found);
    }

    /// Notes a NETS entry for `net` at `offset`; false when an entry named it before.
    bool first_net_entry(NetId net, std::size_t offset)
    {
        if (net >= net_entry_.size()) net_entry_.resize(net + 1, kNoEntry);
        if (net_entry_[net] != kNoEntry) return false;
        net_entry_[net] = offset;
        return true;
    }

    /// The '+' options of a net entry, its first '+' read, through the entry's ';'. Only a
    /// SUBNET's connections are read (they were dropped without a word); the rest is routing
    /// and properties.
    void options(NetId net, const std::string& what, std::size_t start)
    {
        for (;;) { // at an option's name, its '+' read
            if (lex_.peek().is("SUBNET")) {
                lex_.next();
                lex_.expect_word("a subnet name after SUBNET in " + what);
                while (lex_.peek().is("(")) {
                    const LefDefToken open = lex_.next();
                    if (lex_.peek().is("VPIN")) { // a virtual pin: no component
                        while (!lex_.peek().is(")") && !lex_.peek().end) lex_.next();
                        lex_.expect_keyword(")", "the VPIN of a subnet in " + what);
                        continue;
                    }
                    connection(open, net, what + "'s subnet");
                }
            }
            // The rest of the option, up to the next '+' or the entry's ';'.
            if (!lex_.skip_option(what, start)) return;
        }
    }

    void connection(const LefDefToken& open, NetId net, const std::string& what)
    {
        const LefDefToken inst = entry_name("a component name (or PIN) after '(' in " + what);
        if (inst.is(")"))
            lex_.fail_expected(inst, "a component name (or PIN) after '(' in " + what);
        const LefDefToken pin =
            entry_name("a pin name after '( " + std::string(inst.text) + "' in " + what);
        if (pin.is(")"))
            lex_.fail_expected(pin,
                               "a pin name after '( " + std::string(inst.text) + "' in " + what);
        // `( inst pin + SYNTHESIZED )`: options inside the parentheses.
        for (;;) {
            const LefDefToken t = lex_.next();
            if (t.is(")")) break;
            if (t.end || t.is(";") || t.is("(") || t.is("-") || t.is("END"))
                lex_.fail(t.offset, "expected ')' to close the connection '( " +
                                        std::string(inst.text) + " " + std::string(pin.text) +
                                        "' in " + what + " (opened on line " +
                                        std::to_string(lex_.line_of(open.offset)) + "), found " +
                                        LefDefLexer::quote(t));
        }
        ++pin_connections_;
        if (inst.is("PIN")) return; // the I/O pin: its port comes from the PINS section
        if (inst.is("*")) {         // every component with that pin: not expanded
            ++wildcard_connections_;
            return;
        }
        if (net == kNoNet) return;
        conns_.push_back({inst.text, c_.names.intern(pin.text), net, inst.offset});
    }

    /// Emits the components as cells, each with its connections as contiguous pins.
    void build()
    {
        NamePool index; // component name -> first component with it
        std::vector<std::uint32_t> comp_of_name;
        comp_of_name.reserve(comps_.size());
        index.reserve(comps_.size(), 0);
        int dup_warned = 0;
        for (std::uint32_t i = 0; i < comps_.size(); ++i) {
            const NameId id = index.intern(comps_[i].name);
            if (id == comp_of_name.size()) {
                comp_of_name.push_back(i);
            } else if (dup_warned++ < 20) {
                lex_.warn(c_.diagnostics, comps_[i].offset,
                          "component " + std::string(comps_[i].name) + " is listed twice");
            }
        }
        // Counting sort of the connections by component, keeping the NETS order within each.
        std::vector<std::uint32_t> start(comps_.size() + 1, 0);
        std::vector<std::uint32_t> comp_of_conn(conns_.size());
        std::int64_t unknown = 0;
        for (std::size_t k = 0; k < conns_.size(); ++k) {
            const NameId id = index.find(conns_[k].inst);
            if (id == kNoName) {
                comp_of_conn[k] = kNoName;
                if (unknown++ < 20)
                    lex_.warn(c_.diagnostics, conns_[k].offset,
                              "net " + std::string(c_.net_name(conns_[k].net)) +
                                  " connects component " + std::string(conns_[k].inst) +
                                  ", which COMPONENTS does not list");
                continue;
            }
            comp_of_conn[k] = comp_of_name[id];
            ++start[comp_of_name[id] + 1];
        }
        for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
        std::vector<std::uint32_t> order(start.back());
        std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
        for (std::uint32_t k = 0; k < conns_.size(); ++k)
            if (comp_of_conn[k] != kNoName) order[fill[comp_of_conn[k]]++] = k;

        c_.cells.reserve(comps_.size());
        c_.pins.reserve(order.size());
        c_.placement.reserve(comps_.size());
        std::int64_t outside = 0; // components whose origin is off the die
        for (std::uint32_t i = 0; i < comps_.size(); ++i) {
            const Placement& at = comps_[i].place;
            if (at.placed && c_.die_area && !on_die(*c_.die_area, at) && outside++ < 20)
                lex_.warn(c_.diagnostics, comps_[i].offset,
                          "component " + std::string(comps_[i].name) + " is placed at ( " +
                              std::to_string(at.x) + " " + std::to_string(at.y) +
                              " ), outside the DIEAREA");
            // Components are in file order, so the lines are found in one pass.
            c_.add_cell(comps_[i].name, comps_[i].macro, CellKind::Instance,
                        lex_.line_of(comps_[i].offset));
            for (std::uint32_t j = start[i]; j < start[i + 1]; ++j) {
                const Connection& k = conns_[order[j]];
                c_.add_pin(k.net, Direction::Unknown, c_.names.view(k.pin));
            }
            c_.placement.push_back(std::move(comps_[i].place));
        }

        CircuitCounts& n = c_.counts;
        n.cells = static_cast<std::int64_t>(comps_.size());
        n.nets = nets_found_;
        n.ports = pins_found_;
        n.inputs = inputs_;
        n.outputs = outputs_;
        n.extra["pin_connections"] = pin_connections_;
        if (wildcard_connections_) n.extra["wildcard_connections"] = wildcard_connections_;
        if (unknown) n.extra["unknown_component_connections"] = unknown;
        if (outside) n.extra["components_outside_die"] = outside;
        if (duplicate_nets_) n.extra["duplicate_nets"] = duplicate_nets_;
        if (duplicate_pins_) n.extra["duplicate_pins"] = duplicate_pins_;
        n.extra["rows"] = rows_;
        n.extra["tracks"] = tracks_;
    }

    LefDefLexer lex_;
    Circuit c_;
    std::vector<Component> comps_;
    std::vector<Connection> conns_;
    std::int64_t nets_found_ = 0, pins_found_ = 0, inputs_ = 0, outputs_ = 0;
    std::int64_t pin_connections_ = 0, wildcard_connections_ = 0, rows_ = 0, tracks_ = 0;
    std::int64_t duplicate_nets_ = 0, duplicate_pins_ = 0;
    static constexpr std::size_t kNoEntry = static_cast<std::size_t>(-1);
    std::vector<std::size_t> net_entry_; ///< by net: offset of its first NETS entry
    std::unordered_map<std::string_view, std::size_t> pin_entry_; ///< PINS name -> offset
    int unknown_warned_ = 0, dup_warned_ = 0;
};

} // namespace

Circuit read_def(const SourceText& src) { return DefParser(src).parse(); }

} // namespace gsr::netlist
