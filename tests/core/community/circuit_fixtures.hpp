#pragma once
// Public circuits of the data set as weighted graphs, read once per test binary.
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"

#include <map>
#include <string>

namespace gsr::test {

inline std::string netlist_path(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

/// The undirected projection of a public circuit, cached.
inline const community::WeightedGraph& circuit_graph(const std::string& rel)
{
    static std::map<std::string, community::WeightedGraph> cache;
    auto it = cache.find(rel);
    if (it == cache.end()) {
        const graph::CircuitGraph g = graph::build_graph(netlist::load_netlist(netlist_path(rel)));
        it = cache.emplace(rel, community::project_undirected(g)).first;
    }
    return it->second;
}

/// A graph from text: "0-1 1-2 2-0*3" (edge u-v, optional *weight).
inline community::WeightedGraph graph_of(std::size_t nodes, const std::string& edges)
{
    std::vector<community::WeightedEdge> list;
    std::size_t i = 0;
    while (i < edges.size()) {
        if (edges[i] == ' ') {
            ++i;
            continue;
        }
        std::size_t used = 0;
        community::WeightedEdge e;
        e.u = static_cast<community::NodeId>(std::stoul(edges.substr(i), &used));
        i += used + 1; // '-'
        e.v = static_cast<community::NodeId>(std::stoul(edges.substr(i), &used));
        i += used;
        if (i < edges.size() && edges[i] == '*') {
            e.weight = std::stod(edges.substr(i + 1), &used);
            i += used + 1;
        }
        list.push_back(e);
    }
    return community::weighted_graph_from_edges(nodes, list);
}

} // namespace gsr::test
