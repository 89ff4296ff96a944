// Same seed, same bits: across runs, across thread counts, and across a save/load of the state.
#include "nn/model.hpp"
#include "nn_test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

struct TrainingRun {
    std::vector<double> losses;
    std::vector<double> parameters;
};

// 1300 nodes: several row blocks and six reduction slabs, so threads really split the work.
const GraphInput& graph()
{
    static const GraphInput g = random_graph(1300, 6, 17);
    return g;
}

TrainingRun train(ModelKind kind, unsigned threads, int steps = 4)
{
    ModelConfig c;
    c.kind = kind;
    c.layers = 3;
    c.hidden = 16;
    c.groups = 2;
    c.topk = 3;
    c.dropout = 0.2;
    c.directed = kind != ModelKind::Sage;
    c.seed = 5;
    c.threads = threads;
    const GraphInput& g = graph();
    Model model(c, g.feature_count);
    model.bind_graph(g);
    std::vector<float> targets(g.node_count);
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = float(i % 7) / 7.0f;
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t v = 0; v < g.node_count; v += 2) nodes.push_back(v);
    TrainingRun r;
    for (int s = 0; s < steps; ++s)
        r.losses.push_back(model.train_step(nodes, targets, LossKind::MeanSquaredError));
    r.parameters = model.parameters();
    return r;
}

bool bit_identical(const std::vector<double>& a, const std::vector<double>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
}

} // namespace

TEST(Determinism, SameSeedGivesBitIdenticalLossesAndWeights)
{
    for (ModelKind kind : {ModelKind::Gsr, ModelKind::Res}) {
        const TrainingRun a = train(kind, 2), b = train(kind, 2);
        EXPECT_TRUE(bit_identical(a.losses, b.losses)) << model_kind_name(kind);
        EXPECT_TRUE(bit_identical(a.parameters, b.parameters)) << model_kind_name(kind);
        EXPECT_LT(a.losses.back(), a.losses.front()); // and it does learn
    }
}

TEST(Determinism, ThreadCountDoesNotChangeABit)
{
    for (ModelKind kind :
         {ModelKind::Gcn, ModelKind::Sage, ModelKind::Res, ModelKind::Rev, ModelKind::Gsr}) {
        const TrainingRun one = train(kind, 1, 3), two = train(kind, 2, 3);
        const TrainingRun three = train(kind, 3, 3);
        EXPECT_TRUE(bit_identical(one.losses, two.losses)) << model_kind_name(kind);
        EXPECT_TRUE(bit_identical(one.parameters, two.parameters)) << model_kind_name(kind);
        EXPECT_TRUE(bit_identical(one.parameters, three.parameters)) << model_kind_name(kind);
    }
}

TEST(Determinism, SavedStateResumesBitIdentically)
{
    ModelConfig c;
    c.kind = ModelKind::Gsr;
    c.layers = 3;
    c.hidden = 16;
    c.groups = 2;
    c.topk = 3;
    c.dropout = 0.3;
    c.threads = 2;
    const GraphInput g = random_graph(200, 4, 2);
    std::vector<float> targets(g.node_count, 0.25f);
    const std::vector<std::uint32_t> nodes = {3, 5, 8, 13, 21, 34, 55, 89, 144};
    Model a(c, g.feature_count);
    a.bind_graph(g);
    for (int s = 0; s < 3; ++s) a.train_step(nodes, targets, LossKind::MeanSquaredError);
    const std::vector<std::uint8_t> state = a.save_state();
    std::vector<double> after_a;
    for (int s = 0; s < 3; ++s)
        after_a.push_back(a.train_step(nodes, targets, LossKind::MeanSquaredError));

    ModelConfig other = c;
    other.seed = 999; // different initial weights, replaced by the state
    Model b(other, g.feature_count);
    b.load_state(state);
    b.bind_graph(g);
    EXPECT_EQ(b.step_count(), 3u);
    std::vector<double> after_b;
    for (int s = 0; s < 3; ++s)
        after_b.push_back(b.train_step(nodes, targets, LossKind::MeanSquaredError));
    EXPECT_TRUE(bit_identical(after_a, after_b));
    EXPECT_TRUE(bit_identical(a.parameters(), b.parameters()));
}
