// The fixed 64-bit structural hash: values from the specification, invariance under
// renumbering, and what 1-WL can and cannot tell apart.
#include "symgraph/structural_hash.hpp"

#include "symgraph_test_support.hpp"
#include "train/dataset.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

using namespace gsr::symgraph;
using gsr::test::cycles;

namespace {

/// Renumbers a graph: node v becomes perm[v].
StructureGraph renumbered(const StructureGraph& g, const std::vector<std::uint32_t>& perm)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t v = 0; v < g.node_count(); ++v)
        for (std::uint64_t e = g.out.offsets[v]; e < g.out.offsets[v + 1]; ++e)
            edges.emplace_back(perm[v], perm[g.out.targets[e]]);
    std::vector<std::uint64_t> states(g.node_count());
    for (std::uint32_t v = 0; v < g.node_count(); ++v) states[perm[v]] = g.state[v];
    return graph_from_edges(g.node_count(), edges, true, states);
}

std::vector<std::uint32_t> seeded_permutation(std::size_t n, std::uint64_t seed)
{
    std::vector<std::uint32_t> p(n);
    std::iota(p.begin(), p.end(), 0u);
    gsr::train::SeededStream s(seed);
    s.shuffle(p);
    return p;
}

} // namespace

// Expected values from an independent Python transcription of the specification in
// structural_hash.hpp (M = 2^64 - 1):
//   mix64(z): z = (z ^ z>>30) * 0xbf58476d1ce4e5b9; z = (z ^ z>>27) * 0x94d049bb133111eb;
//             return z ^ z>>31                                   (all mod 2^64)
//   combine(s, v) = mix64(s ^ mix64(v + 0x9e3779b97f4a7c15))
//   hash_text(t)  = mix64(FNV-1a-64(t))
//   h1(v) = fold(combine, h0(v), sorted([combine(1, h0(u)) for fan-ins u] +
//                                       [combine(2, h0(w)) for fan-outs w]))
//   signature = fold(combine, combine(0, n), sorted(hashes))
// on the chain PI -> NOT -> NOT with states "PI fo1", "NOT1 fo1", "NOT1 fo0 PO".
TEST(StructuralHash, MatchesTheSpecificationOnATinyChain)
{
    EXPECT_EQ(hash_text("PI fo1"), 0x385d870c7079eff3ull);
    const StructureGraph g =
        graph_from_edges(3, {{0, 1}, {1, 2}}, true,
                         {hash_text("PI fo1"), hash_text("NOT1 fo1"), hash_text("NOT1 fo0 PO")});
    const std::vector<std::uint64_t> h1 = wl_hashes(g, 1);
    EXPECT_EQ(h1, (std::vector<std::uint64_t>{0xb8fdb54630566b93ull, 0x5f0b520eb67cdbd6ull,
                                              0x5eadb57e1f32ff24ull}));
    EXPECT_EQ(graph_signature(h1), 0x92fc57e542205bb6ull);
    EXPECT_EQ(graph_signature(wl_hashes(g, 2)), 0x7f6ac78cd1210b4full);
}

TEST(StructuralHash, TheCircuitGraphOfTheChainHasTheSameStatesAndHashes)
{
    const gsr::graph::CircuitGraph c = gsr::test::circuit_graph_of(
        "chain.bench", "INPUT(a)\nOUTPUT(c)\nb = NOT(a)\nc = NOT(b)\n");
    std::unordered_map<std::uint64_t, std::string> labels;
    const std::vector<std::uint64_t> s = node_states(c, Granularity{}, &labels);
    ASSERT_EQ(s.size(), 3u);
    std::vector<std::string> texts;
    for (std::uint64_t h : s) texts.push_back(labels.at(h));
    std::sort(texts.begin(), texts.end());
    EXPECT_EQ(texts, (std::vector<std::string>{"NOT1 fo0 PO", "NOT1 fo1", "PI fo1"}));
    EXPECT_EQ(graph_signature(wl_hashes(gsr::test::with_states(c), 1)), 0x92fc57e542205bb6ull);
}

TEST(NodeStates, DegreesAreExactOnlyWhereTheStateTextSaysThem)
{
    // A flip-flop's and a PI's state write no fan-in bin ("DFF fo1"), so a rule's text may not
    // say "whose 1 fan-in is": the degrees came from one example node.
    const gsr::graph::CircuitGraph c = gsr::test::circuit_graph_of(
        "ff.bench", "INPUT(a)\nINPUT(b)\nINPUT(e)\nOUTPUT(q)\nOUTPUT(w)\nq = DFF(d)\n"
                    "d = AND(a, q)\nw = OR(a, b, e)\n");
    std::unordered_map<std::uint64_t, std::string> labels;
    const Granularity fine{}, coarse{false, 0, 1};
    const std::vector<std::uint64_t> s = node_states(c, fine, &labels);
    std::map<std::string, std::pair<int, int>> fine_degrees, coarse_degrees;
    for (std::uint32_t v = 0; v < c.node_count(); ++v) {
        fine_degrees[labels.at(s[v])] = state_degrees(c, v, fine);
        coarse_degrees[labels.at(s[v])] = state_degrees(c, v, coarse);
    }
    ASSERT_EQ(fine_degrees.count("DFF fo1 PO"), 1u) << labels.size();
    EXPECT_EQ(fine_degrees.at("DFF fo1 PO"), std::make_pair(-1, 1));
    EXPECT_EQ(fine_degrees.at("PI fo2"), std::make_pair(-1, 2));
    EXPECT_EQ(fine_degrees.at("AND2 fo1"), std::make_pair(2, 1));
    EXPECT_EQ(fine_degrees.at("OR3 fo0 PO"), std::make_pair(3, 0));
    // Coarse bins: "OR3+" and "fo2+" leave the degrees open.
    EXPECT_EQ(coarse_degrees.at("OR3 fo0 PO"), std::make_pair(-1, 0));
    EXPECT_EQ(coarse_degrees.at("PI fo2"), std::make_pair(-1, -1));
}

