// Mini-batch subgraphs: beta raises the intra-community share of sampled neighbours by the
// amount weighted sampling without replacement predicts; with unlimited fan-outs over the
// model's hops a subgraph step computes what the full-graph step computes (float64); the
// trainer runs steps on subgraphs, resumes them bit for bit, and so does the cluster batcher.
#include "train_fixtures.hpp"

#include "train/cluster_batcher.hpp"
#include "train/commrand_batcher.hpp"
#include "train/subgraph_sampler.hpp"
#include "train/trainer.hpp"

#include "nn/backend.hpp"
#include "nn/model.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace gsr::train;
using gsr::train::testing::Prepared;
using gsr::train::testing::c6288;
using gsr::train::testing::prepare_level;

namespace {

/// c432 trained on (20 % held out), c17 tested on, renumbered by community.
const Prepared& c432()
{
    static const Prepared p = prepare_level({"c432"}, HoldOut{0.2, 0.0, 3});
    return p;
}

/// Mean and variance of the intra-community draws among `draws` taken without replacement
/// from `intra` entries of weight beta and `inter` entries of weight 1 (successive sampling).
std::pair<double, double> intra_draws(std::size_t intra, std::size_t inter, std::size_t draws,
                                      double beta)
{
    if (draws >= intra + inter) return {double(intra), 0.0};
    std::vector<double> p(draws + 1, 0.0); // p[j]: j intra drawn so far
    p[0] = 1;
    for (std::size_t t = 0; t < draws; ++t) {
        std::vector<double> q(draws + 1, 0.0);
        for (std::size_t j = 0; j <= t; ++j) {
            if (p[j] == 0) continue;
            const double wi = beta * double(intra - j), wx = double(inter - (t - j));
            q[j + 1] += p[j] * wi / (wi + wx);
            q[j] += p[j] * wx / (wi + wx);
        }
        p = q;
    }
    double m = 0, m2 = 0;
    for (std::size_t j = 0; j <= draws; ++j) {
        m += p[j] * double(j);
        m2 += p[j] * double(j) * double(j);
    }
    return {m, m2 - m * m};
}

gsr::nn::ModelConfig float64_model(gsr::nn::ModelKind kind, std::uint32_t layers)
{
    gsr::nn::ModelConfig m;
    m.kind = kind;
    m.layers = layers;
    m.hidden = 8;
    m.groups = 2;
    m.topk = 2;
    m.threads = 1;
    m.seed = 21;
    m.precision = gsr::nn::Precision::Float64;
    return m;
}

/// Largest relative difference of the loss gradients of `roots`: full graph against `sub`.
double gradient_difference(const gsr::nn::ModelConfig& cfg, const CircuitData& c,
                           const std::vector<std::uint32_t>& roots, const Subgraph& sub,
                           double* loss_difference)
{
    gsr::nn::Model model(cfg, c.input.feature_count);
    std::vector<float> t(c.target.size());
    for (std::size_t v = 0; v < t.size(); ++v) t[v] = static_cast<float>(c.target[v] / 10.0);
    model.bind_graph(c.input);
    model.zero_gradients();
    const double full_loss =
        model.accumulate_gradients(roots, t, gsr::nn::LossKind::MeanSquaredError);
    const std::vector<double> full = model.gradients();

    std::vector<float> ts(sub.nodes.size());
    for (std::size_t i = 0; i < ts.size(); ++i) ts[i] = t[sub.nodes[i]];
    model.bind_graph(sub.input);
    model.zero_gradients();
    const double sub_loss =
        model.accumulate_gradients(sub.loss_nodes, ts, gsr::nn::LossKind::MeanSquaredError);
    const std::vector<double> part = model.gradients();
    *loss_difference = std::abs(full_loss - sub_loss) / std::abs(full_loss);
    double scale = 0, diff = 0;
    for (std::size_t i = 0; i < full.size(); ++i) {
        scale = std::max(scale, std::abs(full[i]));
        diff = std::max(diff, std::abs(full[i] - part[i]));
    }
    return diff / scale;
}

TrainConfig sampler_config(gsr::nn::ModelKind kind)
{
    TrainConfig c;
    c.model = float64_model(kind, kind == gsr::nn::ModelKind::Gsr ? 3 : 2);
    c.model.hidden = 16;
    c.model.precision = gsr::nn::Precision::Float32;
    c.adam.learning_rate = 1e-2;
    c.epochs = 4;
    c.patience = 0;
    c.seed = 5;
    return c;
}

} // namespace

