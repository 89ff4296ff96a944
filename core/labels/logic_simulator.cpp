#include "labels/logic_simulator.hpp"

#include "labels/splitmix64.hpp"
#include "netlist/liberty_function.hpp"
#include "netlist/library.hpp"
#include "util/diagnostics.hpp"
#include "util/machine.hpp"

#include <algorithm>
#include <bit>
#include <exception>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

// The word loops are inlined into one kernel per instruction set, picked at run time: popcount
// is a library call on baseline x86-64, one instruction with popcnt, and vectorized with
// AVX-512 VPOPCNTDQ. Every variant computes the same integers.
#if defined(__GNUC__) && defined(__x86_64__)
#define GSR_X86_KERNELS 1
#define GSR_INLINE_IN_KERNEL __attribute__((always_inline)) inline
#else
#define GSR_X86_KERNELS 0
#define GSR_INLINE_IN_KERNEL inline
#endif

namespace gsr::labels {

using netlist::Cell;
using netlist::CellKind;
using netlist::Circuit;
using netlist::kNoNet;
using netlist::Pin;

namespace {

/// Words per row in one pass over the program: as many as keep the live rows within about
/// 1 MiB (a level-2 cache), between 8 and 64. Longer rows amortize the instruction decode
/// and the per-net counters over more vectors.
constexpr std::size_t kMinBatchWords = 8, kMaxBatchWords = 64;
constexpr std::size_t kRowBudgetBytes = std::size_t{1} << 20;

std::size_t batch_words(std::size_t rows)
{
    std::size_t w = kMaxBatchWords;
    while (w > kMinBatchWords && rows * w * sizeof(std::uint64_t) > kRowBudgetBytes) w /= 2;
    return w;
}
constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};

enum class Op : std::uint8_t { And, Or, Xor, Mux, Sop, Const };

/// out = op(operands) ^ (invert ? ~0 : 0). Operands are (row << 1 | complemented).
struct Instruction {
    Op op = Op::Const;
    bool invert = false;
    std::uint32_t out_row = 0;
    std::uint32_t first_operand = 0;
    std::uint32_t operand_count = 0;
    std::uint32_t first_cube = 0; ///< Sop: cubes[first_cube .. first_cube + cube_count)
    std::uint32_t cube_count = 0;
};

/// A product term of a cover: literals[first .. first + count), each (operand << 1 | negative).
struct Cube {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
};

constexpr std::uint32_t kZeroRow = 0; ///< all zero: what undriven nets read

std::string quoted(std::string_view s)
{
    std::string q;
    q.reserve(s.size() + 2);
    q.push_back('\'');
    q.append(s);
    q.push_back('\'');
    return q;
}

} // namespace

struct LogicSimulator::Program {
    std::vector<Instruction> instructions;
    std::vector<std::uint32_t> operands;
    std::vector<Cube> cubes;
    std::vector<std::uint32_t> literals;
    std::vector<std::uint32_t> input_rows; ///< per primary input; value index i
    std::vector<std::uint32_t> state_rows; ///< per flip-flop; value index inputs + k
    std::vector<std::uint32_t> next_state; ///< per flip-flop: operand of its data pin
    std::vector<std::uint8_t> starts_at_one; ///< per flip-flop: init One (else it starts at 0)
    /// Value index -> net: primary inputs, flip-flop outputs, then one per instruction.
    std::vector<NetId> value_net;
    std::uint32_t rows = 1; ///< row 0 is the zero row; one more, the scratch row, follows
    std::size_t net_count = 0;
    std::size_t undriven = 0;
    std::size_t flip_flops = 0; ///< the circuit's, read or not
    std::string source;
};

namespace {

using Program = LogicSimulator::Program;

// ---- compiling -------------------------------------------------------------------------------

class ProgramCompiler {
public:
    ProgramCompiler(const Circuit& c, const NetStructure& s, const netlist::Library* library)
        : c_(c), s_(s), library_(library)
    {
    }

    void compile(Program& p)
    {
        p.source = c_.source;
        p.net_count = s_.net_count();
        p.undriven = s_.undriven_nets;
        p.flip_flops = s_.flip_flops;
        refuse_multiple_drivers(s_, c_, "simulation needs one driver per net");
        for (NetId n : s_.primary_inputs) p.value_net.push_back(n);
        for (CellId c = 0; c < c_.cells.size(); ++c)
            if (!s_.combinational[c]) add_flip_flop(p, c);
        // A library flip-flop's other outputs (QN beside Q) follow its state; its next state,
        // where it is more than one pin (a scan flip-flop's mux, a clear), is computed last,
        // into a net of the program's own (past the circuit's net ids, counted nowhere).
        for (const StateAlias& a : aliases_) emit(p, a.instruction, a.net);
        for (CellId c : depth_first_schedule()) add_cell(p, c);
        for (const NextState& n : next_states_) {
            Instruction ins;
            ins.first_operand = static_cast<std::uint32_t>(pending_operands_.size());
            ins.operand_count = static_cast<std::uint32_t>(n.operands.size());
            compile_table(p, n.table, n.operands.size(), ins);
            pending_operands_.insert(pending_operands_.end(), n.operands.begin(), n.operands.end());
            emit(p, ins, n.net);
        }
        row_of_.assign(s_.net_count() + own_nets_, kZeroRow);
        allocate_rows(p);
    }

private:
    /// The combinational cells in depth-first post-order from the cells that no combinational
    /// cell reads: a topological order in which most values are read soon after they are made,
    /// so far fewer rows are live at once than in level order (hyp: 1.7k against 22k).
    std::vector<CellId> depth_first_schedule() const
    {
        const std::size_t cells = c_.cells.size();
        std::vector<std::uint8_t> state(cells, 0); // 0 new, 1 on the stack, 2 scheduled
        std::vector<CellId> schedule;
        schedule.reserve(s_.order.size());
        std::vector<std::pair<CellId, std::uint32_t>> stack; // cell, next input to look at
        auto read_by_logic = [&](CellId c) {
            for (NetId n : s_.outputs(c))
                for (CellId r : s_.sinks(n))
                    if (s_.combinational[r]) return true;
            return false;
        };
        for (int pass = 0; pass < 2; ++pass) {
            for (CellId root = 0; root < cells; ++root) {
                if (!s_.combinational[root] || state[root] != 0) continue;
                if (pass == 0 && read_by_logic(root)) continue;
                stack.emplace_back(root, 0);
                state[root] = 1;
                while (!stack.empty()) {
                    auto& [c, next] = stack.back();
                    const auto ins = s_.inputs(c);
                    bool descended = false;
                    while (next < ins.size()) {
                        const CellId d = s_.driver[c_.pins[ins[next++]].net];
                        if (d != kNoCell && s_.combinational[d] && state[d] == 0) {
                            state[d] = 1;
                            stack.emplace_back(d, 0);
                            descended = true;
                            break;
                        }
                    }
                    if (descended) continue;
                    state[c] = 2;
                    schedule.push_back(c);
                    stack.pop_back();
                }
            }
        }
        return schedule;
    }

