// COMM-RAND root batching: alpha = 0 is uniform random batching (the same draws, and batch
// statistics that match the hypergeometric law), alpha = 1 gives community-contiguous
// batches, every training node is in one batch per epoch, and one seed gives one epoch. Also
// the community-contiguous renumbering of a circuit.
#include "train_fixtures.hpp"

#include "train/commrand_batcher.hpp"
#include "train/run_settings.hpp"

#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace gsr::train;
using gsr::train::testing::kC6288HoldOut;
using gsr::train::testing::level_dataset;
using gsr::train::testing::Prepared;
using gsr::train::testing::c6288;
using gsr::train::testing::prepare_level;

namespace {

/// Two training circuits (c432, c880), so that batches span circuits.
const Prepared& two_circuits()
{
    static const Prepared p = prepare_level({"c432", "c880"}, HoldOut{});
    return p;
}

CommRandBatcher batcher(const Prepared& p, double alpha, std::size_t batch = 64)
{
    CommRandOptions o;
    o.batch_size = batch;
    o.alpha = alpha;
    return CommRandBatcher(o, p.communities.membership);
}

double log_choose(double n, double k)
{
    return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

/// Training nodes per community of circuit 0.
std::map<std::uint32_t, std::size_t> community_sizes(const Prepared& p)
{
    std::map<std::uint32_t, std::size_t> sizes;
    for (std::uint32_t v : p.data.circuits[0].nodes(Split::Train))
        ++sizes[p.communities.membership[0][v]];
    return sizes;
}

/// Distinct communities in each full batch of `epochs` epochs.
std::vector<double> distinct_per_batch(const Prepared& p, double alpha, std::size_t batch,
                                       int epochs, std::uint64_t seed)
{
    CommRandBatcher b = batcher(p, alpha, batch);
    SeededStream s(seed);
    std::vector<double> out;
    for (int e = 0; e < epochs; ++e)
        for (const Batch& bt : b.epoch_batches(p.data, s)) {
            if (bt.node_count() != batch) continue;
            std::set<std::uint32_t> seen;
            for (std::uint32_t v : bt.parts[0].nodes) seen.insert(p.communities.membership[0][v]);
            out.push_back(static_cast<double>(seen.size()));
        }
    return out;
}

double mean(const std::vector<double>& x)
{
    double s = 0;
    for (double v : x) s += v;
    return s / static_cast<double>(x.size());
}

} // namespace

TEST(CommRand, RenumberingMakesCommunitiesContiguousAndKeepsTheCircuit)
{
    const Dataset before = level_dataset({"c6288"}, kC6288HoldOut);
    const Prepared& p = c6288();
    const CircuitData& a = before.circuits[0];
    const CircuitData& b = p.data.circuits[0];
    const gsr::community::NodeOrder& order = p.communities.orders[0];
    ASSERT_EQ(order.size(), a.input.node_count);
    EXPECT_GT(p.communities.community_count[0], 5u);
    EXPECT_GT(p.communities.modularity[0], 0.5);
    // Each community is one run of ids.
    const std::vector<std::uint32_t>& m = p.communities.membership[0];
    std::set<std::uint32_t> closed;
    for (std::size_t v = 1; v < m.size(); ++v)
        if (m[v] != m[v - 1]) {
            EXPECT_FALSE(closed.count(m[v])) << "community " << m[v] << " comes back at " << v;
            closed.insert(m[v - 1]);
        }
    // The same circuit, renumbered: drivers, features, targets and splits follow their node.
    const std::size_t f = a.input.feature_count;
    for (std::size_t nv = 0; nv < b.input.node_count; ++nv) {
        const std::uint32_t ov = order.old_of_new[nv];
        std::vector<std::uint32_t> drivers_new, drivers_old;
        for (auto i = b.input.fanin_offsets[nv]; i < b.input.fanin_offsets[nv + 1]; ++i)
            drivers_new.push_back(order.old_of_new[b.input.fanin_targets[i]]);
        for (auto i = a.input.fanin_offsets[ov]; i < a.input.fanin_offsets[ov + 1]; ++i)
            drivers_old.push_back(a.input.fanin_targets[i]);
        ASSERT_EQ(drivers_new, drivers_old) << nv;
        ASSERT_EQ(b.graph.fanout.degree(std::uint32_t(nv)), a.graph.fanout.degree(ov));
        for (std::size_t k = 0; k < f; ++k)
            ASSERT_EQ(b.input.features[nv * f + k], a.input.features[ov * f + k]);
        ASSERT_EQ(b.target[nv], a.target[ov]);
        ASSERT_EQ(b.split[nv], a.split[ov]);
        ASSERT_EQ(b.graph.type[nv], a.graph.type[ov]);
    }
    // The test circuit has no training nodes: left as it was.
    EXPECT_EQ(p.data.circuits[1].input.fanin_targets, before.circuits[1].input.fanin_targets);
    EXPECT_TRUE(p.communities.membership[1].empty());
}

TEST(CommRand, RcmOrderIsAnotherPermutationOfTheSameCircuit)
{
    Dataset d = level_dataset({"c432"}, HoldOut{});
    const std::vector<double> targets = d.circuits[0].target;
    CommunityPlan plan;
    plan.order = NodeOrderKind::Rcm;
    plan.detect = false;
    const PreparedCommunities r = prepare_communities(d, plan);
    EXPECT_TRUE(r.membership[0].empty());
    const gsr::community::NodeOrder& o = r.orders[0];
    bool moved = false;
    for (std::size_t v = 0; v < o.size(); ++v) {
        EXPECT_EQ(d.circuits[0].target[v], targets[o.old_of_new[v]]);
        moved = moved || o.old_of_new[v] != v;
    }
    EXPECT_TRUE(moved);
    // Per-node values (predictions) go back to the file's order, also after a second
    // renumbering (the canvas coloured the wrong nodes with them).
    EXPECT_EQ(d.circuits[0].in_file_order(d.circuits[0].target), targets);
    plan.order = NodeOrderKind::Community;
    (void)prepare_communities(d, plan);
    EXPECT_NE(d.circuits[0].target, targets);
    EXPECT_EQ(d.circuits[0].in_file_order(d.circuits[0].target), targets);
    EXPECT_EQ(parse_node_order("rcm"), NodeOrderKind::Rcm);
    try {
        parse_node_order("bfs");
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("--order"), std::string::npos);
    }
}