TEST(SubgraphSampler, FanoutsParseAndNameTheirFlag)
{
    EXPECT_EQ(parse_fanouts("10,5"), (std::vector<std::uint32_t>{10, 5}));
    EXPECT_EQ(parse_fanouts("3,all"), (std::vector<std::uint32_t>{3, kAllNeighbours}));
    EXPECT_EQ(fanouts_text(parse_fanouts("25,all,1")), "25,all,1");
    for (const char* bad : {"", "0", "5,", "x", "4,-1", "1e3"}) {
        try {
            parse_fanouts(bad);
            ADD_FAILURE() << bad;
        } catch (const gsr::Error& e) {
            EXPECT_NE(e.message().find("--fanout"), std::string::npos) << bad;
        }
    }
    // The largest fan-out is named in the message (4294967295 is a whole number >= 1).
    try {
        parse_fanouts("4294967295");
        ADD_FAILURE() << "2^32 - 1 taken as a fan-out";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("from 1 to 4294967294, or 'all'"), std::string::npos)
            << e.message();
    }
    EXPECT_EQ(parse_fanouts("4294967294"), (std::vector<std::uint32_t>{4294967294u}));
    gsr::nn::ModelConfig m = float64_model(gsr::nn::ModelKind::Gsr, 2);
    EXPECT_EQ(message_passing_hops(m), 4u); // two blocks of two groups
    gsr::nn::ModelConfig huge = m;
    huge.layers = huge.groups = 65536; // 2^32 hops wrapped to 0
    EXPECT_EQ(message_passing_hops(huge), 4294967295u);
    m.kind = gsr::nn::ModelKind::Sage;
    EXPECT_EQ(message_passing_hops(m), 2u);
    try {
        check_fanouts(std::vector<std::uint32_t>{2, 2, 2}, m);
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("--fanout"), std::string::npos) << e.message();
    }
}

