#include "nn/memory_model.hpp"

#include "nn/arena.hpp"
#include "nn/backend.hpp"
#include "nn/cpu_backend.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace gsr::nn {

namespace {

// Every figure here mirrors an allocation that Model makes (model.cpp, bind_graph and the
// scoped scratch of the passes) or that a CPU backend op makes for itself.
struct Sizes {
    std::size_t n, e, f, d_model, width, groups, terms, k, t, layers;
    std::size_t slabs;
    bool deep, reversible, topk;

    std::size_t a(std::size_t bytes) const { return Arena::align_up(bytes); }
    std::size_t matrix(std::size_t rows, std::size_t cols) const { return a(rows * cols * t); }
    /// A CPU SAGE/GCN convolution backward over `w`-wide rows: weight-gradient slabs, bias
    /// slabs, then the N x w gradient of the aggregation.
    std::size_t conv_backward(std::size_t w) const
    {
        return std::max(conv_weight_backward(w), matrix(n, w));
    }
    /// Its weight-gradient part alone: the backward over the joined input [S z | z] writes
    /// the input gradient into that matrix (Backend::sage_conv_backward_joined).
    std::size_t conv_weight_backward(std::size_t w) const
    {
        return std::max(a(slabs * w * w * t), a(slabs * w * t));
    }
    std::size_t norm_backward(std::size_t w) const { return a(slabs * 2 * w * t); }
};

std::size_t parameters_per_layer(const ModelConfig& c, const Sizes& s)
{
    const std::size_t dd = s.d_model * s.d_model;
    switch (c.kind) {
    case ModelKind::Gcn: return s.terms * dd + s.d_model;
    case ModelKind::Sage: return s.terms * dd + dd + s.d_model;
    case ModelKind::Res: return 2 * s.d_model + s.terms * dd + dd + s.d_model;
    case ModelKind::Rev:
    case ModelKind::Gsr: {
        const std::size_t w = s.width;
        return s.groups * (2 * w + s.terms * w * w + w * w + w);
    }
    }
    return 0;
}

} // namespace

