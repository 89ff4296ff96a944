// SPICE / CDL netlist decks: element lines (M, Q, D, R, C, L, V, I, X ...) at the top level and
// inside .SUBCKT definitions. The circuit is the top level with every X instance of a defined
// subcircuit flattened (names x1/x2/m3); X instances of undefined subcircuits stay as black-box
// cells. Analysis cards and .control blocks are skipped. SPICE names are case-insensitive, so
// node and instance names are lower-cased; cell types keep their spelling for library lookup.
#include "netlist/hierarchy_budget.hpp"
#include "netlist/lefdef_lexer.hpp"
#include "netlist/readers.hpp"
#include "util/ascii.hpp"
#include "util/source_text.hpp"

#include <cctype>
#include <charconv>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gsr::netlist {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string lower(std::string_view s) { return ascii_lower(s); }

bool iequals(std::string_view a, std::string_view b) { return ascii_iequal(a, b); }

bool looks_numeric(std::string_view s)
{
    if (s.empty()) return false;
    const char c = s[0];
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+';
}

struct Element {
    std::string_view name;
    std::string_view type; ///< model or subcircuit name; empty for plain devices
    std::uint32_t first_node = 0;
    std::uint32_t node_count = 0;
    std::size_t offset = 0;
    int line = 0;
    char letter = 0; ///< upper case
};

struct Subckt {
    std::string_view name;
    std::vector<std::string> ports; ///< lower case
    std::unordered_map<std::string, std::uint32_t> port_index;
    std::vector<Element> elements;
    std::size_t offset = 0;
    std::uint64_t instances = 0;
};

/// A `Q c b e w4 w5 ...` line: w4 is a substrate node or the model, which only the whole deck
/// tells (a .model may come after its first use), so it is settled once every card is read.
struct PendingBjt {
    std::uint32_t subckt = 0; ///< owner: kTop or a subcircuit's index
    std::uint32_t element = 0;
    std::string_view w4, w5;
};
constexpr std::uint32_t kTop = static_cast<std::uint32_t>(-1);

/// One logical line (continuations joined): its words as views into the text.
struct Card {
    std::vector<std::string_view> words;
    std::size_t offset = 0;
};

class SpiceParser {
public:
    explicit SpiceParser(const SourceText& src)
        : budget_(flattening_budget(src.size())), src_(src), text_(src.text()), locator_(src)
    {
    }

    Circuit parse()
    {
        check_text_input(src_, "SPICE");
        c_.source = src_.name();
        c_.format = "spice";
        read_cards();
        if (element_lines_ == 0) {
            // Nothing to build: an empty deck, or one whose lines end in a lone CR (old Mac
            // files), read as one title line. Every other reader refuses an empty netlist.
            const bool cr_only = text_.find('\r') != std::string_view::npos &&
                                 text_.find('\n') == std::string_view::npos;
            src_.fail(0, cr_only ? "expected lines that end in LF or CR LF: this file's lines "
                                   "end in a lone CR (save it with LF line ends)"
                                 : "expected element lines (such as M1 d g s b nch, R1 a b 1k "
                                   "or X1 a b SUB): the deck has none");
        }
        settle_bjts();
        refuse_duplicate_instances(top_);
        for (const Subckt& s : subckts_) refuse_duplicate_instances(s.elements);
        build();
        return std::move(c_);
    }

private:
    std::size_t offset_of(std::string_view word) const
    {
        return static_cast<std::size_t>(word.data() - text_.data());
    }
    [[noreturn]] void fail_at(std::string_view word, const std::string& msg) const
    {
        src_.fail(offset_of(word), msg);
    }
    void warn(std::size_t offset, std::string msg)
    {
        if (warned_++ < 100) c_.diagnostics.warn(locator_.locate(offset), std::move(msg));
    }

