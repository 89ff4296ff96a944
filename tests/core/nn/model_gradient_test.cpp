// Finite-difference checks, in float64, of whole models: every block type (GCN layer, SAGE
// layer, residual block, reversible group block with ReLU and with top-k, encoder, final norm,
// head) in undirected and directed mode, with and without dropout. The gradient of the loss
// with respect to every parameter must match central differences to 1e-6 (relative, norm-wise).
#include "nn/model.hpp"
#include "nn_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

struct GradientCase {
    ModelKind kind;
    bool directed;
    double dropout;
    LossKind loss;
};

std::string case_name(const GradientCase& c)
{
    return std::string(model_kind_name(c.kind)) + (c.directed ? " directed" : " undirected") +
           (c.dropout > 0 ? " dropout" : "") +
           (c.loss == LossKind::MeanSquaredError ? " mse" : " bce");
}

void PrintTo(const GradientCase& c, std::ostream* os) { *os << case_name(c); }

class ModelGradient : public ::testing::TestWithParam<GradientCase> {};

} // namespace

TEST_P(ModelGradient, MatchesCentralDifferences)
{
    const GradientCase c = GetParam();
    ModelConfig cfg;
    cfg.kind = c.kind;
    cfg.layers = 2;
    cfg.hidden = 8;
    cfg.groups = 2;
    cfg.topk = 2;
    cfg.directed = c.directed;
    cfg.dropout = c.dropout;
    cfg.seed = 9;
    cfg.threads = 2;
    cfg.precision = Precision::Float64;
    // The exact-reversal grid makes the loss a step function at the 2^-40 scale, which central
    // differences would see; its gradient is the identity (straight-through) either way.
    cfg.exact_reversal = false;
    const GraphInput g = random_graph(12, 3, 4);
    Model model(cfg, g.feature_count);
    model.bind_graph(g);
    std::vector<float> targets(g.node_count);
    const std::vector<double> t = random_values(g.node_count, 5);
    for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = float(0.5 + 0.5 * t[i]);
    const std::vector<std::uint32_t> nodes = {1, 2, 4, 5, 7, 8, 10, 11};

    // The state fixes the dropout draw: every evaluation below sees the same mask.
    const std::vector<std::uint8_t> state = model.save_state();
    auto loss_at = [&](const std::vector<double>& params) {
        model.load_state(state);
        model.set_parameters(params);
        model.zero_gradients();
        return model.accumulate_gradients(nodes, targets, c.loss);
    };
    const std::vector<double> p0 = model.parameters();
    loss_at(p0);
    const std::vector<double> analytic = model.gradients();
    const std::vector<double> numeric = central_differences(p0, loss_at);
    const double err = relative_error(analytic, numeric);
    std::printf("[gradcheck] model %-32s %4zu params rel err %.2e (max-elem %.2e)\n",
                case_name(c).c_str(), p0.size(), err, max_relative_error(analytic, numeric));
    EXPECT_LE(err, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    EveryBlock, ModelGradient,
    ::testing::Values(GradientCase{ModelKind::Gcn, false, 0.0, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Gcn, true, 0.3, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Sage, false, 0.0, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Sage, true, 0.3,
                                   LossKind::BinaryCrossEntropyWithLogits},
                      GradientCase{ModelKind::Res, false, 0.0, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Res, true, 0.3, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Rev, false, 0.0, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Rev, true, 0.3, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Gsr, false, 0.0, LossKind::MeanSquaredError},
                      GradientCase{ModelKind::Gsr, true, 0.3,
                                   LossKind::BinaryCrossEntropyWithLogits}),
    [](const ::testing::TestParamInfo<GradientCase>& info) {
        std::string s = case_name(info.param);
        for (char& ch : s)
            if (ch == ' ') ch = '_';
        return s;
    });