MemoryReport estimate_memory(const ModelConfig& c, const GraphShape& shape)
{
    validate(c);
    Sizes s{};
    s.n = shape.nodes;
    s.e = shape.edges;
    s.f = shape.features;
    s.d_model = c.hidden;
    s.groups = group_count(c);
    s.width = group_width(c);
    s.terms = c.directed ? 2 : 1;
    s.k = c.kind == ModelKind::Gsr ? c.topk : 0;
    s.t = c.precision == Precision::Float64 ? 8 : 4;
    s.layers = c.layers;
    s.slabs = cpu_slab_count(s.n);
    s.reversible = c.kind == ModelKind::Rev || c.kind == ModelKind::Gsr;
    s.deep = s.reversible || c.kind == ModelKind::Res;
    s.topk = c.kind == ModelKind::Gsr;
    const std::size_t n = s.n, D = s.d_model, w = s.width;
    // The figures below are sums of products in 64 bits. A generous bound first (every layer
    // keeping a handful of N x D matrices, the parameters and edges several times over) in
    // floating point: past 2^58 bytes a step is refused rather than its size wrapped around
    // to a small number (N 2^32 - 1, D 4096 and L 100000 did).
    const double t = double(s.t), layers = double(s.layers) + 4;
    const double bound = 8 * t * double(n) * double(D + s.f + 2) * layers +
                         8 * t * layers * double(D) * double(D) * double(s.terms + 2) +
                         16 * double(s.e) * (t + 8) + 64 * t * double(s.f) * double(D);
    if (bound > 0x1p58)
        throw Error("a training step of this model on this graph would need more than 2^58 "
                    "bytes (256 PiB): fewer nodes, edges, layers or a narrower hidden width");

    MemoryReport r;
    // Parameters, gradients, Adam moments: four flat buffers.
    const std::size_t encoder_params = s.f * D + D;
    const std::size_t layer_params = parameters_per_layer(c, s);
    const std::size_t head_params = (s.deep ? 2 * D : 0) + D + 1;
    r.parameter_count = encoder_params + s.layers * layer_params + head_params;

    // Graph: the CSR operators and their scales, features, targets, node list, outputs, mask.
    if (c.directed)
        r.graph_bytes += 2 * (s.a((n + 1) * 8) + s.a(s.e * 4)) + 4 * s.matrix(n, 1);
    else
        r.graph_bytes += s.a((n + 1) * 8) + s.a(2 * s.e * 4) + 2 * s.matrix(n, 1);
    r.graph_bytes += s.matrix(n, s.f) + s.matrix(n, 1) + s.a(n * 4) + 2 * s.matrix(n, 1);
    if (c.dropout > 0.0) r.graph_bytes += s.a(n * D);

    // Buffers shared by all layers.
    r.buffer_bytes = 2 * s.matrix(n, D); // rev/gsr: H, dH; res: dH, shared dz; gcn/sage: 2 grads

    auto row = [&](std::string name, std::size_t params) {
        LayerMemory m;
        m.name = std::move(name);
        m.parameter_bytes = params * s.t;
        m.gradient_bytes = params * s.t;
        m.optimizer_bytes = 2 * params * s.t;
        return m;
    };

    LayerMemory encoder = row("encoder", encoder_params);
    if (!s.reversible) encoder.activation_bytes = s.matrix(n, D);
    encoder.workspace_bytes = std::max(s.a(s.slabs * s.f * D * s.t), s.a(s.slabs * D * s.t));
    r.layers.push_back(encoder);

    for (std::size_t l = 0; l < s.layers; ++l) {
        LayerMemory m = row("layer " + std::to_string(l), layer_params);
        switch (c.kind) {
        case ModelKind::Gcn:
        case ModelKind::Sage:
            m.activation_bytes = s.matrix(n, D) + s.matrix(n, s.terms * D);
            m.workspace_bytes = s.conv_backward(D);
            break;
        case ModelKind::Res:
            // The stored input, the statistics, then [aggregated | z] in one allocation.
            m.activation_bytes =
                s.matrix(n, D) + s.matrix(n, 2) + s.matrix(n, (s.terms + 1) * D);
            m.workspace_bytes = std::max(s.conv_backward(D), s.norm_backward(D));
            break;
        case ModelKind::Rev:
        case ModelKind::Gsr: {
            if (c.store_activations) m.activation_bytes = s.matrix(n, D);
            std::size_t scratch = s.matrix(n, 2);
            if (s.groups > 2) scratch += 2 * s.matrix(n, w); // Y_0 and its gradient
            if (s.topk) {
                const std::size_t ib = CompressedRows::index_bytes_for(std::uint32_t(w));
                scratch += s.matrix(n, s.k) + s.a(n * s.k * ib) + s.matrix(n, s.terms * w) +
                           s.matrix(n, s.k);
                m.compressed_bytes = n * s.k * (s.t + ib);
                // The compressed backward's N x d scratch is S z's allocation, read by then.
                m.workspace_bytes =
                    scratch + std::max(s.conv_weight_backward(w), s.norm_backward(w));
            } else {
                scratch += s.matrix(n, (s.terms + 1) * w); // [S z | z], dz written into it
                m.workspace_bytes =
                    scratch + std::max(s.conv_weight_backward(w), s.norm_backward(w));
            }
            break;
        }
        }
        r.layers.push_back(m);
    }

    LayerMemory head = row("head", head_params);
    if (s.deep) {
        // Chunks of rows; each recomputes its LayerNorm statistics and ReLU output, then the
        // backward adds the gradient of those and the reductions' slabs.
        const std::size_t rows = head_chunk_rows(std::uint32_t(n));
        const std::size_t slabs = cpu_slab_count(rows);
        head.workspace_bytes =
            s.matrix(rows, 2) + s.matrix(rows, D) +
            std::max({s.a(slabs * D * s.t), s.a(slabs * s.t),
                      s.matrix(rows, D) + s.a(slabs * 2 * D * s.t)});
    } else {
        head.workspace_bytes = std::max(s.a(s.slabs * D * s.t), s.a(s.slabs * s.t));
    }
    r.layers.push_back(head);

    const std::size_t flat = s.a(r.parameter_count * s.t);
    for (const LayerMemory& m : r.layers) {
        r.activation_bytes += m.activation_bytes;
        r.max_workspace_bytes = std::max(r.max_workspace_bytes, m.workspace_bytes);
    }
    r.parameter_bytes = flat;
    r.gradient_bytes = flat;
    r.optimizer_bytes = 2 * flat;
    r.host_bytes = c.offload_optimizer ? 3 * flat : 0;
    r.persistent_bytes = 4 * flat - r.host_bytes + r.graph_bytes + r.buffer_bytes +
                         r.activation_bytes;
    r.analytic_peak_bytes = r.persistent_bytes + r.max_workspace_bytes;
    return r;
}