    /// Splits a physical line into words, dropping `;` and ` $` comments.
    void split(std::string_view line, std::vector<std::string_view>& out) const
    {
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && is_blank(line[i])) ++i;
            if (i >= line.size() || line[i] == ';' || line[i] == '$') break;
            const std::size_t b = i;
            while (i < line.size() && !is_blank(line[i]) && line[i] != ';') {
                const unsigned char u = static_cast<unsigned char>(line[i]);
                if (u < 0x20 || u == 0x7f) {
                    src_.fail(offset_of(line) + i,
                              "unexpected byte " + hex_byte(u) + ": expected SPICE text");
                }
                ++i;
            }
            out.push_back(line.substr(b, i - b));
        }
    }

    bool has_title() const
    {
        // A SPICE deck's first line is its title, whatever it says; CDL netlists and bare
        // subcircuit files have none.
        std::string_view n = src_.name();
        if (n.size() >= 4 && iequals(n.substr(n.size() - 4), ".cdl")) return false;
        std::size_t i = bom_length(text_);
        while (i < text_.size() && is_blank(text_[i])) ++i;
        std::size_t e = i;
        while (e < text_.size() && !is_blank(text_[e]) && text_[e] != '\n') ++e;
        const std::string_view first = text_.substr(i, e - i);
        for (std::string_view card : {".subckt", ".include", ".inc", ".global", ".param"})
            if (iequals(first, card)) return false;
        return true;
    }

    void read_cards()
    {
        std::size_t pos = bom_length(text_);
        bool title = has_title();
        bool in_control = false;
        std::size_t control_offset = 0;
        Card card;
        bool have_card = false;
        std::vector<std::string_view> words;
        while (pos < text_.size() && !ended_) {
            std::size_t nl = text_.find('\n', pos);
            if (nl == std::string_view::npos) nl = text_.size();
            const std::string_view line = text_.substr(pos, nl - pos);
            const std::size_t line_offset = pos;
            pos = nl + 1;
            if (title) {
                title = false;
                std::size_t b = 0, e = line.size();
                while (b < e && is_blank(line[b])) ++b;
                while (e > b && is_blank(line[e - 1])) --e;
                title_ = std::string(line.substr(b, e - b));
                continue;
            }
            std::size_t i = 0;
            while (i < line.size() && is_blank(line[i])) ++i;
            if (i >= line.size() || line[i] == '*') continue; // blank or comment line
            if (in_control) {
                words.clear();
                split(line, words);
                if (!words.empty() && iequals(words[0], ".endc")) in_control = false;
                continue;
            }
            if (line[i] == '+') {
                if (!have_card)
                    src_.fail(line_offset + i,
                              "expected an element line or a dot card before the '+' "
                              "continuation line");
                split(line.substr(i + 1), card.words);
                continue;
            }
            if (have_card) card_done(card);
            card.words.clear();
            card.offset = line_offset + i;
            split(line, card.words);
            have_card = !card.words.empty();
            if (have_card && iequals(card.words[0], ".control")) {
                have_card = false;
                in_control = true;
                control_offset = card.offset;
            }
        }
        if (have_card && !ended_) card_done(card);
        if (in_control)
            src_.fail(text_.size(),
                      "unexpected end of file: expected .endc to close the .control block "
                      "opened on line " +
                          std::to_string(src_.location(control_offset).line));
        if (!open_.empty()) {
            const Subckt& s = subckts_[open_.back()];
            src_.fail(ended_ ? end_offset_ : text_.size(),
                      std::string(ended_ ? "expected" : "unexpected end of file: expected") +
                          " .ENDS to close "
                          ".SUBCKT " +
                          std::string(s.name) + " opened on line " +
                          std::to_string(src_.location(s.offset).line));
        }
    }

    void card_done(const Card& card)
    {
        const std::string_view first = card.words[0];
        if (first[0] == '.') return dot_card(card);
        const char letter = ascii_upper(first[0]);
        if (letter < 'A' || letter > 'Z')
            fail_at(
                first,
                "expected an element line (R, C, L, M, Q, D, V, I, X ...) or a dot card, found '" +
                    std::string(first.substr(0, 40)) + "'");
        element(card, letter);
    }

    void dot_card(const Card& card)
    {
        const std::string kw = lower(card.words[0]);
        const auto& w = card.words;
        if (kw == ".subckt") {
            if (w.size() < 2) fail_at(w[0], "expected a subcircuit name after .SUBCKT");
            Subckt s;
            s.name = w[1];
            s.offset = card.offset;
            for (std::size_t i = 2; i < w.size(); ++i) {
                if (iequals(w[i], "params:") || w[i].find('=') != std::string_view::npos) break;
                std::string port = lower(w[i]);
                if (!s.port_index.emplace(port, static_cast<std::uint32_t>(s.ports.size())).second)
                    fail_at(w[i], "expected distinct port names in .SUBCKT " + std::string(w[1]) +
                                      ": '" + std::string(w[i]) + "' is listed twice");
                s.ports.push_back(std::move(port));
            }
            const std::string key = lower(w[1]);
            if (subckt_index_.count(key))
                fail_at(w[1], "expected a new subcircuit name: " + std::string(w[1]) +
                                  " is already defined");
            subckt_index_.emplace(key, static_cast<std::uint32_t>(subckts_.size()));
            open_.push_back(static_cast<std::uint32_t>(subckts_.size()));
            subckts_.push_back(std::move(s));
        } else if (kw == ".ends") {
            if (open_.empty())
                fail_at(w[0], "expected .SUBCKT before .ENDS: no subcircuit is open");
            const Subckt& s = subckts_[open_.back()];
            if (w.size() >= 2 && !iequals(w[1], s.name))
                fail_at(w[1], "expected '.ENDS " + std::string(s.name) +
                                  "' (or a bare .ENDS) to close the "
                                  "subcircuit opened on line " +
                                  std::to_string(src_.location(s.offset).line) + ", found .ENDS " +
                                  std::string(w[1]));
            open_.pop_back();
        } else if (kw == ".end") {
            ended_ = true;
            end_offset_ = card.offset;
        } else if (kw == ".model") {
            if (w.size() < 3) fail_at(w[0], "expected a model name and type after .MODEL");
            std::string_view type = w[2];
            type = type.substr(0, type.find('('));
            models_[lower(w[1])] = lower(type);
        } else if (kw == ".global") {
            for (std::size_t i = 1; i < w.size(); ++i) globals_.insert(lower(w[i]));
        } else if (kw == ".include" || kw == ".inc" || kw == ".lib") {
            warn(card.offset, std::string(w[0]) + " is not followed: only this file is read");
        } else if (kw == ".endc") {
            fail_at(w[0], "expected .control before .endc");
        }
        // Analyses, options, parameters, saves ...: nothing for the netlist.
    }

    /// Words that are nodes or model names: up to the first `name=value` or `params:`.
    std::size_t positional_end(const std::vector<std::string_view>& w) const
    {
        std::size_t n = 1;
        while (n < w.size()) {
            if (w[n].find('=') != std::string_view::npos || iequals(w[n], "params:")) break;
            if (n + 1 < w.size() && !w[n + 1].empty() && w[n + 1][0] == '=') break; // `w = 1`
            ++n;
        }
        return n;
    }

    void element(const Card& card, char letter)
    {
        const auto& w = card.words;
        const std::size_t pend = positional_end(w);
        const std::size_t npos = pend - 1; // positional words after the name
        auto need = [&](std::size_t n, const char* what) {
            if (npos < n)
                src_.fail(offset_of(w.back()) + w.back().size(),
                          "expected " + std::string(what) + " after " + std::string(w[0]) +
                              ", found " + std::to_string(npos) + " word" +
                              (npos == 1 ? "" : "s"));
        };
        Element e;
        e.name = w[0];
        e.letter = letter;
        e.offset = card.offset;
        e.line = locator_.line(card.offset); // cards come in file order
        e.first_node = static_cast<std::uint32_t>(nodes_.size());
        std::size_t nodes = 0;
        switch (letter) {
        case 'M':
            need(5, "4 nodes (drain gate source bulk) and a model name");
            nodes = 4;
            e.type = w[5];
            break;
        case 'Q': {
            need(4, "3 nodes (collector base emitter) and a model name");
            nodes = 3;
            // An optional substrate node comes before the model: taken as one for now, and
            // settled by settle_bjts once every .model is known.
            if (npos >= 5) {
                nodes = 4;
                const std::vector<Element>& list =
                    open_.empty() ? top_ : subckts_[open_.back()].elements;
                bjts_.push_back({open_.empty() ? kTop : open_.back(),
                                 static_cast<std::uint32_t>(list.size()), w[4], w[5]});
            }
            e.type = w[1 + nodes];
            break;
        }
        case 'D':
            need(3, "2 nodes and a model name");
            nodes = 2;
            e.type = w[3];
            break;
        case 'J':
        case 'Z':
            need(4, "3 nodes and a model name");
            nodes = 3;
            e.type = w[4];
            break;
        case 'E':
        case 'G': {
            need(2, "2 nodes");
            nodes = 2;
            if (npos >= 5) {
                const std::string k = lower(w[3].substr(0, w[3].find('(')));
                if (k != "poly" && k != "value" && k != "table" && k != "vol" && k != "cur" &&
                    k != "laplace" && w[3].find('{') == std::string_view::npos)
                    nodes = 4;
            }
            break;
        }
        case 'S':
        case 'T':
        case 'O':
            need(4, "4 nodes");
            nodes = 4;
            break;
        case 'U':
            need(3, "3 nodes");
            nodes = 3;
            break;
        case 'K': nodes = 0; break; // couples inductors, which it names
        case 'X':
            need(1, "its nodes and a subcircuit name");
            nodes = npos - 1;
            e.type = w[npos];
            // CDL (Calibre, Virtuoso's auCdl) puts a '/' before the subcircuit's name:
            // `XI1 a b / INV` or `XI1 a b /INV`.
            if (nodes > 0 && w[nodes] == "/") {
                --nodes;
            } else if (e.type.size() > 1 && e.type.front() == '/') {
                e.type.remove_prefix(1);
            }
            break;
        case 'A': {
            // XSPICE: `A1 [a b] y model`; brackets group vector ports.
            need(2, "its nodes and a model name");
            e.type = w[npos];
            for (std::size_t i = 1; i < npos; ++i) {
                std::string_view n = w[i];
                while (!n.empty() && (n.front() == '[' || n.front() == '~' || n.front() == '%'))
                    n.remove_prefix(1);
                while (!n.empty() && n.back() == ']') n.remove_suffix(1);
                if (!n.empty()) nodes_.push_back(n);
            }
            e.node_count = static_cast<std::uint32_t>(nodes_.size() - e.first_node);
            add_element(std::move(e));
            return;
        }
        case 'R':
        case 'C':
        case 'L':
        case 'V':
        case 'I':
        case 'B':
        case 'F':
        case 'H':
        case 'W':
            need(2, "2 nodes");
            nodes = 2;
            break;
        default: // devices of simulators we do not know: all but the last word are nodes
            nodes = npos >= 2 ? npos - 1 : npos;
            break;
        }
        for (std::size_t i = 1; i <= nodes; ++i) nodes_.push_back(w[i]);
        e.node_count = static_cast<std::uint32_t>(nodes);
        add_element(std::move(e));
    }

    /// `Q c b e w4 w5`: w4 is the model when a .model names it (anywhere in the deck), or
    /// when w5 is no model but a number (area) or OFF; otherwise w4 is the substrate node.
    void settle_bjts()
    {
        for (const PendingBjt& q : bjts_) {
            bool w4_model = models_.count(lower(q.w4)) > 0;
            if (!w4_model && !models_.count(lower(q.w5)))
                w4_model = looks_numeric(q.w5) || iequals(q.w5, "off");
            if (!w4_model) continue;
            Element& e = (q.subckt == kTop ? top_ : subckts_[q.subckt].elements)[q.element];
            e.node_count = 3; // its fourth node stays in nodes_, unused
            e.type = q.w4;
        }
    }

    void add_element(Element&& e)
    {
        ++element_lines_;
        if (open_.empty())
            top_.push_back(std::move(e));
        else
            subckts_[open_.back()].elements.push_back(std::move(e));
    }

    Subckt* find_subckt(std::string_view name)
    {
        auto it = subckt_index_.find(lower(name));
        return it == subckt_index_.end() ? nullptr : &subckts_[it->second];
    }

    std::string type_of(const Element& e) const
    {
        if (e.letter == 'M') {
            auto it = models_.find(lower(e.type));
            if (it != models_.end() && (it->second == "nmos" || it->second == "pmos"))
                return it->second == "nmos" ? "NMOS" : "PMOS";
            return std::string(e.type);
        }
        if (e.letter == 'X') return std::string(e.type);
        return std::string(1, e.letter);
    }

    /// Terminal names and directions of a device; a gate or control input is an Input, other
    /// terminals conduct both ways.
    static void terminal(char letter, std::size_t i, std::string& name, Direction& dir)
    {
        static const char* const mos[] = {"D", "G", "S", "B"};
        static const char* const bjt[] = {"C", "B", "E", "S"};
        static const char* const two[] = {"P", "N"};
        static const char* const ctl[] = {"P", "N", "CP", "CN"};
        static const char* const line4[] = {"P1", "N1", "P2", "N2"};
        dir = Direction::InOut;
        switch (letter) {
        case 'M':
            name = mos[i];
            if (i == 1) dir = Direction::Input;
            return;
        case 'J':
        case 'Z':
            name = mos[i];
            if (i == 1) dir = Direction::Input;
            return;
        case 'Q': name = bjt[i]; return;
        case 'D': name = i == 0 ? "A" : "K"; return;
        case 'E':
        case 'G':
        case 'S':
            name = ctl[i];
            if (i >= 2) dir = Direction::Input;
            return;
        case 'T':
        case 'O': name = line4[i]; return;
        case 'R':
        case 'C':
        case 'L':
        case 'V':
        case 'I':
        case 'B':
        case 'F':
        case 'H':
        case 'W': name = two[i]; return;
        default: name = std::to_string(i + 1); return;
        }
    }

    /// A frame of the flattening walk: one subcircuit instance (or the top level). Its
    /// hierarchical prefix ("x1/x2/") is the first `prefix_length` bytes of `path_`, shared by
    /// every frame: a copy per frame cost memory quadratic in the depth.
    struct Frame {
        const std::vector<Element>* elements = nullptr;
        const Subckt* def = nullptr; ///< null at the top level
        std::size_t prefix_length = 0;
        std::vector<NetId> port_nets;
        std::size_t next = 0;
    };

    /// The net of `node` in frame `f`, whose prefix `path_` holds now.
    NetId node_net(const Frame& f, std::string_view node)
    {
        scratch_ = lower(node);
        if (scratch_ == "0" || scratch_ == "gnd" || globals_.count(scratch_))
            return c_.net(scratch_);
        if (f.def) {
            auto it = f.def->port_index.find(scratch_);
            if (it != f.def->port_index.end()) return f.port_nets[it->second];
        }
        if (f.prefix_length == 0) return c_.net(scratch_);
        const std::size_t at = path_.size();
        path_ += scratch_;
        const NetId n = c_.net(path_);
        path_.resize(at);
        return n;
    }

    /// Two X instances of one name in one scope would share their internal nodes (x1/n), so
    /// two independent copies of a subcircuit would be wired together: refused at the second.
    void refuse_duplicate_instances(const std::vector<Element>& elements)
    {
        struct CaseHash {
            std::size_t operator()(std::string_view s) const
            {
                std::size_t h = 1469598103934665603ull; // FNV-1a of the lower-case name
                for (char c : s) {
                    const auto lower_c = static_cast<unsigned char>(ascii_lower(c));
                    h = (h ^ static_cast<std::size_t>(lower_c)) * 1099511628211ull;
                }
                return h;
            }
        };
        struct CaseEqual {
            bool operator()(std::string_view a, std::string_view b) const { return iequals(a, b); }
        };
        std::unordered_map<std::string_view, std::size_t, CaseHash, CaseEqual> first; // offset
        for (const Element& e : elements) {
            if (e.letter != 'X') continue;
            const auto [it, added] = first.emplace(e.name, e.offset);
            if (!added)
                src_.fail(e.offset, "expected distinct instance names in one scope: " +
                                        std::string(e.name) + " is already used on line " +
                                        std::to_string(src_.location(it->second).line));
        }
    }

    /// Cells and pins each subcircuit flattens to (saturating past the budget), so that a
    /// hierarchy that doubles at each of 30 levels is refused before it is built, at the
    /// instance that makes it too large, rather than after gigabytes. The budget grows with the
    /// file's size, as Verilog's does: a fixed one let a 1 KB deck take gigabytes.
    void refuse_oversized_hierarchy(const std::vector<Element>& root)
    {
        const std::uint64_t cap = budget_ + 1;
        std::vector<std::uint64_t> cells(subckts_.size(), 0);
        std::vector<std::uint8_t> state(subckts_.size(), 0); // 0 new, 1 open, 2 counted
        const auto size_of = [&](const Element& e) -> std::uint64_t {
            const Subckt* sub = e.letter == 'X' ? find_subckt(e.type) : nullptr;
            return sub ? cells[static_cast<std::size_t>(sub - subckts_.data())]
                       : std::uint64_t{1} + e.node_count;
        };
        std::vector<std::pair<std::size_t, std::size_t>> walk; // subckt, next element
        for (std::size_t root_si = 0; root_si < subckts_.size(); ++root_si) {
            if (state[root_si]) continue;
            walk.emplace_back(root_si, 0);
            state[root_si] = 1;
            while (!walk.empty()) {
                auto& [si, next] = walk.back();
                const std::vector<Element>& elements = subckts_[si].elements;
                if (next < elements.size()) {
                    const Element& e = elements[next++];
                    const Subckt* sub = e.letter == 'X' ? find_subckt(e.type) : nullptr;
                    if (!sub) continue;
                    const std::size_t child = static_cast<std::size_t>(sub - subckts_.data());
                    if (state[child] == 0) { // a cycle (state 1) is the walk's own error
                        state[child] = 1;
                        walk.emplace_back(child, 0); // si, next dangle from here on
                    }
                    continue;
                }
                std::uint64_t total = 0;
                for (const Element& e : elements) total = std::min(cap, total + size_of(e));
                cells[si] = total;
                state[si] = 2;
                walk.pop_back();
            }
        }
        std::uint64_t total = 0;
        for (const Element& e : root) {
            total = std::min(cap, total + size_of(e));
            if (total > budget_)
                src_.fail(e.offset, "expected a hierarchy of at most " + std::to_string(budget_) +
                                        " cells and pins once flattened (a limit set by the "
                                        "file's size): " + std::string(e.name) +
                                        " takes it past that");
        }
    }

    void build()
    {
        auto count_instances = [&](const std::vector<Element>& elements) {
            for (const Element& e : elements)
                if (e.letter == 'X')
                    if (Subckt* d = find_subckt(e.type)) ++d->instances;
        };
        for (const Subckt& s : subckts_) count_instances(s.elements);
        count_instances(top_);

        std::vector<Frame> stack;
        Frame root;
        root.elements = &top_;
        const Subckt* top_def = nullptr;
        if (top_.empty()) {
            // A library of subcircuits (CDL): the one that nothing instantiates is the design.
            std::vector<const Subckt*> roots;
            for (const Subckt& s : subckts_)
                if (s.instances == 0) roots.push_back(&s);
            if (roots.size() == 1) {
                top_def = roots[0];
                root.elements = &top_def->elements;
                root.def = top_def;
                for (const std::string& p : top_def->ports) {
                    const NetId n = c_.net(p);
                    root.port_nets.push_back(n);
                    // A subcircuit port has no direction in SPICE.
                    c_.add_port(p, n, Direction::Unknown);
                }
            } else if (!subckts_.empty()) {
                c_.diagnostics.warn(
                    {src_.name()},
                    "no top-level elements, and " + std::to_string(roots.size()) +
                        " subcircuits that nothing instantiates: the circuit is empty");
            }
        }
        c_.top = top_def ? std::string(top_def->name) : title_;
        if (c_.top.empty()) c_.top = stem();

        std::vector<char> active(subckts_.size(), 0);
        if (top_def) active[static_cast<std::size_t>(top_def - subckts_.data())] = 1;
        std::unordered_map<std::string, std::uint64_t> black_boxes;
        refuse_oversized_hierarchy(*root.elements);
        path_.clear();
        stack.push_back(std::move(root));
        std::string name, pin;
        while (!stack.empty()) {
            Frame& f = stack.back();
            if (f.next == f.elements->size()) {
                if (f.def) active[static_cast<std::size_t>(f.def - subckts_.data())] = 0;
                stack.pop_back();
                if (!stack.empty()) path_.resize(stack.back().prefix_length);
                continue;
            }
            const Element& e = (*f.elements)[f.next++];
            const Subckt* sub = e.letter == 'X' ? find_subckt(e.type) : nullptr;
            if (sub) {
                const std::size_t si = static_cast<std::size_t>(sub - subckts_.data());
                if (active[si])
                    src_.fail(e.offset, "expected a hierarchy without cycles: subcircuit " +
                                            std::string(sub->name) +
                                            " instantiates itself through " + std::string(e.name));
                if (e.node_count != sub->ports.size())
                    src_.fail(e.offset, "expected " + std::to_string(sub->ports.size()) +
                                            " nodes for subcircuit " + std::string(sub->name) +
                                            " in " + std::string(e.name) + ", found " +
                                            std::to_string(e.node_count));
                Frame child;
                child.elements = &sub->elements;
                child.def = sub;
                child.port_nets.reserve(e.node_count);
                for (std::uint32_t i = 0; i < e.node_count; ++i)
                    child.port_nets.push_back(node_net(f, nodes_[e.first_node + i]));
                path_ += lower(e.name);
                path_ += '/';
                child.prefix_length = path_.size();
                active[si] = 1;
                stack.push_back(std::move(child)); // f is dangling from here on
                continue;
            }
            if (c_.cells.size() + c_.pins.size() > budget_) // refuse_oversized_hierarchy's bound
                src_.fail(e.offset, "expected a hierarchy of at most " + std::to_string(budget_) +
                                        " cells and pins once flattened");
            name = path_ + lower(e.name);
            const bool black_box = e.letter == 'X';
            c_.add_cell(name, type_of(e), black_box ? CellKind::Instance : CellKind::Logic, e.line);
            if (black_box) {
                c_.cells.back().flags |= kCellBlackBox;
                ++black_boxes[std::string(e.type)];
            }
            for (std::uint32_t i = 0; i < e.node_count; ++i) {
                const NetId n = node_net(f, nodes_[e.first_node + i]);
                if (black_box) {
                    // Positional pins of an unknown subcircuit: no name, no direction.
                    c_.add_pin(n, Direction::Unknown);
                } else {
                    Direction d;
                    terminal(e.letter, i, pin, d);
                    c_.add_pin(n, d, pin);
                }
            }
        }

        for (const Subckt& s : subckts_)
            c_.modules.push_back({std::string(s.name), true, s.instances});
        for (const auto& [type, n] : black_boxes) c_.modules.push_back({type, false, n});
        c_.counts.cells = element_lines_;
        c_.counts.extra["subckts"] = static_cast<std::int64_t>(subckts_.size());
        c_.counts.extra["flattened_cells"] = static_cast<std::int64_t>(c_.cells.size());
        if (!black_boxes.empty())
            c_.counts.extra["black_box_instances"] = [&] {
                std::int64_t n = 0;
                for (const auto& b : black_boxes) n += static_cast<std::int64_t>(b.second);
                return n;
            }();
    }

    std::string stem() const
    {
        std::string_view n = src_.name();
        const std::size_t slash = n.find_last_of('/');
        if (slash != std::string_view::npos) n.remove_prefix(slash + 1);
        return std::string(n.substr(0, n.find('.')));
    }

    /// Cells and pins the flattened circuit may have (flattening_budget of the file's size).
    const std::uint64_t budget_;
    std::string path_; ///< the hierarchical prefix of the frame being flattened

    const SourceText& src_;
    std::string_view text_;
    OffsetLocator locator_;
    Circuit c_;
    std::string title_;
    std::vector<Subckt> subckts_;
    std::unordered_map<std::string, std::uint32_t> subckt_index_;
    std::vector<std::uint32_t> open_; ///< subcircuits being defined, innermost last
    std::vector<Element> top_;
    std::vector<std::string_view> nodes_;
    std::vector<PendingBjt> bjts_; ///< Q lines with a word that may be a node or the model
    std::unordered_map<std::string, std::string> models_;
    std::unordered_set<std::string> globals_;
    std::string scratch_;
    std::int64_t element_lines_ = 0;
    bool ended_ = false;
    std::size_t end_offset_ = 0;
    int warned_ = 0;
};

} // namespace

Circuit read_spice(const SourceText& src) { return SpiceParser(src).parse(); }

} // namespace gsr::netlist