TEST(CommRand, AlphaZeroDrawsWhatRandomBatchingDraws)
{
    const Prepared& p = two_circuits();
    CommRandBatcher c = batcher(p, 0.0, 50);
    RandomNodeBatcher r(50);
    SeededStream s1(77), s2(77);
    for (int e = 0; e < 3; ++e) {
        const std::vector<Batch> a = c.epoch_batches(p.data, s1);
        const std::vector<Batch> b = r.epoch_batches(p.data, s2);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].parts.size(), b[i].parts.size());
            for (std::size_t k = 0; k < a[i].parts.size(); ++k) {
                EXPECT_EQ(a[i].parts[k].circuit, b[i].parts[k].circuit);
                EXPECT_EQ(a[i].parts[k].nodes, b[i].parts[k].nodes);
            }
        }
    }
    EXPECT_EQ(s1.state(), s2.state());
}

TEST(CommRand, AlphaZeroBatchesHaveTheCommunityCountsOfUniformBatches)
{
    // A uniform batch of B of the N training nodes holds community c (s_c nodes) with
    // probability 1 - C(N - s_c, B) / C(N, B): the expected number of distinct communities.
    const Prepared& p = c6288();
    const std::size_t batch = 64;
    const auto sizes = community_sizes(p);
    const double n = static_cast<double>(p.data.node_count(Split::Train));
    double expected = 0;
    for (const auto& [c, s] : sizes)
        expected += 1 - std::exp(log_choose(n - double(s), batch) - log_choose(n, batch));
    const std::vector<double> d = distinct_per_batch(p, 0.0, batch, 40, 5);
    ASSERT_GT(d.size(), 1000u);
    double var = 0;
    const double m = mean(d);
    for (double x : d) var += (x - m) * (x - m);
    const double se = std::sqrt(var / double(d.size() - 1) / double(d.size()));
    EXPECT_NEAR(m, expected, 4 * se) << "expected " << expected << ", se " << se;

    // The nodes of the largest community per batch follow the hypergeometric law: a chi-square
    // over bins of at least 5 expected batches, against the 0.1 % critical value.
    const auto largest = std::max_element(sizes.begin(), sizes.end(), [](auto a, auto b) {
        return a.second < b.second;
    });
    CommRandBatcher b = batcher(p, 0.0, batch);
    SeededStream s(6);
    std::vector<double> observed(batch + 1, 0);
    double batches = 0;
    for (int e = 0; e < 40; ++e)
        for (const Batch& bt : b.epoch_batches(p.data, s)) {
            if (bt.node_count() != batch) continue;
            std::size_t k = 0;
            for (std::uint32_t v : bt.parts[0].nodes)
                k += p.communities.membership[0][v] == largest->first;
            observed[k] += 1;
            batches += 1;
        }
    const double sl = static_cast<double>(largest->second);
    std::vector<double> pmf(batch + 1);
    for (std::size_t k = 0; k <= batch; ++k)
        pmf[k] = k > sl ? 0
                        : std::exp(log_choose(sl, double(k)) +
                                   log_choose(n - sl, double(batch - k)) -
                                   log_choose(n, double(batch)));
    // Bins from the left, each closed once it expects 5 batches; the tail joins the last.
    std::vector<std::pair<double, double>> bin; // observed, expected
    double o_bin = 0, e_bin = 0;
    for (std::size_t k = 0; k <= batch; ++k) {
        o_bin += observed[k];
        e_bin += pmf[k] * batches;
        if (e_bin >= 5) {
            bin.push_back({o_bin, e_bin});
            o_bin = e_bin = 0;
        }
    }
    ASSERT_FALSE(bin.empty());
    bin.back().first += o_bin;
    bin.back().second += e_bin;
    double chi2 = 0;
    for (const auto& [o, ex] : bin) chi2 += (o - ex) * (o - ex) / ex;
    const int bins = static_cast<int>(bin.size());
    ASSERT_GE(bins, 4);
    // 0.1 % critical values of chi-square for 3..12 degrees of freedom.
    const double critical[] = {16.27, 18.47, 20.52, 22.46, 24.32, 26.12, 27.88, 29.59, 31.26,
                               32.91};
    EXPECT_LT(chi2, critical[std::min(bins - 1, 12) - 3]) << bins << " bins";
}