    [[noreturn]] void fail(const std::string& message) const
    {
        throw Error(SourceLocation{c_.source}, message);
    }
    /// Fails at the line of cell c, naming it before `message`.
    [[noreturn]] void fail_cell(CellId c, const std::string& message) const
    {
        throw Error(c_.cell_location(c), netlist::describe_cell(c_, c) + message);
    }

    void add_flip_flop(Program& p, CellId c)
    {
        const Cell& cell = c_.cells[c];
        if (cell.kind == CellKind::Instance) return add_library_flip_flop(p, c);
        if (cell.kind != CellKind::FlipFlop)
            fail_cell(c, " is a sequential cell the simulator does not know");
        const auto outs = s_.outputs(c);
        const auto ins = s_.inputs(c);
        if (outs.size() != 1 || ins.size() != 1 || flip_flop_data_pin(c_, cell) < 0)
            fail_cell(c, " is a flip-flop without exactly one data input (a pin named D) and "
                         "one output");
        state_nets_.push_back(outs[0]);
        const Pin& d = c_.pins[ins[0]];
        next_of_.push_back({d.net, d.inverted});
        // Don't care and unknown start at 0, like the formats without an init value.
        p.starts_at_one.push_back(cell.init == netlist::InitValue::One ? 1 : 0);
        p.value_net.push_back(outs[0]);
    }

    // ---- library cells, by their Liberty functions ----

    const netlist::LibraryCell& library_cell(CellId c) const
    {
        if (!library_ || library_->cells.empty())
            fail_cell(c, " is an instance of a library cell: simulating it needs its Liberty "
                         "library (`gsr labels` and `gsr train` take it as --liberty, the "
                         "window as File > Cell Libraries)");
        const netlist::LibraryCell* lib = library_->find(c_.cell_type(c_.cells[c]));
        if (!lib) fail_cell(c, " is an instance of a cell that the Liberty libraries do not define");
        return *lib;
    }

    /// The names of the cell's input pins, in the order of its operands.
    std::vector<std::string_view> input_names(CellId c) const
    {
        std::vector<std::string_view> names;
        for (std::uint32_t pin : s_.inputs(c)) {
            if (c_.pins[pin].name == kNoName)
                fail_cell(c, " connects its pins by position: its Liberty function needs them "
                             "by name");
            names.push_back(c_.names.view(c_.pins[pin].name));
        }
        return names;
    }

    std::string_view output_pin_name(CellId c, NetId n) const
    {
        const Cell& cell = c_.cells[c];
        const Pin* pins = c_.pins_of(cell);
        for (std::uint32_t i = 0; i < cell.pin_count; ++i)
            if (pins[i].dir == netlist::Direction::Output && pins[i].net == n &&
                pins[i].name != kNoName)
                return c_.names.view(pins[i].name);
        fail_cell(c, " connects its pins by position: its Liberty function needs them by name");
    }

    const std::string& output_function(CellId c, const netlist::LibraryCell& lib,
                                       std::string_view pin) const
    {
        for (const netlist::LibraryPin& lp : lib.pins) {
            if (lp.name != pin) continue;
            if (!lp.three_state.empty()) // its value is Z where the enable is off
                fail_cell(c, ": output " + std::string(pin) + " of library cell " + lib.name +
                                 " is tri-state (three_state \"" + lp.three_state +
                                 "\"), which the simulator has no value for");
            if (!lp.function.empty()) return lp.function;
        }
        fail_cell(c, ": its library cell " + lib.name + " has no function for output pin " +
                         std::string(pin) + pins_only(lib));
    }

    /// Where a cell came from a LEF alone, which gives pins but no functions or ff groups.
    static std::string pins_only(const netlist::LibraryCell& lib)
    {
        return lib.storage_known ? std::string()
                                 : " (a LEF gives its pins only: give its Liberty library too)";
    }

    std::vector<std::uint64_t> truth_table(CellId c, const netlist::LibraryCell& lib,
                                           const std::string& function,
                                           std::span<const std::string_view> names) const
    {
        try {
            return netlist::function_truth_table(function, names);
        } catch (const Error& e) {
            // The one way out the instance has: an input pin of the cell it leaves unconnected.
            std::string hint;
            for (const netlist::LibraryPin& lp : lib.pins)
                if (lp.dir == netlist::Direction::Input &&
                    std::find(names.begin(), names.end(), lp.name) == names.end() &&
                    netlist::function_mentions(function, lp.name))
                    hint = " (its input pin " + lp.name + " is not connected)";
            fail_cell(c, " (library cell " + lib.name + "): " + e.message() + hint);
        }
    }


    void push_input_operands(CellId c)
    {
        for (std::uint32_t pin : s_.inputs(c))
            pending_operands_.push_back({c_.pins[pin].net, c_.pins[pin].inverted});
    }

    void emit(Program& p, const Instruction& ins, NetId net)
    {
        p.instructions.push_back(ins);
        out_nets_.push_back(net);
        p.value_net.push_back(net);
    }

    /// A combinational instance: one instruction per output, each its pin's function over
    /// the cell's inputs (all of them its operands, shared).
    void add_library_cell(Program& p, CellId c)
    {
        const netlist::LibraryCell& lib = library_cell(c);
        const std::vector<std::string_view> names = input_names(c);
        const std::uint32_t first = static_cast<std::uint32_t>(pending_operands_.size());
        push_input_operands(c);
        const std::size_t first_output = out_nets_.size();
        for (NetId n : s_.outputs(c)) {
            if (s_.driver[n] != c) continue;
            const auto mine = out_nets_.begin() + static_cast<std::ptrdiff_t>(first_output);
            if (std::find(mine, out_nets_.end(), n) != out_nets_.end()) continue;
            Instruction ins;
            ins.first_operand = first;
            ins.operand_count = static_cast<std::uint32_t>(names.size());
            compile_table(p, truth_table(c, lib, output_function(c, lib, output_pin_name(c, n)), names),
                          names.size(), ins);
            emit(p, ins, n);
        }
    }

    /// Whether output net n of flip-flop c is its state's complement (IQN): its function read
    /// over the ff group's state variables.
    bool reads_inverse_state(CellId c, const netlist::LibraryCell& lib, NetId n) const
    {
        std::vector<std::string_view> state{lib.ff.state};
        if (!lib.ff.state_inverse.empty()) state.push_back(lib.ff.state_inverse);
        const std::string_view pin = output_pin_name(c, n);
        const std::string& function = output_function(c, lib, pin);
        std::vector<std::uint64_t> t;
        try {
            t = netlist::function_truth_table(function, state);
        } catch (const Error&) {
            fail_cell(c, ": output " + std::string(pin) + " of library cell " + lib.name +
                             " (function \"" + function + "\") reads more than the flip-flop's "
                             "state " + lib.ff.state + ", which is not simulated");
        }
        // Rows where IQN is the complement of IQ: IQ = 1 (row 1), IQ = 0 (row 2, or row 0
        // where there is no IQN).
        const unsigned at1 = (t[0] >> 1) & 1u, at0 = state.size() > 1 ? (t[0] >> 2) & 1u : t[0] & 1u;
        if (at1 == 1 && at0 == 0) return false;
        if (at1 == 0 && at0 == 1) return true;
        fail_cell(c, ": output " + std::string(output_pin_name(c, n)) + " of library cell " +
                         lib.name + " is neither its state nor its complement");
    }

