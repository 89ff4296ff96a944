#pragma once
// A netlist's undirected graph on the device as the mean aggregation the probes gather over
// (S = D^-1 A: row scale 1 / degree, column scale 1), and S^T over the same arrays with the
// scales swapped; a reversible block's group function on it as training launches it. Links
// gsr_core (see each probe's header).
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"

#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_support.cuh"

struct MeanAggregation {
    gsr::gpu::kernels::CsrRef<float> s, st;
    std::uint32_t n = 0;
};

inline MeanAggregation upload_mean_aggregation(const char* file)
{
    const auto circuit = gsr::netlist::load_netlist(file);
    const auto cg = gsr::graph::build_graph(circuit);
    const gsr::community::WeightedGraph g = gsr::community::project_undirected(cg, nullptr);
    const std::uint32_t n = std::uint32_t(g.node_count());
    std::printf("graph %s: %u nodes, %zu entries\n", file, n, g.entry_count());
    std::vector<float> rs(n), cs(n, 1.f);
    for (std::uint32_t i = 0; i < n; ++i) rs[i] = g.degree(i) ? 1.f / float(g.degree(i)) : 0.f;
    std::vector<std::uint32_t> targets(g.targets.begin(), g.targets.end());
    std::uint64_t* d_off;
    std::uint32_t* d_tgt;
    float *d_rs, *d_cs;
    CK(cudaMalloc(&d_off, g.offsets.size() * 8));
    CK(cudaMalloc(&d_tgt, targets.size() * 4));
    CK(cudaMalloc(&d_rs, n * 4));
    CK(cudaMalloc(&d_cs, n * 4));
    CK(cudaMemcpy(d_off, g.offsets.data(), g.offsets.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tgt, targets.data(), targets.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_rs, rs.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_cs, cs.data(), n * 4, cudaMemcpyHostToDevice));
    return {{d_off, d_tgt, d_rs, d_cs, n, false}, {d_off, d_tgt, d_cs, d_rs, n, false}, n};
}

/// W_root (64 x 64) copied to `wr` in shared memory by the whole block, as aggregate_products
/// does; returns wr.
template <class I>
__device__ inline float* stage_root_weights(const gsr::gpu::kernels::GemmEpilogue<I>& ep,
                                            float* wr)
{
    for (std::uint32_t i = threadIdx.x; i < ep.wroot.rows * 64; i += blockDim.x)
        wr[i] = ep.wroot(i / 64, i % 64);
    __syncthreads();
    return wr;
}

/// A reversible block's group function at d 64, k 16 (uint8 columns) over n rows, as training
/// launches it: the select + product (normalize_topk_pack_lanes<4, uint8, true, true>:
/// statistics, kept entries and u = Z W, rows from the last down; from row 0 up before session
/// 20), then the aggregation (aggregate_products<16, 1, uint8>) with the
/// recomputation's epilogue (y = y - f in place, on the grid). Random weights and operands.
struct GroupFunctionKernels {
    using I = std::uint8_t;
    static constexpr int kD = 64, kK = 16, kLanes = 4;
    std::uint32_t n;
    Buf u, vals, stats, w, wroot, bias, gamma, beta;
    I* idx = nullptr;
    unsigned* counters = device_counters();
    std::size_t select_shared = gsr::gpu::kernels::topk_product_shared_bytes(kD, kK, kLanes);
    std::size_t agg_shared = kD * kD * 4;
    unsigned select_blocks = 0, agg_blocks = 0;

    static auto select_kernel()
    {
        return gsr::gpu::kernels::normalize_topk_pack_lanes<kLanes, I, true, true>;
    }
    static auto aggregate_kernel() { return gsr::gpu::kernels::aggregate_products<16, 1, I>; }

