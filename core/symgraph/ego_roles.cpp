#include "symgraph/ego_roles.hpp"

#include <algorithm>

namespace gsr::symgraph {

namespace {

constexpr std::uint64_t kRootTag = 0x5259u;         // the individualised centre
constexpr std::uint64_t kLargeEgoTag = 0x4c415247u; // ego network too large to refine

/// The induced, direction-tagged adjacency of one ego network in local indices.
struct LocalGraph {
    std::vector<std::uint32_t> offsets;
    std::vector<std::uint32_t> neighbour;
    std::vector<std::uint8_t> tag;
};

} // namespace

EgoNetworks::EgoNetworks(const StructureGraph& g, unsigned hops, std::size_t max_nodes)
    : hops_(hops)
{
    const std::size_t n = g.node_count();
    offsets_.assign(n + 1, 0);
    std::vector<std::uint32_t> dist(n, ~0u);
    std::vector<std::uint32_t> frontier;
    for (std::uint32_t v = 0; v < n; ++v) {
        const std::size_t start = members_.size();
        members_.push_back(v);
        dist[v] = 0;
        bool large = false;
        for (std::size_t head = start; head < members_.size() && !large; ++head) {
            const std::uint32_t u = members_[head];
            if (dist[u] >= hops) continue;
            for (const graph::Csr* c : {&g.in, &g.out}) {
                for (std::uint64_t e = c->offsets[u]; e < c->offsets[u + 1]; ++e) {
                    const std::uint32_t w = c->targets[e];
                    if (dist[w] != ~0u) continue;
                    dist[w] = dist[u] + 1;
                    members_.push_back(w);
                }
            }
            large = members_.size() - start > max_nodes;
        }
        for (std::size_t i = start; i < members_.size(); ++i) dist[members_[i]] = ~0u;
        if (large) members_.resize(start);
        offsets_[v + 1] = members_.size();
    }
}

RoleSignatures role_signatures(const StructureGraph& g, const EgoNetworks& ego)
{
    const std::size_t n = g.node_count();
    RoleSignatures out;
    out.signature.resize(n);
    out.ego_size.resize(n);
    out.classes.assign(n, 0);
    std::vector<std::uint64_t> wl; // only for ego networks too large to refine
    std::vector<std::int32_t> local(n, -1);
    LocalGraph lg;
    std::vector<std::uint64_t> colour, next, bag, sorted;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> classes;

    for (std::uint32_t v = 0; v < n; ++v) {
        if (ego.too_large(v)) {
            if (wl.empty()) wl = wl_hashes(g, ego.hops());
            out.signature[v] = combine(kLargeEgoTag, wl[v]);
            // The walk stopped early, so the size is unknown; the degree is a lower bound.
            out.ego_size[v] = static_cast<std::uint32_t>(g.in.degree(v) + g.out.degree(v) + 1);
            continue;
        }
        const std::span<const std::uint32_t> members = ego.nodes(v);
        const std::uint32_t m = static_cast<std::uint32_t>(members.size());
        for (std::uint32_t i = 0; i < m; ++i) local[members[i]] = static_cast<std::int32_t>(i);
        lg.offsets.assign(1, 0);
        lg.neighbour.clear();
        lg.tag.clear();
        for (std::uint32_t i = 0; i < m; ++i) {
            const std::uint32_t u = members[i];
            for (std::uint64_t e = g.in.offsets[u]; e < g.in.offsets[u + 1]; ++e)
                if (const std::int32_t w = local[g.in.targets[e]]; w >= 0) {
                    lg.neighbour.push_back(static_cast<std::uint32_t>(w));
                    lg.tag.push_back(static_cast<std::uint8_t>(edge_tag(kFromFanin, g.in, e)));
                }
            for (std::uint64_t e = g.out.offsets[u]; e < g.out.offsets[u + 1]; ++e)
                if (const std::int32_t w = local[g.out.targets[e]]; w >= 0) {
                    lg.neighbour.push_back(static_cast<std::uint32_t>(w));
                    lg.tag.push_back(static_cast<std::uint8_t>(edge_tag(kToFanout, g.out, e)));
                }
            lg.offsets.push_back(static_cast<std::uint32_t>(lg.neighbour.size()));
        }
        for (std::uint32_t i = 0; i < m; ++i) local[members[i]] = -1;

        colour.resize(m);
        for (std::uint32_t i = 0; i < m; ++i) colour[i] = g.state[members[i]];
        colour[0] = combine(kRootTag, colour[0]);
        auto distinct = [&](const std::vector<std::uint64_t>& c) {
            sorted = c;
            std::sort(sorted.begin(), sorted.end());
            return static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) -
                                            sorted.begin());
        };
        std::size_t count = distinct(colour);
        // Refinement never merges classes, so it is stable once a round splits none; at most
        // m - 1 rounds can split.
        for (std::uint32_t round = 0; round < m; ++round) {
            next.resize(m);
            for (std::uint32_t i = 0; i < m; ++i) {
                bag.clear();
                for (std::uint32_t e = lg.offsets[i]; e < lg.offsets[i + 1]; ++e)
                    bag.push_back(combine(lg.tag[e], colour[lg.neighbour[e]]));
                std::sort(bag.begin(), bag.end());
                std::uint64_t x = colour[i];
                for (std::uint64_t b : bag) x = combine(x, b);
                next[i] = x;
            }
            colour.swap(next);
            const std::size_t now = distinct(colour);
            if (now == count) break;
            count = now;
        }
        // The roles: classes of the stable colouring with their sizes.
        classes.clear();
        for (std::size_t i = 0; i < sorted.size() && i < count; ++i)
            classes.emplace_back(sorted[i], 0);
        for (std::uint64_t c : colour) {
            auto it = std::lower_bound(classes.begin(), classes.end(),
                                       std::pair<std::uint64_t, std::uint32_t>(c, 0));
            ++it->second;
        }
        std::uint64_t sig = combine(colour[0], m);
        for (const auto& [c, size] : classes) sig = combine(combine(sig, c), size);
        out.signature[v] = sig;
        out.ego_size[v] = m;
        out.classes[v] = static_cast<std::uint32_t>(count);
    }
    return out;
}

} // namespace gsr::symgraph