    void add_library_flip_flop(Program& p, CellId c)
    {
        const netlist::LibraryCell& lib = library_cell(c);
        if (!lib.storage_known)
            fail_cell(c, ": its library cell " + lib.name + " stores (by its name) but has no ff "
                         "group" + pins_only(lib));
        if (!lib.is_ff)
            fail_cell(c, " is a latch (library cell " + lib.name +
                             "), which the simulator has no clock edge for: not simulated");
        if (lib.ff.next_state.empty() || lib.ff.state.empty())
            fail_cell(c, ": its library cell " + lib.name +
                             " has no ff group with a next_state (a multi-bit ff_bank is not "
                             "simulated)");
        std::vector<NetId> outs;
        for (NetId n : s_.outputs(c))
            if (s_.driver[n] == c && std::find(outs.begin(), outs.end(), n) == outs.end())
                outs.push_back(n);
        if (outs.empty()) return; // nothing reads its state
        const std::vector<std::string_view> inputs = input_names(c);
        // next_state, clear and preset may read the state too (an enable flip-flop:
        // "(D EN) + (IQ !EN)"): IQ and IQN are variables after the input pins.
        std::vector<std::string_view> names = inputs;
        names.push_back(lib.ff.state);
        if (!lib.ff.state_inverse.empty()) names.push_back(lib.ff.state_inverse);
        // The value loaded at the clock: next_state, 0 where clear holds, 1 where preset does,
        // and where both do, clear_preset_var1's H is 1 and anything else 0 (clear and preset
        // are read at the edge: no asynchronous timing here).
        std::vector<std::uint64_t> next = truth_table(c, lib, lib.ff.next_state, names);
        const std::vector<std::uint64_t> none(next.size(), 0);
        const auto preset = lib.ff.preset.empty() ? none : truth_table(c, lib, lib.ff.preset, names);
        const auto clear = lib.ff.clear.empty() ? none : truth_table(c, lib, lib.ff.clear, names);
        const std::vector<std::uint64_t> used = netlist::function_truth_table("1", names);
        const bool both_set = lib.ff.clear_preset_var1 == "H";
        for (std::size_t i = 0; i < next.size(); ++i)
            next[i] = ((next[i] | preset[i]) & ~clear[i]) | (both_set ? clear[i] & preset[i] : 0);
        // Where both hold, IQN is clear_preset_var2. Where var1 and var2 are both L or both H
        // (a DFFSR's L and L: Q and QN both 0), IQN is not IQ's complement there (N, T and X
        // keep them complements, as they are everywhere else).
        const auto level = [](const std::string& v) { return v == "L" || v == "H"; };
        const bool may_differ = !lib.ff.clear.empty() && !lib.ff.preset.empty() &&
                                level(lib.ff.clear_preset_var1) &&
                                lib.ff.clear_preset_var2 == lib.ff.clear_preset_var1;
        std::vector<std::uint64_t> next_iqn;
        if (may_differ) {
            next_iqn.resize(next.size());
            for (std::size_t i = 0; i < next.size(); ++i) {
                const std::uint64_t both = clear[i] & preset[i];
                next_iqn[i] = (~next[i] & used[i] & ~both) | (both_set ? both : 0);
            }
        }
        // What each output reads: IQN where its function names it (else IQ), and whether it
        // is that variable's complement.
        struct Read {
            bool iqn = false, inverted = false;
            bool complement = false; ///< of IQ, as if IQN were always !IQ
        };
        const auto ff_reads = [&lib](const std::string& variable) {
            if (variable.empty()) return false;
            for (const std::string* f : {&lib.ff.next_state, &lib.ff.clear, &lib.ff.preset})
                if (netlist::function_mentions(*f, variable)) return true;
            return false;
        };
        bool reads_iq = ff_reads(lib.ff.state), reads_iqn = ff_reads(lib.ff.state_inverse);
        std::vector<Read> reads(outs.size());
        for (std::size_t k = 0; k < outs.size(); ++k) {
            Read& r = reads[k];
            r.complement = reads_inverse_state(c, lib, outs[k]);
            r.iqn = !lib.ff.state_inverse.empty() &&
                    netlist::function_mentions(
                        output_function(c, lib, output_pin_name(c, outs[k])),
                        lib.ff.state_inverse);
            r.inverted = r.iqn ? !r.complement : r.complement;
            (r.iqn ? reads_iqn : reads_iq) = true;
        }
        std::vector<PendingOperand> operands; // of the next states: the input pins, IQ, IQN
        for (std::uint32_t pin : s_.inputs(c))
            operands.push_back({c_.pins[pin].net, c_.pins[pin].inverted});
        const auto own_net = [this] { return static_cast<NetId>(s_.net_count() + own_nets_++); };
        const auto alias = [this](NetId from, bool invert, NetId to) {
            Instruction ins;
            ins.op = Op::And;
            ins.invert = invert;
            ins.first_operand = static_cast<std::uint32_t>(pending_operands_.size());
            ins.operand_count = 1;
            pending_operands_.push_back({from, false});
            aliases_.push_back({ins, to});
        };
        if (may_differ && reads_iq && reads_iqn) {
            // IQ and IQN each a state of its own: on the first output that is it, or on a net
            // of the program's own; every other output follows one of them.
            NetId state_net[2] = {netlist::kNoNet, netlist::kNoNet}; // IQ, IQN
            for (std::size_t k = 0; k < outs.size(); ++k)
                if (!reads[k].inverted && state_net[reads[k].iqn] == netlist::kNoNet)
                    state_net[reads[k].iqn] = outs[k];
            for (int v = 0; v < 2; ++v) {
                if (state_net[v] == netlist::kNoNet) state_net[v] = own_net();
                state_nets_.push_back(state_net[v]);
                p.starts_at_one.push_back(v == 1 ? 1 : 0); // IQ starts at 0, IQN at 1
                p.value_net.push_back(state_net[v]);
            }
            for (std::size_t k = 0; k < outs.size(); ++k)
                if (outs[k] != state_net[reads[k].iqn])
                    alias(state_net[reads[k].iqn], reads[k].inverted, outs[k]);
            operands.push_back({state_net[0], false});
            if (!lib.ff.state_inverse.empty()) operands.push_back({state_net[1], false});
            const NetId own_iq = own_net(), own_iqn = own_net();
            next_states_.push_back({std::move(next), operands, own_iq});
            next_states_.push_back({std::move(next_iqn), std::move(operands), own_iqn});
            next_of_.push_back({own_iq, false});
            next_of_.push_back({own_iqn, false});
            return;
        }
        // One state, holding the first output's value; the others follow it. Where only IQN is
        // read and may differ, that value is IQN's own; otherwise IQ's, or its complement.
        const bool by_iqn = may_differ && !reads_iq;
        const bool inverse = by_iqn ? reads[0].inverted : reads[0].complement;
        state_nets_.push_back(outs[0]);
        // Liberty state starts at 0 (IQN at 1), as a DFF's.
        p.starts_at_one.push_back(by_iqn ? !inverse : inverse);
        p.value_net.push_back(outs[0]);
        for (std::size_t k = 1; k < outs.size(); ++k)
            alias(outs[0],
                  by_iqn ? reads[k].inverted != inverse
                         : reads[k].complement != inverse,
                  outs[k]);
        if (by_iqn) { // IQN's own table; next_state, clear and preset read IQN at most
            operands.push_back({outs[0], false}); // IQ: not read
            if (!lib.ff.state_inverse.empty()) operands.push_back({outs[0], inverse});
            const NetId own = own_net();
            next_states_.push_back({std::move(next_iqn), std::move(operands), own});
            next_of_.push_back({own, inverse});
            return;
        }
        operands.push_back({outs[0], inverse});
        if (!lib.ff.state_inverse.empty()) operands.push_back({outs[0], !inverse});
        // One input pin as it is (a plain D), or complemented: that pin's net is the operand.
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const auto column = netlist::function_truth_table(names[i], names);
            bool same = true, complement = true;
            for (std::size_t w = 0; w < next.size(); ++w) {
                same = same && next[w] == column[w];
                complement = complement && next[w] == (~column[w] & used[w]);
            }
            if (!same && !complement) continue;
            const Pin& pin = c_.pins[s_.inputs(c)[i]];
            next_of_.push_back({pin.net, (pin.inverted != complement) != inverse});
            return;
        }
        const NetId own = own_net();
        next_states_.push_back({std::move(next), std::move(operands), own});
        next_of_.push_back({own, inverse});
    }