TEST(StructuralHash, IsInvariantUnderRenumberingOfARealCircuit)
{
    const auto c = gsr::graph::build_graph(
        gsr::netlist::load_netlist(gsr::test::netlist_path("iscas85/bench/c432.bench")));
    const StructureGraph g = gsr::test::with_states(c);
    const std::vector<std::uint32_t> perm = seeded_permutation(g.node_count(), 99);
    const StructureGraph p = renumbered(g, perm);
    for (unsigned k : {1u, 2u}) {
        const auto a = wl_hashes(g, k), b = wl_hashes(p, k);
        for (std::uint32_t v = 0; v < g.node_count(); ++v) ASSERT_EQ(a[v], b[perm[v]]) << v;
        EXPECT_EQ(graph_signature(a), graph_signature(b));
    }
    // The hash does see structure: one extra edge changes the signature.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t v = 0; v < g.node_count(); ++v)
        for (std::uint64_t e = g.out.offsets[v]; e < g.out.offsets[v + 1]; ++e)
            edges.emplace_back(v, g.out.targets[e]);
    edges.emplace_back(0, static_cast<std::uint32_t>(g.node_count() - 1));
    const StructureGraph q = graph_from_edges(g.node_count(), edges, true, g.state);
    EXPECT_NE(graph_signature(wl_hashes(q, 2)), graph_signature(wl_hashes(g, 2)));
}

TEST(StructuralHash, AnInvertedFaninIsToldApartFromAPlainOne)
{
    // AIGER: g1 = a & b and g2 = a & !b have equal states and equal direction-only neighbour
    // bags; the inversion is an edge attribute, hashed with the fan-in tag 3 (fan-out 4).
    const gsr::graph::CircuitGraph c = gsr::graph::build_graph(gsr::netlist::load_netlist(
        gsr::SourceText::from_string("and2.aag", "aag 4 2 0 2 2\n2\n4\n6\n8\n6 2 4\n8 2 5\n"
                                                 "i0 a\ni1 b\no0 g1\no1 g2\n")));
    ASSERT_EQ(c.node_count(), 4u);
    std::vector<std::uint32_t> ands;
    for (std::uint32_t v = 0; v < 4; ++v)
        if (c.fanin.degree(v) == 2) ands.push_back(v);
    ASSERT_EQ(ands.size(), 2u);
    const auto inverted_at = [&](std::uint32_t v) {
        return c.fanin.inverted[c.fanin.offsets[v]] + c.fanin.inverted[c.fanin.offsets[v] + 1];
    };
    const std::uint32_t plain = inverted_at(ands[0]) ? ands[1] : ands[0];
    const std::uint32_t inv = plain == ands[0] ? ands[1] : ands[0];
    ASSERT_EQ(inverted_at(plain), 0);
    ASSERT_EQ(inverted_at(inv), 1);

    const StructureGraph g = gsr::test::with_states(c);
    ASSERT_EQ(g.state[plain], g.state[inv]);
    const std::vector<std::uint64_t> h = wl_hashes(g, 1);
    EXPECT_NE(h[plain], h[inv]);
    // The specification: the inverted fan-in's bag entry is combine(3, h0(u)).
    std::vector<std::uint64_t> bag;
    for (std::uint64_t e = c.fanin.offsets[inv]; e < c.fanin.offsets[inv + 1]; ++e)
        bag.push_back(combine(c.fanin.inverted[e] ? 3 : 1, g.state[c.fanin.targets[e]]));
    std::sort(bag.begin(), bag.end());
    std::uint64_t want = g.state[inv];
    for (std::uint64_t b : bag) want = combine(want, b);
    EXPECT_EQ(h[inv], want);
    // The inputs: a drives both plainly, b one plainly and one inverted.
    std::uint32_t a = 0, b = 0;
    for (std::uint32_t v = 0; v < 4; ++v)
        if (c.fanout.degree(v) == 2)
            (c.fanout.inverted[c.fanout.offsets[v]] || c.fanout.inverted[c.fanout.offsets[v] + 1]
                 ? b
                 : a) = v;
    EXPECT_NE(h[a], h[b]);

    // Without polarity (rules saved as version 1) the two are alike again.
    StructureGraph blind = structure_of(c, false);
    blind.state = g.state;
    const std::vector<std::uint64_t> hb = wl_hashes(blind, 1);
    EXPECT_EQ(hb[plain], hb[inv]);
    EXPECT_EQ(hb[a], hb[b]);
}

TEST(StructuralHash, OneWlCannotTellTwoTrianglesFromAHexagon)
{
    const StructureGraph two_triangles = cycles({3, 3}), hexagon = cycles({6});
    for (unsigned k : {1u, 2u, 6u})
        EXPECT_EQ(graph_signature(wl_hashes(two_triangles, k)),
                  graph_signature(wl_hashes(hexagon, k)));
}

TEST(StructuralHash, EdgesOutOfRangeAreRefused)
{
    EXPECT_THROW(graph_from_edges(2, {{0, 2}}, true, {1, 2}), gsr::Error);
    EXPECT_THROW(graph_from_edges(2, {{0, 1}}, true, {1}), gsr::Error);
}
