// `gsr memory`: the analytic memory of one training step of a GNN on a graph of a given size,
// layer by layer (parameters, gradients, Adam moments, kept activations, workspace) and the peak.
#include "cli_commands.hpp"

#include "nn/memory_model.hpp"
#include "util/diagnostics.hpp"

#include <charconv>
#include <cstdio>
#include <iostream>

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
}

} // namespace

int cmd_memory(const std::vector<std::string>& args)
{
    const Args a(args,
                 {"--model", "--layers", "--hidden", "--groups", "--topk", "--nodes", "--edges",
                  "--features", "--dropout", "--precision"},
                 {"--json", "--directed", "--help"});
    if (a.has("--help")) {
        std::cout << "usage: gsr memory --model gcn|sage|res|rev|gsr --layers L --hidden D\n"
                     "         [--groups C] [--topk K] --nodes N --edges E [--features F]\n"
                     "         [--directed] [--dropout P] [--precision f32|f64] [--json]\n"
                     "Analytic memory of one training step, per layer, and its peak.\n";
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
    c.layers = std::uint32_t(a.integer("--layers", c.layers, 1, 100000));
    c.hidden = std::uint32_t(a.integer("--hidden", c.hidden, 1, 1u << 20));
    c.groups = std::uint32_t(a.integer("--groups", c.groups, 1, 1u << 20));
    c.topk = std::uint32_t(a.integer("--topk", c.topk, 1, 1u << 20));
    c.directed = a.has("--directed");
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
    if (a.has("--json"))
        std::cout << nn::memory_report_json(c, shape, report) << '\n';
    else
        print_table(c, shape, report);
    return 0;
}

} // namespace gsr::cli