    void add_cell(Program& p, CellId c)
    {
        const Cell& cell = c_.cells[c];
        const std::string_view type = c_.cell_type(cell);
        const auto ins = s_.inputs(c);
        if (cell.kind == CellKind::Instance) return add_library_cell(p, c);
        Instruction ins0;
        ins0.first_operand = static_cast<std::uint32_t>(pending_operands_.size());
        ins0.operand_count = static_cast<std::uint32_t>(ins.size());
        bool gate = true;
        auto arity = [&](std::size_t lo, std::size_t hi) {
            if (ins.size() < lo || ins.size() > hi)
                fail_cell(c, " has " + std::to_string(ins.size()) + " inputs; expected " +
                                 (lo == hi ? "" : "at least ") + std::to_string(lo));
        };
        if (type == "AND" || type == "NAND") {
            ins0.op = Op::And;
            ins0.invert = type == "NAND";
        } else if (type == "OR" || type == "NOR") {
            ins0.op = Op::Or;
            ins0.invert = type == "NOR";
        } else if (type == "XOR" || type == "XNOR") {
            ins0.op = Op::Xor;
            ins0.invert = type == "XNOR";
        } else if (type == "BUF" || type == "BUFF" || type == "NOT" || type == "INV") {
            arity(1, 1);
            ins0.op = Op::And;
            ins0.invert = type == "NOT" || type == "INV";
        } else if (type == "MUX") {
            arity(3, 3);
            ins0.op = Op::Mux;
        } else if (type == "CONST0" || type == "GND" || type == "CONST1" || type == "VDD") {
            ins0.op = Op::Const;
            ins0.invert = type == "CONST1" || type == "VDD";
            ins0.operand_count = 0;
            gate = false;
        } else if (type == "SOP" || (type == "CONST" && cell.kind == CellKind::Constant)) {
            compile_cover(p, c, ins0);
        } else if (type == "LUT") {
            compile_lut(p, c, ins0);
        } else if (type == "EXPR") {
            fail_cell(c, " is a Verilog assign expression, which is not simulable yet");
        } else {
            fail_cell(c, " is not simulable: the simulator knows AND NAND OR NOR XOR XNOR NOT "
                         "BUF MUX CONST0 CONST1 VDD GND and BLIF covers");
        }
        if (gate && ins0.op != Op::Mux && ins0.op != Op::Sop && ins.empty()) {
            // Empty AND is 1, empty OR and XOR are 0.
            ins0.invert ^= ins0.op == Op::And;
            ins0.op = Op::Const;
        }
        if (ins0.op != Op::Const)
            for (std::uint32_t pin : ins) {
                const Pin& p_in = c_.pins[pin];
                pending_operands_.push_back({p_in.net, p_in.inverted});
            }
        else
            ins0.operand_count = 0;
        const std::size_t first_output = out_nets_.size();
        for (NetId n : s_.outputs(c)) {
            if (s_.driver[n] != c) continue;
            const auto mine = out_nets_.begin() + static_cast<std::ptrdiff_t>(first_output);
            if (std::find(mine, out_nets_.end(), n) != out_nets_.end()) continue;
            p.instructions.push_back(ins0);
            out_nets_.push_back(n);
            p.value_net.push_back(n);
        }
    }

    /// A BLIF cover: "<input columns> <output>" lines, all with the same output value.
    void compile_cover(Program& p, CellId c, Instruction& ins)
    {
        const std::string_view cover = c_.cover(c);
        const std::size_t k = s_.inputs(c).size();
        ins.op = Op::Sop;
        ins.first_cube = static_cast<std::uint32_t>(p.cubes.size());
        bool on_set = true;
        std::size_t s = 0;
        while (s < cover.size()) {
            std::size_t e = cover.find('\n', s);
            if (e == std::string_view::npos) e = cover.size();
            const std::string_view line = cover.substr(s, e - s);
            s = e + 1;
            if (line.empty()) continue;
            if (line.size() < k + 1 || (line.back() != '0' && line.back() != '1'))
                fail_cell(c, " has a cover line " + quoted(line) + " that does not match its " +
                                 std::to_string(k) + " inputs");
            on_set = line.back() == '1';
            Cube cube{static_cast<std::uint32_t>(p.literals.size()), 0};
            for (std::size_t i = 0; i < k; ++i) {
                if (line[i] == '-') continue;
                const std::uint32_t negative = line[i] == '0' ? 1u : 0u;
                p.literals.push_back(static_cast<std::uint32_t>(i << 1) | negative);
                ++cube.count;
            }
            p.cubes.push_back(cube);
        }
        ins.cube_count = static_cast<std::uint32_t>(p.cubes.size()) - ins.first_cube;
        ins.invert = !on_set; // an OFF-set cover lists where the output is 0
    }

    /// A LUT as a cover of minterms: of its on-set, or of its off-set (inverted) when that is
    /// smaller. Bit m of the table is the output for input assignment m, input i being bit i.
    void compile_lut(Program& p, CellId c, Instruction& ins)
    {
        const std::span<const std::uint64_t> table = c_.lut(c);
        const std::size_t k = s_.inputs(c).size();
        if (table.empty())
            fail_cell(c, " has no truth table (a LUT line of a bench file keeps one)");
        if (k > 63 || (std::size_t{1} << k) > table.size() * 64)
            fail_cell(c, " has " + std::to_string(k) + " inputs, more than its truth table covers");
        compile_table(p, table, k, ins);
    }

