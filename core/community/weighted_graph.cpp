#include "community/weighted_graph.hpp"

#include "community/csr_assembly.hpp"
#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gsr::community {

double WeightedGraph::strength(NodeId v) const
{
    double k = 0;
    for (std::uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) k += weights[e];
    return k;
}

double WeightedGraph::total_weight() const
{
    double two_m = 0;
    for (double w : weights) two_m += w;
    return two_m / 2;
}

WeightedGraph project_undirected(const graph::CircuitGraph& g, WorkerPool* pool)
{
    const std::size_t n = g.node_count();
    std::vector<std::vector<NodeId>> scratch(pool ? pool->size() : 1);
    return detail::assemble_rows(n, pool, [&](NodeId v, detail::RowSink& sink, unsigned worker) {
        std::vector<NodeId>& ends = scratch[worker];
        ends.clear();
        for (std::uint64_t e = g.fanout.offsets[v]; e < g.fanout.offsets[v + 1]; ++e)
            if (g.fanout.targets[e] != v) ends.push_back(g.fanout.targets[e]);
        for (std::uint64_t e = g.fanin.offsets[v]; e < g.fanin.offsets[v + 1]; ++e)
            if (g.fanin.targets[e] != v) ends.push_back(g.fanin.targets[e]);
        std::sort(ends.begin(), ends.end());
        for (std::size_t i = 0; i < ends.size();) {
            std::size_t j = i + 1;
            while (j < ends.size() && ends[j] == ends[i]) ++j;
            sink.add(ends[i], static_cast<double>(j - i));
            i = j;
        }
    });
}

WeightedGraph weighted_graph_from_edges(std::size_t node_count,
                                        std::span<const WeightedEdge> edges)
{
    std::vector<std::uint64_t> counts(node_count + 1, 0);
    for (const WeightedEdge& e : edges) {
        if (e.u >= node_count || e.v >= node_count)
            throw Error("edge (" + std::to_string(e.u) + ", " + std::to_string(e.v) +
                        ") names a node beyond the graph's " + std::to_string(node_count));
        if (!(e.weight > 0) || !std::isfinite(e.weight))
            throw Error("edge weights must be finite and positive, got " +
                        std::to_string(e.weight));
        if (e.u == e.v) continue;
        ++counts[e.u + 1];
        ++counts[e.v + 1];
    }
    for (std::size_t i = 0; i < node_count; ++i) counts[i + 1] += counts[i];
    std::vector<std::pair<NodeId, double>> ends(counts[node_count]);
    std::vector<std::uint64_t> fill(counts.begin(), counts.end() - 1);
    for (const WeightedEdge& e : edges) {
        if (e.u == e.v) continue;
        ends[fill[e.u]++] = {e.v, e.weight};
        ends[fill[e.v]++] = {e.u, e.weight};
    }
    WeightedGraph g;
    g.offsets.assign(node_count + 1, 0);
    for (std::size_t v = 0; v < node_count; ++v) {
        auto b = ends.begin() + static_cast<std::ptrdiff_t>(counts[v]);
        auto e = ends.begin() + static_cast<std::ptrdiff_t>(counts[v + 1]);
        std::sort(b, e, [](const auto& x, const auto& y) { return x.first < y.first; });
        for (auto it = b; it != e;) {
            double w = 0;
            const NodeId t = it->first;
            for (; it != e && it->first == t; ++it) w += it->second;
            g.targets.push_back(t);
            g.weights.push_back(w);
        }
        g.offsets[v + 1] = g.targets.size();
    }
    return g;
}

std::vector<WeightedEdge> edge_list(const WeightedGraph& g)
{
    std::vector<WeightedEdge> edges;
    for (NodeId v = 0; v < g.node_count(); ++v)
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const NodeId u = g.targets[e];
            if (u > v)
                edges.push_back({v, u, g.weights[e]});
            else if (u == v)
                edges.push_back({v, v, g.weights[e] / 2});
        }
    return edges;
}

double modularity(const WeightedGraph& g, std::span<const std::uint32_t> membership,
                  double resolution)
{
    const std::size_t n = g.node_count();
    if (membership.size() != n)
        throw Error("a membership of " + std::to_string(membership.size()) +
                    " nodes for a graph of " + std::to_string(n));
    if (!(resolution >= 0) || !std::isfinite(resolution))
        throw Error("the resolution must be finite and not negative, got " +
                    std::to_string(resolution));
    std::uint32_t communities = 0;
    for (std::uint32_t c : membership) communities = std::max(communities, c + 1);
    std::vector<double> inside(communities, 0.0), total(communities, 0.0);
    double two_m = 0;
    for (NodeId v = 0; v < n; ++v) {
        const std::uint32_t c = membership[v];
        double k = 0, in = 0;
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            k += g.weights[e];
            if (membership[g.targets[e]] == c) in += g.weights[e];
        }
        inside[c] += in;
        total[c] += k;
        two_m += k;
    }
    if (!(two_m > 0)) throw Error("modularity is undefined for a graph without edges");
    double q = 0;
    for (std::uint32_t c = 0; c < communities; ++c) {
        const double t = total[c] / two_m;
        q += inside[c] / two_m - resolution * t * t;
    }
    return q;
}

} // namespace gsr::community