TEST(SubgraphSampler, BetaRaisesTheIntraCommunityShareByTheExpectedAmount)
{
    // One hop from one root at a time: the subgraph's edges are exactly the sampled ones.
    const Prepared& p = c6288();
    const CircuitData& c = p.data.circuits[0];
    const std::vector<std::uint32_t>& m = p.communities.membership[0];
    SubgraphSampler sampler;
    sampler.prepare(p.data);
    for (std::uint32_t fanout : {1u, 2u}) {
        double observed[2] = {0, 0}, expected[2] = {0, 0}, variance[2] = {0, 0}, draws = 0;
        const double betas[2] = {1.0, 4.0};
        for (int b = 0; b < 2; ++b) {
            SeededStream s(100 + fanout);
            Subgraph sub;
            for (int pass = 0; pass < 4; ++pass)
                for (std::uint32_t u = 0; u < c.input.node_count; ++u) {
                    // The root's neighbours, as the sampler sees them: drivers and sinks.
                    std::size_t intra = 0, inter = 0;
                    for (auto i = c.input.fanin_offsets[u]; i < c.input.fanin_offsets[u + 1]; ++i)
                        ++(m[c.input.fanin_targets[i]] == m[u] ? intra : inter);
                    for (auto i = c.graph.fanout.offsets[u]; i < c.graph.fanout.offsets[u + 1];
                         ++i)
                        ++(m[c.graph.fanout.targets[i]] == m[u] ? intra : inter);
                    const auto [mu, var] = intra_draws(intra, inter, fanout, betas[b]);
                    expected[b] += mu;
                    variance[b] += var;
                    const std::uint32_t root[1] = {u};
                    const std::uint32_t fan[1] = {fanout};
                    sampler.sample(0, root, fan, betas[b], m, s, sub);
                    ASSERT_EQ(sub.input.edge_count(),
                              std::min<std::size_t>(fanout, intra + inter));
                    for (std::size_t v = 0; v < sub.input.node_count; ++v)
                        for (auto i = sub.input.fanin_offsets[v];
                             i < sub.input.fanin_offsets[v + 1]; ++i)
                            observed[b] +=
                                m[sub.nodes[v]] == m[sub.nodes[sub.input.fanin_targets[i]]];
                    if (b == 0) draws += double(sub.input.edge_count());
                }
            EXPECT_NEAR(observed[b], expected[b], 4.5 * std::sqrt(variance[b]))
                << "fan-out " << fanout << " beta " << betas[b];
        }
        // The raise: significant, and as large as predicted.
        const double raise = expected[1] - expected[0];
        const double sigma = std::sqrt(variance[0] + variance[1]);
        EXPECT_GT(raise, 10 * sigma);
        EXPECT_NEAR(observed[1] - observed[0], raise, 4.5 * sigma);
        RecordProperty("intra_share_fanout_" + std::to_string(fanout),
                       std::to_string(observed[0] / draws) + " -> " +
                           std::to_string(observed[1] / draws));
    }
}

TEST(SubgraphSampler, UnlimitedFanoutsOverTheModelsHopsGiveTheFullGraphStep)
{
    const Prepared& p = c6288();
    const CircuitData& c = p.data.circuits[0];
    std::vector<std::uint32_t> roots = c.nodes(Split::Train);
    SeededStream pick(3);
    pick.shuffle(roots);
    roots.resize(24);
    std::sort(roots.begin(), roots.end());
    SubgraphSampler sampler;
    sampler.prepare(p.data);
    using gsr::nn::ModelKind;
    for (const auto& [kind, layers] : {std::pair{ModelKind::Sage, 2u}, std::pair{ModelKind::Res, 3u},
                                       std::pair{ModelKind::Gsr, 2u}}) {
        const gsr::nn::ModelConfig cfg = float64_model(kind, layers);
        const std::uint32_t hops = message_passing_hops(cfg);
        SeededStream s(1);
        Subgraph sub;
        const std::vector<std::uint32_t> all(hops, kAllNeighbours);
        sampler.sample(0, roots, all, 4.0, p.communities.membership[0], s, sub);
        EXPECT_LT(sub.input.node_count, c.input.node_count) << "the test needs a real subgraph";
        double loss_diff = 0;
        const double diff = gradient_difference(cfg, c, roots, sub, &loss_diff);
        EXPECT_LT(diff, 1e-10) << gsr::nn::model_kind_name(kind);
        EXPECT_LT(loss_diff, 1e-12) << gsr::nn::model_kind_name(kind);

        // One hop short, the outermost layer misses its neighbours: the step differs.
        const std::vector<std::uint32_t> fewer(hops - 1, kAllNeighbours);
        sampler.sample(0, roots, fewer, 1.0, {}, s, sub);
        EXPECT_GT(gradient_difference(cfg, c, roots, sub, &loss_diff), 1e-6)
            << gsr::nn::model_kind_name(kind);
    }
}

