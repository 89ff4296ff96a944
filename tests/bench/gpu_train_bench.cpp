// GSR-GNN training on the GPU: ms per step (forward + backward + Adam on the full graph, median
// of --steps after 2 warm-up steps) and peak device memory, for res / rev / gsr at several
// depths; and, with --kernels, every kernel of a step timed alone at the graph's shapes with its
// %SOL (minimal bytes / calibrated copy bandwidth / time). The PyTorch Geometric baseline
// (pyg_baseline.py) reads the graph that --export writes and runs in the same call
// (gpu_vs_pyg.sh runs both). With --applied FILE (the JSON of `gsr kernels apply --json`),
// every training case and the SpMM kernel figures run twice in the same process: with the
// backend's own kernels, then with the applied ones (the kernel lab's Apply), and the ratio.
// --offload runs rev and gsr again with the optimizer offloaded to host memory,
// --topk-baseline runs gsr again with the rank-counting top-k, --topk-warp-baseline with every
// top-k kernel one warp per row (the select, the backward; the unpack in two passes; the old
// name --topk-backward-baseline is kept), and --root-baseline with gemm_rows loading the
// compressed root term entry by entry (and its kernel figures), and --conv-baseline with the
// compressed forward as (S Z) W (GSR_GPU_CONV=aggregate-first; and its kernel figures), and
// --conv-backward-baseline with the compressed backward from the kept S z
// (GSR_GPU_CONV=kept-gather; and its kernel figures), and --mma-baseline with the compressed
// backward's products on the FMA pipe (GSR_GPU_MMA=off; and its kernel figures), and
// --sync-baseline with both of its products through mma.sync rather than Hopper's warpgroup
// MMA (GSR_GPU_MMA=sync; and its kernel figures), and --fuse-baseline with a reversible
// block's select and product Z W in separate kernels (GSR_GPU_FUSE=off; and its kernel
// figures), each right after the default.
// --gemm-baseline runs every case (and the kernel figures) again with every GEMM through
// cuBLAS, the baseline of the fused tall-narrow GEMM. --order renumbers the graph first
// (Leiden communities contiguous, or reverse Cuthill-McKee); --export then writes it so.
//
//   gsr_bench_gpu [--quick] [--file F] [--models res,rev,gsr] [--layers 8,32,112,448]
//                 [--hidden D] [--groups C] [--steps N] [--export DIR] [--kernels]
//                 [--applied FILE] [--offload] [--order community|rcm|original]
//                 [--topk-baseline] [--topk-warp-baseline]
//                 [--root-baseline] [--conv-baseline] [--conv-backward-baseline]
//                 [--mma-baseline] [--sync-baseline] [--fuse-baseline] [--gemm-baseline]
#include "bench_support.hpp"
#include "community/community_detection.hpp"
#include "community/node_order.hpp"
#include "cuda_backend.hpp"
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"
#include "nn/graph_operators.hpp"
#include "nn/model.hpp"
#include "train/commrand_batcher.hpp"
#include "tune/applied_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

using namespace gsr;
using bench::Clock;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

template <class T> void write_raw(const std::filesystem::path& p, const std::vector<T>& v)
{
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(T)));
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');) out.push_back(part);
    return out;
}

/// The graph renumbered for locality (`--order`, as `gsr train --order`): Community puts each
/// Leiden community (resolution 1, seed 1) at every level in a run of consecutive ids, Rcm is
/// reverse Cuthill-McKee, Original keeps the file's order. Prints the mean edge span.
nn::GraphInput reordered(const graph::CircuitGraph& cg, nn::GraphInput g, train::NodeOrderKind kind)
{
    const auto t0 = Clock::now();
    const community::WeightedGraph w = community::project_undirected(cg);
    const community::NodeOrder original = community::original_order(g.node_count);
    community::NodeOrder order;
    switch (kind) {
    case train::NodeOrderKind::Original: order = original; break;
    case train::NodeOrderKind::Community:
        order = community::community_order(*community::detect_communities(w, {}));
        break;
    case train::NodeOrderKind::Rcm: order = community::rcm_order(w); break;
    }
    std::printf("order %s: mean edge span %.0f ids (original %.0f), made in %.1f s\n",
                std::string(train::node_order_name(kind)).c_str(),
                community::mean_edge_span(w, order), community::mean_edge_span(w, original),
                bench::seconds_since(t0));
    if (kind != train::NodeOrderKind::Original) train::reorder_input(g, order);
    return g;
}

