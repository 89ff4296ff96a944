#include "labels/label_set.hpp"

#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gsr::labels {

using netlist::Cell;
using netlist::CellKind;
using netlist::Circuit;

namespace {

std::string driver_name(const Circuit& circuit, const NetStructure& s, NetId n)
{
    if (s.is_pi[n]) return "PI";
    const CellId c = s.driver[n];
    if (c == kNoCell) return "UNDRIVEN";
    const Cell& cell = circuit.cells[c];
    if (cell.kind == CellKind::FlipFlop) return "DFF";
    const bool names_node = cell.kind == CellKind::Logic || cell.kind == CellKind::Constant;
    if (circuit.format == "blif" && names_node)
        return "NAMES" + std::to_string(s.inputs(c).size());
    return std::string(circuit.cell_type(cell));
}

void append_fixed6(std::string& out, double v)
{
    // %.6f of a double takes at most 309 digits, a sign, a point and 6 decimals; a buffer
    // shorter than that read past its end for values of 1e56 and more.
    char buf[330];
    const int len = std::snprintf(buf, sizeof buf, "%.6f", v);
    out.append(buf, std::min(static_cast<std::size_t>(len > 0 ? len : 0), sizeof buf - 1));
}

void append_field(std::string& out, const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char ch : s) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
}

double ratio(std::uint64_t a, std::uint64_t b)
{
    return b == 0 ? 0.0 : static_cast<double>(a) / static_cast<double>(b);
}

} // namespace

LabelSet make_label_set(const Circuit& circuit, const NetStructure& s, const NetLevels& levels,
                        const SimulationResult* simulation, const ArrivalTimes* arrival)
{
    LabelSet l;
    const std::size_t rows = s.rows.size();
    l.net_id = s.rows;
    l.net.reserve(rows);
    l.driver.reserve(rows);
    for (NetId n : s.rows) {
        l.net.emplace_back(circuit.net_name(n));
        l.driver.push_back(driver_name(circuit, s, n));
        l.is_pi.push_back(s.is_pi[n]);
        l.is_po.push_back(s.is_po[n]);
        l.is_state.push_back(s.is_state[n]);
        const CellId c = s.driver[n];
        l.fanin.push_back(c == kNoCell ? 0u : static_cast<std::uint32_t>(s.inputs(c).size()));
        l.fanout.push_back(static_cast<std::uint32_t>(s.sinks(n).size()));
        l.level.push_back(levels.level[n]);
        l.rev_level.push_back(levels.rev_level[n]);
    }
    if (simulation) {
        l.has_simulation = true;
        l.sim_total = simulation->total;
        for (NetId n : s.rows) {
            l.sim_ones.push_back(simulation->ones[n]);
            l.sim_prob.push_back(ratio(simulation->ones[n], simulation->total));
        }
        if (simulation->has_toggles) {
            l.has_toggles = true;
            l.toggle_total = simulation->toggle_total;
            for (NetId n : s.rows) {
                l.toggles.push_back(simulation->toggles[n]);
                l.toggle_rate.push_back(ratio(simulation->toggles[n], simulation->toggle_total));
            }
        }
    }
    if (arrival) {
        l.has_arrival = true;
        for (NetId n : s.rows) l.arrival.push_back(arrival->arrival[n]);
    }
    return l;
}

std::string label_csv(const LabelSet& l)
{
    std::string out = "net,driver,is_pi,is_po,is_state,fanin,fanout,level,rev_level";
    if (l.has_simulation) out += ",sim_ones,sim_total,sim_prob";
    if (l.has_toggles) out += ",toggles,toggle_total,toggle_rate";
    if (l.has_arrival) out += ",arrival";
    out += '\n';
    out.reserve(out.size() + l.size() * 96);
    for (std::size_t i = 0; i < l.size(); ++i) {
        append_field(out, l.net[i]);
        out += ',';
        append_field(out, l.driver[i]);
        for (std::uint64_t v : {std::uint64_t{l.is_pi[i]}, std::uint64_t{l.is_po[i]},
                                std::uint64_t{l.is_state[i]}, std::uint64_t{l.fanin[i]},
                                std::uint64_t{l.fanout[i]}, std::uint64_t{l.level[i]},
                                std::uint64_t{l.rev_level[i]}}) {
            out += ',';
            out += std::to_string(v);
        }
        if (l.has_simulation) {
            out += ',' + std::to_string(l.sim_ones[i]) + ',' + std::to_string(l.sim_total) + ',';
            append_fixed6(out, l.sim_prob[i]);
        }
        if (l.has_toggles) {
            out += ',' + std::to_string(l.toggles[i]) + ',' + std::to_string(l.toggle_total) + ',';
            append_fixed6(out, l.toggle_rate[i]);
        }
        if (l.has_arrival) {
            out += ',';
            append_fixed6(out, l.arrival[i]);
        }
        out += '\n';
    }
    return out;
}

void write_label_csv(const LabelSet& labels, const std::string& path)
{
    write_file_atomically(path, label_csv(labels));
}

} // namespace gsr::labels