TEST(SubgraphSampler, InducedSubgraphKeepsExactlyTheEdgesInside)
{
    const CircuitData& c = c432().data.circuits[0];
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t v = 0; v < c.input.node_count; v += 3) nodes.push_back(v);
    const std::vector<std::uint32_t> loss{nodes[2], nodes[5]};
    SubgraphSampler sampler;
    sampler.prepare(c432().data);
    Subgraph sub;
    sampler.induce(0, nodes, loss, sub);
    EXPECT_EQ(sub.nodes, nodes);
    EXPECT_EQ(sub.loss_nodes, (std::vector<std::uint32_t>{2, 5}));
    std::multiset<std::pair<std::uint32_t, std::uint32_t>> want, got;
    const std::set<std::uint32_t> in(nodes.begin(), nodes.end());
    for (std::uint32_t v : nodes)
        for (auto i = c.input.fanin_offsets[v]; i < c.input.fanin_offsets[v + 1]; ++i)
            if (in.count(c.input.fanin_targets[i])) want.insert({c.input.fanin_targets[i], v});
    for (std::size_t v = 0; v < sub.input.node_count; ++v)
        for (auto i = sub.input.fanin_offsets[v]; i < sub.input.fanin_offsets[v + 1]; ++i)
            got.insert({sub.nodes[sub.input.fanin_targets[i]], sub.nodes[v]});
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(got, want);
    sub.input.check();
}

TEST(SubgraphSampler, TrainerStepsOnUnlimitedSubgraphsMatchWholeCircuitSteps)
{
    // The same batches (unlimited fan-outs draw nothing), so the same losses in float64.
    const Prepared& p = c432();
    TrainConfig c = sampler_config(gsr::nn::ModelKind::Sage);
    c.model.precision = gsr::nn::Precision::Float64;
    c.batch_size = 40;
    c.epochs = 3;
    MemoryRunLog whole, sampled;
    Trainer(p.data, c).run(whole);
    Trainer t(p.data, c);
    t.set_batcher(std::make_unique<RandomNodeBatcher>(
        40, std::vector<std::uint32_t>{kAllNeighbours, kAllNeighbours}));
    t.run(sampled);
    ASSERT_EQ(whole.epochs().size(), 3u);
    for (std::size_t e = 0; e < 3; ++e) {
        EXPECT_NEAR(sampled.epochs()[e].train_loss, whole.epochs()[e].train_loss,
                    1e-9 * whole.epochs()[e].train_loss);
        EXPECT_LT(sampled.epochs()[e].step_nodes, whole.epochs()[e].step_nodes);
    }
}

TEST(SubgraphSampler, CommRandTrainingLearnsAndResumesBitForBit)
{
    const Prepared& p = c432();
    TrainConfig c = sampler_config(gsr::nn::ModelKind::Gsr);
    c.model.dropout = 0.1;
    c.epochs = 5;
    CommRandOptions o;
    o.batch_size = 32;
    o.alpha = 0.5;
    o.beta = 4;
    o.fanouts = {3, 2};
    auto make = [&] {
        auto t = std::make_unique<Trainer>(p.data, c);
        t->set_batcher(std::make_unique<CommRandBatcher>(o, p.communities.membership));
        return t;
    };
    MemoryRunLog straight;
    make()->run(straight);
    ASSERT_EQ(straight.epochs().size(), 5u);
    EXPECT_LT(straight.epochs().back().train_loss, straight.epochs().front().train_loss);
    // Steps ran on subgraphs, smaller than the circuit.
    const std::size_t steps = (p.data.node_count(Split::Train) + 31) / 32;
    EXPECT_LT(straight.epochs()[0].step_nodes, steps * p.data.circuits[0].input.node_count);

    MemoryRunLog interrupted;
    std::atomic<bool> cancel{false};
    TrainCallbacks cb;
    cb.cancel = &cancel;
    cb.progress = [&](const Progress& pr) {
        if (pr.epoch == 3 && pr.step == 2) cancel = true;
    };
    ASSERT_EQ(make()->run(interrupted, cb).status, TrainResult::Status::Cancelled);
    make()->run(interrupted, {}, true);
    ASSERT_EQ(interrupted.epochs().size(), 5u);
    for (std::size_t e = 0; e < 5; ++e) {
        EXPECT_EQ(interrupted.epochs()[e].train_loss, straight.epochs()[e].train_loss) << e;
        EXPECT_EQ(interrupted.epochs()[e].validation.loss, straight.epochs()[e].validation.loss);
    }
    // Another alpha cannot continue these checkpoints.
    o.alpha = 0.25;
    try {
        make()->run(interrupted, {}, true);
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("batching"), std::string::npos) << e.message();
    }
}

