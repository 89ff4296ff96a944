// Berkeley BLIF: .model/.inputs/.outputs, .names covers (ON- and OFF-set), constants, .latch,
// .subckt hierarchy (flattened), .gate library cells, '\' continuation and '#' comments.
#include "netlist/hierarchy_budget.hpp"
#include "netlist/line_scanner.hpp"
#include "netlist/readers.hpp"
#include "util/source_text.hpp"

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace gsr::netlist {

namespace {

/// A logical BLIF line: physical lines joined at '\', comment removed, split into tokens.
struct LogicalLine {
    int line = 0;              ///< physical line it starts on
    std::size_t offset = 0;    ///< file offset of its first byte
    std::vector<std::string_view> tokens;
    std::vector<std::size_t> token_offsets; ///< file offset of each token (for messages)
};

/// One statement of a model other than the first, kept to be instantiated by .subckt.
struct Statement {
    enum Kind { Names, Latch, Subckt, Gate } kind;
    std::vector<std::string> tokens; ///< after the keyword
    std::string cover;               ///< .names cubes, '\n'-separated
    int line = 0;
};

struct ModelDef {
    std::string name;
    std::vector<std::string> inputs, outputs;
    std::vector<Statement> body;
    int line = 0;
};

class BlifParser {
public:
    explicit BlifParser(const SourceText& src)
        : src_(src), text_(src.text()), locator_(src), pos_(bom_length(text_)), ahead_(pos_)
    {
    }

    Circuit parse()
    {
        c_.format = "blif";
        c_.source = src_.name();
        // A typical 2-input .names with its cube takes about 30 bytes and adds one net.
        c_.net_names.reserve(text_.size() / 40, text_.size() / 6);
        c_.net_names.reserve_index(text_.size() / 40);
        c_.cells.reserve(text_.size() / 32);
        c_.pins.reserve(text_.size() / 10);
        LogicalLine ll;
        while (next_logical(ll)) statement(ll);
        if (model_index_ == 0 && !in_model_)
            throw Error(SourceLocation{src_.name(), 1, 1}, "expected a .model (or .inputs/.names) statement: the file has no BLIF content");
        top_net_count_ = c_.net_count();
        refuse_bad_hierarchy();
        expand_subckts();
        warn_undriven();
        finish_counts();
        return std::move(c_);
    }

private:
    // ---- lexing ----------------------------------------------------------------------------

    bool next_logical(LogicalLine& ll)
    {
        ll.tokens.clear();
        ll.token_offsets.clear();
        bool continued = false;
        while (pos_ < text_.size() || continued) {
            if (pos_ >= text_.size()) break; // '\' on the last line: take what we have
            std::size_t end = text_.find('\n', pos_);
            if (end == std::string_view::npos) end = text_.size();
            std::size_t line_begin = pos_;
            pos_ = end + 1;
            ++line_;
            refuse_control_bytes(src_, line_begin, end, "BLIF");
            prefetch_ahead();
            if (!continued) {
                ll.line = line_;
                ll.offset = line_begin;
            }
            const void* hash_ptr = std::memchr(text_.data() + line_begin, '#', end - line_begin);
            const std::size_t stop = hash_ptr ? static_cast<const char*>(hash_ptr) - text_.data() : end;
            std::size_t last = stop;
            while (last > line_begin && is_space(text_[last - 1])) --last;
            // A '\\' continues the line only when it is not inside a comment.
            bool cont = last > line_begin && text_[last - 1] == '\\' && !hash_ptr;
            if (cont) --last;
            tokenize(line_begin, last, ll);
            continued = cont;
            if (!continued && !ll.tokens.empty()) return true;
        }
        return !ll.tokens.empty();
    }

    /// Keeps a cursor about kLookahead lines ahead of the parser and starts loading the index
    /// slot of each .names output found there. Every new name costs one miss in a hash table
    /// far larger than the caches; issued this early, the misses overlap with the parsing.
    void prefetch_ahead()
    {
        constexpr int kLookahead = 48;
        if (ahead_ < pos_) {
            ahead_ = pos_;
            ahead_lines_ = 0;
        }
        if (ahead_lines_ > 0) --ahead_lines_;
        while (ahead_lines_ < kLookahead && ahead_ < text_.size()) {
            const char* b = text_.data() + ahead_;
            const void* nl = std::memchr(b, '\n', text_.size() - ahead_);
            const char* e = nl ? static_cast<const char*>(nl) : text_.data() + text_.size();
            if (e - b > 7 && std::memcmp(b, ".names ", 7) == 0 && e[-1] != '\\') {
                const char* t = e;
                while (t > b && is_space(t[-1])) --t;
                const char* te = t;
                while (t > b && !is_space(t[-1])) --t;
                c_.net_names.prefetch(std::string_view(t, static_cast<std::size_t>(te - t)));
            }
            ahead_ = static_cast<std::size_t>(e - text_.data()) + 1;
            ++ahead_lines_;
        }
    }

    void tokenize(std::size_t b, std::size_t e, LogicalLine& ll)
    {
        std::size_t i = b;
        while (i < e) {
            while (i < e && is_space(text_[i])) ++i;
            if (i >= e) break;
            std::size_t s = i;
            while (i < e && !is_space(text_[i])) ++i;
            ll.tokens.push_back(text_.substr(s, i - s));
            ll.token_offsets.push_back(s);
        }
    }

    [[noreturn]] void fail_at(std::size_t offset, const std::string& msg) const { src_.fail(offset, msg); }

    // ---- statements ------------------------------------------------------------------------

    void statement(const LogicalLine& ll)
    {
        const std::string_view kw = ll.tokens[0];
        if (skipping_exdc_) {
            // The external don't-care network is not read, cube lines of its .names included
            // (ABC reads it as a network of its own); it runs to .end or the next .model.
            if (kw == ".model") return begin_model(ll);
            if (kw == ".end") end_model();
            return;
        }
        if (kw[0] != '.') {
            fail_at(ll.token_offsets[0], pending_names_ ? "expected a cube line after .names" :
                                                          "expected a BLIF directive such as .names, .latch or .end, found '" +
                                                              std::string(kw.substr(0, 40)) + "'");
        }
        if (kw == ".model") return begin_model(ll);
        if (kw == ".end") { end_model(); return; }
        if (kw == ".exdc") { skipping_exdc_ = true; return; }
        if (!in_model_) begin_implicit_model(ll);
        if (kw == ".inputs" || kw == ".outputs" || kw == ".clock") return ports(ll, kw);
        if (kw == ".names") return names(ll);
        if (kw == ".latch") return latch(ll);
        if (kw == ".subckt") return instance(ll, Statement::Subckt);
        if (kw == ".gate" || kw == ".mlatch") return instance(ll, Statement::Gate);
        if (kw == ".default_input_arrival" || kw == ".default_output_required" || kw == ".input_arrival" ||
            kw == ".output_required" || kw == ".wire_load_slope" || kw == ".area" || kw == ".delay" ||
            kw == ".default_input_drive" || kw == ".input_drive" || kw == ".output_load" ||
            kw == ".default_max_input_load" || kw == ".wire" || kw == ".search" || kw == ".attr" ||
            kw == ".cname" || kw == ".param" || kw == ".conn" || kw == ".barbuf" || kw == ".blackbox") {
            if (kw == ".blackbox" && model_index_ > 0) current_def().body.clear();
            warn_skipped(ll);
            return;
        }
        warn_skipped(ll);
    }

    void warn_skipped(const LogicalLine& ll)
    {
        if (!skipped_warned_.emplace(std::string(ll.tokens[0]), 0).second) return;
        // Once the diagnostics store no more, the warning is only counted: no message to build.
        // Statements come in file order, so the locator counts each line break once.
        if (c_.diagnostics.warnings().size() >= Diagnostics::kMaxStored) {
            c_.diagnostics.warn({}, {});
            return;
        }
        c_.diagnostics.warn(locator_.locate(ll.offset),
                            "directive " + std::string(ll.tokens[0]) + " is not used; skipped");
    }

    void begin_model(const LogicalLine& ll)
    {
        if (in_model_) end_model();
        ++model_index_;
        in_model_ = true;
        saw_end_ = false;
        std::string name = ll.tokens.size() > 1 ? std::string(ll.tokens[1]) : std::string("top");
        if (model_index_ == 1) {
            c_.top = name;
            // Named by the file, the top can be instantiated, which would be a cycle.
            top_named_ = ll.tokens.size() > 1;
        } else {
            if (model_by_name_.count(name) || (top_named_ && name == c_.top))
                // A .model without a name is called "top": the line's keyword is then the place.
                fail_at(ll.token_offsets[ll.tokens.size() > 1 ? 1 : 0],
                        "expected a new model name: " + name + " is defined twice" +
                            (ll.tokens.size() > 1 ? "" : " (a .model without a name is 'top')"));
            model_by_name_[name] = defs_.size();
            defs_.push_back({name, {}, {}, {}, ll.line});
        }
    }

    void begin_implicit_model(const LogicalLine& ll)
    {
        (void)ll;
        ++model_index_;
        in_model_ = true;
        if (model_index_ == 1) c_.top = "top";
        else fail_at(ll.offset, "expected .model before statements of a second model");
    }

    void end_model()
    {
        close_names();
        in_model_ = false;
        saw_end_ = true;
        skipping_exdc_ = false;
    }

    ModelDef& current_def() { return defs_.back(); }
    bool in_top() const { return model_index_ == 1; }

    void ports(const LogicalLine& ll, std::string_view kw)
    {
        close_names();
        if (kw == ".clock") return;
        const bool in = kw == ".inputs";
        for (std::size_t i = 1; i < ll.tokens.size(); ++i) {
            std::string_view t = ll.tokens[i];
            if (in_top()) {
                NetId n = c_.net(t);
                c_.add_port(t, n, in ? Direction::Input : Direction::Output);
                if (in) mark_driver(n, ll.token_offsets[i]);
                (in ? inputs_ : outputs_) += 1;
            } else {
                (in ? current_def().inputs : current_def().outputs).emplace_back(t);
            }
        }
    }

    void names(const LogicalLine& ll)
    {
        close_names();
        if (ll.tokens.size() < 2) fail_at(ll.offset + ll.tokens[0].size(), "expected the output signal of .names");
        pending_names_ = true;
        pending_inputs_ = ll.tokens.size() - 2;
        pending_line_ = ll.line;
        pending_offset_ = ll.offset;
        pending_cover_.clear();
        pending_output_value_ = -1;
        if (in_top()) {
            pending_nets_.clear();
            for (std::size_t i = 1; i < ll.tokens.size(); ++i) pending_nets_.push_back(c_.net(ll.tokens[i]));
            mark_driver(pending_nets_.back(), ll.token_offsets.back());
        } else {
            Statement s{Statement::Names, {}, {}, ll.line};
            for (std::size_t i = 1; i < ll.tokens.size(); ++i) s.tokens.emplace_back(ll.tokens[i]);
            current_def().body.push_back(std::move(s));
        }
        // Cubes follow on their own lines: read them here, up to the next directive.
        while (peek_is_cube()) {
            next_logical(cube_);
            add_cube(cube_);
        }
        close_names();
    }

    bool peek_is_cube()
    {
        std::size_t p = pos_;
        while (p < text_.size()) {
            char ch = text_[p];
            if (ch == '\n') { ++p; continue; }
            if (is_space(ch)) { ++p; continue; }
            if (ch == '#') { // a comment line: skip it and look further
                std::size_t e = text_.find('\n', p);
                if (e == std::string_view::npos) return false;
                p = e + 1;
                continue;
            }
            return ch != '.';
        }
        return false;
    }

    void add_cube(const LogicalLine& cube)
    {
        std::string_view in_part, out_part;
        std::size_t out_off;
        if (pending_inputs_ == 0) {
            if (cube.tokens.size() != 1)
                fail_at(cube.offset, "expected a single output value (0 or 1) for a .names with no inputs");
            out_part = cube.tokens[0];
            out_off = cube.token_offsets[0];
        } else {
            if (cube.tokens.size() != 2)
                fail_at(cube.offset, "expected a cube of " + std::to_string(pending_inputs_) + " input columns followed by an output value");
            in_part = cube.tokens[0];
            out_part = cube.tokens[1];
            out_off = cube.token_offsets[1];
            if (in_part.size() != pending_inputs_)
                fail_at(cube.token_offsets[0], "expected " + std::to_string(pending_inputs_) + " input columns in the cube (the .names on line " +
                                                   std::to_string(pending_line_) + " has " + std::to_string(pending_inputs_) + " inputs), found " +
                                                   std::to_string(in_part.size()));
            for (std::size_t i = 0; i < in_part.size(); ++i)
                if (in_part[i] != '0' && in_part[i] != '1' && in_part[i] != '-')
                    fail_at(cube.token_offsets[0] + i, "expected '0', '1' or '-' in the cube");
        }
        if (out_part.size() != 1 || (out_part[0] != '0' && out_part[0] != '1'))
            fail_at(out_off, "expected the output value 0 or 1");
        const int v = out_part[0] - '0';
        if (pending_output_value_ >= 0 && v != pending_output_value_)
            fail_at(out_off, "expected every cube of one .names to have the same output value (ON-set or OFF-set)");
        pending_output_value_ = v;
        if (!pending_cover_.empty()) pending_cover_ += '\n';
        pending_cover_.append(in_part);
        if (!in_part.empty()) pending_cover_ += ' ';
        pending_cover_ += out_part;
        ++cover_lines_;
    }

    /// Names a .names by its function where it is a plain gate; "SOP" otherwise.
    std::string_view classify(std::vector<bool>& inverted)
    {
        inverted.assign(pending_inputs_, false);
        if (pending_inputs_ == 0) return pending_output_value_ == 1 ? "CONST1" : "CONST0";
        if (pending_output_value_ < 0) return "CONST0"; // no cubes: the empty ON-set
        std::vector<std::string_view>& cubes = cubes_;
        cubes.clear();
        std::size_t s = 0;
        std::string_view cv = pending_cover_;
        while (s <= cv.size()) {
            std::size_t e = cv.find('\n', s);
            if (e == std::string_view::npos) e = cv.size();
            cubes.push_back(cv.substr(s, pending_inputs_));
            s = e + 1;
        }
        const bool on = pending_output_value_ == 1;
        if (cubes.size() == 1 && cubes[0].find('-') == std::string_view::npos) {
            for (std::size_t i = 0; i < pending_inputs_; ++i) inverted[i] = cubes[0][i] == '0';
            if (pending_inputs_ == 1) return on ? "BUF" : "NOT";
            return on ? "AND" : "NAND";
        }
        bool one_literal_each = cubes.size() == pending_inputs_;
        for (std::size_t k = 0; one_literal_each && k < cubes.size(); ++k) {
            std::size_t lit = 0;
            for (std::size_t i = 0; i < pending_inputs_; ++i)
                if (cubes[k][i] != '-') {
                    if (i != k) one_literal_each = false;
                    ++lit;
                }
            if (lit != 1) one_literal_each = false;
        }
        if (one_literal_each) {
            for (std::size_t i = 0; i < pending_inputs_; ++i) inverted[i] = cubes[i][i] == '0';
            return on ? "OR" : "NOR";
        }
        if (pending_inputs_ == 2 && cubes.size() == 2 &&
            ((cubes[0] == "01" && cubes[1] == "10") || (cubes[0] == "10" && cubes[1] == "01")))
            return on ? "XOR" : "XNOR";
        return "SOP";
    }

    void close_names()
    {
        if (!pending_names_) return;
        pending_names_ = false;
        if (!in_top()) {
            current_def().body.back().cover = pending_cover_;
            return;
        }
        std::vector<bool>& inv = inverted_;
        const std::string_view type = classify(inv);
        const bool constant = pending_inputs_ == 0 || type == "CONST0";
        // Named by its output net (Circuit::cell_name): no second copy of the name.
        const CellId id = c_.add_cell({}, type, constant ? CellKind::Constant : CellKind::Logic,
                                      pending_line_);
        for (std::size_t i = 0; i + 1 < pending_nets_.size(); ++i)
            c_.add_pin(pending_nets_[i], Direction::Input, {}, inv[i]);
        c_.add_pin(pending_nets_.back(), Direction::Output);
        if (type == "SOP") set_cover(id, pending_cover_);
        ++names_;
        if (pending_inputs_ == 0) ++const_nodes_;
        fanin_edges_ += static_cast<std::int64_t>(pending_inputs_);
    }

    void set_cover(CellId id, std::string_view cover)
    {
        c_.covers.push_back({id, static_cast<std::uint32_t>(cover.size()), c_.cover_text.size()});
        c_.cover_text.append(cover);
    }

    /// The init value of a .latch line, its last field when there are 3 or 5 after .latch:
    /// 0, 1, 2 (don't care) or 3 (unknown). Zero when it has none.
    InitValue latch_init(const LogicalLine& ll, std::size_t first)
    {
        const std::size_t n = ll.tokens.size() - first;
        if (n != 3 && n != 5) return InitValue::Zero;
        const std::string_view v = ll.tokens.back();
        if (v.size() != 1 || v[0] < '0' || v[0] > '3')
            fail_at(ll.token_offsets[ll.tokens.size() - 1],
                    "expected a .latch init value 0, 1, 2 (don't care) or 3 (unknown), found '" +
                        std::string(v) + "'");
        return static_cast<InitValue>(v[0] - '0');
    }

    void latch(const LogicalLine& ll)
    {
        close_names();
        if (ll.tokens.size() < 3) fail_at(ll.offset, "expected '.latch INPUT OUTPUT [TYPE CONTROL] [INIT]'");
        if (ll.tokens.size() > 6) fail_at(ll.token_offsets[6], "expected at most 5 fields after .latch");
        if (!in_top()) {
            latch_init(ll, 1); // checked here, where the line is known
            Statement s{Statement::Latch, {}, {}, ll.line};
            for (std::size_t i = 1; i < ll.tokens.size(); ++i) s.tokens.emplace_back(ll.tokens[i]);
            current_def().body.push_back(std::move(s));
            return;
        }
        const InitValue init = latch_init(ll, 1);
        const NetId d = c_.net(ll.tokens[1]);
        const NetId q = c_.net(ll.tokens[2]);
        mark_driver(q, ll.token_offsets[2]);
        c_.cells[c_.add_cell({}, "LATCH", CellKind::FlipFlop, ll.line)].init = init;
        c_.add_pin(d, Direction::Input, "D");
        if (ll.tokens.size() >= 5 && ll.tokens[4] != "NIL") c_.add_pin(c_.net(ll.tokens[4]), Direction::Input, "CK");
        c_.add_pin(q, Direction::Output, "Q");
        ++latches_;
    }

    void instance(const LogicalLine& ll, Statement::Kind kind)
    {
        close_names();
        if (ll.tokens.size() < 2) fail_at(ll.offset, "expected a model name after " + std::string(ll.tokens[0]));
        for (std::size_t i = 2; i < ll.tokens.size(); ++i)
            if (ll.tokens[i].find('=') == std::string_view::npos)
                fail_at(ll.token_offsets[i], "expected FORMAL=ACTUAL");
        Statement s{kind, {}, {}, ll.line};
        for (std::size_t i = 1; i < ll.tokens.size(); ++i) s.tokens.emplace_back(ll.tokens[i]);
        if (in_top()) {
            // Actuals are nets of the top model now, whether or not the model turns out defined.
            for (std::size_t i = 2; i < ll.tokens.size(); ++i) {
                std::string_view t = ll.tokens[i];
                c_.net(t.substr(t.find('=') + 1));
            }
            top_instances_.push_back(std::move(s));
        } else {
            current_def().body.push_back(std::move(s));
        }
        (kind == Statement::Subckt ? subckts_ : gates_) += 1;
    }

    void mark_driver(NetId n, std::size_t offset)
    {
        (void)offset;
        if (driven_.size() <= n) driven_.resize(static_cast<std::size_t>(n) + 1, false);
        driven_[n] = true;
    }

    // ---- hierarchy ---------------------------------------------------------------------------

    struct Frame {
        const Statement* inst;
        std::string prefix;                          ///< "u1/u2/" of the instance's contents
        std::unordered_map<std::string, NetId> bind; ///< formal -> net in the parent
        std::unordered_map<std::string, NetId> renamed; ///< local name -> its net, once it clashed
        std::uint32_t serial = 0; ///< 1, 2 ... per instance flattened; the top is 0
        int depth = 0;
    };

    /// Refuses, before anything is flattened, a model that instantiates itself (directly or
    /// through others, the top included) at the .subckt that closes the cycle, and a hierarchy
    /// that flattens to more cells and pins than the file's size allows at the .subckt that
    /// takes it past: a model that instantiates the one below twice, 30 levels deep, is 2 KB
    /// of text and 2^30 cells. Sizes are summed bottom-up, once per model, saturating.
    void refuse_bad_hierarchy()
    {
        static constexpr std::size_t kLeaf = static_cast<std::size_t>(-1);
        const std::uint64_t budget = flattening_budget(src_.size());
        const std::size_t top = defs_.size(); // the top model: its instances are top_instances_
        auto body = [&](std::size_t m) -> const std::vector<Statement>& {
            return m == top ? top_instances_ : defs_[m].body;
        };
        // The model a statement flattens into; kLeaf for a cell (a gate, a black box, a cover).
        auto child_of = [&](const Statement& s) {
            if (s.kind != Statement::Subckt) return kLeaf;
            if (top_named_ && s.tokens[0] == c_.top) return top;
            auto it = model_by_name_.find(s.tokens[0]);
            if (it == model_by_name_.end() || defs_[it->second].body.empty()) return kLeaf;
            return it->second;
        };
        auto name_of = [&](std::size_t m) { return m == top ? c_.top : defs_[m].name; };
        std::vector<std::uint8_t> state(top + 1, 0); // 0 new, 1 open, 2 sized
        std::vector<std::uint64_t> size(top + 1, 0);
        struct Visit {
            std::size_t model;
            std::size_t next; ///< statement of its body
            std::uint64_t size;
        };
        std::vector<Visit> walk{{top, 0, c_.cells.size() + c_.pins.size()}};
        state[top] = 1;
        while (!walk.empty()) {
            Visit& v = walk.back();
            const std::vector<Statement>& statements = body(v.model);
            if (v.next == statements.size()) {
                state[v.model] = 2;
                size[v.model] = v.size;
                walk.pop_back();
                continue;
            }
            const Statement& st = statements[v.next];
            const std::size_t child = child_of(st);
            if (child != kLeaf && state[child] == 1) {
                std::string path;
                bool on = false;
                for (const Visit& w : walk) {
                    on = on || w.model == child;
                    if (on) path += "'" + name_of(w.model) + "' -> ";
                }
                throw Error(SourceLocation{src_.name(), st.line, 1},
                            "expected a finite hierarchy: recursive instantiation " + path + "'" +
                                name_of(child) + "'");
            }
            if (child != kLeaf && state[child] == 0) { // size it first, then come back here
                state[child] = 1;
                walk.push_back({child, 0, 0}); // v dangles from here on
                continue;
            }
            ++v.next;
            // A cell: about one pin per signal on its line.
            v.size = saturating_add(v.size, child == kLeaf ? st.tokens.size() + 1 : size[child]);
            if (v.size > budget)
                throw Error(SourceLocation{src_.name(), st.line, 1},
                            "expected a hierarchy of at most " + std::to_string(budget) +
                                " cells and pins once flattened (a limit set by the file's size): "
                                "this .subckt takes model " + name_of(v.model) + " past that");
        }
    }

    /// The net a name stands for inside instance f (the top's nets when f is null). The net n
    /// inside instance u flattens to the name u/n, which a net of the text may be named too
    /// (BLIF names may hold '/'): as they are, two different nets would become one.
    /// The net that takes the name later gets a prime (n'), and later ones a prime and a number
    /// (n'2, n'3), as the Verilog reader names its clashes; a count per name keeps K clashes
    /// linear.
    NetId resolve(Frame* f, const std::string& name)
    {
        if (!f) return c_.net(name);
        auto it = f->bind.find(name);
        if (it != f->bind.end()) return it->second;
        if (!f->renamed.empty()) {
            auto r = f->renamed.find(name);
            if (r != f->renamed.end()) return r->second;
        }
        const std::string full = f->prefix + name;
        const std::size_t before = c_.net_count();
        const NetId n = c_.net(full);
        if (c_.net_count() != before) {
            net_owner_.push_back(f->serial);
            return n;
        }
        if (n >= top_net_count_ && net_owner_[n - top_net_count_] == f->serial) return n;
        std::uint32_t& suffix = clash_suffix_[full];
        std::string renamed;
        do {
            renamed = full + '\'';
            if (++suffix > 1) renamed += std::to_string(suffix);
        } while (c_.net_names.find(renamed) != kNoName);
        const NetId r = c_.net(renamed);
        // Reached through f->renamed only: a name of the text that spells it (a net "x'"
        // beside x) is another net, and clashes with it.
        net_owner_.push_back(kRenamedOwner);
        f->renamed.emplace(name, r);
        if (clashes_++ == 0)
            first_clash_ = "'" + full + "' (the later one is named '" + renamed + "')";
        return r;
    }

    void expand_subckts()
    {
        std::vector<Frame> stack;
        auto push = [&](const Statement& s, Frame* parent) {
            const std::string& model = s.tokens[0];
            const std::string inst_name = (parent ? parent->prefix : std::string()) + model + "_" + std::to_string(instance_counter_++);
            auto it = model_by_name_.find(model);
            bool defined = it != model_by_name_.end() && s.kind == Statement::Subckt && !defs_[it->second].body.empty();
            record_module(model, defined);
            if (!defined) {
                const CellId cell = c_.add_cell(inst_name, model, CellKind::Instance, s.line);
                if (s.kind == Statement::Subckt) c_.cells[cell].flags |= kCellBlackBox;
                for (std::size_t i = 1; i < s.tokens.size(); ++i) {
                    const std::string& t = s.tokens[i];
                    std::size_t eq = t.find('=');
                    Direction dir = Direction::Unknown;
                    if (it != model_by_name_.end()) { // a .blackbox model still declares directions
                        const ModelDef& m = defs_[it->second];
                        for (const auto& o : m.outputs) if (o == t.substr(0, eq)) dir = Direction::Output;
                        for (const auto& in : m.inputs) if (in == t.substr(0, eq)) dir = Direction::Input;
                    }
                    c_.add_pin(resolve(parent, t.substr(eq + 1)), dir, std::string_view(t).substr(0, eq));
                }
                return;
            }
            if (parent && parent->depth >= 1000)
                throw Error(SourceLocation{src_.name(), s.line, 1},
                            "expected a finite hierarchy: .subckt nesting is deeper than 1000 "
                            "(does model " + model + " instantiate itself?)");
            Frame f;
            f.inst = &s;
            f.prefix = inst_name + "/";
            f.serial = ++frame_serial_;
            f.depth = parent ? parent->depth + 1 : 0;
            const ModelDef& m = defs_[it->second];
            for (std::size_t i = 1; i < s.tokens.size(); ++i) {
                const std::string& t = s.tokens[i];
                std::size_t eq = t.find('=');
                std::string formal = t.substr(0, eq);
                bool known = false;
                for (const auto& p : m.inputs) known |= p == formal;
                for (const auto& p : m.outputs) known |= p == formal;
                if (!known) throw Error(SourceLocation{src_.name(), s.line, 1}, "expected a port of model " + model + ", found " + formal);
                f.bind[formal] = resolve(parent, t.substr(eq + 1));
            }
            stack.push_back(std::move(f));
        };
        for (const Statement& s : top_instances_) push(s, nullptr);
        while (!stack.empty()) {
            Frame f = std::move(stack.back());
            stack.pop_back();
            const ModelDef& m = defs_[model_by_name_.at(f.inst->tokens[0])];
            for (const Statement& st : m.body) {
                if (st.kind == Statement::Subckt || st.kind == Statement::Gate) { push(st, &f); continue; }
                if (st.kind == Statement::Latch) {
                    const CellId latch =
                        c_.add_cell(f.prefix + st.tokens[1], "LATCH", CellKind::FlipFlop, st.line);
                    const std::size_t n = st.tokens.size(); // fields after .latch
                    if (n == 3 || n == 5)
                        c_.cells[latch].init = static_cast<InitValue>(st.tokens[n - 1][0] - '0');
                    c_.add_pin(resolve(&f, st.tokens[0]), Direction::Input, "D");
                    if (st.tokens.size() >= 4 && st.tokens[3] != "NIL") c_.add_pin(resolve(&f, st.tokens[3]), Direction::Input, "CK");
                    c_.add_pin(resolve(&f, st.tokens[1]), Direction::Output, "Q");
                    continue;
                }
                const std::size_t nin = st.tokens.size() - 1;
                const bool constant = nin == 0;
                const CellId id = c_.add_cell(f.prefix + st.tokens.back(), constant ? "CONST" : "SOP",
                                              constant ? CellKind::Constant : CellKind::Logic, st.line);
                for (std::size_t i = 0; i < nin; ++i) c_.add_pin(resolve(&f, st.tokens[i]), Direction::Input);
                c_.add_pin(resolve(&f, st.tokens.back()), Direction::Output);
                set_cover(id, st.cover);
            }
        }
        if (clashes_)
            c_.diagnostics.warn({src_.name()},
                                std::to_string(clashes_) + " net name" +
                                    (clashes_ == 1 ? " is" : "s are") +
                                    " shared by different nets once the hierarchy is flat, such as "
                                    "a net named 'u/n' and the net n inside instance u; each is "
                                    "kept apart with primes added (n', then n'2, n'3 ...): " +
                                    first_clash_);
    }

    /// Nets of the top model that nothing drives, once the hierarchy is flat: a .subckt's
    /// output drives its actual through the model's contents (a black box's pins, whose
    /// direction may be unknown, are taken as driving).
    void warn_undriven()
    {
        driven_.resize(top_net_count_, false);
        for (const Pin& p : c_.pins)
            if (p.net < top_net_count_ && p.dir != Direction::Input) driven_[p.net] = true;
        std::int64_t undriven = 0;
        for (NetId n = 0; n < top_net_count_; ++n) {
            if (driven_[n]) continue;
            ++undriven;
            c_.diagnostics.warn({src_.name()}, "signal " + std::string(c_.net_name(n)) +
                                                   " is never driven in model " + c_.top);
        }
        if (undriven) c_.counts.extra["undriven_nets"] = undriven;
    }

    void record_module(const std::string& name, bool defined)
    {
        for (ModuleInfo& m : c_.modules)
            if (m.name == name) { ++m.instances; return; }
        c_.modules.push_back({name, defined, 1});
    }

    void finish_counts()
    {
        c_.counts.inputs = inputs_;
        c_.counts.outputs = outputs_;
        c_.counts.flip_flops = latches_;
        c_.counts.cells = names_ + subckts_ + gates_;
        c_.counts.extra["const_nodes"] = const_nodes_;
        c_.counts.extra["cover_lines"] = cover_lines_;
        c_.counts.extra["names"] = names_;
        c_.counts.extra["fanin_edges"] = fanin_edges_;
        if (subckts_) c_.counts.extra["subckt"] = subckts_;
        if (gates_) c_.counts.extra["gate"] = gates_;
        // Nets: every distinct name on .inputs/.outputs/.names/.latch lines and .subckt actuals
        // of the top model, which is what the top model interned before flattening.
        c_.counts.nets = static_cast<std::int64_t>(top_net_count_ ? top_net_count_ : c_.net_count());
    }

    const SourceText& src_;
    std::string_view text_;
    OffsetLocator locator_; ///< lines of warnings, asked in file order
    std::size_t pos_ = 0; ///< past a byte order mark at first
    int line_ = 0;
    std::size_t ahead_ = 0; ///< prefetch cursor, ahead of pos_
    int ahead_lines_ = 0;
    Circuit c_;

    int model_index_ = 0;
    bool in_model_ = false, saw_end_ = false, skipping_exdc_ = false;
    bool top_named_ = false; ///< the first model has a .model line (else it is called "top")
    std::vector<ModelDef> defs_;
    std::unordered_map<std::string, std::size_t> model_by_name_;
    std::vector<Statement> top_instances_;
    std::unordered_map<std::string, int> skipped_warned_;
    std::size_t instance_counter_ = 0;
    std::size_t top_net_count_ = 0;
    std::vector<std::uint32_t> net_owner_; ///< the frame serial of each net flattening made
    static constexpr std::uint32_t kRenamedOwner = 0xffffffffu; ///< a net named with primes
    std::uint32_t frame_serial_ = 0;
    std::unordered_map<std::string, std::uint32_t> clash_suffix_; ///< clashed name -> last suffix
    std::size_t clashes_ = 0;
    std::string first_clash_;

    bool pending_names_ = false;
    std::size_t pending_inputs_ = 0;
    int pending_line_ = 0;
    std::size_t pending_offset_ = 0;
    int pending_output_value_ = -1;
    std::string pending_cover_;
    std::vector<NetId> pending_nets_;

    std::vector<bool> driven_;
    LogicalLine cube_;                    // reused: no allocation per .names
    std::vector<std::string_view> cubes_; // reused by classify
    std::vector<bool> inverted_;
    std::int64_t inputs_ = 0, outputs_ = 0, latches_ = 0, names_ = 0, subckts_ = 0, gates_ = 0;
    std::int64_t const_nodes_ = 0, cover_lines_ = 0, fanin_edges_ = 0;
};

} // namespace

Circuit read_blif(const SourceText& src)
{
    check_text_input(src, "BLIF");
    return BlifParser(src).parse();
}

} // namespace gsr::netlist
