// A real learning task on a real circuit: the logic level of every node of ISCAS-85 c880,
// learned from the node features and the graph. Depth matters: the level is a longest path.
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"
#include "nn/model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

using namespace gsr::nn;

namespace {

struct LevelTask {
    GraphInput graph;
    std::vector<float> targets; ///< level / max level
    std::vector<std::uint32_t> train, held_out;
    double variance = 0.0;      ///< of the held-out targets: the loss of predicting the mean
};

LevelTask c880_levels()
{
    const auto circuit = gsr::netlist::load_netlist(std::string(GSR_DATA_DIR) +
                                                    "/netlists/iscas85/bench/c880.bench");
    const auto cg = gsr::graph::build_graph(circuit);
    LevelTask t;
    t.graph = GraphInput::from_circuit(cg);
    t.targets.resize(cg.node_count());
    for (std::size_t v = 0; v < cg.node_count(); ++v)
        t.targets[v] = float(cg.level[v]) / float(std::max(cg.max_level, 1u));
    for (std::uint32_t v = 0; v < cg.node_count(); ++v) (v % 5 == 0 ? t.held_out : t.train)
        .push_back(v);
    double mean = 0.0;
    for (auto v : t.held_out) mean += t.targets[v];
    mean /= double(t.held_out.size());
    for (auto v : t.held_out) t.variance += (t.targets[v] - mean) * (t.targets[v] - mean);
    t.variance /= double(t.held_out.size());
    return t;
}

double train_levels(ModelKind kind, const LevelTask& t, int steps, double* held_out_loss)
{
    ModelConfig c;
    c.kind = kind;
    c.layers = 12;
    c.hidden = 32;
    c.groups = 2;
    c.topk = 8;
    c.directed = true;
    c.seed = 3;
    AdamConfig adam;
    adam.learning_rate = 3e-3;
    Model model(c, t.graph.feature_count, adam);
    model.bind_graph(t.graph);
    const double before = model.evaluate(t.train, t.targets, LossKind::MeanSquaredError);
    double last = 0.0;
    for (int s = 0; s < steps; ++s)
        last = model.train_step(t.train, t.targets, LossKind::MeanSquaredError);
    const double after = model.evaluate(t.train, t.targets, LossKind::MeanSquaredError);
    *held_out_loss = model.evaluate(t.held_out, t.targets, LossKind::MeanSquaredError);
    std::printf("[train] %s c880 level: %zu nodes, train MSE %.4f -> %.5f (%.0fx, last step "
                "%.5f), held-out MSE %.5f vs variance %.5f\n",
                std::string(model_kind_name(kind)).c_str(), t.graph.node_count, before, after,
                before / after, last, *held_out_loss, t.variance);
    return before / after;
}

} // namespace

TEST(Training, GsrLearnsTheLogicLevelOfC880)
{
    const LevelTask t = c880_levels();
    ASSERT_GT(t.graph.node_count, 400u);
    double held_out = 0.0;
    const double factor = train_levels(ModelKind::Gsr, t, 300, &held_out);
    EXPECT_GE(factor, 20.0);
    // Far better than the mean on nodes it never trained on: R^2 above 0.9.
    EXPECT_LE(held_out, 0.1 * t.variance);
}
