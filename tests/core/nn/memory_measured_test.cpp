// Measured per-layer memory: arena windows, and a Model's rows after one training step held
// against the analytic model it lays its arena out with (parameters, gradients, Adam slices
// and kept activations equal; workspace within the analytic bound; rev/gsr flat in depth).
#include "nn/arena.hpp"
#include "nn/model.hpp"
#include "nn_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

ModelConfig small_config(ModelKind kind, std::uint32_t layers)
{
    ModelConfig c;
    c.kind = kind;
    c.layers = layers;
    c.hidden = 16;
    c.groups = 2;
    c.topk = 3;
    c.threads = 2;
    return c;
}

struct Stepped {
    MemoryReport report;
    std::size_t scalar_bytes = 0;
};

/// One train_step of `c` on a tiny random graph; the model's report afterwards.
Stepped one_step(const ModelConfig& c)
{
    const GraphInput g = random_graph(150, 5, 11);
    std::vector<float> targets(g.node_count, 0.25f);
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t v = 0; v < g.node_count; v += 2) nodes.push_back(v);
    Model model(c, g.feature_count);
    model.bind_graph(g);
    EXPECT_TRUE(model.measured_layers().empty()) << "no step has run yet";
    model.train_step(nodes, targets, LossKind::MeanSquaredError);
    return {model.memory_report(), model.backend().scalar_bytes()};
}

void expect_measured_matches_analytic(const ModelConfig& c)
{
    const auto [r, t] = one_step(c);
    const std::string what(model_kind_name(c.kind));
    ASSERT_EQ(r.measured_layers.size(), r.layers.size()) << what;
    std::size_t parameter_sum = 0;
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
        const LayerMemory& a = r.layers[i];
        const LayerMemory& m = r.measured_layers[i];
        EXPECT_EQ(m.name, a.name) << what;
        EXPECT_EQ(m.parameter_bytes, a.parameter_bytes) << what << ' ' << a.name;
        EXPECT_EQ(m.gradient_bytes, a.gradient_bytes) << what << ' ' << a.name;
        EXPECT_EQ(m.optimizer_bytes, a.optimizer_bytes) << what << ' ' << a.name;
        EXPECT_EQ(m.activation_bytes, a.activation_bytes) << what << ' ' << a.name;
        EXPECT_EQ(m.activation_bytes % Arena::kAlignment, 0u) << what << ' ' << a.name;
        EXPECT_GT(m.workspace_bytes, 0u) << what << ' ' << a.name;
        EXPECT_LE(m.workspace_bytes, r.max_workspace_bytes) << what << ' ' << a.name;
        parameter_sum += m.parameter_bytes;
    }
    // The slices tile the flat parameter buffer (its tail alignment aside).
    EXPECT_EQ(parameter_sum, r.parameter_count * t) << what;
}

} // namespace

TEST(ArenaWindow, HighWaterOverAWindowLeavesThePeakAlone)
{
    Arena arena;
    arena.set_capacity(1 << 20);
    const std::size_t a = arena.allocate(100); // 128 with alignment
    EXPECT_EQ(a, 0u);
    const std::size_t mark = arena.mark();
    arena.allocate(1000); // 1024: peak 1152
    arena.release(mark);
    EXPECT_EQ(arena.peak(), 1152u);

    const Arena::Window outer = arena.begin_window();
    EXPECT_EQ(outer.start, 128u);
    EXPECT_EQ(arena.window_peak(), 128u); // starts at used(), not at the old peak
    arena.allocate(64);                   // 192
    const Arena::Window inner = arena.begin_window();
    arena.allocate(65); // 128 more: 320
    arena.release(inner.start);
    EXPECT_EQ(arena.end_window(inner), 320u);
    arena.allocate(1); // 256, below the inner high-water
    EXPECT_EQ(arena.window_peak(), 320u); // the inner window raised the outer one
    arena.release(mark);
    EXPECT_EQ(arena.end_window(outer), 320u);
    EXPECT_EQ(arena.peak(), 1152u); // the overall peak is the old one
    arena.allocate(2048);
    EXPECT_EQ(arena.peak(), 128u + 2048u);
}

TEST(MemoryMeasured, ShallowAndResidualRowsMatchTheAnalyticModel)
{
    for (ModelKind kind : {ModelKind::Gcn, ModelKind::Sage, ModelKind::Res})
        for (bool directed : {false, true}) {
            ModelConfig c = small_config(kind, 3);
            c.directed = directed;
            expect_measured_matches_analytic(c);
        }
}

TEST(MemoryMeasured, ReversibleRowsMatchTheAnalyticModel)
{
    for (ModelKind kind : {ModelKind::Rev, ModelKind::Gsr})
        for (bool stored : {false, true}) {
            ModelConfig c = small_config(kind, 4);
            c.store_activations = stored;
            expect_measured_matches_analytic(c);
        }
}

