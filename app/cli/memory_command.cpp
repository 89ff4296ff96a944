// `gsr memory`: the analytic memory of one training step of a GNN on a graph of a given size,
// layer by layer (parameters, gradients, Adam moments, kept activations, workspace) and the peak.
// With --measure it also runs one CPU training step on a synthetic graph of that shape and
// reports what the arena handed out per layer (nn::Model::measured_layers) and its peak.
#include "cli_commands.hpp"

#include "nn/cpu_backend.hpp"
#include "nn/memory_model.hpp"
#include "nn/model.hpp"
#include "nn/model_config.hpp"
#include "util/diagnostics.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <new>
#include <numeric>

namespace gsr::cli {

namespace {

std::string human_bytes(std::size_t b)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(b);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
    return buf;
}

void print_table(const nn::ModelConfig& c, const nn::GraphShape& shape,
                 const nn::MemoryReport& r)
{
    std::printf("%s: %u layers, hidden %u", std::string(nn::model_kind_name(c.kind)).c_str(),
                c.layers, c.hidden);
    if (nn::group_count(c) > 1) std::printf(", %u groups of %u", nn::group_count(c),
                                            nn::group_width(c));
    if (c.kind == nn::ModelKind::Gsr) std::printf(", top-%u", c.topk);
    std::printf("; graph %zu nodes, %zu edges, %zu features; %zu parameters\n", shape.nodes,
                shape.edges, shape.features, r.parameter_count);
    const bool topk = c.kind == nn::ModelKind::Gsr;
    std::printf("%-12s %14s %14s %14s %14s %14s%s\n", "layer", "parameters", "gradients",
                "adam", "activations", "workspace", topk ? "   compressed" : "");
    for (const auto& m : r.layers) {
        std::printf("%-12s %14zu %14zu %14zu %14zu %14zu", m.name.c_str(), m.parameter_bytes,
                    m.gradient_bytes, m.optimizer_bytes, m.activation_bytes, m.workspace_bytes);
        if (topk) std::printf(" %12zu", m.compressed_bytes);
        std::printf("\n");
    }
    std::printf("graph %s, shared buffers %s, kept activations %s, largest workspace %s\n",
                human_bytes(r.graph_bytes).c_str(), human_bytes(r.buffer_bytes).c_str(),
                human_bytes(r.activation_bytes).c_str(),
                human_bytes(r.max_workspace_bytes).c_str());
    std::printf("peak %zu bytes (%s)\n", r.analytic_peak_bytes,
                human_bytes(r.analytic_peak_bytes).c_str());
    if (r.host_bytes)
        std::printf("offloaded to pinned host memory (gradients, Adam moments): %s\n",
                    human_bytes(r.host_bytes).c_str());
    if (r.measured_layers.empty()) return;
    std::printf("measured, one CPU training step on a synthetic graph of this shape:\n");
    for (const auto& m : r.measured_layers)
        std::printf("%-12s %14zu %14zu %14zu %14zu %14zu\n", m.name.c_str(), m.parameter_bytes,
                    m.gradient_bytes, m.optimizer_bytes, m.activation_bytes, m.workspace_bytes);
    std::printf("measured peak %zu bytes (%s)\n", r.measured_peak_bytes,
                human_bytes(r.measured_peak_bytes).c_str());
}

/// A graph of exactly `shape`: node v > 0 gets an even share of the edges, its drivers spread
/// over the nodes before it by a fixed stride; features are a fixed pseudo-random pattern. The
/// memory of a step depends on the sizes only, so any such graph measures the same.
nn::GraphInput synthetic_graph(const nn::GraphShape& shape)
{
    nn::GraphInput g;
    g.node_count = shape.nodes;
    g.feature_count = shape.features;
    g.fanin_offsets.assign(shape.nodes + 1, 0);
    g.fanin_targets.reserve(shape.edges);
    const std::size_t sinks = shape.nodes - 1;
    for (std::size_t v = 1; v < shape.nodes; ++v) {
        const std::size_t count = shape.edges / sinks + (v - 1 < shape.edges % sinks ? 1 : 0);
        for (std::size_t i = 0; i < count; ++i)
            g.fanin_targets.push_back(std::uint32_t((v * 7 + i * 13) % v));
        g.fanin_offsets[v + 1] = g.fanin_targets.size();
    }
    g.features.resize(shape.nodes * shape.features);
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (float& f : g.features) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        f = float(double(x >> 40) / double(1ull << 24)) * 2.0f - 1.0f;
    }
    return g;
}

