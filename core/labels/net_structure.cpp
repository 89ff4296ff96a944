#include "labels/net_structure.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <string>

namespace gsr::labels {

using netlist::Cell;
using netlist::CellKind;
using netlist::Circuit;
using netlist::Direction;
using netlist::kNoNet;
using netlist::Pin;

namespace {

bool stores_state(const Cell& c)
{
    return c.kind == CellKind::FlipFlop ||
           (c.kind == CellKind::Instance && (c.flags & netlist::kCellSequential));
}

bool is_data_pin_name(std::string_view n) { return n == "D" || n == "d"; }

/// Follows unfinished predecessors from an unfinished cell until one repeats: that cell is on
/// a loop (every unfinished cell has an unfinished driver, so the walk cannot stop early).
CellId cell_on_loop(const NetStructure& s, const Circuit& circuit,
                    const std::vector<std::uint32_t>& pending, CellId start)
{
    std::vector<std::uint8_t> seen(s.cell_count(), 0);
    CellId c = start;
    while (!seen[c]) {
        seen[c] = 1;
        CellId next = kNoCell;
        for (std::uint32_t pin : s.inputs(c)) {
            const CellId d = s.driver[circuit.pins[pin].net];
            if (d != kNoCell && s.combinational[d] && pending[d] > 0) {
                next = d;
                break;
            }
        }
        if (next == kNoCell) break; // cannot happen; stop rather than loop forever
        c = next;
    }
    return c;
}

} // namespace

int flip_flop_data_pin(const Circuit& circuit, const Cell& cell)
{
    const Pin* pins = circuit.pins_of(cell);
    int only_input = -1, inputs = 0;
    for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
        if (pins[i].dir != Direction::Input) continue;
        if (is_data_pin_name(circuit.pin_name(pins[i]))) return static_cast<int>(i);
        only_input = static_cast<int>(i);
        ++inputs;
    }
    return inputs == 1 ? only_input : -1;
}

