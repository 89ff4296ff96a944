#pragma once
// The undirected weighted graph that community detection and layout work on: the circuit graph
// with directions dropped, parallel edges merged (weights summed) and self loops dropped.
#include "graph/circuit_graph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::community {

class WorkerPool;

using NodeId = std::uint32_t;

/// Symmetric CSR: edge {u, v} of weight w is listed in the rows of both u and v. A self loop
/// (only aggregated graphs have them) is one entry in its row holding twice its weight, so
/// that row sums are the node strengths and their total is 2m.
struct WeightedGraph {
    std::vector<std::uint64_t> offsets{0};
    std::vector<NodeId> targets;
    std::vector<double> weights;

    std::size_t node_count() const { return offsets.size() - 1; }
    std::size_t entry_count() const { return targets.size(); }
    std::size_t degree(NodeId v) const { return offsets[v + 1] - offsets[v]; }
    /// Sum of the row of v: the node strength k_v.
    double strength(NodeId v) const;
    /// m: the total weight of the undirected edges.
    double total_weight() const;
};

struct WeightedEdge {
    NodeId u = 0;
    NodeId v = 0;
    double weight = 1.0;
};

/// The undirected projection of a circuit graph: one edge per connected pair of nodes, its
/// weight the number of directed edges between them in either direction; no self loops.
/// `pool` may be null (one thread).
WeightedGraph project_undirected(const graph::CircuitGraph& g, WorkerPool* pool = nullptr);

/// A graph from an edge list, with the projection's rules (merge, sum, drop self loops).
/// Throws gsr::Error for a node id out of range or a weight that is not finite and positive.
WeightedGraph weighted_graph_from_edges(std::size_t node_count,
                                        std::span<const WeightedEdge> edges);

/// Each undirected edge once (u <= v), in row order; a self loop with its own weight.
std::vector<WeightedEdge> edge_list(const WeightedGraph& g);

/// Newman-Girvan modularity with resolution gamma:
///   Q = sum_c [ in_c / 2m - gamma (tot_c / 2m)^2 ]
/// where in_c is the weight inside c counted from both ends and tot_c its total strength.
/// Throws gsr::Error for a membership of the wrong size, gamma < 0, or a graph without edges.
double modularity(const WeightedGraph& g, std::span<const std::uint32_t> membership,
                  double resolution = 1.0);

} // namespace gsr::community