/// A smooth deterministic regression target from the features (every node in the loss).
std::vector<float> labels_of(const nn::GraphInput& g)
{
    std::vector<float> labels(g.node_count);
    for (std::size_t v = 0; v < g.node_count; ++v) {
        double s = 0.0;
        for (std::size_t c = 0; c < g.feature_count; ++c)
            s += (c % 3 == 0 ? 1.0 : -0.5) * g.features[v * g.feature_count + c];
        labels[v] = float(std::tanh(s));
    }
    return labels;
}

/// How a step runs besides the model: applied kernels (empty: the backend's own), the
/// optimizer offloaded to host memory, the rank-counting top-k (the radix select's baseline,
/// through the backend's GSR_GPU_TOPK switch), the top-k kernels one warp per row and the
/// unpack as a fill then a scatter (GSR_GPU_TOPK=warp, the baseline of the kernels that give a
/// row a few threads), every GEMM through cuBLAS
/// (gemm_rows's baseline, GSR_GPU_GEMM), or gemm_rows loading the compressed root term's kept
/// entries one at a time (GSR_GPU_GEMM=scalar-root), or the compressed forward as (S Z) W
/// (GSR_GPU_CONV=aggregate-first), or the compressed backward from the kept S z
/// (GSR_GPU_CONV=kept-gather), or its products on the FMA pipe (GSR_GPU_MMA=off), or its
/// products through mma.sync instead of the warpgroup MMA (GSR_GPU_MMA=sync), or a reversible
/// block's select and product Z W in separate kernels (GSR_GPU_FUSE=off).
struct Variant {
    std::vector<nn::TunedKernel> tuned;
    bool offload = false;
    bool rank_topk = false;
    bool warp_topk = false;
    bool cublas_gemm = false;
    bool scalar_root = false;
    bool aggregate_first = false;
    bool kept_gather = false;
    bool fma_only = false;
    bool mma_sync = false;
    bool unfused = false;
    std::string tag() const
    {
        std::string t = "ours";
        if (!tuned.empty()) t += "+applied";
        if (offload) t += "+offload";
        if (rank_topk) t += "+rankcount";
        if (warp_topk) t += "+warptopk";
        if (cublas_gemm) t += "+cublasgemm";
        if (scalar_root) t += "+scalarroot";
        if (aggregate_first) t += "+aggregatefirst";
        if (kept_gather) t += "+keptgather";
        if (fma_only) t += "+fmaonly";
        if (mma_sync) t += "+mmasync";
        if (unfused) t += "+unfused";
        return t;
    }
};

/// A fresh float32 CUDA backend for `v`.
std::unique_ptr<nn::Backend> backend_with(const Variant& v)
{
    if (v.rank_topk) ::setenv("GSR_GPU_TOPK", "rank", 1);
    if (v.warp_topk) ::setenv("GSR_GPU_TOPK", "warp", 1);
    if (v.cublas_gemm) ::setenv("GSR_GPU_GEMM", "cublas", 1);
    if (v.scalar_root) ::setenv("GSR_GPU_GEMM", "scalar-root", 1);
    if (v.aggregate_first) ::setenv("GSR_GPU_CONV", "aggregate-first", 1);
    if (v.kept_gather) ::setenv("GSR_GPU_CONV", "kept-gather", 1);
    if (v.fma_only) ::setenv("GSR_GPU_MMA", "off", 1);
    if (v.mma_sync) ::setenv("GSR_GPU_MMA", "sync", 1);
    if (v.unfused) ::setenv("GSR_GPU_FUSE", "off", 1);
    auto be = gpu::make_cuda_backend(nn::Precision::Float32);
    ::unsetenv("GSR_GPU_TOPK");
    ::unsetenv("GSR_GPU_GEMM");
    ::unsetenv("GSR_GPU_CONV");
    ::unsetenv("GSR_GPU_MMA");
    ::unsetenv("GSR_GPU_FUSE");
    for (const std::string& note : be->use_tuned_kernels(v.tuned))
        std::printf("tuned: %s\n", note.c_str());
    return be;
}

