// Ego-network roles separate graphs 1-WL cannot: two triangles against a hexagon, and two
// circuits built to be 1-WL equivalent.
#include "symgraph/ego_roles.hpp"

#include "symgraph_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace gsr::symgraph;
using gsr::test::cycles;

namespace {

std::vector<std::uint64_t> roles(const StructureGraph& g, unsigned hops)
{
    std::vector<std::uint64_t> r = role_signatures(g, EgoNetworks(g, hops)).signature;
    std::sort(r.begin(), r.end());
    return r;
}

// Four PIs and four AND2 gates, every PI driving two gates, every gate a PO: as a ring
// (x0 x1 -> g0, x1 x2 -> g1, ...) or as two pairs of gates sharing both inputs.
const char* kRing = "INPUT(x0)\nINPUT(x1)\nINPUT(x2)\nINPUT(x3)\n"
                    "OUTPUT(g0)\nOUTPUT(g1)\nOUTPUT(g2)\nOUTPUT(g3)\n"
                    "g0 = AND(x0, x1)\ng1 = AND(x1, x2)\ng2 = AND(x2, x3)\ng3 = AND(x3, x0)\n";
const char* kPairs = "INPUT(x0)\nINPUT(x1)\nINPUT(x2)\nINPUT(x3)\n"
                     "OUTPUT(g0)\nOUTPUT(g1)\nOUTPUT(g2)\nOUTPUT(g3)\n"
                     "g0 = AND(x0, x1)\ng1 = AND(x1, x0)\ng2 = AND(x2, x3)\ng3 = AND(x3, x2)\n";

} // namespace

TEST(EgoRoles, TwoTrianglesAndAHexagonGetDifferentSignatures)
{
    const StructureGraph a = cycles({3, 3}), b = cycles({6});
    const auto ra = roles(a, 1), rb = roles(b, 1);
    // Within each graph every node plays the same role (both graphs are vertex-transitive).
    EXPECT_EQ(ra.front(), ra.back());
    EXPECT_EQ(rb.front(), rb.back());
    EXPECT_NE(ra.front(), rb.front());
    EXPECT_NE(graph_signature(ra), graph_signature(rb));
    // 1-hop ego networks: the whole triangle, against a path of three.
    const RoleSignatures sa = role_signatures(a, EgoNetworks(a, 1));
    const RoleSignatures sb = role_signatures(b, EgoNetworks(b, 1));
    EXPECT_EQ(sa.ego_size[0], 3u);
    EXPECT_EQ(sb.ego_size[0], 3u);
    EXPECT_EQ(sa.classes[0], 2u); // the centre, and its two (symmetric, adjacent) neighbours
    EXPECT_EQ(sb.classes[0], 2u); // the centre, and the two path ends
}

TEST(EgoRoles, OneWlEquivalentCircuitsAreSeparatedAtTwoHops)
{
    const auto ring = gsr::test::circuit_graph_of("ring.bench", kRing);
    const auto pairs = gsr::test::circuit_graph_of("pairs.bench", kPairs);
    const StructureGraph a = gsr::test::with_states(ring), b = gsr::test::with_states(pairs);
    ASSERT_EQ(a.node_count(), 8u);
    ASSERT_EQ(b.node_count(), 8u);
    // Not isomorphic (one component against two), yet 1-WL sees the same colours at any depth.
    for (unsigned k : {1u, 2u, 4u, 8u})
        EXPECT_EQ(graph_signature(wl_hashes(a, k)), graph_signature(wl_hashes(b, k)));
    // One hop is not enough: every 1-hop ego network is a star of the same shape.
    EXPECT_EQ(roles(a, 1), roles(b, 1));
    // Two hops: a gate of the pairs sees its twin joined to both of its inputs (a 4-cycle).
    EXPECT_NE(graph_signature(roles(a, 2)), graph_signature(roles(b, 2)));
    std::vector<std::uint64_t> ra = roles(a, 2), rb = roles(b, 2), common;
    std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(common));
    EXPECT_TRUE(common.empty());
}

TEST(EgoRoles, AreInvariantUnderRenumbering)
{
    const auto ring = gsr::test::circuit_graph_of("ring.bench", kRing);
    const auto shuffled = gsr::test::circuit_graph_of(
        "ring2.bench", "INPUT(x2)\nINPUT(x0)\nINPUT(x3)\nINPUT(x1)\n"
                       "OUTPUT(g3)\nOUTPUT(g1)\nOUTPUT(g0)\nOUTPUT(g2)\n"
                       "g2 = AND(x2, x3)\ng0 = AND(x0, x1)\ng3 = AND(x3, x0)\ng1 = AND(x1, x2)\n");
    EXPECT_EQ(roles(gsr::test::with_states(ring), 2), roles(gsr::test::with_states(shuffled), 2));
}

TEST(EgoRoles, LargeEgoNetworksFallBackToTheirWlClass)
{
    const StructureGraph g = cycles({40});
    const EgoNetworks small(g, 2, 3); // a 2-hop ego network of a cycle has 5 nodes
    EXPECT_TRUE(small.too_large(0));
    const RoleSignatures r = role_signatures(g, small);
    EXPECT_EQ(r.classes[0], 0u);
    EXPECT_EQ(r.signature[0], r.signature[17]);
    const EgoNetworks full(g, 2);
    EXPECT_FALSE(full.too_large(0));
    EXPECT_EQ(full.nodes(0).size(), 5u);
    EXPECT_EQ(full.nodes(0)[0], 0u);
}
