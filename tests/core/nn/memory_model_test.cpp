// The analytic memory model: depth-independent activations for rev and gsr, linear growth for
// res, the compressed top-k format, and agreement with the arena's measured high-water mark.
#include "nn/model.hpp"
#include "nn_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

using namespace gsr::nn;
using namespace gsr::nn::testing;

namespace {

ModelConfig config(ModelKind kind, std::uint32_t layers)
{
    ModelConfig c;
    c.kind = kind;
    c.layers = layers;
    c.hidden = 64;
    c.groups = 4;
    c.topk = 4;
    return c;
}

// A circuit of the size of a mid-size benchmark: 100k cells, 2.5 pins per cell.
const GraphShape kCircuit{100000, 250000, 16};

} // namespace

TEST(MemoryModel, ReversiblePeakBarelyGrowsWithDepth)
{
    for (ModelKind kind : {ModelKind::Rev, ModelKind::Gsr}) {
        const auto shallow = estimate_memory(config(kind, 16), kCircuit);
        const auto deep = estimate_memory(config(kind, 256), kCircuit);
        const double ratio = double(deep.analytic_peak_bytes) / shallow.analytic_peak_bytes;
        std::printf("[memory] %s peak L=16 %zu B, L=256 %zu B, ratio %.3f\n",
                    std::string(model_kind_name(kind)).c_str(), shallow.analytic_peak_bytes,
                    deep.analytic_peak_bytes, ratio);
        EXPECT_LE(ratio, 1.2);
        // What does grow is the parameter state, not the activations.
        EXPECT_EQ(deep.activation_bytes, shallow.activation_bytes);
        EXPECT_EQ(deep.max_workspace_bytes, shallow.max_workspace_bytes);
    }
}

TEST(MemoryModel, ResidualPeakGrowsLinearlyWithDepth)
{
    const auto p16 = estimate_memory(config(ModelKind::Res, 16), kCircuit).analytic_peak_bytes;
    const auto p32 = estimate_memory(config(ModelKind::Res, 32), kCircuit).analytic_peak_bytes;
    const auto p64 = estimate_memory(config(ModelKind::Res, 64), kCircuit).analytic_peak_bytes;
    const auto p256 = estimate_memory(config(ModelKind::Res, 256), kCircuit).analytic_peak_bytes;
    EXPECT_EQ(p64 - p32, 2 * (p32 - p16));
    EXPECT_EQ(p256 - p64, 6 * (p64 - p32));
    // Per layer at least the input, the activation and the aggregate, N x D floats each.
    EXPECT_GE((p32 - p16) / 16, 3 * kCircuit.nodes * 64 * 4);
    const auto rev256 = estimate_memory(config(ModelKind::Rev, 256), kCircuit);
    std::printf("[memory] res L=256 %zu B vs rev L=256 %zu B: %.1f%% less\n", p256,
                rev256.analytic_peak_bytes,
                100.0 * (1.0 - double(rev256.analytic_peak_bytes) / p256));
    EXPECT_LT(rev256.analytic_peak_bytes * 10, p256);
}

TEST(MemoryModel, GsrKeepsTopkCompressedAtFiveBytesPerEntry)
{
    const ModelConfig c = config(ModelKind::Gsr, 8);
    const auto r = estimate_memory(c, kCircuit);
    const std::size_t n = kCircuit.nodes, k = c.topk, d = c.hidden / c.groups;
    for (const auto& layer : r.layers) {
        if (layer.name.rfind("layer", 0) != 0) continue;
        EXPECT_EQ(layer.compressed_bytes, n * k * (4 + 1)) << layer.name; // N k (value + uint8)
    }
    // Against rev (dense ReLU): rev's block scratch is [S z | z], into which its backward
    // writes dz; gsr's is S z, the compressed activation and the N x k gradient of its values
    // (its backward's gather scratch is S z's rows). Both add the same reduction slabs: the
    // dense N x d activation is traded for N k (4 + 1) bytes and N k gradient floats.
    const auto dense = estimate_memory(config(ModelKind::Rev, 8), kCircuit);
    const std::size_t gsr_ws = r.layers[1].workspace_bytes;
    const std::size_t rev_ws = dense.layers[1].workspace_bytes;
    EXPECT_EQ(rev_ws - gsr_ws, n * d * 4 - (n * k * 5 + n * k * 4));
}