/// Median ms per step, or a negative value after printing the error.
double train_steps(const nn::GraphInput& g, const std::vector<float>& labels,
                   const std::string& model, std::uint32_t layers, std::uint32_t hidden,
                   std::uint32_t groups, int steps, const Variant& variant = {})
{
    nn::ModelConfig cfg;
    cfg.kind = nn::parse_model_kind(model);
    cfg.layers = layers;
    cfg.hidden = hidden;
    cfg.groups = cfg.kind == nn::ModelKind::Res ? 4 : groups;
    cfg.topk = hidden / groups / 4; // k = d/4
    cfg.offload_optimizer = variant.offload;
    nn::validate(cfg);
    std::vector<std::uint32_t> nodes(g.node_count);
    std::iota(nodes.begin(), nodes.end(), 0u);
    try {
        nn::Model m(cfg, g.feature_count, {}, backend_with(variant));
        m.bind_graph(g);
        std::vector<double> ms;
        double first = 0, last = 0;
        for (int s = 0; s < steps + 2; ++s) {
            const auto t0 = Clock::now();
            const double loss = m.train_step(nodes, labels, nn::LossKind::MeanSquaredError);
            const double t = bench::seconds_since(t0) * 1e3;
            if (s == 0) first = loss;
            last = loss;
            if (s >= 2) ms.push_back(t);
        }
        std::printf("RESULT %s model=%s L=%u D=%u C=%u k=%u ms_per_step=%.3f "
                    "min=%.3f peak_arena_bytes=%zu peak_with_workspace_bytes=%zu "
                    "host_bytes=%zu loss_first=%.6g loss_last=%.6g tuned_launches=%llu\n",
                    variant.tag().c_str(), model.c_str(), layers, hidden, cfg.groups,
                    cfg.topk, median(ms), *std::min_element(ms.begin(), ms.end()),
                    m.measured_peak_bytes(),
                    m.measured_peak_bytes() + gpu::kWorkspaceBytes + gpu::kCublasWorkspaceBytes +
                        gpu::kCounterBytes,
                    m.memory_report().host_bytes, first, last,
                    (unsigned long long)m.backend().tuned_launches());
        std::fflush(stdout);
        return median(ms);
    } catch (const Error& e) {
        std::printf("RESULT %s model=%s L=%u error=\"%s\"\n", variant.tag().c_str(),
                    model.c_str(), layers, e.message().c_str());
    }
    std::fflush(stdout);
    return -1;
}

/// A copy of `m` (float32) on backend `to`: the same inputs for a baseline backend.
nn::DeviceMatrix copy_to(const nn::Backend& from, nn::Backend& to, nn::DeviceMatrix m)
{
    std::vector<float> v(m.size());
    from.download(m, std::span<float>(v));
    const nn::DeviceMatrix c = to.alloc_matrix(m.rows, m.cols);
    to.upload(c, std::span<const float>(v));
    return c;
}

/// Times `op` (already warm) over `reps` runs; returns milliseconds per run.
double time_op(nn::Backend& be, const std::function<void()>& op, int reps = 20)
{
    for (int i = 0; i < 3; ++i) op();
    gpu::synchronize(be);
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) op();
    gpu::synchronize(be);
    return bench::seconds_since(t0) * 1e3 / reps;
}

