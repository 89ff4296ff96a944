#include "community/community_detection.hpp"
#include "circuit_fixtures.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#if __has_include(<igraph.h>)
#include "igraph_reference.hpp"
#define GSR_HAVE_IGRAPH 1
#endif

using namespace gsr;
using namespace gsr::community;

namespace {

CommunityResult detect(const WeightedGraph& g, CommunityOptions o = {})
{
    auto r = detect_communities(g, o);
    if (!r) throw std::runtime_error("cancelled");
    return std::move(*r);
}

/// Each community of `coarse` is a union of communities of `fine`.
bool refines(const std::vector<std::uint32_t>& fine, const std::vector<std::uint32_t>& coarse)
{
    std::vector<std::int64_t> parent(fine.size(), -1);
    for (std::size_t v = 0; v < fine.size(); ++v) {
        if (parent[fine[v]] == -1)
            parent[fine[v]] = coarse[v];
        else if (parent[fine[v]] != coarse[v])
            return false;
    }
    return true;
}

/// a and b side by side, b's nodes numbered after a's.
WeightedGraph disjoint_union(const WeightedGraph& a, const WeightedGraph& b)
{
    WeightedGraph u = a;
    const NodeId shift = static_cast<NodeId>(a.node_count());
    for (std::size_t v = 0; v < b.node_count(); ++v)
        u.offsets.push_back(a.entry_count() + b.offsets[v + 1]);
    for (NodeId t : b.targets) u.targets.push_back(t + shift);
    u.weights.insert(u.weights.end(), b.weights.begin(), b.weights.end());
    return u;
}

const char* const kCircuits[] = {"iscas85/bench/c6288.bench", "iscas89/bench/s38417.bench",
                                 "itc99/b14.bench", "epfl/arithmetic/multiplier.blif"};

} // namespace

