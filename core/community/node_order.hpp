#pragma once
// Node orders for memory locality and drawing: a community-contiguous order (each community,
// at every level of the hierarchy, is one run of consecutive ids), reverse Cuthill-McKee, and
// the original order; and applying an order to a CSR.
#include "community/community_detection.hpp"
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::community {

/// A permutation of the nodes and its inverse.
struct NodeOrder {
    std::vector<NodeId> new_of_old; ///< position of each original node in the new order
    std::vector<NodeId> old_of_new; ///< original node at each new position

    std::size_t size() const { return new_of_old.size(); }
};

/// The identity.
NodeOrder original_order(std::size_t node_count);

/// An order from the original node at each position. Throws gsr::Error if it is not a permutation.
NodeOrder order_from_sequence(std::vector<NodeId> old_of_new);

/// Communities one after another in id order; inside each, nodes keep their original order.
NodeOrder community_order(std::span<const std::uint32_t> membership);

/// Contiguous at every level of the hierarchy at once: nodes sorted by final community, then by
/// the community of each finer level, then by original id.
NodeOrder community_order(const CommunityResult& result);

/// Reverse Cuthill-McKee: each connected component in turn, breadth first from a
/// pseudo-peripheral node of low degree, neighbours by increasing degree; then reversed.
NodeOrder rcm_order(const WeightedGraph& g);

/// The same CSR with nodes renumbered: row r is the row of old_of_new[r], its targets mapped
/// through new_of_old, in their original order; `inverted` (if present) follows its edges.
graph::Csr apply_order(const graph::Csr& csr, const NodeOrder& order);
WeightedGraph apply_order(const WeightedGraph& g, const NodeOrder& order,
                          WorkerPool* pool = nullptr);

/// Per-node values in the new order: out[new] = values[old_of_new[new]].
template <class T>
std::vector<T> apply_order(std::span<const T> values, const NodeOrder& order)
{
    std::vector<T> out;
    out.reserve(values.size());
    for (NodeId old : order.old_of_new) out.push_back(values[old]);
    return out;
}

/// Sum over edges of |new(u) - new(v)|, divided by the edge count: how far apart neighbours
/// are stored (lower is better for caches).
double mean_edge_span(const WeightedGraph& g, const NodeOrder& order);

} // namespace gsr::community