void kernel_figures(const nn::GraphInput& g, const std::vector<nn::TunedKernel>& tuned,
                    const Variant& variant = {})
{
    using nn::DeviceMatrix;
    // Calibrated once, so every variant's %SOL has the same denominator (a second
    // calibration in the same process has read 14 % lower).
    static const double bw = gpu::measure_copy_bandwidth();
    const nn::GpuStatus st = gpu::probe();
    std::printf("device %s: copy bandwidth %.0f GB/s (read + write); kernels of %s\n",
                st.name.c_str(), bw / 1e9, variant.tag().c_str());
    auto be = backend_with(variant);
    be->reserve(std::size_t(3) << 30);
    // The applied kernels on a second backend sharing nothing with the first: its SpMM rows
    // are timed right after the built-in ones, on the same operator and shapes.
    std::unique_ptr<nn::Backend> tb = tuned.empty() ? nullptr : backend_with({tuned});
    if (tb) tb->reserve(std::size_t(1) << 30);
    const nn::AggregationOperators tops =
        tb ? nn::upload_aggregation(*tb, g, nn::Normalisation::Mean, false)
           : nn::AggregationOperators{};
    const nn::AggregationOperators ops =
        nn::upload_aggregation(*be, g, nn::Normalisation::Mean, false);
    const nn::DeviceGraph& s = ops.op[0];
    const double n = double(g.node_count), e = double(s.pattern.nnz);
    const std::uint32_t N = std::uint32_t(g.node_count), D = 128, d = 64, k = 16;
    const double csr = 8 * (n + 1) + 4 * e + 8 * n; // offsets, targets, two scales
    auto random_matrix = [&](std::uint32_t rows, std::uint32_t cols) {
        const DeviceMatrix m = be->alloc_matrix(rows, cols);
        std::vector<float> v(m.size());
        std::uint64_t x = 88172645463325252ull;
        for (float& f : v) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            f = float(double(x >> 11) * 0x1.0p-53 * 2 - 1);
        }
        be->upload(m, std::span<const float>(v));
        return m;
    };
    const DeviceMatrix x128 = random_matrix(N, D), y128 = random_matrix(N, D);
    const DeviceMatrix x64 = random_matrix(N, d), y64 = random_matrix(N, d);
    const DeviceMatrix agg = random_matrix(N, d), res = random_matrix(N, d);
    const DeviceMatrix gamma = random_matrix(1, d), beta = random_matrix(1, d);
    const DeviceMatrix gamma128 = random_matrix(1, D), beta128 = random_matrix(1, D);
    const DeviceMatrix stats = random_matrix(N, 2), dx = random_matrix(N, d);
    const DeviceMatrix w = random_matrix(d, d), wr = random_matrix(d, d), b = random_matrix(1, d);
    const DeviceMatrix gw = random_matrix(d, d), gwr = random_matrix(d, d), gb = random_matrix(1, d);
    nn::CompressedRows z{be->alloc_matrix(N, k), be->alloc_bytes(std::size_t(N) * k), d, 1};
    be->normalize_topk_pack(x64, gamma, beta, {}, stats, z);
    const DeviceMatrix dv = random_matrix(N, k);
    nn::SageConvWeights cw;
    cw.graph[0] = &s;
    cw.terms = 1;
    cw.neighbour[0] = w;
    cw.root = wr;
    cw.bias = b;
    nn::SageConvWeights cg = cw;
    cg.neighbour[0] = gw;
    cg.root = gwr;
    cg.bias = gb;
    const std::size_t params = 10'000'000;
    const DeviceMatrix p = random_matrix(params, 1), pg = random_matrix(params, 1);
    const DeviceMatrix pm = random_matrix(params, 1), pv = random_matrix(params, 1);
    be->fill(pv, 0.5);

    struct Row {
        std::string name;
        double ms, bytes, flops;
    };
    std::vector<Row> rows;
    auto add = [&](std::string name, double bytes, double flops, const std::function<void()>& f) {
        rows.push_back({std::move(name), time_op(*be, f), bytes, flops});
    };
    add("spmm mean-aggregation N x 128", csr + 4 * n * D * 2, 2 * e * D,
        [&] { be->spmm(s, nn::Transpose::No, 1.0, x128, 0.0, y128); });
    add("spmm mean-aggregation N x 64", csr + 4 * n * d * 2, 2 * e * d,
        [&] { be->spmm(s, nn::Transpose::No, 1.0, x64, 0.0, y64); });
    add("spmm transposed N x 64 (backward)", csr + 4 * n * d * 3, 2 * e * d,
        [&] { be->spmm(s, nn::Transpose::Yes, 1.0, x64, 1.0, y64); });
    if (tb) {
        const DeviceMatrix tx = tb->alloc_matrix(N, d), ty = tb->alloc_matrix(N, d);
        tb->fill(tx, 0.25);
        const nn::DeviceGraph& ts = tops.op[0];
        rows.push_back({"spmm mean-aggregation N x 64 (applied)",
                        time_op(*tb, [&] { tb->spmm(ts, nn::Transpose::No, 1.0, tx, 0.0, ty); }),
                        csr + 4 * n * d * 2, 2 * e * d});
        rows.push_back({"spmm transposed N x 64 (backward, applied)",
                        time_op(*tb, [&] { tb->spmm(ts, nn::Transpose::Yes, 1.0, tx, 1.0, ty); }),
                        csr + 4 * n * d * 3, 2 * e * d});
        std::printf("applied SpMM launches: %llu\n", (unsigned long long)tb->tuned_launches());
    }
    add("layernorm forward N x 128", 4 * n * D * 2 + 8 * n, 0,
        [&] { be->layernorm_forward(x128, gamma128, beta128, y128, stats); });
    add("normalize + top-k + pack N x 64, k 16", 4 * n * d + 5 * n * k + 8 * n, 0,
        [&] { be->normalize_topk_pack(x64, gamma, beta, {}, stats, z); });
    {
        // The rank-counting baseline on a second backend, same shapes and inputs.
        Variant rank;
        rank.rank_topk = true;
        auto rb = backend_with(rank);
        rb->reserve(std::size_t(512) << 20);
        const DeviceMatrix rx = copy_to(*be, *rb, x64), rs = rb->alloc_matrix(N, 2);
        const DeviceMatrix rg = copy_to(*be, *rb, gamma), rbeta = copy_to(*be, *rb, beta);
        nn::CompressedRows rz{rb->alloc_matrix(N, k), rb->alloc_bytes(std::size_t(N) * k), d, 1};
        rows.push_back({"normalize + top-k + pack N x 64, k 16 (rank counting)",
                        time_op(*rb, [&] { rb->normalize_topk_pack(rx, rg, rbeta, {}, rs, rz); }),
                        4 * n * d + 5 * n * k + 8 * n, 0});
    }
    add("normalize + top-k backward N x 64, k 16", 4 * n * d * 2 + 5 * n * k + 8 * n, 0,
        [&] { be->normalize_topk_backward(x64, gamma, stats, z, dv, {}, 0.0, dx, gb, gb); });
    {
        // The one-warp-per-row baselines on a second backend (GSR_GPU_TOPK=warp), same inputs.
        Variant warp;
        warp.warp_topk = true;
        auto wb = backend_with(warp);
        wb->reserve(std::size_t(512) << 20);
        const auto copy = [&](DeviceMatrix m) { return copy_to(*be, *wb, m); };
        std::vector<std::uint8_t> raw(z.indices.bytes);
        be->download_bytes(z.indices, raw.data(), raw.size());
        nn::CompressedRows wz{copy(z.values), wb->alloc_bytes(raw.size()), d, 1};
        wb->upload_bytes(wz.indices, raw.data(), raw.size());
        const DeviceMatrix wx = copy(x64), wg = copy(gamma), ws = copy(stats), wv = copy(dv);
        const DeviceMatrix wdx = copy(dx), wgb = copy(gb);
        rows.push_back({"normalize + top-k backward N x 64, k 16 (one warp per row)",
                        time_op(*wb, [&] {
                            wb->normalize_topk_backward(wx, wg, ws, wz, wv, {}, 0.0, wdx, wgb,
                                                        wgb);
                        }),
                        4 * n * d * 2 + 5 * n * k + 8 * n, 0});
        const DeviceMatrix wbeta = copy(beta), wstats = wb->alloc_matrix(N, 2);
        nn::CompressedRows wout{wb->alloc_matrix(N, k), wb->alloc_bytes(raw.size()), d, 1};
        rows.push_back({"normalize + top-k + pack N x 64, k 16 (one warp per row)",
                        time_op(*wb, [&] {
                            wb->normalize_topk_pack(wx, wg, wbeta, {}, wstats, wout);
                        }),
                        4 * n * d + 5 * n * k + 8 * n, 0});
    }
    add("layernorm + relu forward N x 64 (fused)", 4 * n * d * 2 + 8 * n, 0,
        [&] { be->layernorm_relu_forward(x64, gamma, beta, {}, y64, stats); });
    add("relu + layernorm backward N x 64 (fused)", 4 * n * d * 4 + 8 * n, 0, [&] {
        be->relu_layernorm_backward(x64, gamma, stats, y64, 1.0, agg, 0.0, dx, gb, gb);
    });
    {
        // The one-warp-per-row kernels, side by side: rows of ld 65 are not 16-byte aligned,
        // so the four-column kernels do not take them.
        const DeviceMatrix wide = random_matrix(N, d + 1), wide_y = random_matrix(N, d + 1);
        const DeviceMatrix wide_dx = random_matrix(N, d + 1), wide_g = random_matrix(N, d + 1);
        const DeviceMatrix ux = wide.columns(1, d), uy = wide_y.columns(1, d);
        const DeviceMatrix udx = wide_dx.columns(1, d), ug = wide_g.columns(1, d);
        add("layernorm + relu forward N x 64 (one warp per row)", 4 * n * d * 2 + 8 * n, 0,
            [&] { be->layernorm_relu_forward(ux, gamma, beta, {}, uy, stats); });
        add("relu + layernorm backward N x 64 (one warp per row)", 4 * n * d * 4 + 8 * n, 0,
            [&] { be->relu_layernorm_backward(ux, gamma, stats, uy, 1.0, ug, 0.0, udx, gb, gb); });
    }
    add("relu forward N x 128", 4 * n * D * 2, 0,
        [&] { be->relu_forward(x128, {}, y128); });
    add("conv forward dense d 64 (+root, residual)", csr + 4 * n * d * 4, 2 * e * d + 4 * n * d * d,
        [&] { be->sage_conv_forward(cw, x64, {res, 1.0, 0x1p-16}, y64, agg); });
    add("conv forward compressed d 64 k 16 (+root, residual)",
        csr + 5 * n * k + 4 * n * d * 3, 2 * e * k + 2 * n * d * d + 2 * n * k * d,
        [&] { be->sage_conv_forward(cw, z, {res, 1.0, 0x1p-16}, y64, agg); });
    add("conv forward compressed d 64 k 16, S z not kept", csr + 5 * n * k + 4 * n * d * 2,
        2 * e * d + 4 * n * k * d,
        [&] { be->sage_conv_forward_transient(cw, z, {res, 1.0, 0x1p-16}, y64, agg); });
    // Both of a reversible block's group-function passes: x in, the statistics and the kept
    // entries out, then the transient convolution (the product Z W in the select's kernel
    // unless GSR_GPU_FUSE=off). Minimal bytes: x, the residual and the CSR read, the
    // statistics, the kept entries and y written.
    add("normalize + top-k + conv forward compressed d 64 k 16, S z not kept",
        csr + 4 * n * d * 3 + 5 * n * k + 8 * n, 2 * e * d + 4 * n * k * d, [&] {
            be->normalize_topk_conv_transient(x64, gamma, beta, {}, stats, z, cw,
                                              {res, 1.0, 0x1p-16}, y64, agg);
        });
    add("conv backward dense d 64", csr + 4 * n * d * 4, 2 * e * d + 8 * n * d * d,
        [&] { be->sage_conv_backward(cw, cg, x64, agg, y64, 0.0, dx); });
    // From S^T dy (the default): the whole rows of dy gathered, then k rows of the weights
    // per row for each of dW and dz; S z not read.
    add("conv backward compressed d 64 k 16", csr + 4 * n * d + 5 * n * k + 4 * n * k,
        2 * e * d + 8 * n * k * d,
        [&] { be->sage_conv_backward(cw, cg, z, agg, y64, dv); });
    {
        // The layout training uses: [S z | z] in the same rows, so that one GEMM takes the
        // neighbour and root terms (and one slab GEMM both weight gradients).
        const DeviceMatrix joined = random_matrix(N, 2 * d);
        const DeviceMatrix jz = joined.columns(d, d), jagg = joined.columns(0, d);
        add("conv forward dense d 64, [S z | z] joined", csr + 4 * n * d * 4,
            2 * e * d + 4 * n * d * d,
            [&] { be->sage_conv_forward(cw, jz, {res, 1.0, 0x1p-16}, y64, jagg); });
        add("conv backward dense d 64, [S z | z] joined", csr + 4 * n * d * 4,
            2 * e * d + 8 * n * d * d,
            [&] { be->sage_conv_backward(cw, cg, jz, jagg, y64, 0.0, dx); });
    }
    add("gemm N x 64 x 64", 4 * n * d * 2, 2 * n * d * d,
        [&] { be->gemm(nn::Transpose::No, nn::Transpose::No, 1.0, x64, w, 0.0, y64); });
    add("gemm 64 x 64 over N rows (weight gradient)", 4 * n * d * 2, 2 * n * d * d,
        [&] { be->gemm(nn::Transpose::Yes, nn::Transpose::No, 1.0, x64, y64, 1.0, gw); });
    add("column sums N x 64", 4 * n * d, 0, [&] { be->column_sums(x64, 1.0, gb); });
    add("adam 10M parameters", 28.0 * params, 0, [&] {
        be->adam_step(p, pg, pm, pv, {1e-3, 0.9, 0.999, 1e-8, 0.0, 3});
    });
    std::printf("%-52s %9s %11s %7s %9s\n", "kernel (hyp shapes, float32)", "ms", "min MB",
                "%SOL", "TFLOP/s");
    // A variant's rows carry its tag past "ours": KERNEL[+keptgather] and so on.
    const std::string tag = variant.tag();
    const std::string mark = tag == "ours" ? "" : "[" + tag.substr(4) + "]";
    for (const Row& r : rows)
        std::printf("KERNEL%s %-45s %9.4f %11.1f %6.1f%% %9.2f\n", mark.c_str(),
                    r.name.c_str(), r.ms,
                    r.bytes / 1e6, 100.0 * (r.bytes / bw) / (r.ms * 1e-3),
                    r.flops / (r.ms * 1e-3) / 1e12);
}

} // namespace

