#pragma once
// Community detection on the undirected weighted graph: Leiden (Traag, Waltman, van Eck 2019)
// and Louvain (Blondel et al. 2008), both maximising modularity with a resolution parameter.
//
// Parallel and deterministic: Leiden's local moving takes one node at a time, in two parts at
// once (the nodes whose community and neighbours' communities all lie in one half of the
// community ids; then the others, one queue over the whole graph); levels of more than 2^18
// nodes, and Louvain, take nodes in batches whose moves are decided in parallel, chunk by
// chunk (each chunk in order, seeing its own earlier moves), then applied in batch order,
// re-checked where another chunk changed a community they counted on. The Leiden refinement
// runs community by community, each with its own seeded generator; aggregation builds rows
// independently. Parts, batch and chunk sizes depend on the graph only, so one seed gives one
// partition whatever the thread count.
#include "community/weighted_graph.hpp"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gsr::community {

enum class Method { Leiden, Louvain };

/// "Leiden" or "Louvain", as a legend or a message names the method.
std::string_view method_name(Method method);

struct CommunityOptions {
    Method method = Method::Leiden;
    double resolution = 1.0; ///< gamma > 0: larger gives more, smaller communities
    std::uint64_t seed = 1;
    unsigned threads = 0; ///< 0: one per hardware thread
    /// Leiden: passes over the whole hierarchy, each starting from the last partition (as
    /// igraph's n_iterations, whose common default is 2); negative: until a pass changes
    /// nothing, at most kMaxLeidenIterations. Louvain makes one pass.
    int iterations = 2;
    double randomness =
        0.01; ///< Leiden refinement: theta of the merge probabilities exp(gain/theta)
    /// Set by another thread to stop early; detection then returns no result at all.
    const std::atomic<bool>* cancel = nullptr;
};

inline constexpr int kMaxLeidenIterations = 64;

/// One level of the hierarchy: a partition of the original nodes.
struct CommunityLevel {
    std::vector<std::uint32_t>
        membership; ///< community of each node, numbered by size (0: largest)
    std::uint32_t community_count = 0;
    double modularity = 0; ///< Newman-Girvan's, at resolution 1
};

struct CommunityResult {
    std::vector<std::uint32_t> membership; ///< final community of each node, 0: largest
    std::vector<std::uint32_t> sizes;      ///< nodes per community, non-increasing
    std::uint32_t community_count = 0;
    /// Newman-Girvan's modularity (resolution 1, within [-1/2, 1]) of the final partition;
    /// `objective` is what the detection maximised, the modularity at its resolution (equal
    /// to it at 1; at 20, c17's singletons have modularity -0.11 and objective -2.29).
    double modularity = 0;
    double objective = 0;
    /// Finest first, each a refinement of the next; the last is the final partition. Leiden:
    /// its refined partitions (connected), Louvain: the partition after each level's moves.
    std::vector<CommunityLevel> levels;
    int iterations = 0; ///< Leiden passes made

    std::uint32_t largest() const { return sizes.empty() ? 0 : sizes.front(); }
    std::uint32_t smallest() const { return sizes.empty() ? 0 : sizes.back(); }
};

/// Detects communities. Returns std::nullopt only when `options.cancel` was set. Throws
/// gsr::Error for a resolution that is not finite and positive, a graph without nodes or without
/// edges, and edge weights that are not finite and positive.
std::optional<CommunityResult> detect_communities(const WeightedGraph& g,
                                                  const CommunityOptions& options);

/// Each thread keeps the memory (and worker threads) of its last detection for its next one, on
/// graphs of up to 2^18 nodes: about 0.5 KB per node of the largest graph run since. This frees
/// the calling thread's; its next detection allocates afresh.
void release_detection_memory();

/// Renumbers a membership by community size (largest first, ties by lowest node), returning the
/// sizes. Ids need not be dense.
std::vector<std::uint32_t> number_by_size(std::vector<std::uint32_t>& membership);

/// Nodes in communities that are not connected in `g` (0: every community is connected).
std::size_t nodes_in_disconnected_communities(const WeightedGraph& g,
                                              const std::vector<std::uint32_t>& membership);

} // namespace gsr::community