TEST(ClusterBatcher, PartitionsCoverEveryTrainingNodeOncePerEpoch)
{
    if (!cluster_batching_available()) GTEST_SKIP() << "built without METIS";
    const Prepared& p = c6288();
    ClusterOptions o;
    o.batch_size = 200;
    o.clusters_per_batch = 2;
    ClusterBatcher b(o);
    SeededStream s(4);
    const std::vector<Batch> batches = b.epoch_batches(p.data, s);
    const std::size_t n = p.data.node_count(Split::Train);
    EXPECT_EQ(b.partition_count(), (2 * n + 199) / 200);
    std::vector<int> seen(p.data.circuits[0].input.node_count, 0), in_graph(seen);
    for (const Batch& bt : batches)
        for (const BatchPart& part : bt.parts) {
            for (std::uint32_t v : part.nodes) ++seen[v];
            for (std::uint32_t v : part.graph_nodes) ++in_graph[v];
            EXPECT_TRUE(std::includes(part.graph_nodes.begin(), part.graph_nodes.end(),
                                      part.nodes.begin(), part.nodes.end()));
        }
    for (std::size_t v = 0; v < seen.size(); ++v) {
        EXPECT_EQ(seen[v], p.data.circuits[0].split[v] == Split::Train ? 1 : 0);
        EXPECT_EQ(in_graph[v], 1); // partitions of the whole circuit
    }
    // METIS keeps most edges inside partitions: far more than a random cut would.
    const std::vector<std::uint32_t> part = metis_partition(p.data.circuits[0].input, 12, 1);
    const gsr::nn::GraphInput& g = p.data.circuits[0].input;
    std::size_t inside = 0;
    for (std::size_t v = 0; v < g.node_count; ++v)
        for (auto i = g.fanin_offsets[v]; i < g.fanin_offsets[v + 1]; ++i)
            inside += part[g.fanin_targets[i]] == part[v];
    EXPECT_GT(double(inside), 0.8 * double(g.edge_count()));
    EXPECT_EQ(*std::max_element(part.begin(), part.end()), 11u);
}

TEST(ClusterBatcher, TrainsOnInducedSubgraphsAndResumes)
{
    if (!cluster_batching_available()) GTEST_SKIP() << "built without METIS";
    const Prepared& p = c432();
    TrainConfig c = sampler_config(gsr::nn::ModelKind::Sage);
    c.epochs = 4;
    ClusterOptions o;
    o.batch_size = 40;
    auto make = [&] {
        auto t = std::make_unique<Trainer>(p.data, c);
        t->set_batcher(std::make_unique<ClusterBatcher>(o));
        return t;
    };
    MemoryRunLog straight;
    make()->run(straight);
    EXPECT_LT(straight.epochs().back().train_loss, straight.epochs().front().train_loss);
    MemoryRunLog interrupted;
    std::atomic<bool> cancel{false};
    TrainCallbacks cb;
    cb.cancel = &cancel;
    cb.progress = [&](const Progress& pr) {
        if (pr.epoch == 2 && pr.step == 1) cancel = true;
    };
    make()->run(interrupted, cb);
    make()->run(interrupted, {}, true);
    ASSERT_EQ(interrupted.epochs().size(), straight.epochs().size());
    for (std::size_t e = 0; e < straight.epochs().size(); ++e)
        EXPECT_EQ(interrupted.epochs()[e].train_loss, straight.epochs()[e].train_loss) << e;
}