    /// A truth table over k operands (bit m: the value when operand i is bit i of m) as the
    /// cover of its minterms.
    static void compile_table(Program& p, std::span<const std::uint64_t> table, std::size_t k,
                              Instruction& ins)
    {
        const std::uint64_t rows = std::uint64_t{1} << k;
        auto bit = [&](std::uint64_t m) { return (table[m / 64] >> (m % 64)) & 1u; };
        std::uint64_t ones = 0;
        for (std::uint64_t m = 0; m < rows; ++m) ones += bit(m);
        const bool off_set = ones * 2 > rows;
        ins.op = Op::Sop;
        ins.invert = off_set;
        ins.first_cube = static_cast<std::uint32_t>(p.cubes.size());
        for (std::uint64_t m = 0; m < rows; ++m) {
            if (bit(m) == (off_set ? 1u : 0u)) continue;
            const Cube cube{static_cast<std::uint32_t>(p.literals.size()),
                            static_cast<std::uint32_t>(k)};
            for (std::size_t i = 0; i < k; ++i) {
                const std::uint32_t negative = ((m >> i) & 1u) ? 0u : 1u;
                p.literals.push_back(static_cast<std::uint32_t>(i << 1) | negative);
            }
            p.cubes.push_back(cube);
        }
        ins.cube_count = static_cast<std::uint32_t>(p.cubes.size()) - ins.first_cube;
    }

    /// Rows by liveness: a net's row is free once its last reader has run. Flip-flop data
    /// nets live to the end of the pass (the flip-flops load them there).
    void allocate_rows(Program& p)
    {
        constexpr std::uint32_t kNever = 0xffffffffu, kEnd = 0xfffffffeu;
        const std::size_t count = p.instructions.size();
        std::vector<std::uint32_t> last_use(s_.net_count() + own_nets_, kNever);
        for (std::size_t i = 0; i < count; ++i) {
            const Instruction& ins = p.instructions[i];
            for (std::uint32_t k = 0; k < ins.operand_count; ++k) {
                const NetId n = pending_operands_[ins.first_operand + k].net;
                last_use[n] = static_cast<std::uint32_t>(i);
            }
        }
        for (const PendingOperand& d : next_of_) last_use[d.net] = kEnd;

        std::vector<std::uint32_t> free_rows;
        std::uint32_t next_row = 1;
        auto take = [&] {
            if (free_rows.empty()) return next_row++;
            const std::uint32_t r = free_rows.back();
            free_rows.pop_back();
            return r;
        };
        // Frees after instruction i go to bucket i + 1; bucket 0 is before the first one.
        std::vector<std::vector<std::uint32_t>> release(count + 1);
        auto define = [&](NetId n, std::size_t position) {
            const std::uint32_t r = take();
            row_of_[n] = r;
            const std::uint32_t last = last_use[n];
            if (last == kNever) release[position].push_back(r);
            else if (last != kEnd) release[last + 1].push_back(r);
            return r;
        };
        for (NetId n : s_.primary_inputs) p.input_rows.push_back(define(n, 0));
        for (NetId n : state_nets_) p.state_rows.push_back(define(n, 0));
        auto release_bucket = [&](std::size_t b) {
            for (std::uint32_t r : release[b]) free_rows.push_back(r);
        };
        release_bucket(0);
        for (std::size_t i = 0; i < count; ++i) {
            Instruction& ins = p.instructions[i];
            ins.out_row = define(out_nets_[i], i + 1);
            // Operands read the rows of their nets as they stand now, before any reuse.
            if (ins.operand_count > 0) {
                const std::uint32_t first = static_cast<std::uint32_t>(p.operands.size());
                for (std::uint32_t k = 0; k < ins.operand_count; ++k) {
                    const PendingOperand& o = pending_operands_[ins.first_operand + k];
                    p.operands.push_back(row_of_[o.net] << 1 | (o.inverted ? 1u : 0u));
                }
                ins.first_operand = first;
            }
            release_bucket(i + 1);
        }
        for (const PendingOperand& d : next_of_)
            p.next_state.push_back(row_of_[d.net] << 1 | (d.inverted ? 1u : 0u));
        p.rows = next_row;
    }

    struct PendingOperand {
        NetId net;
        bool inverted;
    };

    /// An output of a library flip-flop that follows its state (QN beside Q).
    struct StateAlias {
        Instruction instruction;
        NetId net;
    };
    /// A library flip-flop's next state, computed into a net of the program's own.
    struct NextState {
        std::vector<std::uint64_t> table;     ///< over `operands`
        std::vector<PendingOperand> operands; ///< the cell's inputs, then IQ (and IQN)
        NetId net;
    };

    const Circuit& c_;
    const NetStructure& s_;
    const netlist::Library* library_;
    std::vector<PendingOperand> pending_operands_;
    std::vector<NetId> out_nets_;       ///< per instruction
    std::vector<NetId> state_nets_;       ///< per flip-flop (cell order): the net of its state
    std::vector<PendingOperand> next_of_; ///< per flip-flop: the value it loads
    std::vector<StateAlias> aliases_;
    std::vector<NextState> next_states_;
    std::size_t own_nets_ = 0; ///< nets of the program's own, ids from the circuit's count
    std::vector<std::uint32_t> row_of_; ///< per net, as allocation proceeds
};

// ---- evaluating ------------------------------------------------------------------------------

/// The rows of one thread: `stride` words each.
struct RowBuffer {
    std::uint64_t* base;
    std::size_t stride;

    GSR_INLINE_IN_KERNEL std::uint64_t* operator()(std::uint32_t r) const
    {
        return base + static_cast<std::size_t>(r) * stride;
    }
};

GSR_INLINE_IN_KERNEL std::uint64_t complement_mask(std::uint32_t operand)
{
    return 0 - std::uint64_t(operand & 1u);
}