TEST(MemoryModel, MeasuredPeakMatchesTheAnalyticModel)
{
    const GraphInput g = random_graph(640, 6, 3);
    std::vector<float> targets(g.node_count, 0.5f);
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t v = 0; v < g.node_count; v += 3) nodes.push_back(v);
    struct Case {
        ModelKind kind;
        std::uint32_t groups;
        bool offload;
    };
    const Case cases[] = {{ModelKind::Gcn, 4, false}, {ModelKind::Sage, 4, false},
                          {ModelKind::Res, 4, true},  {ModelKind::Rev, 4, false},
                          {ModelKind::Rev, 2, true},  {ModelKind::Gsr, 4, true},
                          {ModelKind::Gsr, 2, false}, {ModelKind::Gsr, 2, true}};
    for (const Case& k : cases)
        for (bool directed : {false, true}) {
            const ModelKind kind = k.kind;
            ModelConfig c = config(kind, 6);
            c.hidden = 32;
            c.groups = k.groups;
            c.offload_optimizer = k.offload;
            c.directed = directed;
            c.dropout = 0.1;
            c.threads = 2;
            Model model(c, g.feature_count);
            model.bind_graph(g);
            model.train_step(nodes, targets, LossKind::MeanSquaredError);
            model.predict();
            const MemoryReport r = model.memory_report();
            std::printf("[memory] %-4s C=%u %-10s %-8s measured %8zu B analytic %8zu B "
                        "(%.1f%%)\n",
                        std::string(model_kind_name(kind)).c_str(), k.groups,
                        directed ? "directed" : "undirected", k.offload ? "offload" : "",
                        r.measured_peak_bytes,
                        r.analytic_peak_bytes,
                        100.0 * double(r.measured_peak_bytes) / r.analytic_peak_bytes);
            EXPECT_LE(r.measured_peak_bytes, r.analytic_peak_bytes);
            EXPECT_GE(r.measured_peak_bytes, r.analytic_peak_bytes * 95 / 100);
        }
}

TEST(MemoryModel, RevMeasuredPeakIsIndependentOfDepth)
{
    const GraphInput g = random_graph(300, 4, 5);
    std::vector<float> targets(g.node_count, 0.0f);
    std::vector<std::uint32_t> nodes = {1, 2, 3};
    std::size_t activations[2];
    int i = 0;
    for (std::uint32_t layers : {4u, 64u}) {
        ModelConfig c = config(ModelKind::Gsr, layers);
        c.hidden = 16;
        Model model(c, g.feature_count);
        model.bind_graph(g);
        model.train_step(nodes, targets, LossKind::MeanSquaredError);
        const MemoryReport r = model.memory_report();
        activations[i++] = r.measured_peak_bytes - 4 * r.parameter_bytes;
    }
    EXPECT_EQ(activations[0], activations[1]);
}

TEST(MemoryModel, TwoGroupsWorkOnViewsOfTheStreamAndTheHeadKeepsNothing)
{
    // With C = 2, Y_0 is X_2 itself: the block scratch loses its two N x d buffers (Y_0 and
    // its gradient), which C = 4 of the same width still needs.
    ModelConfig two = config(ModelKind::Gsr, 8), four = two;
    two.hidden = 32;
    two.groups = 2;
    four.hidden = 64;
    four.groups = 4;
    const auto r2 = estimate_memory(two, kCircuit), r4 = estimate_memory(four, kCircuit);
    const std::size_t n = kCircuit.nodes, block_d = 16 * 4;
    EXPECT_EQ(r4.layers[1].workspace_bytes - r2.layers[1].workspace_bytes, 2 * n * block_d);
    // The head recomputes its LayerNorm and ReLU in the backward pass: no kept activations
    // at all for rev and gsr, and a quarter of the graph's rows at a time.
    for (const auto* r : {&r2, &r4}) {
        EXPECT_EQ(r->layers.back().activation_bytes, 0u);
        EXPECT_EQ(r->activation_bytes, 0u);
    }
    EXPECT_EQ(head_chunk_rows(100000), 25000u);
    EXPECT_EQ(head_chunk_rows(5), 2u);
    EXPECT_EQ(head_chunk_rows(3), 1u);
}

