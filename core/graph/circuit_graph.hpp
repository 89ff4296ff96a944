#pragma once
// The circuit as a directed graph: one node per primary input and per cell, one edge from the
// driver of each net to each sink pin. CSR in both directions. No recursion anywhere: EPFL hyp
// is 24,801 levels deep.
#include "netlist/circuit.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::graph {

using NodeId = std::uint32_t;

enum NodeFlag : std::uint8_t {
    kNodePrimaryInput = 1,
    kNodePrimaryOutput = 2, ///< drives a primary output
    kNodeFlipFlop = 4,      ///< a storage element: a sequential loop is cut here
    kNodeConstant = 8,
};

/// Compressed sparse rows: the neighbours of node v are targets[offsets[v] .. offsets[v+1]).
struct Csr {
    std::vector<std::uint64_t> offsets;
    std::vector<NodeId> targets;
    std::vector<std::uint8_t> inverted; ///< per edge: the sink sees the complement (AIGER)

    std::size_t degree(NodeId v) const { return offsets[v + 1] - offsets[v]; }
};

class CircuitGraph {
public:
    std::size_t node_count() const { return flags.size(); }
    std::size_t edge_count() const { return fanout.targets.size(); }

    Csr fanout; ///< driver -> sinks
    Csr fanin;  ///< sink -> drivers (the same edges, reversed)
    std::vector<std::uint8_t> flags;     ///< NodeFlag bits per node
    std::vector<std::uint32_t> type;     ///< index into type_names per node
    std::vector<std::string> type_names; ///< "PI" first, then cell types in order of first use
    std::vector<std::int64_t> cell_of;   ///< node -> cell id, or -(port index + 1) for a PI
    std::vector<std::uint32_t> level;    ///< longest path from a PI or flip-flop output
    std::vector<std::uint32_t> reverse_level; ///< longest path to a PO or flip-flop input
    std::uint32_t max_level = 0;
    std::size_t loop_nodes = 0; ///< nodes on combinational loops (each loop shares one level)

    /// Node count per level: histogram[l] = nodes whose level is l.
    std::vector<std::size_t> level_histogram() const;

    /// Features per node, row-major N x feature_count(): type one-hot, fan-in, fan-out,
    /// PI, PO, flip-flop flags.
    std::vector<float> features() const;
    std::size_t feature_count() const { return type_names.size() + 5; }
};

/// Builds the graph of a circuit; warnings (multiple drivers, undriven sinks, loops) go to `diag`.
CircuitGraph build_graph(const netlist::Circuit& circuit, Diagnostics* diag = nullptr);

/// A file's circuit and its graph, read once and then shared read-only: the GUI's summary,
/// graph canvas and panels all use the one that its load made.
struct LoadedCircuit {
    std::string path;
    /// The cell libraries its instances were read with (report::summarize_file's), as given.
    std::vector<std::string> libraries;
    netlist::Circuit circuit;
    CircuitGraph graph;
};

/// Reads the netlist at `path` (netlist::load_netlist) and builds its graph. Throws
/// gsr::Error naming the file.
std::shared_ptr<const LoadedCircuit> load_circuit(const std::string& path);

} // namespace gsr::graph
