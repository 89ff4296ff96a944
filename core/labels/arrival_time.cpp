#include "labels/arrival_time.hpp"

#include "util/ascii.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace gsr::labels {

using netlist::Cell;
using netlist::CellKind;
using netlist::Circuit;
using netlist::Direction;

namespace {

/// The function part of a cell type, upper-case: after the last "__" (sky130 style).
std::string function_name(std::string_view type)
{
    const std::size_t sep = type.rfind("__");
    if (sep != std::string_view::npos) type.remove_prefix(sep + 2);
    return ascii_upper(type);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

/// Input pins of a library cell, and its area per input pin (0 when unknown).
double area_per_input(const netlist::LibraryCell& cell)
{
    std::size_t inputs = 0;
    for (const netlist::LibraryPin& p : cell.pins) inputs += p.dir == Direction::Input;
    return inputs == 0 || cell.area <= 0.0 ? 0.0 : cell.area / static_cast<double>(inputs);
}

/// The library's median area per input pin: the load of a typical pin, which counts as 1.
double reference_pin_area(const netlist::Library& library)
{
    std::vector<double> a;
    for (const netlist::LibraryCell& c : library.cells)
        if (const double v = area_per_input(c); v > 0.0) a.push_back(v);
    if (a.empty()) return 0.0;
    std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a.size() / 2), a.end());
    return a[a.size() / 2];
}

const netlist::LibraryPin* pin_named(const netlist::LibraryCell& cell, std::string_view name)
{
    for (const netlist::LibraryPin& p : cell.pins)
        if (p.name == name) return &p;
    return nullptr;
}

/// The capacitive load of every net: library input pins plus the default wire load.
std::vector<double> net_loads(const Circuit& circuit, const netlist::Library& library,
                              const std::vector<const netlist::LibraryCell*>& lib_cell)
{
    std::vector<double> load(circuit.net_count(), 0.0);
    std::vector<std::uint32_t> fanout(circuit.net_count(), 0);
    for (CellId c = 0; c < circuit.cells.size(); ++c) {
        const Cell& cell = circuit.cells[c];
        const netlist::Pin* pins = circuit.pins_of(cell);
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const netlist::Pin& p = pins[k];
            if (p.net == netlist::kNoNet || p.dir != Direction::Input) continue;
            ++fanout[p.net];
            if (!lib_cell[c]) continue;
            if (const netlist::LibraryPin* lp = pin_named(*lib_cell[c], circuit.pin_name(p)))
                load[p.net] += lp->capacitance;
        }
    }
    for (const netlist::Port& port : circuit.ports)
        if (port.dir == Direction::Output && port.net != netlist::kNoNet) ++fanout[port.net];
    if (const netlist::WireLoad* wire = library.default_wire())
        for (NetId n = 0; n < load.size(); ++n)
            if (fanout[n] > 0) load[n] += wire->wire_capacitance(fanout[n]);
    return load;
}

double worst(const netlist::TimingTable& rise, const netlist::TimingTable& fall, double trans,
             double load)
{
    double v = 0.0;
    if (!rise.empty()) v = std::max(v, rise.lookup(trans, load));
    if (!fall.empty()) v = std::max(v, fall.lookup(trans, load));
    return v;
}

/// The input pin of a cell instance named `name`, or nullptr.
const netlist::Pin* input_named(const Circuit& circuit, const Cell& cell, std::string_view name)
{
    const netlist::Pin* pins = circuit.pins_of(cell);
    for (std::uint32_t k = 0; k < cell.pin_count; ++k)
        if (pins[k].dir == Direction::Input && circuit.pin_name(pins[k]) == name) return &pins[k];
    return nullptr;
}