TEST(CommunityDetection, FindsTwoCliquesJoinedByAnEdge)
{
    const WeightedGraph g =
        test::graph_of(8, "0-1 0-2 0-3 1-2 1-3 2-3 4-5 4-6 4-7 5-6 5-7 6-7 3-4");
    for (Method method : {Method::Leiden, Method::Louvain}) {
        CommunityOptions o;
        o.method = method;
        const CommunityResult r = detect(g, o);
        EXPECT_EQ(r.community_count, 2u);
        EXPECT_EQ(r.membership, (std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
        EXPECT_EQ(r.largest(), 4u);
        EXPECT_EQ(r.smallest(), 4u);
        EXPECT_NEAR(r.modularity, modularity(g, r.membership), 1e-12);
    }
}

TEST(CommunityDetection, RejectsBadInput)
{
    const WeightedGraph g = test::graph_of(4, "0-1 2-3");
    CommunityOptions o;
    for (double gamma : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
        o.resolution = gamma;
        EXPECT_THROW(detect_communities(g, o), Error) << gamma;
    }
    o = {};
    EXPECT_THROW(detect_communities(WeightedGraph{}, o), Error);
    EXPECT_THROW(detect_communities(test::graph_of(5, ""), o), Error); // nodes, no edges
    WeightedGraph negative = g;
    negative.weights[0] = -1;
    EXPECT_THROW(detect_communities(negative, o), Error);
    o.iterations = 0;
    EXPECT_THROW(detect_communities(g, o), Error);
    try {
        detect_communities(test::graph_of(5, ""), {});
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("edges"), std::string::npos) << e.what();
    }
}

TEST(CommunityDetection, IsolatedNodesStayAlone)
{
    const WeightedGraph g = test::graph_of(5, "0-1 1-2 2-0");
    const CommunityResult r = detect(g);
    EXPECT_EQ(r.community_count, 3u);
    EXPECT_EQ(r.sizes, (std::vector<std::uint32_t>{3, 1, 1}));
}

TEST(CommunityDetection, LeidenCommunitiesAreConnected)
{
    for (const char* rel : kCircuits) {
        const WeightedGraph& g = test::circuit_graph(rel);
        for (double gamma : {0.5, 1.0, 4.0}) {
            CommunityOptions o;
            o.resolution = gamma;
            const CommunityResult r = detect(g, o);
            EXPECT_EQ(nodes_in_disconnected_communities(g, r.membership), 0u)
                << rel << " gamma " << gamma;
            for (const CommunityLevel& level : r.levels)
                EXPECT_EQ(nodes_in_disconnected_communities(g, level.membership), 0u) << rel;
        }
    }
}

TEST(CommunityDetection, SameSeedSamePartition)
{
    const WeightedGraph& g = test::circuit_graph("iscas89/bench/s38417.bench");
    CommunityOptions o;
    o.seed = 42;
    const CommunityResult a = detect(g, o), b = detect(g, o);
    EXPECT_EQ(a.membership, b.membership);
    EXPECT_EQ(a.modularity, b.modularity);
    o.seed = 43;
    const CommunityResult c = detect(g, o);
    EXPECT_NE(a.membership, c.membership);
}

namespace {

/// Runs `o` at 1, 2 and 3 threads; expects the same partition, levels and modularity. Returns
/// the 2-thread result.
CommunityResult expect_thread_count_invariant(const WeightedGraph& g, CommunityOptions o,
                                              const std::string& what)
{
    o.threads = 1;
    const CommunityResult one = detect(g, o);
    o.threads = 2;
    const CommunityResult two = detect(g, o);
    o.threads = 3;
    const CommunityResult three = detect(g, o);
    EXPECT_EQ(one.membership, two.membership) << what;
    EXPECT_EQ(one.membership, three.membership) << what;
    EXPECT_EQ(one.modularity, two.modularity) << what;
    EXPECT_EQ(one.levels.size(), two.levels.size()) << what;
    for (std::size_t i = 0; i < std::min(one.levels.size(), two.levels.size()); ++i)
        EXPECT_EQ(one.levels[i].membership, two.levels[i].membership) << what;
    return two;
}

} // namespace

TEST(CommunityDetection, ThreadCountDoesNotChangeThePartition)
{
    for (const char* rel : kCircuits)
        for (Method method : {Method::Leiden, Method::Louvain}) {
            CommunityOptions o;
            o.method = method;
            o.seed = 5;
            expect_thread_count_invariant(test::circuit_graph(rel), o, rel);
        }
}

TEST(CommunityDetection, ThreadCountDoesNotChangeTheBatchedPartition)
{
    // Leiden levels of more than 2^18 nodes decide their moves in batches of parallel chunks
    // (every public circuit moves one node at a time, in two parts): three circuits side by
    // side are one.
    const WeightedGraph g = disjoint_union(
        disjoint_union(test::circuit_graph("epfl/arithmetic/hyp_from_aig.blif"),
                       test::circuit_graph("epfl/arithmetic/multiplier.blif")),
        test::circuit_graph("iscas89/bench/s38417.bench"));
    ASSERT_GT(g.node_count(), 262144u);
    CommunityOptions o;
    o.seed = 5;
    const CommunityResult two =
        expect_thread_count_invariant(g, o, "hyp + multiplier + s38417");
    EXPECT_EQ(nodes_in_disconnected_communities(g, two.membership), 0u);
    EXPECT_NEAR(two.modularity, modularity(g, two.membership), 1e-9);
}

TEST(CommunityDetection, PartZeroHasCommunityIdsToLeaveForOnEveryLevel)
{
    // A weighted chain of 150,000 nodes with short chords, at resolution 20: on the levels
    // after the first the community ids are dense, and the two-part local moving gave part 0
    // (the lower ids) no empty id, so a node leaving for a community of its own popped an
    // empty list (a heap overflow under ASan, silent in a release build). Part 0 now borrows
    // part 1's spare ids. The result must stay a sound partition at any thread count.
    constexpr std::size_t n = 150000;
    std::vector<WeightedEdge> edges;
    std::uint64_t x = 1;
    const auto next = [&x] { // SplitMix64
        std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    for (std::size_t v = 0; v + 1 < n; ++v)
        edges.push_back({NodeId(v), NodeId(v + 1), next() % 4 == 0 ? 5.0 : 1.0});
    for (std::size_t i = 0; i < n / 10; ++i) {
        const std::size_t a = next() % n;
        edges.push_back({NodeId(a), NodeId(std::min(n - 1, a + 2 + next() % 28)), 1.0});
    }
    const WeightedGraph g = weighted_graph_from_edges(n, edges);
    CommunityOptions o;
    o.resolution = 20.0;
    o.seed = 1;
    o.iterations = 2;
    const CommunityResult r = expect_thread_count_invariant(g, o, "chain, resolution 20");
    ASSERT_GE(r.levels.size(), 3u);
    EXPECT_EQ(nodes_in_disconnected_communities(g, r.membership), 0u);
    EXPECT_NEAR(r.objective, modularity(g, r.membership, o.resolution), 1e-9);
    // What is reported as modularity is Newman-Girvan's, at resolution 1, level by level too.
    EXPECT_NEAR(r.modularity, modularity(g, r.membership, 1.0), 1e-12);
    for (const CommunityLevel& l : r.levels)
        EXPECT_NEAR(l.modularity, modularity(g, l.membership, 1.0), 1e-12);
    EXPECT_LT(*std::max_element(r.membership.begin(), r.membership.end()), r.community_count);
}

TEST(CommunityDetection, LevelsNestFromFineToTheFinalPartition)
{
    for (Method method : {Method::Leiden, Method::Louvain}) {
        const WeightedGraph& g = test::circuit_graph("itc99/b14.bench");
        CommunityOptions o;
        o.method = method;
        const CommunityResult r = detect(g, o);
        ASSERT_GE(r.levels.size(), 2u);
        EXPECT_EQ(r.levels.back().membership, r.membership);
        EXPECT_EQ(r.levels.back().modularity, r.modularity);
        for (std::size_t i = 0; i + 1 < r.levels.size(); ++i) {
            EXPECT_GT(r.levels[i].community_count, r.levels[i + 1].community_count);
            EXPECT_TRUE(refines(r.levels[i].membership, r.levels[i + 1].membership))
                << "level " << i;
            EXPECT_NEAR(r.levels[i].modularity, modularity(g, r.levels[i].membership), 1e-9);
        }
    }
}

TEST(CommunityDetection, AFixedPassCountThatStopsEarlyKeepsTheHierarchy)
{
    // With --iterations 8 the partition was stable after a pass that kept no levels: the
    // hierarchy was only the final partition, where "until stable" gave every level.
    const WeightedGraph& g = test::circuit_graph("iscas85/bench/c432.bench");
    CommunityOptions o;
    o.iterations = -1;
    const CommunityResult stable = detect(g, o);
    ASSERT_LT(stable.iterations, 8) << "c432 must settle within 8 passes for this test";
    ASSERT_GE(stable.levels.size(), 2u);
    o.iterations = 8;
    const CommunityResult fixed = detect(g, o);
    EXPECT_EQ(fixed.iterations, stable.iterations);
    EXPECT_EQ(fixed.membership, stable.membership);
    ASSERT_EQ(fixed.levels.size(), stable.levels.size());
    for (std::size_t i = 0; i < fixed.levels.size(); ++i)
        EXPECT_EQ(fixed.levels[i].membership, stable.levels[i].membership) << "level " << i;
}

TEST(CommunityDetection, ReportedModularityIsThePartitions)
{
    for (const char* rel : kCircuits) {
        const WeightedGraph& g = test::circuit_graph(rel);
        const CommunityResult r = detect(g);
        EXPECT_NEAR(r.modularity, modularity(g, r.membership), 1e-9) << rel;
        std::uint32_t total = 0;
        for (std::uint32_t s : r.sizes) total += s;
        EXPECT_EQ(total, g.node_count());
        EXPECT_TRUE(std::is_sorted(r.sizes.rbegin(), r.sizes.rend()));
    }
}

TEST(CommunityDetection, HigherResolutionGivesMoreCommunities)
{
    const WeightedGraph& g = test::circuit_graph("itc99/b14.bench");
    CommunityOptions o;
    o.resolution = 0.25;
    const std::uint32_t coarse = detect(g, o).community_count;
    o.resolution = 4;
    const std::uint32_t fine = detect(g, o).community_count;
    EXPECT_LT(coarse, fine);
}

TEST(CommunityDetection, MorePassesDoNotLowerModularity)
{
    const WeightedGraph& g = test::circuit_graph("epfl/arithmetic/multiplier.blif");
    CommunityOptions o;
    o.iterations = 1;
    const double one = detect(g, o).modularity;
    o.iterations = -1;
    const CommunityResult stable = detect(g, o);
    EXPECT_GE(stable.modularity, one - 1e-3);
    EXPECT_GE(stable.iterations, 2);
}

TEST(CommunityDetection, KeptMemoryDoesNotChangeTheResult)
{
    // A thread keeps its last run's memory for its next run (see detect_communities). A run
    // after runs on larger and smaller graphs, at another thread count and after a cancelled
    // run must give what a run on a fresh thread gives.
    const WeightedGraph& b14 = test::circuit_graph("itc99/b14.bench");
    const WeightedGraph& multiplier = test::circuit_graph("epfl/arithmetic/multiplier.blif");
    const WeightedGraph& c6288 = test::circuit_graph("iscas85/bench/c6288.bench");
    CommunityOptions o;
    o.seed = 9;
    o.threads = 2;
    CommunityResult fresh, reused;
    std::thread([&] { fresh = detect(b14, o); }).join();
    std::thread([&] {
        CommunityOptions other = o;
        std::atomic<bool> cancel{true};
        other.cancel = &cancel; // a cancelled run drops its memory: it comes first
        EXPECT_FALSE(detect_communities(multiplier, other).has_value());
        other.cancel = nullptr;
        other.threads = 1;
        detect(multiplier, other);
        detect(c6288, o);
        detect(b14, other);
        reused = detect(b14, o);
    }).join();
    EXPECT_EQ(fresh.membership, reused.membership);
    EXPECT_EQ(fresh.modularity, reused.modularity);
    ASSERT_EQ(fresh.levels.size(), reused.levels.size());
    for (std::size_t i = 0; i < fresh.levels.size(); ++i)
        EXPECT_EQ(fresh.levels[i].membership, reused.levels[i].membership) << "level " << i;
    release_detection_memory();
    EXPECT_EQ(detect(b14, o).membership, fresh.membership);
}

TEST(CommunityDetection, CancelLeavesNoResult)
{
    const WeightedGraph& g = test::circuit_graph("epfl/arithmetic/multiplier.blif");
    std::atomic<bool> cancel{true};
    CommunityOptions o;
    o.cancel = &cancel;
    EXPECT_FALSE(detect_communities(g, o).has_value());

    // Cancelled while running: until-stable passes take far longer than the delay.
    cancel = false;
    o.iterations = -1;
    o.threads = 2;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        cancel = true;
    });
    const auto r = detect_communities(g, o);
    canceller.join();
    EXPECT_FALSE(r.has_value());
}

#ifdef GSR_HAVE_IGRAPH
TEST(CommunityDetection, LeidenModularityMatchesIgraph)
{
    // igraph's Leiden with the modularity objective, with its default of 2 iterations and with
    // "until stable" (-1); ours with its defaults. Same seed on both sides (different generators).
    for (const char* rel : kCircuits) {
        const WeightedGraph& g = test::circuit_graph(rel);
        const test::IgraphGraph ig(g);
        const CommunityResult ours = detect(g);
        for (int n_iterations : {2, -1}) {
            const auto theirs = ig.leiden(1.0, 1, n_iterations);
            const double q = ig.modularity(theirs.membership, 1.0);
            EXPECT_GE(ours.modularity, q - 0.005)
                << rel << " igraph n_iterations " << n_iterations;
            RecordProperty(std::string(rel) + " igraph n_iterations " +
                               std::to_string(n_iterations),
                           std::to_string(q));
        }
        RecordProperty(std::string(rel) + " ours", std::to_string(ours.modularity));
    }
}
#else
TEST(CommunityDetection, LeidenModularityMatchesIgraph)
{
    GTEST_SKIP() << "igraph's headers were not found when this was built (libigraph-dev): the "
                    "reference comparison did not run";
}
#endif