/// One training step of `c` on a synthetic graph of `shape`: the model's report, measured.
nn::MemoryReport measure_step(const nn::ModelConfig& c, const nn::GraphShape& shape)
{
    if (shape.nodes < 2 && shape.edges > 0)
        throw UsageError("--measure: edges need at least 2 nodes");
    const nn::GraphInput g = synthetic_graph(shape);
    nn::Model model(c, g.feature_count);
    model.bind_graph(g);
    std::vector<std::uint32_t> nodes(g.node_count);
    std::iota(nodes.begin(), nodes.end(), 0u);
    const std::vector<float> targets(g.node_count, 0.0f);
    model.train_step(nodes, targets, nn::LossKind::MeanSquaredError);
    return model.memory_report();
}

} // namespace

int cmd_memory(const std::vector<std::string>& args)
{
    const Args a(args,
                 {"--model", "--layers", "--hidden", "--groups", "--topk", "--nodes", "--edges",
                  "--features", "--dropout", "--precision"},
                 {"--json", "--directed", "--measure", "--offload-optimizer", "--help"});
    if (a.has("--help")) {
        std::cout << "usage: gsr memory --model gcn|sage|res|rev|gsr [--layers L (16)]\n"
                     "         [--hidden D (64)]"
                     " [--groups C] [--topk K] --nodes N --edges E [--features F]\n"
                     "         [--directed] [--dropout P] [--precision f32|f64] [--json]\n"
                     "         [--measure] [--offload-optimizer]\n"
                     "Analytic memory of one training step, per layer, and its peak.\n"
                     "--measure also runs one CPU training step on a synthetic graph of that\n"
                     "shape and reports the memory measured per layer and the measured peak.\n"
                     "--offload-optimizer: gradients and Adam moments in pinned host memory,\n"
                     "outside the device peak.\n";
        return 0;
    }
    if (!a.positionals().empty())
        throw UsageError("memory takes no file, got '" + a.positionals().front() + "'");
    for (const char* required : {"--model", "--nodes", "--edges"})
        if (!a.has(required)) throw UsageError(std::string("memory needs ") + required);

    nn::ModelConfig c;
    nn::GraphShape shape;
    try {
        c.kind = nn::parse_model_kind(a.value("--model"));
    } catch (const Error& e) {
        throw UsageError(e.message());
    }
    refuse_model_flags(a, c.kind == nn::ModelKind::Rev || c.kind == nn::ModelKind::Gsr,
                       c.kind == nn::ModelKind::Gsr, std::string(nn::model_kind_name(c.kind)));
    c.layers = std::uint32_t(a.integer("--layers", c.layers, 1, 100000));
    // The engine's limits, as train reads them: one flag, one range in every message.
    c.hidden = std::uint32_t(a.integer("--hidden", c.hidden, 1, nn::kCpuMaxWidth));
    c.groups = std::uint32_t(a.integer("--groups", c.groups, 2, 65536)); // rev and gsr only
    refuse_hidden_for_default_groups(
        a, c.hidden, c.groups, c.kind == nn::ModelKind::Rev || c.kind == nn::ModelKind::Gsr);
    c.topk =
        std::uint32_t(a.integer("--topk", nn::default_topk(c.hidden, c.groups), 1, 1u << 20));
    c.directed = a.has("--directed");
    c.offload_optimizer = a.has("--offload-optimizer");
    shape.nodes = a.integer("--nodes", 0, 1, 0xFFFFFFFFull);
    shape.edges = a.integer("--edges", 0, 0, 1ull << 40);
    shape.features = a.integer("--features", 16, 1, 1u << 20);
    if (a.has("--dropout")) {
        const std::string v = a.value("--dropout");
        double p = 0.0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), p);
        if (ec != std::errc{} || end != v.data() + v.size())
            throw UsageError("--dropout expects a number in [0, 1), got '" + v + "'");
        c.dropout = p;
    }
    const std::string precision = a.value("--precision", "f32");
    if (precision == "f64") c.precision = nn::Precision::Float64;
    else if (precision != "f32")
        throw UsageError("--precision: allowed f32 or f64, got '" + precision + "'");

    nn::MemoryReport report;
    try {
        report = nn::estimate_memory(c, shape);
    } catch (const Error& e) {
        throw UsageError(e.message()); // an impossible configuration is a command-line mistake
    }
    if (a.has("--measure")) {
        try {
            report = measure_step(c, shape);
        } catch (const std::bad_alloc&) {
            throw UsageError("--measure: the step needs " +
                             human_bytes(report.analytic_peak_bytes) +
                             " (the analytic peak), more than this machine gives; leave "
                             "--measure out for the analytic figures alone");
        }
    }
    if (a.has("--json"))
        std::cout << nn::memory_report_json(c, shape, report) << '\n';
    else
        print_table(c, shape, report);
    return 0;
}

} // namespace gsr::cli