TEST(CommRand, AlphaOneBatchesAreCommunityContiguous)
{
    const Prepared& p = c6288();
    const std::size_t batch = 64;
    const auto sizes = community_sizes(p);
    CommRandBatcher b = batcher(p, 1.0, batch);
    SeededStream s(8);
    for (int e = 0; e < 3; ++e) {
        const std::vector<Batch> batches = b.epoch_batches(p.data, s);
        std::map<std::uint32_t, std::vector<std::size_t>> batches_of;
        for (std::size_t i = 0; i < batches.size(); ++i) {
            std::map<std::uint32_t, std::size_t> here;
            for (std::uint32_t v : batches[i].parts[0].nodes)
                ++here[p.communities.membership[0][v]];
            // Whole communities, except where the batch starts and where it ends.
            int partial = 0;
            for (const auto& [c, k] : here) {
                partial += k < sizes.at(c);
                batches_of[c].push_back(i);
            }
            EXPECT_LE(partial, 2) << "batch " << i;
        }
        // A community's nodes are in consecutive batches.
        for (const auto& [c, list] : batches_of)
            EXPECT_EQ(list.back() - list.front() + 1, list.size()) << "community " << c;
    }
}

TEST(CommRand, AlphaMovesBatchesFromRandomToCommunityContiguous)
{
    const Prepared& p = c6288();
    const double d0 = mean(distinct_per_batch(p, 0.0, 64, 10, 9));
    const double d5 = mean(distinct_per_batch(p, 0.5, 64, 10, 9));
    const double d1 = mean(distinct_per_batch(p, 1.0, 64, 10, 9));
    EXPECT_GT(d0, d5 + 1);
    EXPECT_GT(d5, d1 + 1);
    // alpha = 1: about B / (mean community size) + 1 communities per batch.
    EXPECT_LT(d1, 64.0 * double(community_sizes(p).size()) /
                          double(p.data.node_count(Split::Train)) + 2.5);
}

