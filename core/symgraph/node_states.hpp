#pragma once
// Discrete node states of a circuit graph (SymGraph step 1): the cell type, binned fan-in and
// fan-out, PO and flip-flop flags and, optionally, a bin of the node's relative depth. A state
// is written as a short text ("NAND2 fo2", "PI fo3 PO", "NOT fo4-7 d2/3") and its hash is the
// hash of that text, so the same state has the same hash in every circuit and a rule can name
// it in words.
//
// Contents: Granularity (how fine the vocabulary is; the search varies it), state_label,
// state_shows_fanin, state_degrees, node_states.
#include "graph/circuit_graph.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gsr::symgraph {

/// The vocabulary's granularity, which SymGraph searches over (step 6).
struct Granularity {
    /// Fan-in exact up to 8 and fan-out 0,1,2,3,4-7,8+; else fan-in 0,1,2,3+, fan-out 0,1,2+.
    bool fine_fan = true;
    std::uint32_t depth_bins = 0; ///< bins of level / (max_level + 1); 0: depth not in the state
    std::uint32_t hops = 1;       ///< K: WL rounds and ego-network radius, 1 or 2
    /// Edge inversions (AIGER) tell neighbours apart in the WL classes and roles; false only
    /// for rules saved as version 1, which hashed direction alone.
    bool polarity = true;

    bool operator==(const Granularity&) const = default;
    /// "fan fine, depth 3, K=2"
    std::string str() const;
};

/// The text of node v's state under `gr`.
std::string state_label(const graph::CircuitGraph& g, graph::NodeId v, const Granularity& gr);

/// Whether state_label writes v's fan-in bin: not for a primary input, a flip-flop or a type
/// whose name already ends in a digit ("MUX2", "NAND2_X1").
bool state_shows_fanin(const graph::CircuitGraph& g, graph::NodeId v);

/// The exact fan-in and fan-out that v's state text fixes under gr's bins, each -1 where the
/// text leaves it open ("fo4-7", "9+", or no fan-in bin at all).
std::pair<int, int> state_degrees(const graph::CircuitGraph& g, graph::NodeId v,
                                  const Granularity& gr);

/// hash_text(state_label) of every node; `labels` (optional) receives hash -> text.
std::vector<std::uint64_t> node_states(const graph::CircuitGraph& g, const Granularity& gr,
                                       std::unordered_map<std::uint64_t, std::string>* labels);

} // namespace gsr::symgraph