TEST(MemoryModel, OffloadedOptimizerLeavesFourBytesPerParameterInTheArena)
{
    // The GPU configuration: hyp, D = 128, C = 2, k = d/4.
    const GraphShape hyp{214591, 857340, 16};
    ModelConfig c = config(ModelKind::Gsr, 112);
    c.hidden = 128;
    c.groups = 2;
    c.topk = 16;
    const auto plain = estimate_memory(c, hyp);
    c.offload_optimizer = true;
    const auto off = estimate_memory(c, hyp);
    EXPECT_EQ(off.host_bytes, 3 * off.parameter_bytes);
    EXPECT_EQ(plain.analytic_peak_bytes - off.analytic_peak_bytes, off.host_bytes);
    EXPECT_EQ(plain.host_bytes, 0u);
    // Depth then costs only the weights: L = 448 within 1.1x of L = 112 (16 bytes per
    // parameter in the arena would make it 1.2x).
    c.layers = 448;
    const auto deep = estimate_memory(c, hyp);
    const double ratio = double(deep.analytic_peak_bytes) / off.analytic_peak_bytes;
    std::printf("[memory] gsr hyp offloaded: L=112 %zu B, L=448 %zu B, ratio %.3f\n",
                off.analytic_peak_bytes, deep.analytic_peak_bytes, ratio);
    EXPECT_LE(ratio, 1.1);
    EXPECT_EQ(deep.analytic_peak_bytes - off.analytic_peak_bytes,
              deep.parameter_bytes - off.parameter_bytes);
}

TEST(MemoryModel, OffloadedOptimizerTrainsBitForBitTheSame)
{
    const GraphInput g = random_graph(400, 5, 9);
    std::vector<float> targets(g.node_count);
    for (std::size_t v = 0; v < targets.size(); ++v) targets[v] = float(v % 7) / 7.0f;
    std::vector<std::uint32_t> nodes;
    for (std::uint32_t v = 0; v < g.node_count; v += 2) nodes.push_back(v);
    ModelConfig c = config(ModelKind::Gsr, 6);
    c.hidden = 32;
    c.groups = 2;
    c.threads = 2;
    Model a(c, g.feature_count);
    c.offload_optimizer = true;
    Model b(c, g.feature_count);
    a.bind_graph(g);
    b.bind_graph(g);
    for (int step = 0; step < 4; ++step)
        EXPECT_EQ(a.train_step(nodes, targets, LossKind::MeanSquaredError),
                  b.train_step(nodes, targets, LossKind::MeanSquaredError))
            << "step " << step;
    EXPECT_EQ(a.predict(), b.predict());
    EXPECT_EQ(a.save_state(), b.save_state());
    const auto ra = a.memory_report(), rb = b.memory_report();
    EXPECT_EQ(ra.measured_peak_bytes - rb.measured_peak_bytes, 3 * ra.parameter_bytes);
}

TEST(MemoryModel, JsonHasOneRowPerLayerAndThePeak)
{
    ModelConfig c = config(ModelKind::Gsr, 5);
    const GraphShape shape{1000, 2500, 16};
    const auto r = estimate_memory(c, shape);
    const auto j = nlohmann::json::parse(memory_report_json(c, shape, r));
    ASSERT_EQ(j["rows"].size(), 5u + 2u); // encoder, 5 layers, head
    EXPECT_EQ(j["rows"][1]["name"], "layer 0");
    EXPECT_EQ(j["rows"][1]["compressed_bytes"], 1000u * 4u * 5u);
    EXPECT_EQ(j["analytic_peak_bytes"], r.analytic_peak_bytes);
    EXPECT_EQ(j["parameter_count"], r.parameter_count);
}

TEST(MemoryModel, AStepPastTwoToThe58BytesIsRefusedNotWrapped)
{
    // res, D 4096, 2^32 - 1 nodes: at L 100000 the sum passed 2^64 and came out smaller than
    // at L 80000.
    ModelConfig c = config(ModelKind::Res, 100000);
    c.hidden = 4096;
    const GraphShape huge{0xFFFFFFFFull, 0, 16};
    try {
        estimate_memory(c, huge);
        ADD_FAILURE() << "a step of more than 2^64 bytes was estimated";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("more than 2^58 bytes"), std::string::npos) << e.message();
    }
    // A hyp-sized deep model is far from the bound.
    ModelConfig g = config(ModelKind::Gsr, 448);
    g.hidden = 128;
    g.groups = 2;
    g.topk = 16;
    EXPECT_NO_THROW(estimate_memory(g, GraphShape{214591, 428670, 16}));
    // The head's chunks in 64 bits: (2^32 - 1 + 3) / 4 wrapped to 0 before.
    EXPECT_EQ(head_chunk_rows(0xFFFFFFFFu), 0x40000000u);
    EXPECT_EQ(head_chunk_rows(10), 3u);
}