TEST(CommRand, EveryTrainingNodeIsInOneBatchPerEpoch)
{
    const Prepared& p = two_circuits();
    for (double alpha : {0.0, 0.3, 0.5, 1.0}) {
        CommRandBatcher b = batcher(p, alpha, 37);
        SeededStream s(10);
        for (int e = 0; e < 2; ++e) {
            std::vector<std::vector<int>> seen(p.data.circuits.size());
            for (std::size_t c = 0; c < seen.size(); ++c)
                seen[c].assign(p.data.circuits[c].input.node_count, 0);
            const std::vector<Batch> batches = b.epoch_batches(p.data, s);
            const std::size_t n = p.data.node_count(Split::Train);
            ASSERT_EQ(batches.size(), (n + 36) / 37) << alpha;
            for (std::size_t i = 0; i < batches.size(); ++i) {
                EXPECT_EQ(batches[i].node_count(), i + 1 < batches.size() ? 37 : n - 37 * i);
                for (const BatchPart& part : batches[i].parts)
                    for (std::uint32_t v : part.nodes) ++seen[part.circuit][v];
            }
            for (std::size_t c = 0; c < seen.size(); ++c)
                for (std::size_t v = 0; v < seen[c].size(); ++v)
                    ASSERT_EQ(seen[c][v], p.data.circuits[c].split[v] == Split::Train ? 1 : 0)
                        << "alpha " << alpha << " circuit " << c << " node " << v;
        }
    }
}

TEST(CommRand, OneSeedGivesOneEpoch)
{
    const Prepared& p = c6288();
    auto draw = [&](std::uint64_t seed) {
        CommRandBatcher b = batcher(p, 0.5);
        SeededStream s(seed);
        std::vector<std::vector<std::uint32_t>> out;
        for (const Batch& bt : b.epoch_batches(p.data, s)) out.push_back(bt.parts[0].nodes);
        return out;
    };
    EXPECT_EQ(draw(12), draw(12));
    EXPECT_NE(draw(12), draw(13));
}

TEST(CommRand, EachBatchTakesCeilAlphaBFromTheCommunities)
{
    // 0.07 x 100 and 0.55 x 100 come out a hair above 7 and 55: 8 and 56 before.
    EXPECT_EQ(community_nodes_per_batch(0.07, 100), 7u);
    EXPECT_EQ(community_nodes_per_batch(0.55, 100), 55u);
    EXPECT_EQ(community_nodes_per_batch(0.0700001, 100), 8u); // truly above 7
    EXPECT_EQ(community_nodes_per_batch(0.3, 37), 12u);       // 11.1
    EXPECT_EQ(community_nodes_per_batch(0.5, 64), 32u);
    EXPECT_EQ(community_nodes_per_batch(1.0, 37), 37u);
    EXPECT_EQ(community_nodes_per_batch(0.0, 37), 0u);
}

TEST(CommRand, KnobsOutOfRangeNameTheirFlag)
{
    auto message = [](CommRandOptions o) {
        try {
            validate(o);
        } catch (const gsr::Error& e) {
            return e.message();
        }
        return std::string();
    };
    CommRandOptions o;
    EXPECT_EQ(message(o), "");
    o.alpha = 1.5;
    EXPECT_NE(message(o).find("--alpha"), std::string::npos);
    o = {};
    o.beta = 0.5;
    EXPECT_NE(message(o).find("--beta"), std::string::npos);
    // beta x degree overflowed near the top of the doubles and reversed the bias.
    o.beta = 1e308;
    EXPECT_NE(message(o).find("--beta must be a number from 1 to 1e6"), std::string::npos);
    o.beta = kMaxBeta;
    EXPECT_EQ(message(o), "");
    o = {};
    o.batch_size = 0;
    EXPECT_NE(message(o).find("--batch-size"), std::string::npos);
    // Without communities for a training circuit the batcher says so.
    CommRandBatcher b(CommRandOptions{}, {});
    SeededStream s(1);
    EXPECT_THROW(b.epoch_batches(c6288().data, s), gsr::Error);
}

TEST(CommRand, TheRunsNoteSaysWhetherTheCircuitsWereRenumbered)
{
    // "renumbered in original order" was said of circuits kept as they were.
    RunSettings s;
    s.batching = "commrand";
    s.config.batch_size = 64;
    s.config.model.threads = 1;
    for (NodeOrderKind order : {NodeOrderKind::Original, NodeOrderKind::Community}) {
        s.order = order;
        Dataset data = level_dataset({"c432"}, HoldOut{0.2, 0.0, 3});
        std::vector<std::string> notes;
        (void)make_run_batcher(s, data, &notes);
        ASSERT_FALSE(notes.empty());
        const bool kept = order == NodeOrderKind::Original;
        EXPECT_EQ(notes[0].rfind(kept ? "training circuits kept in file order, "
                                      : "training circuits renumbered in community order, ",
                                 0),
                  0u)
            << notes[0];
        EXPECT_EQ(data.circuits[0].file_node.empty(), kept) << notes[0];
    }
}