    GroupFunctionKernels(std::uint32_t rows, std::mt19937& rng) : n(rows)
    {
        const std::size_t nd = std::size_t(n) * kD, nk = std::size_t(n) * kK;
        u = dev_random(nd, rng, 1.f);
        vals = dev_random(nk, rng, 1.f);
        stats = dev_random(2 * std::size_t(n), rng, 1.f);
        w = dev_random(kD * kD, rng, 0.125f);
        wroot = dev_random(kD * kD, rng, 0.125f);
        bias = dev_random(kD, rng, 0.1f);
        gamma = dev_random(kD, rng, 0.1f);
        beta = dev_random(kD, rng, 0.1f);
        fill_near_one(gamma, rng);
        CK(cudaMalloc(&idx, nk));
        const int sms = sm_count();
        select_blocks = resident_grid(select_kernel(), select_shared, n, 64, sms);
        agg_blocks = resident_grid(aggregate_kernel(), agg_shared, n, 16, sms);
    }
    /// The recomputation's epilogue on y, in place.
    gsr::gpu::kernels::GemmEpilogue<I> epilogue(const Buf& y) const
    {
        gsr::gpu::kernels::GemmEpilogue<I> ep;
        ep.bias = bias.p;
        ep.values = vals.mat(n, kK);
        ep.idx = idx;
        ep.wroot = wroot.mat(kD, kD);
        ep.vector_root = true;
        ep.residual = y.mat(n, kD);
        ep.sign = -1.f;
        ep.quantum = 0x1p-16f;
        ep.inverse = 65536.f;
        ep.streaming = true;
        return ep;
    }
    void select(const Buf& x) const
    {
        const float quantile = 0.6744898f; // normal quantile of 1 - 16 / 64
        select_kernel()<<<select_blocks, 256, select_shared>>>(
            x.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, stats.mat(n, 2),
            vals.mat(n, kK), idx, w.mat(kD, kD), u.mat(n, kD));
    }
    void aggregate(gsr::gpu::kernels::CsrRef<float> s, gsr::gpu::kernels::GemmEpilogue<I> ep,
                   gsr::gpu::kernels::MatRef<float> y) const
    {
        aggregate_kernel()<<<agg_blocks, 256, agg_shared>>>(s, s, u.mat(n, kD), ep, y, counters);
    }
    void aggregate(gsr::gpu::kernels::CsrRef<float> s, const Buf& y) const
    {
        aggregate(s, epilogue(y), y.mat(n, kD));
    }
};

/// y after one group function of training's kernels on x over s, downloaded.
inline std::vector<float> one_function(const GroupFunctionKernels& gf,
                                       const gsr::gpu::kernels::CsrRef<float>& s, const Buf& x,
                                       const Buf& y)
{
    gf.select(x);
    gf.aggregate(s, y);
    CK(cudaDeviceSynchronize());
    return download(y);
}

/// A chain of `functions` group functions (the select + product, then the aggregation into
/// ys[f % 2] from the other y) with training's aggregation, `training(y)`, against the same
/// chain with `variant(y)`, alternating (time_two_ways); prints the medians under `label`.
template <class Training, class Variant>
void compare_aggregations(const char* label, const GroupFunctionKernels& gf, int functions,
                          const Buf (&ys)[2], Training&& training, Variant&& variant)
{
    const TwoWays t = time_two_ways(functions, [&](int way, int f) {
        const Buf& y = ys[f & 1];
        gf.select(ys[(f + 1) & 1]);
        if (way == 0)
            training(y);
        else
            variant(y);
    });
    std::printf("%s: per function (select + aggregation, median of 7): aggregate_products %.4f "
                "ms, variant %.4f ms, ratio %.3fx\n",
                label, t.first[3], t.second[3], t.first[3] / t.second[3]);
}

