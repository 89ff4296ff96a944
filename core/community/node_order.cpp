#include "community/node_order.hpp"

#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>

namespace gsr::community {
namespace {

constexpr NodeId kUnplaced = 0xffffffffu;

NodeOrder from_old_of_new(std::vector<NodeId> old_of_new)
{
    NodeOrder order;
    order.new_of_old.resize(old_of_new.size());
    for (std::size_t i = 0; i < old_of_new.size(); ++i)
        order.new_of_old[old_of_new[i]] = static_cast<NodeId>(i);
    order.old_of_new = std::move(old_of_new);
    return order;
}

/// Stable counting sort of `seq` by key[node].
void stable_sort_by(std::vector<NodeId>& seq, std::span<const std::uint32_t> key)
{
    std::uint32_t top = 0;
    for (std::uint32_t c : key) top = std::max(top, c + 1);
    std::vector<std::size_t> start(top + 1, 0);
    for (NodeId v : seq) ++start[key[v] + 1];
    for (std::uint32_t c = 0; c < top; ++c) start[c + 1] += start[c];
    std::vector<NodeId> out(seq.size());
    for (NodeId v : seq) out[start[key[v]]++] = v;
    seq = std::move(out);
}

/// Breadth-first levels from `root` inside its component; returns the nodes in visiting order
/// and leaves each node's depth in `depth` (kUnplaced where not reached).
std::vector<NodeId> bfs(const WeightedGraph& g, NodeId root, std::vector<NodeId>& depth,
                        std::vector<NodeId>& visited_stamp, NodeId stamp)
{
    std::vector<NodeId> seq{root};
    visited_stamp[root] = stamp;
    depth[root] = 0;
    for (std::size_t head = 0; head < seq.size(); ++head) {
        const NodeId v = seq[head];
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const NodeId u = g.targets[e];
            if (visited_stamp[u] == stamp) continue;
            visited_stamp[u] = stamp;
            depth[u] = depth[v] + 1;
            seq.push_back(u);
        }
    }
    return seq;
}

} // namespace

NodeOrder original_order(std::size_t node_count)
{
    std::vector<NodeId> seq(node_count);
    std::iota(seq.begin(), seq.end(), NodeId{0});
    return from_old_of_new(std::move(seq));
}

NodeOrder order_from_sequence(std::vector<NodeId> old_of_new)
{
    std::vector<std::uint8_t> seen(old_of_new.size(), 0);
    for (NodeId v : old_of_new) {
        if (v >= old_of_new.size() || seen[v])
            throw Error("a node order must name each of the " + std::to_string(old_of_new.size()) +
                        " nodes exactly once");
        seen[v] = 1;
    }
    return from_old_of_new(std::move(old_of_new));
}

NodeOrder community_order(std::span<const std::uint32_t> membership)
{
    std::vector<NodeId> seq(membership.size());
    std::iota(seq.begin(), seq.end(), NodeId{0});
    stable_sort_by(seq, membership);
    return from_old_of_new(std::move(seq));
}

NodeOrder community_order(const CommunityResult& result)
{
    std::vector<NodeId> seq(result.membership.size());
    std::iota(seq.begin(), seq.end(), NodeId{0});
    // Least significant key first: the finest level, up to the final partition.
    for (const CommunityLevel& level : result.levels) stable_sort_by(seq, level.membership);
    stable_sort_by(seq, result.membership);
    return from_old_of_new(std::move(seq));
}

