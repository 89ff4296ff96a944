#pragma once
// Small graphs and public circuits for the SymGraph tests.
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"
#include "symgraph/node_states.hpp"
#include "symgraph/structural_hash.hpp"
#include "util/source_text.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gsr::test {

inline std::string netlist_path(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

inline graph::CircuitGraph circuit_graph_of(const std::string& name, const std::string& bench)
{
    return graph::build_graph(netlist::load_netlist(SourceText::from_string(name, bench)));
}

/// The circuit's adjacency with its node states (fine fan bins, no depth).
inline symgraph::StructureGraph with_states(const graph::CircuitGraph& g,
                                            const symgraph::Granularity& gr = {})
{
    symgraph::StructureGraph s = symgraph::structure_of(g);
    s.state = symgraph::node_states(g, gr, nullptr);
    return s;
}

/// An undirected graph of equal states made of disjoint cycles of the given lengths.
inline symgraph::StructureGraph cycles(const std::vector<std::uint32_t>& lengths)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::uint32_t base = 0;
    for (std::uint32_t len : lengths) {
        for (std::uint32_t i = 0; i < len; ++i) edges.emplace_back(base + i, base + (i + 1) % len);
        base += len;
    }
    return symgraph::graph_from_edges(base, edges, false, std::vector<std::uint64_t>(base, 7));
}

} // namespace gsr::test