NetStructure build_net_structure(const Circuit& circuit)
{
    NetStructure s;
    const std::size_t nets = circuit.net_count();
    const std::size_t cells = circuit.cells.size();
    s.driver.assign(nets, kNoCell);
    s.is_pi.assign(nets, 0);
    s.is_po.assign(nets, 0);
    s.is_state.assign(nets, 0);
    s.combinational.assign(cells, 1);

    std::vector<std::uint8_t> driven(nets, 0);
    auto claim = [&](NetId n, CellId by) {
        if (!driven[n]) {
            driven[n] = 1;
            return true;
        }
        if (s.multiply_driven++ == 0) {
            s.first_multiply_driven = n;
            s.extra_driver = by;
        }
        return false;
    };
    for (const netlist::Port& p : circuit.ports) {
        if (p.net == kNoNet) continue;
        if (p.dir == Direction::Output) s.is_po[p.net] = 1;
        if (p.dir != Direction::Input || s.is_pi[p.net]) continue;
        if (!claim(p.net, kNoCell)) continue;
        s.is_pi[p.net] = 1;
        s.primary_inputs.push_back(p.net);
    }
    s.rows = s.primary_inputs;

    // Pins of each cell, as the labels count them.
    s.input_offsets.reserve(cells + 1);
    s.output_offsets.reserve(cells + 1);
    s.input_offsets.push_back(0);
    s.output_offsets.push_back(0);
    for (CellId c = 0; c < cells; ++c) {
        const Cell& cell = circuit.cells[c];
        const Pin* pins = circuit.pins_of(cell);
        const bool state = stores_state(cell);
        const int data_pin =
            cell.kind == CellKind::FlipFlop ? flip_flop_data_pin(circuit, cell) : -1;
        if (state) {
            s.combinational[c] = 0;
            ++s.flip_flops;
        }
        for (std::uint32_t i = 0; i < cell.pin_count; ++i) {
            const Pin& p = pins[i];
            if (p.net == kNoNet) continue;
            if (p.dir == Direction::Input) {
                if (data_pin >= 0 && static_cast<int>(i) != data_pin) continue;
                s.input_pins.push_back(cell.first_pin + i);
            } else if (p.dir == Direction::Output) {
                s.output_nets.push_back(p.net);
                if (claim(p.net, c)) {
                    s.driver[p.net] = c;
                    s.is_state[p.net] = state;
                    s.rows.push_back(p.net);
                }
            }
        }
        s.input_offsets.push_back(static_cast<std::uint32_t>(s.input_pins.size()));
        s.output_offsets.push_back(static_cast<std::uint32_t>(s.output_nets.size()));
    }

    // A transistor-level deck's pins have no direction: no net is an input port or a cell's
    // output, so every label would be of no net (level and arrival wrote a header alone).
    if (s.rows.empty() && nets > 0)
        throw Error(SourceLocation{circuit.source},
                    "no net has a driver (no input port, no cell output pin; a transistor-level "
                    "deck's pins have no direction): labels need a gate-level netlist");

    // Readers of each net (CSR), and nets that are read but never driven.
    s.sink_offsets.assign(nets + 1, 0);
    for (std::uint32_t pin : s.input_pins) ++s.sink_offsets[circuit.pins[pin].net + 1];
    for (std::size_t n = 0; n < nets; ++n) {
        if (s.sink_offsets[n + 1] > 0 && !driven[n]) ++s.undriven_nets;
        s.sink_offsets[n + 1] += s.sink_offsets[n];
    }
    s.sink_cells.resize(s.input_pins.size());
    {
        std::vector<std::uint32_t> fill(s.sink_offsets.begin(), s.sink_offsets.end() - 1);
        for (CellId c = 0; c < cells; ++c)
            for (std::uint32_t pin : s.inputs(c)) s.sink_cells[fill[circuit.pins[pin].net]++] = c;
    }

    // Kahn's algorithm over the combinational cells: an edge per input pin whose net is driven
    // by a combinational cell. Levels are longest paths; no recursion anywhere.
    std::vector<std::uint32_t> pending(cells, 0);
    std::size_t combinational_cells = 0;
    for (CellId c = 0; c < cells; ++c) {
        if (!s.combinational[c]) continue;
        ++combinational_cells;
        for (std::uint32_t pin : s.inputs(c)) {
            const CellId d = s.driver[circuit.pins[pin].net];
            if (d != kNoCell && s.combinational[d]) ++pending[c];
        }
    }
    s.cell_level.assign(cells, 0);
    std::vector<CellId> queue;
    queue.reserve(combinational_cells);
    for (CellId c = 0; c < cells; ++c)
        if (s.combinational[c] && pending[c] == 0) queue.push_back(c);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        const CellId c = queue[head];
        std::uint32_t level = 0;
        for (std::uint32_t pin : s.inputs(c)) {
            const CellId d = s.driver[circuit.pins[pin].net];
            const std::uint32_t in = d != kNoCell && s.combinational[d] ? s.cell_level[d] : 0;
            level = std::max(level, in + 1);
        }
        s.cell_level[c] = level;
        const auto outs = s.outputs(c);
        for (std::size_t k = 0; k < outs.size(); ++k) {
            const NetId n = outs[k];
            if (s.driver[n] != c) continue; // a second driver: its readers wait on the first
            if (std::find(outs.begin(), outs.begin() + k, n) != outs.begin() + k) continue;
            for (CellId r : s.sinks(n))
                if (s.combinational[r] && --pending[r] == 0) queue.push_back(r);
        }
    }
    if (queue.size() != combinational_cells) {
        CellId start = 0;
        while (!s.combinational[start] || pending[start] == 0) ++start;
        const CellId at = cell_on_loop(s, circuit, pending, start);
        const auto outs = s.outputs(at);
        const std::string name = outs.empty() ? std::string(circuit.cell_name(circuit.cells[at]))
                                              : std::string(circuit.net_name(outs[0]));
        throw Error(circuit.cell_location(at),
                    "combinational loop through net '" + name + "' (driven by " +
                        netlist::describe_cell(circuit, at) +
                        "): the labels need an acyclic circuit (cut loops with flip-flops)");
    }

    // Levelized: a counting sort by level keeps the cell order within a level.
    std::uint32_t max_level = 0;
    for (CellId c : queue) max_level = std::max(max_level, s.cell_level[c]);
    std::vector<std::uint32_t> start(static_cast<std::size_t>(max_level) + 2, 0);
    for (CellId c = 0; c < cells; ++c)
        if (s.combinational[c]) ++start[s.cell_level[c] + 1];
    for (std::size_t l = 0; l + 1 < start.size(); ++l) start[l + 1] += start[l];
    s.order.resize(combinational_cells);
    for (CellId c = 0; c < cells; ++c)
        if (s.combinational[c]) s.order[start[s.cell_level[c]]++] = c;
    return s;
}

void refuse_multiple_drivers(const NetStructure& s, const Circuit& circuit,
                             std::string_view needs)
{
    if (s.multiply_driven == 0) return;
    const NetId n = s.first_multiply_driven;
    const CellId first = s.driver[n], extra = s.extra_driver;
    const std::string by_first = s.is_pi[n] ? "the primary input of that name"
                                            : netlist::describe_cell(circuit, first, true);
    const std::string message =
        "net '" + std::string(circuit.net_name(n)) + "' has more than one driver: " +
        (extra == kNoCell ? "a second input port" : netlist::describe_cell(circuit, extra)) +
        " and " + by_first + " (" + std::to_string(s.multiply_driven) +
        (s.multiply_driven == 1 ? " such net" : " such nets") + "); " + std::string(needs);
    throw Error(extra == kNoCell ? SourceLocation{circuit.source} : circuit.cell_location(extra),
                message);
}

} // namespace gsr::labels