namespace {

/// The columns every per-layer row has, analytic or measured.
nlohmann::ordered_json layer_row_json(const LayerMemory& m)
{
    nlohmann::ordered_json x;
    x["name"] = m.name;
    x["parameter_bytes"] = m.parameter_bytes;
    x["gradient_bytes"] = m.gradient_bytes;
    x["optimizer_bytes"] = m.optimizer_bytes;
    x["activation_bytes"] = m.activation_bytes;
    x["workspace_bytes"] = m.workspace_bytes;
    return x;
}

} // namespace

std::string memory_report_json(const ModelConfig& c, const GraphShape& shape,
                               const MemoryReport& r)
{
    nlohmann::ordered_json j;
    j["model"] = std::string(model_kind_name(c.kind));
    j["layers"] = c.layers;
    j["hidden"] = c.hidden;
    j["groups"] = group_count(c);
    j["group_width"] = group_width(c);
    if (c.kind == ModelKind::Gsr) j["topk"] = c.topk;
    j["directed"] = c.directed;
    j["precision"] = c.precision == Precision::Float64 ? "f64" : "f32";
    j["nodes"] = shape.nodes;
    j["edges"] = shape.edges;
    j["features"] = shape.features;
    j["parameter_count"] = r.parameter_count;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const LayerMemory& m : r.layers) {
        nlohmann::ordered_json x = layer_row_json(m);
        if (c.kind == ModelKind::Gsr) x["compressed_bytes"] = m.compressed_bytes;
        rows.push_back(x);
    }
    j["rows"] = rows;
    j["graph_bytes"] = r.graph_bytes;
    j["buffer_bytes"] = r.buffer_bytes;
    j["parameter_bytes"] = r.parameter_bytes;
    j["gradient_bytes"] = r.gradient_bytes;
    j["optimizer_bytes"] = r.optimizer_bytes;
    j["activation_bytes"] = r.activation_bytes;
    j["max_workspace_bytes"] = r.max_workspace_bytes;
    j["persistent_bytes"] = r.persistent_bytes;
    j["offload_optimizer"] = c.offload_optimizer;
    j["host_bytes"] = r.host_bytes;
    j["analytic_peak_bytes"] = r.analytic_peak_bytes;
    if (r.measured_peak_bytes) j["measured_peak_bytes"] = r.measured_peak_bytes;
    if (!r.measured_layers.empty()) j["measured_rows"] = measured_rows_json(r.measured_layers);
    return json_text(j, 2);
}

nlohmann::ordered_json measured_rows_json(const std::vector<LayerMemory>& rows)
{
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const LayerMemory& m : rows) out.push_back(layer_row_json(m));
    return out;
}

std::vector<LayerMemory> measured_rows_from_json(const nlohmann::json& rows)
{
    std::vector<LayerMemory> out;
    if (!rows.is_array()) return out;
    for (const auto& x : rows) {
        if (!x.is_object()) continue;
        LayerMemory m;
        m.name = x.value("name", std::string());
        m.parameter_bytes = x.value("parameter_bytes", std::size_t{0});
        m.gradient_bytes = x.value("gradient_bytes", std::size_t{0});
        m.optimizer_bytes = x.value("optimizer_bytes", std::size_t{0});
        m.activation_bytes = x.value("activation_bytes", std::size_t{0});
        m.workspace_bytes = x.value("workspace_bytes", std::size_t{0});
        out.push_back(std::move(m));
    }
    return out;
}

void merge_measured_layers(std::vector<LayerMemory>& into, const std::vector<LayerMemory>& from)
{
    if (from.empty()) return;
    if (into.size() != from.size()) {
        into = from;
        return;
    }
    for (std::size_t i = 0; i < from.size(); ++i) {
        LayerMemory& a = into[i];
        const LayerMemory& b = from[i];
        a.parameter_bytes = std::max(a.parameter_bytes, b.parameter_bytes);
        a.gradient_bytes = std::max(a.gradient_bytes, b.gradient_bytes);
        a.optimizer_bytes = std::max(a.optimizer_bytes, b.optimizer_bytes);
        a.activation_bytes = std::max(a.activation_bytes, b.activation_bytes);
        a.workspace_bytes = std::max(a.workspace_bytes, b.workspace_bytes);
    }
}

} // namespace gsr::nn
