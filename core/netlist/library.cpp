#include "netlist/library.hpp"

#include <algorithm>

namespace gsr::netlist {

namespace {

/// The segment [i, i+1] of an ascending axis that x falls in, or the outermost one when x lies
/// outside (so that the same line extends past the ends), and x's fraction along it.
void locate(const std::vector<double>& axis, double x, std::size_t& i, double& frac)
{
    if (axis.size() < 2) {
        i = 0;
        frac = 0.0;
        return;
    }
    const auto it = std::upper_bound(axis.begin() + 1, axis.end() - 1, x);
    i = static_cast<std::size_t>(it - axis.begin()) - 1;
    const double width = axis[i + 1] - axis[i];
    frac = width > 0.0 ? (x - axis[i]) / width : 0.0;
}

} // namespace

double TimingTable::lookup(double input_transition, double output_load) const
{
    if (values.empty()) return 0.0;
    std::size_t t = 0, l = 0;
    double u = 0.0, v = 0.0;
    locate(transition, input_transition, t, u);
    locate(load, output_load, l, v);
    const std::size_t nl = load.size();
    const std::size_t t1 = transition.size() > 1 ? t + 1 : t;
    const std::size_t l1 = nl > 1 ? l + 1 : l;
    const double v00 = values[t * nl + l], v01 = values[t * nl + l1];
    const double v10 = values[t1 * nl + l], v11 = values[t1 * nl + l1];
    return (1 - u) * (1 - v) * v00 + (1 - u) * v * v01 + u * (1 - v) * v10 + u * v * v11;
}

double WireLoad::wire_capacitance(std::size_t fanout) const
{
    const double n = static_cast<double>(fanout);
    double length = 0.0;
    if (fanout_length.empty()) {
        length = slope * n;
    } else if (n > fanout_length.back().first) {
        length = fanout_length.back().second + slope * (n - fanout_length.back().first);
    } else {
        // Between two listed fan-outs: the straight line between them.
        auto hi = std::lower_bound(fanout_length.begin(), fanout_length.end(), n,
                                   [](const auto& p, double x) { return p.first < x; });
        if (hi->first == n || hi == fanout_length.begin()) {
            // Below the first listed fan-out: the line from (0, 0) to it.
            length = hi->first == n ? hi->second : hi->second * n / std::max(hi->first, 1.0);
        } else {
            const auto lo = hi - 1;
            length = lo->second +
                     (hi->second - lo->second) * (n - lo->first) / (hi->first - lo->first);
        }
    }
    return capacitance * length;
}

const WireLoad* Library::default_wire() const
{
    for (const WireLoad& w : wire_loads)
        if (w.name == default_wire_load) return &w;
    return nullptr;
}

void Library::index()
{
    by_name_.clear();
    for (std::size_t i = 0; i < cells.size(); ++i) by_name_.emplace(cells[i].name, i);
}

const LibraryCell* Library::find(std::string_view cell) const
{
    auto it = by_name_.find(std::string(cell));
    return it == by_name_.end() ? nullptr : &cells[it->second];
}

const LibraryPin* Library::find_pin(std::string_view cell, std::string_view pin) const
{
    const LibraryCell* c = find(cell);
    if (!c) return nullptr;
    for (const LibraryPin& p : c->pins)
        if (p.name == pin) return &p;
    return nullptr;
}

void Library::merge(const Library& other)
{
    // Timing comes from the first library that has it (a LEF adds none).
    if (!has_timing() && other.has_timing()) {
        time_unit_ns = other.time_unit_ns;
        cap_unit_pf = other.cap_unit_pf;
        wire_loads = other.wire_loads;
        default_wire_load = other.default_wire_load;
    }
    std::size_t arcs_added = 0;
    for (const LibraryCell& oc : other.cells) {
        auto it = by_name_.find(oc.name);
        if (it == by_name_.end()) {
            by_name_.emplace(oc.name, cells.size());
            cells.push_back(oc);
            for (const LibraryPin& p : oc.pins) arcs_added += p.timing.size();
            continue;
        }
        LibraryCell& mine = cells[it->second];
        for (const LibraryPin& op : oc.pins) {
            bool have = false;
            for (LibraryPin& p : mine.pins) {
                if (p.name != op.name) continue;
                have = true;
                if (p.dir == Direction::Unknown) p.dir = op.dir;
                if (p.timing.empty() && !op.timing.empty()) {
                    p.timing = op.timing;
                    arcs_added += op.timing.size();
                }
                if (p.capacitance == 0.0) p.capacitance = op.capacitance;
                // The logic the simulator reads: a LEF's pin has none, its Liberty's has.
                if (p.function.empty()) p.function = op.function;
                if (p.three_state.empty()) p.three_state = op.three_state;
            }
            if (!have) mine.pins.push_back(op);
        }
        if (mine.width == 0.0) { mine.width = oc.width; mine.height = oc.height; }
        // Liberty's word on storage, whichever order the libraries came in.
        if (oc.storage_known && !mine.storage_known) {
            mine.is_ff = oc.is_ff;
            mine.is_latch = oc.is_latch;
            mine.ff = oc.ff;
            mine.storage_known = true;
        }
    }
    timing_arcs += arcs_added;
}

} // namespace gsr::netlist