ArrivalTimes nldm_arrival_times(const Circuit& circuit, const NetStructure& s,
                                const DelayModel& model)
{
    const netlist::Library& library = *model.library;
    ArrivalTimes r;
    r.nldm = true;
    r.arrival.assign(s.net_count(), 0.0);
    r.transition.assign(s.net_count(), model.input_transition);

    std::vector<const netlist::LibraryCell*> lib_cell(circuit.cells.size(), nullptr);
    for (CellId c = 0; c < circuit.cells.size(); ++c)
        if (circuit.cells[c].kind == CellKind::Instance)
            lib_cell[c] = library.find(circuit.cell_type(circuit.cells[c]));
    r.load = net_loads(circuit, library, lib_cell);

    // Evaluates the arcs of `type` into each output net that cell c drives; false when the
    // cell has none. Clock arcs start at 0 with the default transition (an ideal clock). The
    // outputs left without an arc go to `missing`.
    const auto through_arcs = [&](CellId c, netlist::TimingArc::Type type,
                                  std::vector<NetId>& missing) {
        const Cell& cell = circuit.cells[c];
        missing.clear();
        if (!lib_cell[c]) return false;
        bool any = false;
        const netlist::Pin* pins = circuit.pins_of(cell);
        for (std::uint32_t k = 0; k < cell.pin_count; ++k) {
            const netlist::Pin& out = pins[k];
            if (out.dir != Direction::Output || out.net == netlist::kNoNet) continue;
            if (s.driver[out.net] != c) continue;
            const netlist::LibraryPin* lp = pin_named(*lib_cell[c], circuit.pin_name(out));
            if (!lp) {
                missing.push_back(out.net);
                continue;
            }
            const double load = r.load[out.net];
            double arrival = 0.0, transition = 0.0;
            bool found = false;
            for (const netlist::TimingArc& arc : lp->timing) {
                if (arc.type != type) continue;
                for (const std::string& related : arc.related_pins) {
                    double in_arrival = 0.0, in_trans = model.input_transition;
                    if (type == netlist::TimingArc::Type::Combinational) {
                        const netlist::Pin* in = input_named(circuit, cell, related);
                        if (!in || in->net == netlist::kNoNet) continue;
                        in_arrival = r.arrival[in->net];
                        in_trans = r.transition[in->net];
                    }
                    const double d = worst(arc.cell_rise, arc.cell_fall, in_trans, load);
                    const bool has_trans = !arc.rise_transition.empty() ||
                                           !arc.fall_transition.empty();
                    const double t = has_trans ? worst(arc.rise_transition, arc.fall_transition,
                                                       in_trans, load)
                                               : in_trans;
                    arrival = std::max(arrival, in_arrival + d);
                    transition = std::max(transition, t);
                    found = true;
                }
            }
            if (!found) {
                missing.push_back(out.net);
                continue;
            }
            r.arrival[out.net] = arrival;
            r.transition[out.net] = transition;
            any = true;
        }
        return any;
    };

    std::vector<NetId> missing;
    for (CellId c = 0; c < s.cell_count(); ++c)
        if (!s.combinational[c]) through_arcs(c, netlist::TimingArc::Type::ClockEdge, missing);

    for (CellId c : s.order) {
        const Cell& cell = circuit.cells[c];
        if (cell.kind == CellKind::Constant) continue; // constants arrive at 0
        const bool any = through_arcs(c, netlist::TimingArc::Type::Combinational, missing);
        if (any && missing.empty()) {
            ++r.cells_timed;
            continue;
        }
        // No timing arc into some or all of its outputs (a half adder's carry without one):
        // those are wire-like, of zero delay. A cell that drives nothing (a filler, a tap
        // cell) has no output to time and is not counted as missing one.
        if (s.outputs(c).empty()) continue;
        ++r.cells_without_timing;
        double latest = 0.0, slowest = 0.0;
        bool inputs = false;
        for (std::uint32_t pin : s.inputs(c)) {
            const NetId n = circuit.pins[pin].net;
            latest = std::max(latest, r.arrival[n]);
            slowest = std::max(slowest, r.transition[n]);
            inputs = true;
        }
        for (NetId n : any ? missing : s.outputs(c)) {
            if (s.driver[n] != c) continue;
            r.arrival[n] = latest;
            r.transition[n] = inputs ? slowest : model.input_transition;
        }
    }
    for (double a : r.arrival) r.max_arrival = std::max(r.max_arrival, a);
    return r;
}

/// Refuses arrival times that overflowed (delay tables or loads out of range): NaN or
/// infinity would be written as labels, or clamped to 0 by the next max.
ArrivalTimes checked_finite(ArrivalTimes r, const Circuit& circuit, const NetStructure& s,
                            const DelayModel& model)
{
    for (NetId n = 0; n < r.arrival.size(); ++n) {
        if (std::isfinite(r.arrival[n]) &&
            (n >= r.transition.size() || std::isfinite(r.transition[n])))
            continue;
        char factor[32];
        std::snprintf(factor, sizeof factor, "%g", model.load_factor);
        // Said at the net's driver (or the netlist): the user can tell which circuit it was.
        const CellId driver = n < s.driver.size() ? s.driver[n] : kNoCell;
        throw Error(driver != kNoCell ? circuit.cell_location(driver)
                                      : SourceLocation{circuit.source},
                    "the arrival time of net '" + std::string(circuit.net_name(n)) +
                        "' is not a finite number: " +
                        (r.nldm ? std::string("the library's delay tables, the pin capacitances "
                                              "or --input-transition are out of range")
                                : "--load-factor " + std::string(factor) + " is out of range"));
    }
    return r;
}

} // namespace