NodeOrder rcm_order(const WeightedGraph& g)
{
    const std::size_t n = g.node_count();
    std::vector<NodeId> by_degree(n);
    std::iota(by_degree.begin(), by_degree.end(), NodeId{0});
    std::stable_sort(by_degree.begin(), by_degree.end(),
                     [&](NodeId a, NodeId b) { return g.degree(a) < g.degree(b); });
    std::vector<NodeId> depth(n, kUnplaced), stamp(n, kUnplaced), placed_at(n, kUnplaced);
    std::vector<NodeId> seq;
    seq.reserve(n);
    std::vector<NodeId> neighbours;
    NodeId stamp_id = 0;
    for (NodeId start : by_degree) {
        if (placed_at[start] != kUnplaced) continue;
        // George-Liu: move to a low-degree node of the last BFS level while the depth grows.
        NodeId root = start;
        std::uint32_t eccentricity = 0;
        for (int round = 0; round < 8; ++round) {
            const std::vector<NodeId> reach = bfs(g, root, depth, stamp, stamp_id++);
            const std::uint32_t far = depth[reach.back()];
            if (round > 0 && far <= eccentricity) break;
            eccentricity = far;
            NodeId best = reach.back();
            for (auto it = reach.rbegin(); it != reach.rend() && depth[*it] == far; ++it)
                if (g.degree(*it) < g.degree(best) ||
                    (g.degree(*it) == g.degree(best) && *it < best))
                    best = *it;
            if (best == root) break;
            root = best;
        }
        // Cuthill-McKee from root.
        const std::size_t first = seq.size();
        seq.push_back(root);
        placed_at[root] = 0;
        for (std::size_t head = first; head < seq.size(); ++head) {
            const NodeId v = seq[head];
            neighbours.clear();
            for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
                if (placed_at[g.targets[e]] == kUnplaced) {
                    placed_at[g.targets[e]] = 0;
                    neighbours.push_back(g.targets[e]);
                }
            std::sort(neighbours.begin(), neighbours.end(), [&](NodeId a, NodeId b) {
                return g.degree(a) != g.degree(b) ? g.degree(a) < g.degree(b) : a < b;
            });
            // (push_back, not insert: GCC 13 reports a false -Wstringop-overflow for the
            // range insert here.)
            for (const NodeId u : neighbours) seq.push_back(u);
        }
    }
    std::reverse(seq.begin(), seq.end());
    return from_old_of_new(std::move(seq));
}

graph::Csr apply_order(const graph::Csr& csr, const NodeOrder& order)
{
    const std::size_t n = order.size();
    if (csr.offsets.size() != n + 1)
        throw Error("a node order of " + std::to_string(n) + " nodes for a CSR of " +
                    std::to_string(csr.offsets.size() - 1));
    const bool has_inverted = !csr.inverted.empty();
    graph::Csr out;
    out.offsets.assign(n + 1, 0);
    out.targets.reserve(csr.targets.size());
    if (has_inverted) out.inverted.reserve(csr.inverted.size());
    for (std::size_t r = 0; r < n; ++r) {
        const NodeId old = order.old_of_new[r];
        for (std::uint64_t e = csr.offsets[old]; e < csr.offsets[old + 1]; ++e) {
            out.targets.push_back(order.new_of_old[csr.targets[e]]);
            if (has_inverted) out.inverted.push_back(csr.inverted[e]);
        }
        out.offsets[r + 1] = out.targets.size();
    }
    return out;
}

WeightedGraph apply_order(const WeightedGraph& g, const NodeOrder& order, WorkerPool* pool)
{
    const std::size_t n = order.size();
    if (g.node_count() != n)
        throw Error("a node order of " + std::to_string(n) + " nodes for a graph of " +
                    std::to_string(g.node_count()));
    WeightedGraph out;
    out.offsets.assign(n + 1, 0);
    for (std::size_t r = 0; r < n; ++r)
        out.offsets[r + 1] = out.offsets[r] + g.degree(order.old_of_new[r]);
    out.targets.resize(g.targets.size());
    out.weights.resize(g.weights.size());
    auto copy_rows = [&](std::size_t r0, std::size_t r1, unsigned) {
        for (std::size_t r = r0; r < r1; ++r) {
            const NodeId old = order.old_of_new[r];
            std::uint64_t o = out.offsets[r];
            for (std::uint64_t e = g.offsets[old]; e < g.offsets[old + 1]; ++e, ++o) {
                out.targets[o] = order.new_of_old[g.targets[e]];
                out.weights[o] = g.weights[e];
            }
        }
    };
    if (pool)
        pool->parallel_for(n, 4096, copy_rows);
    else
        copy_rows(0, n, 0);
    return out;
}

double mean_edge_span(const WeightedGraph& g, const NodeOrder& order)
{
    double sum = 0;
    for (NodeId v = 0; v < g.node_count(); ++v)
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
            sum += std::abs(static_cast<double>(order.new_of_old[v]) -
                            static_cast<double>(order.new_of_old[g.targets[e]]));
    return g.entry_count() ? sum / static_cast<double>(g.entry_count()) : 0.0;
}

} // namespace gsr::community