/// Whether `variant(y)` leaves y with the bits of training's aggregation, each after one
/// select + product of x over s with y restored to y_start and u poisoned first.
template <class Variant>
bool same_aggregation(const GroupFunctionKernels& gf, const gsr::gpu::kernels::CsrRef<float>& s,
                      const Buf& x, const Buf& y, const std::vector<float>& y_start,
                      Variant&& variant)
{
    const auto output = [&](bool with_variant) {
        CK(cudaMemcpy(y.p, y_start.data(), y.n * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaMemset(gf.u.p, 0xff, gf.u.n * sizeof(float)));
        gf.select(x);
        if (with_variant)
            variant(y);
        else
            gf.aggregate(s, y);
        CK(cudaDeviceSynchronize());
        return download(y);
    };
    return same_bits(output(false), output(true));
}

/// Rows r0 .. r0 + count (count < 32) of a strip as aggregate_products<16, 1, I> sums them:
/// the strip loaded into the warp's window (wj, ww) by load_strip, a half warp a row, four
/// columns a thread, each row's neighbour sums times its row scale; then, with Conv, the
/// convolution epilogue (W_root staged at wr), or else y = S u. Every lane of the warp calls it.
/// Prefetch: first the rows of u that the window's edges gather, asked into L1
/// (prefetch.global.L1, two 128-byte lines a row), so that the second pair of rows finds them.
template <bool Conv, class I, bool Prefetch = false>
__device__ inline void sum_strip(const gsr::gpu::kernels::CsrRef<float>& s, std::size_t r0,
                                 int count, gsr::gpu::kernels::MatRef<float> u,
                                 const gsr::gpu::kernels::GemmEpilogue<I>& ep, const float* wr,
                                 gsr::gpu::kernels::MatRef<float> y, std::uint32_t* wj,
                                 float* ww)
{
    namespace k = gsr::gpu::kernels;
    const int half = (threadIdx.x & 31) >> 4;
    const std::uint32_t c0 = 4 * (threadIdx.x & 15);
    const k::Strip st = k::load_strip(s, r0, count, wj, ww);
    if constexpr (Prefetch)
        for (std::uint32_t q = threadIdx.x & 31; q < 2 * st.held; q += 32)
            asm volatile("prefetch.global.L1 [%0];" ::"l"(u.p + std::size_t(wj[q >> 1]) * u.ld +
                                                          32 * (q & 1)));
    for (int p = 0; p < count; p += 2) {
        const int i = p + half;
        const bool valid = i < count;
        const k::StripRow row = st.row(i, valid);
        float acc[4];
        k::strip_sum<4>(s, st, row, r0 + i, valid, u.p + c0, u.ld, wj, ww, acc);
        if (!valid) continue;
        for (int c = 0; c < 4; ++c) acc[c] *= row.scale;
        if (Conv)
            k::conv_epilogue4(acc, r0 + i, c0, ep, wr + c0, 64, y);
        else
            *reinterpret_cast<float4*>(y.row(r0 + i) + c0) =
                make_float4(acc[0], acc[1], acc[2], acc[3]);
    }
}

/// f(r) for each row this thread's half warp takes when half warps take their rows a wave
/// apart (aggregate_products before session 19); the thread's columns are 4 (threadIdx.x % 16)
/// onwards.
template <class F> __device__ inline void for_rows_wave_apart(std::size_t rows, F&& f)
{
    const int per_block = blockDim.x / 16;
    for (std::size_t r = blockIdx.x * std::size_t(per_block) + threadIdx.x / 16; r < rows;
         r += std::size_t(gridDim.x) * per_block)
        f(r);
}

/// What the graph probes start from: the netlist (argv[1], hyp by default) as a mean
/// aggregation, the chain's length (argv[2], 224 by default), a random generator of `seed`,
/// and random x0 and two y buffers of n x 64.
struct ProbeStart {
    MeanAggregation graph;
    int functions;
    std::mt19937 rng;
    Buf x0, ys[2];
};
inline ProbeStart probe_start(int argc, char** argv, unsigned seed)
{
    const char* file = argc > 1 ? argv[1] : ".deps/data/netlists/epfl/arithmetic/hyp_from_aig.blif";
    ProbeStart p{upload_mean_aggregation(file), argc > 2 ? std::atoi(argv[2]) : 224,
                 std::mt19937(seed), {}, {}};
    const std::size_t nd = std::size_t(p.graph.n) * 64;
    p.x0 = dev_random(nd, p.rng, 1.f);
    p.ys[0] = dev_random(nd, p.rng, 1.f);
    p.ys[1] = dev_random(nd, p.rng, 1.f);
    return p;
}

/// An aggregation kernel launched as training's aggregate_products<16, 1, uint8> (one term):
/// (s, u, the epilogue, y, the row counters).
using AggregationKernel =
    void (*)(gsr::gpu::kernels::CsrRef<float>, gsr::gpu::kernels::MatRef<float>,
             gsr::gpu::kernels::GemmEpilogue<std::uint8_t>, gsr::gpu::kernels::MatRef<float>,
             unsigned*);

/// Each variant on a grid of one wave (gf.agg_shared bytes of shared memory; with
/// `most_shared`, the carveout at its most, so that registers alone bound the blocks): its
/// bits against training's aggregation (same_aggregation), registers and local bytes, then two
/// rounds of compare_aggregations over the probe's chain.
inline void compare_aggregation_kernels(const ProbeStart& p, const GroupFunctionKernels& gf,
                                        std::initializer_list<Named<AggregationKernel>> variants,
                                        bool most_shared = false)
{
    const std::uint32_t n = gf.n;
    const gsr::gpu::kernels::CsrRef<float>& s = p.graph.s;
    const std::vector<float> y_start = download(p.ys[0]);
    for (const Named<AggregationKernel>& a : variants) {
        if (most_shared)
            CK(cudaFuncSetAttribute(a.kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    int(cudaSharedmemCarveoutMaxShared)));
        const unsigned blocks = resident_grid(a.kernel, gf.agg_shared, n, 16, sm_count());
        const auto variant = [&](const Buf& y) {
            a.kernel<<<blocks, 256, gf.agg_shared>>>(s, gf.u.mat(n, 64), gf.epilogue(y),
                                                     y.mat(n, 64), gf.counters);
        };
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, a.kernel));
        std::printf("%s: bits equal %d, %d regs, %zu B local, %u blocks (training's %u)\n",
                    a.name, same_aggregation(gf, s, p.x0, p.ys[0], y_start, variant), fa.numRegs,
                    std::size_t(fa.localSizeBytes), blocks, gf.agg_blocks);
        for (int round = 0; round < 2; ++round)
            compare_aggregations(a.name, gf, p.functions, p.ys,
                                 [&](const Buf& y) { gf.aggregate(s, y); }, variant);
    }
}
