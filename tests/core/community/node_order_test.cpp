#include "community/node_order.hpp"
#include "circuit_fixtures.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace gsr;
using namespace gsr::community;

namespace {

void expect_permutation(const NodeOrder& o, std::size_t n)
{
    ASSERT_EQ(o.size(), n);
    ASSERT_EQ(o.old_of_new.size(), n);
    for (std::size_t v = 0; v < n; ++v) {
        ASSERT_LT(o.new_of_old[v], n);
        EXPECT_EQ(o.old_of_new[o.new_of_old[v]], v);
    }
}

/// Each community occupies one run of consecutive positions.
bool contiguous(const std::vector<std::uint32_t>& membership, const NodeOrder& o)
{
    std::set<std::uint32_t> closed;
    std::uint32_t current = membership[o.old_of_new[0]];
    for (NodeId pos = 1; pos < o.size(); ++pos) {
        const std::uint32_t c = membership[o.old_of_new[pos]];
        if (c == current) continue;
        if (!closed.insert(current).second || closed.count(c)) return false;
        current = c;
    }
    return true;
}

std::uint64_t bandwidth(const WeightedGraph& g, const NodeOrder& o)
{
    std::uint64_t b = 0;
    for (NodeId v = 0; v < g.node_count(); ++v)
        for (std::uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
            const auto a = o.new_of_old[v], c = o.new_of_old[g.targets[e]];
            b = std::max<std::uint64_t>(b, a > c ? a - c : c - a);
        }
    return b;
}

} // namespace

TEST(NodeOrder, OriginalIsTheIdentity)
{
    const NodeOrder o = original_order(5);
    expect_permutation(o, 5);
    for (NodeId v = 0; v < 5; ++v) EXPECT_EQ(o.new_of_old[v], v);
}

TEST(NodeOrder, FromSequenceChecksItIsAPermutation)
{
    expect_permutation(order_from_sequence({2, 0, 1}), 3);
    EXPECT_THROW(order_from_sequence({0, 0, 1}), Error);
    EXPECT_THROW(order_from_sequence({0, 3, 1}), Error);
}

TEST(NodeOrder, CommunityOrderIsContiguousAndStable)
{
    const std::vector<std::uint32_t> membership{1, 0, 1, 2, 0, 1};
    const NodeOrder o = community_order(membership);
    expect_permutation(o, 6);
    EXPECT_EQ(o.old_of_new, (std::vector<NodeId>{1, 4, 0, 2, 5, 3}));
    EXPECT_TRUE(contiguous(membership, o));
}

TEST(NodeOrder, HierarchicalOrderIsContiguousAtEveryLevel)
{
    const WeightedGraph& g = test::circuit_graph("itc99/b14.bench");
    const auto r = detect_communities(g, {});
    ASSERT_TRUE(r);
    const NodeOrder o = community_order(*r);
    expect_permutation(o, g.node_count());
    ASSERT_GE(r->levels.size(), 2u);
    for (const CommunityLevel& level : r->levels) EXPECT_TRUE(contiguous(level.membership, o));
}

TEST(NodeOrder, RcmNarrowsAShuffledPath)
{
    // A path numbered 0, 50, 1, 51, ...: neighbours far apart. RCM finds it again.
    std::vector<WeightedEdge> edges;
    const std::size_t n = 100;
    auto id = [&](std::size_t i) { return static_cast<NodeId>(i % 2 ? n / 2 + i / 2 : i / 2); };
    for (std::size_t i = 0; i + 1 < n; ++i) edges.push_back({id(i), id(i + 1), 1.0});
    const WeightedGraph g = weighted_graph_from_edges(n, edges);
    const NodeOrder rcm = rcm_order(g);
    expect_permutation(rcm, n);
    EXPECT_GE(bandwidth(g, original_order(n)), 49u);
    EXPECT_EQ(bandwidth(g, rcm), 1u);
}

TEST(NodeOrder, RcmCoversEveryComponent)
{
    const WeightedGraph g = test::graph_of(7, "0-1 1-2 3-4 5-6");
    expect_permutation(rcm_order(g), 7);
    const WeightedGraph& c = test::circuit_graph("iscas85/bench/c6288.bench");
    const NodeOrder o = rcm_order(c);
    expect_permutation(o, c.node_count());
    EXPECT_LT(bandwidth(c, o), bandwidth(c, original_order(c.node_count())));
}

TEST(NodeOrder, ApplyingAnOrderKeepsTheEdges)
{
    const auto cg =
        graph::build_graph(netlist::load_netlist(test::netlist_path("iscas85/bench/c6288.bench")));
    const WeightedGraph& g = test::circuit_graph("iscas85/bench/c6288.bench");
    const NodeOrder o = rcm_order(g);
    const graph::Csr fanout = apply_order(cg.fanout, o);
    ASSERT_EQ(fanout.targets.size(), cg.fanout.targets.size());
    for (NodeId v = 0; v < cg.node_count(); ++v) {
        const NodeId nv = o.new_of_old[v];
        ASSERT_EQ(fanout.degree(nv), cg.fanout.degree(v));
        for (std::uint64_t k = 0; k < cg.fanout.degree(v); ++k)
            EXPECT_EQ(fanout.targets[fanout.offsets[nv] + k],
                      o.new_of_old[cg.fanout.targets[cg.fanout.offsets[v] + k]]);
    }
    const WeightedGraph pg = apply_order(g, o);
    EXPECT_EQ(pg.total_weight(), g.total_weight());
    const auto r = detect_communities(g, {});
    ASSERT_TRUE(r);
    const auto moved = apply_order(std::span<const std::uint32_t>(r->membership), o);
    EXPECT_NEAR(modularity(pg, moved), r->modularity, 1e-12);
    EXPECT_THROW(apply_order(cg.fanout, original_order(3)), Error);
}

TEST(NodeOrder, ApplyingKeepsInvertedFlagsWithTheirEdges)
{
    graph::Csr csr;
    csr.offsets = {0, 2, 3, 3};
    csr.targets = {1, 2, 2};
    csr.inverted = {1, 0, 1};
    const graph::Csr out = apply_order(csr, order_from_sequence({2, 1, 0}));
    EXPECT_EQ(out.offsets, (std::vector<std::uint64_t>{0, 0, 1, 3}));
    EXPECT_EQ(out.targets, (std::vector<NodeId>{0, 1, 0}));
    EXPECT_EQ(out.inverted, (std::vector<std::uint8_t>{1, 1, 0}));
}