/// Runs the program over n <= rows.stride words of every row; stats.record(value, words, n)
/// sees each computed row once.
template <class Stats>
GSR_INLINE_IN_KERNEL void evaluate(const Program& p, RowBuffer row, std::size_t n, Stats& stats)
{
    std::uint64_t* scratch = row(p.rows);
    const std::uint32_t first_value =
        static_cast<std::uint32_t>(p.input_rows.size() + p.state_rows.size());
    const std::uint32_t* operands = p.operands.data();
    for (std::size_t i = 0; i < p.instructions.size(); ++i) {
        const Instruction& ins = p.instructions[i];
        std::uint64_t* out = row(ins.out_row);
        const std::uint64_t mo = ins.invert ? kAllOnes : 0;
        const std::uint32_t* ops = operands + ins.first_operand;
        switch (ins.op) {
        case Op::And:
        case Op::Or:
        case Op::Xor: {
            const std::uint64_t* a = row(ops[0] >> 1);
            const std::uint64_t ma = complement_mask(ops[0]);
            if (ins.operand_count == 1) {
                for (std::size_t j = 0; j < n; ++j) out[j] = a[j] ^ ma ^ mo;
                break;
            }
            const std::uint64_t* b = row(ops[1] >> 1);
            const std::uint64_t mb = complement_mask(ops[1]);
            const bool last = ins.operand_count == 2;
            const std::uint64_t m2 = last ? mo : 0;
            if (ins.op == Op::And)
                for (std::size_t j = 0; j < n; ++j) out[j] = ((a[j] ^ ma) & (b[j] ^ mb)) ^ m2;
            else if (ins.op == Op::Or)
                for (std::size_t j = 0; j < n; ++j) out[j] = ((a[j] ^ ma) | (b[j] ^ mb)) ^ m2;
            else
                for (std::size_t j = 0; j < n; ++j) out[j] = (a[j] ^ ma ^ b[j] ^ mb) ^ m2;
            if (last) break;
            for (std::uint32_t k = 2; k < ins.operand_count; ++k) {
                const std::uint64_t* c = row(ops[k] >> 1);
                const std::uint64_t mc = complement_mask(ops[k]);
                if (ins.op == Op::And)
                    for (std::size_t j = 0; j < n; ++j) out[j] &= c[j] ^ mc;
                else if (ins.op == Op::Or)
                    for (std::size_t j = 0; j < n; ++j) out[j] |= c[j] ^ mc;
                else
                    for (std::size_t j = 0; j < n; ++j) out[j] ^= c[j] ^ mc;
            }
            for (std::size_t j = 0; j < n; ++j) out[j] ^= mo;
            break;
        }
        case Op::Mux: {
            const std::uint64_t* s = row(ops[0] >> 1);
            const std::uint64_t* a = row(ops[1] >> 1);
            const std::uint64_t* b = row(ops[2] >> 1);
            const std::uint64_t ms = complement_mask(ops[0]), ma = complement_mask(ops[1]),
                                mb = complement_mask(ops[2]);
            for (std::size_t j = 0; j < n; ++j) {
                const std::uint64_t sel = s[j] ^ ms;
                out[j] = ((sel & (a[j] ^ ma)) | (~sel & (b[j] ^ mb))) ^ mo;
            }
            break;
        }
        case Op::Sop: {
            for (std::size_t j = 0; j < n; ++j) out[j] = 0;
            for (std::uint32_t q = 0; q < ins.cube_count; ++q) {
                const Cube& cube = p.cubes[ins.first_cube + q];
                for (std::size_t j = 0; j < n; ++j) scratch[j] = kAllOnes;
                for (std::uint32_t l = 0; l < cube.count; ++l) {
                    const std::uint32_t lit = p.literals[cube.first + l];
                    const std::uint32_t op = ops[lit >> 1];
                    const std::uint64_t* x = row(op >> 1);
                    const std::uint64_t m = complement_mask(op) ^ (0 - std::uint64_t(lit & 1u));
                    for (std::size_t j = 0; j < n; ++j) scratch[j] &= x[j] ^ m;
                }
                for (std::size_t j = 0; j < n; ++j) out[j] |= scratch[j];
            }
            for (std::size_t j = 0; j < n; ++j) out[j] ^= mo;
            break;
        }
        case Op::Const:
            for (std::size_t j = 0; j < n; ++j) out[j] = mo;
            break;
        }
        stats.record(first_value + static_cast<std::uint32_t>(i), out, n);
    }
}

/// Counts of one thread, per value index.
struct ChunkCounts {
    std::vector<std::uint64_t> ones, toggles;
    std::vector<std::uint8_t> first_bit, last_bit; ///< random mode: bits at the block borders
    bool empty = true;
};

/// Random and exhaustive modes: consecutive words form one stream of vectors.
struct StreamCounter {
    std::uint64_t* ones;
    std::uint64_t* toggles; ///< null: no toggles
    std::uint8_t* first_bit;
    std::uint8_t* last_bit; ///< the last bit seen so far, per value
    std::uint64_t first_mask = kAllOnes; ///< bits of word 0 that have a predecessor
    std::uint64_t last_mask = kAllOnes;  ///< bits of word n-1 that are vectors

    GSR_INLINE_IN_KERNEL void record(std::uint32_t v, const std::uint64_t* x, std::size_t n)
    {
        std::uint64_t count = 0;
        for (std::size_t j = 0; j + 1 < n; ++j) count += std::popcount(x[j]);
        count += std::popcount(x[n - 1] & last_mask);
        ones[v] += count;
        if (!toggles) return;
        if (first_mask != kAllOnes) first_bit[v] = static_cast<std::uint8_t>(x[0] & 1u);
        std::uint64_t d0 = x[0] ^ ((x[0] << 1) | last_bit[v]);
        if (n == 1) {
            toggles[v] += std::popcount(d0 & first_mask & last_mask);
        } else {
            std::uint64_t t = std::popcount(d0 & first_mask);
            for (std::size_t j = 1; j + 1 < n; ++j)
                t += std::popcount(x[j] ^ ((x[j] << 1) | (x[j - 1] >> 63)));
            t += std::popcount((x[n - 1] ^ ((x[n - 1] << 1) | (x[n - 2] >> 63))) & last_mask);
            toggles[v] += t;
        }
        last_bit[v] = static_cast<std::uint8_t>(x[n - 1] >> 63);
    }
};

/// Sequential mode: words are runs; samples and toggles are across cycles.
struct CycleCounter {
    std::uint64_t* ones;
    std::uint64_t* toggles;
    std::uint64_t* previous; ///< per value: `stride` words of the previous cycle
    std::size_t stride;
    std::uint64_t last_mask = kAllOnes;
    bool sample = false;
    bool compare = false;

    GSR_INLINE_IN_KERNEL void record(std::uint32_t v, const std::uint64_t* x, std::size_t n)
    {
        if (!sample) return;
        std::uint64_t* prev = previous + static_cast<std::size_t>(v) * stride;
        std::uint64_t count = 0, t = 0;
        for (std::size_t j = 0; j + 1 < n; ++j) {
            count += std::popcount(x[j]);
            t += std::popcount(x[j] ^ prev[j]);
        }
        count += std::popcount(x[n - 1] & last_mask);
        t += std::popcount((x[n - 1] ^ prev[n - 1]) & last_mask);
        ones[v] += count;
        if (compare) toggles[v] += t;
        for (std::size_t j = 0; j < n; ++j) prev[j] = x[j];
    }
};

struct StreamPlan {
    SimulationMode mode;
    std::uint64_t seed;
    std::uint64_t words;     ///< per primary input
    std::uint64_t last_mask; ///< valid bits of the last word
    bool toggles;
    std::size_t batch_words;
};

/// The word `w` of primary input `i` in exhaustive mode: vector 64 w + b sets PI i to bit i.
GSR_INLINE_IN_KERNEL std::uint64_t exhaustive_word(std::size_t i, std::uint64_t w)
{
    static constexpr std::uint64_t kLow[6] = {0xAAAAAAAAAAAAAAAAull, 0xCCCCCCCCCCCCCCCCull,
                                              0xF0F0F0F0F0F0F0F0ull, 0xFF00FF00FF00FF00ull,
                                              0xFFFF0000FFFF0000ull, 0xFFFFFFFF00000000ull};
    if (i < 6) return kLow[i];
    return ((w >> (i - 6)) & 1u) ? kAllOnes : 0;
}