TEST(MemoryMeasured, ReversibleLayersAreFlatInDepth)
{
    for (ModelKind kind : {ModelKind::Rev, ModelKind::Gsr}) {
        const MemoryReport shallow = one_step(small_config(kind, 2)).report;
        const MemoryReport deep = one_step(small_config(kind, 9)).report;
        ASSERT_EQ(deep.measured_layers.size(), 9u + 2u);
        const LayerMemory& first = deep.measured_layers[1];
        EXPECT_EQ(first.activation_bytes, 0u); // nothing kept: recomputed by inversion
        for (std::size_t i = 1; i + 1 < deep.measured_layers.size(); ++i) {
            const LayerMemory& m = deep.measured_layers[i];
            EXPECT_EQ(m.activation_bytes, first.activation_bytes) << m.name;
            EXPECT_EQ(m.workspace_bytes, first.workspace_bytes) << m.name;
        }
        // And the same as a shallow stack's: the depth adds parameters, not memory per layer.
        EXPECT_EQ(shallow.measured_layers[1].workspace_bytes, first.workspace_bytes);
        EXPECT_EQ(shallow.measured_layers[1].activation_bytes, first.activation_bytes);
    }
    // Stored activations: one N x D block per layer, the same at every depth.
    ModelConfig c = small_config(ModelKind::Rev, 5);
    c.store_activations = true;
    const MemoryReport stored = one_step(c).report;
    const std::size_t block = Arena::align_up(150 * 16 * 4);
    for (std::size_t i = 1; i + 1 < stored.measured_layers.size(); ++i)
        EXPECT_EQ(stored.measured_layers[i].activation_bytes, block);
}

TEST(MemoryMeasured, ResidualWorkspaceIsTheAnalyticPerLayerBound)
{
    // A residual layer's transient memory is the conv backward's slabs or aggregate gradient:
    // each row stays within its own analytic workspace, not just the largest.
    const MemoryReport r = one_step(small_config(ModelKind::Res, 3)).report;
    for (std::size_t i = 0; i < r.layers.size(); ++i)
        EXPECT_LE(r.measured_layers[i].workspace_bytes, r.layers[i].workspace_bytes)
            << r.layers[i].name;
}

TEST(MemoryMeasured, EvalPassesAndRebindingKeepTheRowsHonest)
{
    const GraphInput g = random_graph(150, 5, 11);
    const GraphInput other = random_graph(90, 5, 12);
    std::vector<float> targets(g.node_count, 0.25f);
    const std::vector<std::uint32_t> nodes = {0, 3, 7};
    Model model(small_config(ModelKind::Gsr, 3), g.feature_count);
    model.bind_graph(g);
    model.predict(); // eval only: not a training step
    EXPECT_TRUE(model.measured_layers().empty());
    model.train_step(nodes, targets, LossKind::MeanSquaredError);
    const std::vector<LayerMemory> after_step = model.measured_layers();
    ASSERT_FALSE(after_step.empty());
    model.predict();
    model.evaluate(nodes, targets, LossKind::MeanSquaredError);
    ASSERT_EQ(model.measured_layers().size(), after_step.size());
    for (std::size_t i = 0; i < after_step.size(); ++i)
        EXPECT_EQ(model.measured_layers()[i].workspace_bytes, after_step[i].workspace_bytes);
    model.bind_graph(other); // another graph: the rows were for the old one
    EXPECT_TRUE(model.memory_report().measured_layers.empty());
}

TEST(MemoryMeasured, JsonCarriesTheMeasuredRows)
{
    const MemoryReport r = one_step(small_config(ModelKind::Res, 2)).report;
    const ModelConfig c = small_config(ModelKind::Res, 2);
    const auto j = nlohmann::json::parse(memory_report_json(c, GraphShape{150, 0, 5}, r));
    ASSERT_EQ(j["measured_rows"].size(), r.measured_layers.size());
    ASSERT_EQ(j["rows"].size(), r.layers.size()); // the analytic rows stay as they were
    for (std::size_t i = 0; i < r.measured_layers.size(); ++i) {
        EXPECT_EQ(j["measured_rows"][i]["name"], r.measured_layers[i].name);
        EXPECT_EQ(j["measured_rows"][i]["workspace_bytes"], r.measured_layers[i].workspace_bytes);
        EXPECT_EQ(j["measured_rows"][i]["activation_bytes"],
                  r.measured_layers[i].activation_bytes);
    }
    const std::vector<LayerMemory> back = measured_rows_from_json(j["measured_rows"]);
    ASSERT_EQ(back.size(), r.measured_layers.size());
    EXPECT_EQ(back[1].workspace_bytes, r.measured_layers[1].workspace_bytes);
    EXPECT_EQ(back.back().parameter_bytes, r.measured_layers.back().parameter_bytes);
    // An unmeasured report writes no measured key (stored runs read as before).
    MemoryReport unmeasured = r;
    unmeasured.measured_layers.clear();
    const auto plain = nlohmann::json::parse(memory_report_json(c, GraphShape{150, 0, 5},
                                                                unmeasured));
    EXPECT_FALSE(plain.contains("measured_rows"));
    EXPECT_EQ(plain["rows"], j["rows"]);
}

TEST(MemoryMeasured, MergeKeepsTheRowWiseHighWater)
{
    std::vector<LayerMemory> into;
    LayerMemory a;
    a.name = "layer 0";
    a.activation_bytes = 640;
    a.workspace_bytes = 128;
    merge_measured_layers(into, {a});
    ASSERT_EQ(into.size(), 1u);
    EXPECT_EQ(into[0].activation_bytes, 640u);
    LayerMemory b = a;
    b.activation_bytes = 320;
    b.workspace_bytes = 1024;
    merge_measured_layers(into, {b});
    EXPECT_EQ(into[0].activation_bytes, 640u);
    EXPECT_EQ(into[0].workspace_bytes, 1024u);
    merge_measured_layers(into, {}); // nothing measured: unchanged
    EXPECT_EQ(into[0].workspace_bytes, 1024u);
    merge_measured_layers(into, {b, b}); // another model: replaced
    EXPECT_EQ(into.size(), 2u);
    EXPECT_EQ(into[0].activation_bytes, 320u);
}