int main(int argc, char** argv)
{
    std::string file = std::string(GSR_DATA_DIR) + "/netlists/epfl/arithmetic/hyp_from_aig.blif";
    std::string export_dir;
    std::vector<std::string> models = {"res", "rev", "gsr"};
    std::vector<std::uint32_t> layers = {8, 32, 112, 448};
    std::uint32_t hidden = 128, groups = 2;
    int steps = 5;
    bool kernels = false, quick = false, offload = false, gemm_baseline = false;
    // The baselines gsr runs again, right after the default, and those whose kernel figures
    // come again too.
    std::vector<Variant> gsr_baselines, kernel_baselines;
    const auto baseline = [](bool Variant::*flag) {
        Variant v;
        v.*flag = true;
        return v;
    };
    std::string applied_file;
    train::NodeOrderKind order = train::NodeOrderKind::Original;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--quick")
            quick = true;
        else if (a == "--file")
            file = next();
        else if (a == "--export")
            export_dir = next();
        else if (a == "--models")
            models = split(next());
        else if (a == "--layers") {
            layers.clear();
            for (const auto& l : split(next())) layers.push_back(std::uint32_t(std::stoul(l)));
        } else if (a == "--hidden")
            hidden = std::uint32_t(std::stoul(next()));
        else if (a == "--groups")
            groups = std::uint32_t(std::stoul(next()));
        else if (a == "--steps")
            steps = std::stoi(next());
        else if (a == "--kernels")
            kernels = true;
        else if (a == "--gemm-baseline")
            gemm_baseline = true;
        else if (a == "--applied")
            applied_file = next();
        else if (a == "--offload")
            offload = true;
        else if (a == "--order") {
            try {
                order = train::parse_node_order(next());
            } catch (const Error& e) {
                std::fprintf(stderr, "gsr_bench_gpu: %s\n", e.what());
                return 1;
            }
        }
        else if (a == "--topk-baseline")
            gsr_baselines.push_back(baseline(&Variant::rank_topk));
        else if (a == "--topk-warp-baseline" || a == "--topk-backward-baseline")
            gsr_baselines.push_back(baseline(&Variant::warp_topk));
        else if (a == "--root-baseline" || a == "--conv-baseline" ||
                 a == "--conv-backward-baseline" || a == "--mma-baseline" ||
                 a == "--sync-baseline" || a == "--fuse-baseline") {
            const Variant v = baseline(a == "--root-baseline"   ? &Variant::scalar_root
                                       : a == "--conv-baseline" ? &Variant::aggregate_first
                                       : a == "--mma-baseline"  ? &Variant::fma_only
                                       : a == "--sync-baseline" ? &Variant::mma_sync
                                       : a == "--fuse-baseline" ? &Variant::unfused
                                                                : &Variant::kept_gather);
            gsr_baselines.push_back(v);
            kernel_baselines.push_back(v);
        }
        else {
            std::fprintf(stderr, "usage: gsr_bench_gpu [--quick] [--file F] [--models LIST] "
                                 "[--layers LIST] [--hidden D] [--groups C] [--steps N] "
                                 "[--export DIR] [--kernels] [--applied FILE] [--offload] "
                                 "[--order community|rcm|original] "
                                 "[--topk-baseline] [--topk-warp-baseline] "
                                 "[--root-baseline] [--conv-baseline] "
                                 "[--conv-backward-baseline] [--mma-baseline] [--sync-baseline] "
                                 "[--fuse-baseline] [--gemm-baseline]\n");
            return 1;
        }
    }
    const nn::GpuStatus st = gpu::probe();
    if (!st.available) {
        std::printf("gsr_bench_gpu: skipped: %s\n", st.reason.c_str());
        return 0;
    }
    if (quick) {
        file = std::string(GSR_DATA_DIR) + "/netlists/itc99/b14.bench";
        layers = {4};
        steps = 2;
    }
    try {
        const auto t0 = Clock::now();
        const graph::CircuitGraph cg = graph::build_graph(netlist::load_netlist(file));
        const nn::GraphInput g = reordered(cg, nn::GraphInput::from_circuit(cg), order);
        g.check();
        const std::vector<float> labels = labels_of(g);
        std::printf("graph %s: N=%zu fan-in edges=%zu (undirected operator nnz %zu) F=%zu, "
                    "loaded in %.1f s; device %s\n",
                    std::filesystem::path(file).filename().c_str(), g.node_count, g.edge_count(),
                    2 * g.edge_count(), g.feature_count, bench::seconds_since(t0),
                    st.name.c_str());
        if (!export_dir.empty()) {
            const std::filesystem::path dir(export_dir);
            std::filesystem::create_directories(dir);
            write_raw(dir / "offsets.u64", g.fanin_offsets);
            write_raw(dir / "targets.u32", g.fanin_targets);
            write_raw(dir / "features.f32", g.features);
            write_raw(dir / "labels.f32", labels);
            std::ofstream j(dir / "meta.json");
            j << "{\"nodes\": " << g.node_count << ", \"edges\": " << g.edge_count()
              << ", \"features\": " << g.feature_count << "}\n";
        }
        std::vector<nn::TunedKernel> tuned;
        if (!applied_file.empty()) {
            std::ifstream in(applied_file);
            if (!in) throw Error(applied_file + ": cannot be read");
            nlohmann::json j = nlohmann::json::parse(in);
            if (j.is_object()) j = j.at("applied");
            std::vector<std::string> skipped;
            tuned = tune::tuned_kernels(tune::applied_from_json(j), &skipped);
            for (const std::string& n : skipped) std::printf("tuned: %s\n", n.c_str());
            if (tuned.empty()) throw Error(applied_file + ": no kernel the backend can run");
        }
        Variant cublas;
        cublas.cublas_gemm = true;
        if (kernels) kernel_figures(g, tuned);
        if (kernels && gemm_baseline) kernel_figures(g, {}, cublas);
        if (kernels)
            for (const Variant& v : kernel_baselines) kernel_figures(g, {}, v);
        for (const std::string& m : models)
            for (std::uint32_t l : layers) {
                if (m == "res" && l > 112) continue; // 448 activations do not fit in 80 GB
                const double own = train_steps(g, labels, m, l, hidden, groups, steps);
                // The same case again with one thing changed, right after the default.
                auto again = [&](const Variant& v) {
                    const double t = train_steps(g, labels, m, l, hidden, groups, steps, v);
                    if (own > 0 && t > 0)
                        std::printf("RESULT variant=%s model=%s L=%u default_ms=%.3f "
                                    "variant_ms=%.3f default_over_variant=%.3f\n",
                                    v.tag().c_str(), m.c_str(), l, own, t, own / t);
                };
                if (offload && (m == "rev" || m == "gsr")) {
                    Variant v;
                    v.offload = true;
                    again(v);
                }
                if (gemm_baseline) again(cublas);
                if (m == "gsr")
                    for (const Variant& v : gsr_baselines) again(v);
                if (tuned.empty()) continue;
                const double fast = train_steps(g, labels, m, l, hidden, groups, steps, {tuned});
                if (own > 0 && fast > 0)
                    std::printf("RESULT applied model=%s L=%u own_ms=%.3f applied_ms=%.3f "
                                "speedup=%.3f\n",
                                m.c_str(), l, own, fast, own / fast);
            }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gsr_bench_gpu: %s\n", e.what());
        return 1;
    }
    return 0;
}
