#pragma once
// Per-net learning targets as columns, one row per net, in the row order and with the column
// names of shared/data/labels/README.md: primary inputs first, then the nets driven by each
// cell in file order. Values: README definitions; `arrival` is from arrival_time.hpp.
//
// `driver` is "PI", "DFF" for a flip-flop of the netlist format itself (bench DFF, BLIF
// .latch, AIGER latch), "NAMES<k>" for a BLIF .names node with k inputs, otherwise the cell
// type of the model: a library flip-flop keeps its own ("DFFSRX1"), and the bench reader
// stores BUFF as BUF.
#include "labels/arrival_time.hpp"
#include "labels/logic_simulator.hpp"
#include "labels/net_levels.hpp"
#include "labels/net_structure.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::labels {

struct LabelSet {
    std::size_t size() const { return net.size(); }

    std::vector<NetId> net_id;
    std::vector<std::string> net;
    std::vector<std::string> driver;
    std::vector<std::uint8_t> is_pi, is_po, is_state;
    std::vector<std::uint32_t> fanin, fanout, level, rev_level;

    bool has_simulation = false;
    std::vector<std::uint64_t> sim_ones;
    std::uint64_t sim_total = 0; ///< the same for every net
    std::vector<double> sim_prob;

    bool has_toggles = false;
    std::vector<std::uint64_t> toggles;
    std::uint64_t toggle_total = 0; ///< the same for every net
    std::vector<double> toggle_rate;

    bool has_arrival = false;
    std::vector<double> arrival;
};

/// Gathers the columns. `simulation` and `arrival` may be null: their columns are left out.
LabelSet make_label_set(const netlist::Circuit& circuit, const NetStructure& structure,
                        const NetLevels& levels, const SimulationResult* simulation = nullptr,
                        const ArrivalTimes* arrival = nullptr);

/// The CSV text: header net,driver,is_pi,is_po,is_state,fanin,fanout,level,rev_level, then
/// sim_ones,sim_total,sim_prob / toggles,toggle_total,toggle_rate / arrival when present.
/// Ratios and arrival times with 6 decimals.
std::string label_csv(const LabelSet& labels);

/// Writes label_csv to `path` atomically: a hidden temporary file beside it first, then
/// renamed over it. Throws gsr::Error when it cannot.
void write_label_csv(const LabelSet& labels, const std::string& path);

} // namespace gsr::labels