GSR_INLINE_IN_KERNEL void stream_block(const Program& p, const StreamPlan& plan, std::uint64_t w0,
                                       std::uint64_t w1, ChunkCounts& counts)
{
    const std::size_t stride = plan.batch_words;
    std::vector<std::uint64_t> rows((static_cast<std::size_t>(p.rows) + 1) * stride, 0);
    const RowBuffer row{rows.data(), stride};
    StreamCounter counter{counts.ones.data(), plan.toggles ? counts.toggles.data() : nullptr,
                          counts.first_bit.data(), counts.last_bit.data()};
    for (std::uint64_t w = w0; w < w1; w += stride) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(stride, w1 - w));
        counter.first_mask = w == w0 ? ~std::uint64_t{1} : kAllOnes;
        counter.last_mask = w + n == plan.words ? plan.last_mask : kAllOnes;
        for (std::size_t i = 0; i < p.input_rows.size(); ++i) {
            std::uint64_t* x = row(p.input_rows[i]);
            if (plan.mode == SimulationMode::Exhaustive) {
                for (std::size_t j = 0; j < n; ++j) x[j] = exhaustive_word(i, w + j);
            } else {
                const std::uint64_t base = i * plan.words + w;
                for (std::size_t j = 0; j < n; ++j) x[j] = SplitMix64::at(plan.seed, base + j);
            }
            counter.record(static_cast<std::uint32_t>(i), x, n);
        }
        evaluate(p, row, n, counter);
    }
    counts.empty = w0 == w1;
}

struct CyclePlan {
    std::uint64_t seed;
    std::uint64_t words;     ///< run words per primary input and cycle
    std::uint64_t last_mask; ///< valid runs of the last word
    std::uint32_t cycles, warmup;
    std::size_t batch_words;
};

GSR_INLINE_IN_KERNEL void cycle_block(const Program& p, const CyclePlan& plan, std::uint64_t w0,
                                      std::uint64_t w1, ChunkCounts& counts)
{
    const std::size_t inputs = p.input_rows.size(), flops = p.state_rows.size();
    const std::size_t stride = plan.batch_words;
    std::vector<std::uint64_t> rows((static_cast<std::size_t>(p.rows) + 1) * stride, 0);
    std::vector<std::uint64_t> previous(p.value_net.size() * stride, 0);
    std::vector<std::uint64_t> state(flops * stride, 0);
    const RowBuffer row{rows.data(), stride};
    CycleCounter counter{counts.ones.data(), counts.toggles.data(), previous.data(), stride};
    for (std::uint64_t w = w0; w < w1; w += stride) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(stride, w1 - w));
        counter.last_mask = w + n == plan.words ? plan.last_mask : kAllOnes;
        std::fill(state.begin(), state.end(), 0);
        for (std::size_t f = 0; f < flops; ++f)
            if (p.starts_at_one[f]) std::fill_n(state.data() + f * stride, stride, kAllOnes);
        for (std::uint32_t c = 0; c < plan.cycles; ++c) {
            counter.sample = c >= plan.warmup;
            counter.compare = c > plan.warmup;
            for (std::size_t i = 0; i < inputs; ++i) {
                std::uint64_t* x = row(p.input_rows[i]);
                const std::uint64_t base = (c * inputs + i) * plan.words + w;
                for (std::size_t j = 0; j < n; ++j) x[j] = SplitMix64::at(plan.seed, base + j);
                counter.record(static_cast<std::uint32_t>(i), x, n);
            }
            for (std::size_t f = 0; f < flops; ++f) {
                std::uint64_t* x = row(p.state_rows[f]);
                std::copy_n(state.data() + f * stride, n, x);
                counter.record(static_cast<std::uint32_t>(inputs + f), x, n);
            }
            evaluate(p, row, n, counter);
            for (std::size_t f = 0; f < flops; ++f) {
                const std::uint32_t d = p.next_state[f];
                const std::uint64_t* x = row(d >> 1);
                const std::uint64_t m = complement_mask(d);
                for (std::size_t j = 0; j < n; ++j) state[f * stride + j] = x[j] ^ m;
            }
        }
    }
    counts.empty = w0 == w1;
}

// One pair of kernels per instruction set.
#define GSR_DEFINE_KERNELS(suffix, attributes)                                                 \
    attributes void stream_block_##suffix(const Program& p, const StreamPlan& plan,         \
                                          std::uint64_t w0, std::uint64_t w1,               \
                                          ChunkCounts& c)                                   \
    {                                                                                        \
        stream_block(p, plan, w0, w1, c);                                                    \
    }                                                                                        \
    attributes void cycle_block_##suffix(const Program& p, const CyclePlan& plan,           \
                                         std::uint64_t w0, std::uint64_t w1,                \
                                         ChunkCounts& c)                                    \
    {                                                                                        \
        cycle_block(p, plan, w0, w1, c);                                                     \
    }

GSR_DEFINE_KERNELS(baseline, )
#if GSR_X86_KERNELS
GSR_DEFINE_KERNELS(avx2, __attribute__((target("avx2,bmi,bmi2,popcnt"))))
GSR_DEFINE_KERNELS(avx512, __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,"
                                                  "avx512vpopcntdq,avx2,bmi,bmi2,popcnt"))))
#endif

enum class Isa { Baseline, Avx2, Avx512 };

Isa best_isa()
{
#if GSR_X86_KERNELS
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi2"))
        return Isa::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt") &&
        __builtin_cpu_supports("bmi2"))
        return Isa::Avx2;
#endif
    return Isa::Baseline;
}

void simulate_stream_block(const Program& p, const StreamPlan& plan, std::uint64_t w0,
                           std::uint64_t w1, ChunkCounts& c)
{
    static const Isa isa = best_isa();
#if GSR_X86_KERNELS
    if (isa == Isa::Avx512) return stream_block_avx512(p, plan, w0, w1, c);
    if (isa == Isa::Avx2) return stream_block_avx2(p, plan, w0, w1, c);
#endif
    (void)isa;
    stream_block_baseline(p, plan, w0, w1, c);
}

void simulate_cycle_block(const Program& p, const CyclePlan& plan, std::uint64_t w0,
                          std::uint64_t w1, ChunkCounts& c)
{
    static const Isa isa = best_isa();
#if GSR_X86_KERNELS
    if (isa == Isa::Avx512) return cycle_block_avx512(p, plan, w0, w1, c);
    if (isa == Isa::Avx2) return cycle_block_avx2(p, plan, w0, w1, c);
#endif
    (void)isa;
    cycle_block_baseline(p, plan, w0, w1, c);
}

