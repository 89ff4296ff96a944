#include "labels/arrival_time.hpp"

#include <algorithm>
#include <cctype>
#include <string>

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
    std::string u(type);
    for (char& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return u;
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
    return r;
}

} // namespace gsr::labels
