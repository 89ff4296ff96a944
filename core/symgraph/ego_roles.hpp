#pragma once
// Topological roles beyond 1-WL (SymGraph step 3). For node v, take its K-hop ego network
// (nodes within K hops, edges followed either way, the induced edges kept with their
// direction), colour v apart from every other node, and refine the colours inside the ego
// network until the partition stops splitting. The colour classes are v's roles; v's role
// signature hashes v's own final colour with the multiset of (class colour, class size).
//
// Why this separates what 1-WL cannot: 1-WL sees only multisets of neighbour colours, so two
// triangles and a hexagon look the same; once v is singled out, refinement inside its ego
// network sees whether v's neighbours are joined to each other (a triangle) or not.
//
// Ego networks do not depend on the states, so EgoNetworks is built once per graph and K and
// reused for every granularity the search tries. Ego networks above `max_nodes` are not
// refined (a PI that drives 500 gates): their signature is the K-round WL hash, tagged, which
// is still invariant under renumbering.
//
// Contents: EgoNetworks, RoleSignatures, role_signatures.
#include "symgraph/structural_hash.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace gsr::symgraph {

class EgoNetworks {
public:
    EgoNetworks(const StructureGraph& g, unsigned hops, std::size_t max_nodes = 256);

    unsigned hops() const { return hops_; }
    std::size_t node_count() const { return offsets_.size() - 1; }
    /// v's ego network, v first, in BFS order; empty when it has more than max_nodes nodes.
    std::span<const std::uint32_t> nodes(std::uint32_t v) const
    {
        return {members_.data() + offsets_[v], members_.data() + offsets_[v + 1]};
    }
    bool too_large(std::uint32_t v) const { return offsets_[v] == offsets_[v + 1]; }

private:
    unsigned hops_;
    std::vector<std::uint64_t> offsets_;
    std::vector<std::uint32_t> members_;
};

struct RoleSignatures {
    std::vector<std::uint64_t> signature; ///< per node
    std::vector<std::uint32_t> ego_size;  ///< per node: nodes in its ego network
    std::vector<std::uint32_t>
        classes; ///< per node: colour classes after refinement; 0 if too large
};

/// The role signature of every node of `g` (with g's states) over the ego networks `ego`.
RoleSignatures role_signatures(const StructureGraph& g, const EgoNetworks& ego);

} // namespace gsr::symgraph