/// Threads for `words` of vectors: as asked (or one a core), at most one a word, and at most
/// as many as a quarter of the machine's memory (1 GiB at the least) allows at
/// `bytes_per_thread` each (its counts, 18 bytes a value, and its rows of `batch` words):
/// `--threads 4096` on a large circuit asked for 16 GB. The counts are sums, so the result is
/// the same whatever the number.
unsigned thread_count(unsigned requested, std::uint64_t words, std::uint64_t bytes_per_thread)
{
    const unsigned t = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
    const std::uint64_t budget =
        std::max<std::uint64_t>(std::uint64_t{1} << 30, physical_memory_bytes() / 4);
    const std::uint64_t by_memory =
        std::max<std::uint64_t>(1, budget / std::max<std::uint64_t>(bytes_per_thread, 1));
    return static_cast<unsigned>(
        std::max<std::uint64_t>(1, std::min<std::uint64_t>({t, words, by_memory})));
}

/// Runs `block(w0, w1, counts)` on T contiguous word ranges, one thread each.
template <class Block>
std::vector<ChunkCounts> run_blocks(std::size_t values, std::uint64_t words, unsigned threads,
                                    bool borders, Block block)
{
    std::vector<ChunkCounts> counts(threads);
    for (ChunkCounts& c : counts) {
        c.ones.assign(values, 0);
        c.toggles.assign(values, 0);
        if (borders) {
            c.first_bit.assign(values, 0);
            c.last_bit.assign(values, 0);
        }
    }
    auto range = [&](unsigned t) { return words * t / threads; };
    if (threads == 1) {
        block(0, words, counts[0]);
        return counts;
    }
    // What a block throws (out of memory) is handed on after every thread is joined: from a
    // thread it ended the process.
    std::vector<std::exception_ptr> errors(threads);
    auto run = [&](unsigned t) {
        try {
            block(range(t), range(t + 1), counts[t]);
        } catch (...) {
            errors[t] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads);
    unsigned started = 0;
    try {
        for (; started < threads; ++started) pool.emplace_back(run, started);
    } catch (const std::system_error&) {
        // The system starts no more threads: the ranges left run here, with the same counts.
    }
    for (unsigned t = started; t < threads; ++t) run(t);
    for (std::thread& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return counts;
}

} // namespace

LogicSimulator::LogicSimulator(const Circuit& circuit, const NetStructure& structure,
                               const netlist::Library* library)
    : program_(std::make_unique<Program>())
{
    ProgramCompiler(circuit, structure, library).compile(*program_);
}

LogicSimulator::~LogicSimulator() = default;
LogicSimulator::LogicSimulator(LogicSimulator&&) noexcept = default;
LogicSimulator& LogicSimulator::operator=(LogicSimulator&&) noexcept = default;

std::size_t LogicSimulator::instruction_count() const { return program_->instructions.size(); }
std::size_t LogicSimulator::live_rows() const { return program_->rows; }
std::size_t LogicSimulator::undriven_nets() const { return program_->undriven; }

SimulationResult LogicSimulator::run(const SimulationOptions& o) const
{
    const Program& p = *program_;
    auto fail = [&](const std::string& m) { throw Error(SourceLocation{p.source}, m); };
    const std::size_t values = p.value_net.size();
    const std::size_t inputs = p.input_rows.size();
    SimulationResult r;
    std::vector<ChunkCounts> counts;

    if (o.mode == SimulationMode::Sequential) {
        if (o.runs == 0) fail("sequential simulation needs at least one run");
        if (o.cycles <= o.warmup)
            fail("sequential simulation needs more cycles (" + std::to_string(o.cycles) +
                 ") than warm-up cycles (" + std::to_string(o.warmup) + ")");
        // The previous cycle of every net is kept too: it counts toward the row budget.
        CyclePlan plan{o.seed, (o.runs + 63) / 64,
                       o.runs % 64 ? (std::uint64_t{1} << (o.runs % 64)) - 1 : kAllOnes, o.cycles,
                       o.warmup, batch_words(p.rows + values)};
        // Per thread: its counts, its rows and the previous cycle of every value.
        const unsigned threads = thread_count(
            o.threads, plan.words,
            18 * std::uint64_t{values} +
                8 * std::uint64_t{plan.batch_words} * (std::uint64_t{p.rows} + 1 + values));
        counts = run_blocks(values, plan.words, threads, false,
                            [&](std::uint64_t w0, std::uint64_t w1, ChunkCounts& c) {
                                simulate_cycle_block(p, plan, w0, w1, c);
                            });
        r.total = static_cast<std::uint64_t>(o.cycles - o.warmup) * o.runs;
        r.toggle_total = static_cast<std::uint64_t>(o.cycles - o.warmup - 1) * o.runs;
        r.has_toggles = r.toggle_total > 0; // one sampled cycle has no pair to compare
    } else {
        if (!p.state_rows.empty())
            fail("the circuit has " + std::to_string(p.flip_flops) +
                 " flip-flops: random and exhaustive simulation need a combinational circuit "
                 "(use sequential mode: --mode seq)");
        StreamPlan plan{o.mode, o.seed, 0, kAllOnes, o.mode == SimulationMode::Random,
                        batch_words(p.rows)};
        std::uint64_t vectors = o.vectors;
        if (o.mode == SimulationMode::Exhaustive) {
            if (inputs > kMaxExhaustiveInputs)
                fail("exhaustive simulation is limited to " +
                     std::to_string(kMaxExhaustiveInputs) + " primary inputs; the circuit has " +
                     std::to_string(inputs) + " (use random mode)");
            vectors = std::uint64_t{1} << inputs;
        } else if (vectors == 0) {
            fail("random simulation needs at least one vector");
        }
        plan.words = (vectors + 63) / 64;
        plan.last_mask = vectors % 64 ? (std::uint64_t{1} << (vectors % 64)) - 1 : kAllOnes;
        const unsigned threads = thread_count(
            o.threads, plan.words,
            18 * std::uint64_t{values} +
                8 * std::uint64_t{plan.batch_words} * (std::uint64_t{p.rows} + 1));
        counts = run_blocks(values, plan.words, threads, plan.toggles,
                            [&](std::uint64_t w0, std::uint64_t w1, ChunkCounts& c) {
                                simulate_stream_block(p, plan, w0, w1, c);
                            });
        r.total = vectors;
        r.toggle_total = plan.toggles ? vectors - 1 : 0;
        r.has_toggles = r.toggle_total > 0; // one vector has no pair to compare
        if (plan.toggles) {
            // A block skips the pair across its first border; add it from the stored bits.
            const ChunkCounts* before = nullptr;
            for (ChunkCounts& c : counts) {
                if (c.empty) continue;
                if (before)
                    for (std::size_t v = 0; v < values; ++v)
                        c.toggles[v] += c.first_bit[v] ^ before->last_bit[v];
                before = &c;
            }
        }
    }

    r.ones.assign(p.net_count, 0);
    if (r.has_toggles) r.toggles.assign(p.net_count, 0);
    for (const ChunkCounts& c : counts) {
        for (std::size_t v = 0; v < values; ++v) {
            if (p.value_net[v] >= p.net_count) continue; // a net of the program's own
            r.ones[p.value_net[v]] += c.ones[v];
            if (r.has_toggles) r.toggles[p.value_net[v]] += c.toggles[v];
        }
    }
    return r;
}

} // namespace gsr::labels