double gate_delay(std::string_view type, std::size_t inputs)
{
    const std::string f = function_name(type);
    const double extra = inputs > 2 ? static_cast<double>(inputs - 2) : 0.0;
    struct Entry {
        std::string_view prefix;
        double base, step;
    };
    // Longer names first where one is a prefix of another (XNOR before XOR, NAND before ...).
    static constexpr Entry kTable[] = {
        {"CONST", 0.0, 0.0}, {"VDD", 0.0, 0.0},    {"GND", 0.0, 0.0},   {"TIE", 0.0, 0.0},
        {"LOGIC0", 0.0, 0.0}, {"LOGIC1", 0.0, 0.0}, {"DFF", 0.0, 0.0},   {"LATCH", 0.0, 0.0},
        {"SDFF", 0.0, 0.0},  {"DLAT", 0.0, 0.0},   {"CLKINV", 1.0, 0.0}, {"CLKBUF", 1.0, 0.0},
        {"INV", 1.0, 0.0},   {"NOT", 1.0, 0.0},    {"BUF", 1.0, 0.0},   {"DLY", 1.0, 0.0},
        {"XNOR", 2.0, 1.0},  {"XOR", 2.0, 1.0},    {"NAND", 1.2, 0.2},  {"NOR", 1.4, 0.3},
        {"AND", 1.6, 0.2},   {"OR", 1.8, 0.3},     {"AOI", 1.6, 0.0},   {"OAI", 1.6, 0.0},
        {"AO", 2.0, 0.0},    {"OA", 2.0, 0.0},     {"MUX", 2.0, 0.0},   {"EXPR", 2.0, 0.0},
    };
    if (f == "SOP") return 0.6 + 0.3 * static_cast<double>(inputs);
    for (const Entry& e : kTable)
        if (starts_with(f, e.prefix)) return e.base + e.step * extra;
    return 1.0;
}

ArrivalTimes compute_arrival_times(const Circuit& circuit, const NetStructure& s,
                                   const DelayModel& model)
{
    if (model.library && model.library->has_timing()) {
        ArrivalTimes t = nldm_arrival_times(circuit, s, model);
        // No cell timed at all: the library describes other cells (another technology), and
        // every arrival would be 0.
        if (t.cells_timed == 0 && t.cells_without_timing > 0)
            throw Error(SourceLocation{model.library->source},
                        "no combinational cell of " + circuit.source +
                            " has a timing arc in the cell library (" +
                            std::to_string(t.cells_without_timing) +
                            " cells): expected the library of the netlist's cells");
        return checked_finite(std::move(t), circuit, s, model);
    }
    ArrivalTimes r;
    r.arrival.assign(s.net_count(), 0.0);

    // Load of one input pin of each cell: 1, or the library area proxy.
    std::vector<double> pin_load(s.cell_count(), 1.0);
    if (model.library) {
        const double reference = reference_pin_area(*model.library);
        for (CellId c = 0; reference > 0.0 && c < s.cell_count(); ++c) {
            const Cell& cell = circuit.cells[c];
            if (cell.kind != CellKind::Instance) continue;
            const netlist::LibraryCell* lc = model.library->find(circuit.cell_type(cell));
            if (!lc) continue;
            if (const double a = area_per_input(*lc); a > 0.0) pin_load[c] = a / reference;
        }
    }

    std::vector<double> delay(s.cell_count(), 0.0);
    for (CellId c : s.order) {
        const Cell& cell = circuit.cells[c];
        delay[c] = gate_delay(circuit.cell_type(cell), s.inputs(c).size());
    }

    for (CellId c : s.order) {
        if (circuit.cells[c].kind == CellKind::Constant) continue; // constants arrive at 0
        double latest = 0.0;
        for (std::uint32_t pin : s.inputs(c))
            latest = std::max(latest, r.arrival[circuit.pins[pin].net]);
        for (NetId n : s.outputs(c)) {
            if (s.driver[n] != c) continue;
            double load = 0.0;
            for (CellId sink : s.sinks(n)) load += pin_load[sink];
            r.arrival[n] = latest + delay[c] + model.load_factor * load;
            r.max_arrival = std::max(r.max_arrival, r.arrival[n]);
        }
    }
    return checked_finite(std::move(r), circuit, s, model);
}

} // namespace gsr::labels
