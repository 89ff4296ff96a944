#include "symgraph/structural_hash.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <string>

namespace gsr::symgraph {

namespace {

graph::Csr csr_of(std::size_t nodes,
                  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges, bool reverse)
{
    graph::Csr c;
    c.offsets.assign(nodes + 1, 0);
    for (const auto& [u, v] : edges) ++c.offsets[(reverse ? v : u) + 1];
    for (std::size_t i = 0; i < nodes; ++i) c.offsets[i + 1] += c.offsets[i];
    c.targets.resize(edges.size());
    c.inverted.assign(edges.size(), 0);
    std::vector<std::uint64_t> fill(c.offsets.begin(), c.offsets.end() - 1);
    for (const auto& [u, v] : edges) c.targets[fill[reverse ? v : u]++] = reverse ? u : v;
    return c;
}

} // namespace

StructureGraph graph_from_edges(std::size_t nodes,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
                                bool directed, std::vector<std::uint64_t> states)
{
    if (states.size() != nodes)
        throw Error("symgraph: " + std::to_string(states.size()) + " states given for " +
                    std::to_string(nodes) + " nodes");
    std::vector<std::pair<std::uint32_t, std::uint32_t>> all;
    all.reserve(edges.size() * (directed ? 1 : 2));
    for (const auto& [u, v] : edges) {
        if (u >= nodes || v >= nodes)
            throw Error("symgraph: edge " + std::to_string(u) + "-" + std::to_string(v) +
                        " names a node beyond the " + std::to_string(nodes) + " nodes");
        all.emplace_back(u, v);
        if (!directed) all.emplace_back(v, u);
    }
    StructureGraph g;
    g.out = csr_of(nodes, all, false);
    g.in = csr_of(nodes, all, true);
    g.state = std::move(states);
    return g;
}

StructureGraph structure_of(const graph::CircuitGraph& g, bool polarity)
{
    StructureGraph s;
    s.out = g.fanout;
    s.in = g.fanin;
    if (!polarity) {
        s.out.inverted.assign(s.out.targets.size(), 0);
        s.in.inverted.assign(s.in.targets.size(), 0);
    }
    s.state.assign(g.node_count(), 0);
    return s;
}

std::vector<std::uint64_t> wl_hashes(const StructureGraph& g, unsigned rounds)
{
    std::vector<std::uint64_t> h = g.state, next(h.size());
    std::vector<std::uint64_t> bag;
    for (unsigned r = 0; r < rounds; ++r) {
        for (std::size_t v = 0; v < h.size(); ++v) {
            bag.clear();
            for (std::uint64_t e = g.in.offsets[v]; e < g.in.offsets[v + 1]; ++e)
                bag.push_back(combine(edge_tag(kFromFanin, g.in, e), h[g.in.targets[e]]));
            for (std::uint64_t e = g.out.offsets[v]; e < g.out.offsets[v + 1]; ++e)
                bag.push_back(combine(edge_tag(kToFanout, g.out, e), h[g.out.targets[e]]));
            std::sort(bag.begin(), bag.end());
            std::uint64_t x = h[v];
            for (std::uint64_t b : bag) x = combine(x, b);
            next[v] = x;
        }
        h.swap(next);
    }
    return h;
}

std::uint64_t graph_signature(std::vector<std::uint64_t> node_hashes)
{
    std::sort(node_hashes.begin(), node_hashes.end());
    std::uint64_t x = combine(0, node_hashes.size());
    for (std::uint64_t h : node_hashes) x = combine(x, h);
    return x;
}

} // namespace gsr::symgraph
