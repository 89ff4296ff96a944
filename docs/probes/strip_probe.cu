// PROBE (session 19; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, k 16 (one term plus a compressed root, uint8 columns), the
// forward's aggregation as training launches it (aggregate_products<16, I>: a grid of one
// wave, warps taking four rows at a time from a counter, for_taken_rows) against other ways
// of handing out its rows: a wave apart (the kernel before session 19), taken two or eight
// at a time, and warp strips (a warp takes R consecutive rows, loads their offsets and row
// scales in one load and their edges' targets and column scales into shared memory in
// coalesced loads, then walks its rows two at a time with every gather address ready), the
// strips handed out a wave apart or from a counter. Each over all rows, then over the rows
// from 256 on (without hyp's primary inputs, about 130 neighbours each). Then the backward's
// transposed gather (spmm<float, 4>, 16 lanes a row) against strips. The same sums in the
// same order: every variant is checked to give the production kernel's bits (outputs
// poisoned). A chain of F functions (the select + product, then the aggregation), each way
// alternating, 8 rounds (the first dropped). On the device machine, after `cmake --build
// build/device --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/strip_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/strip_probe
//   /tmp/strip_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

#include <cstring>

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16, kLanes = 4;
constexpr int kWarps = 8;         ///< warps a block of 256 threads
constexpr int kWindow = 4 * 32;   ///< edges of a strip held in shared memory

/// The strip walk. Conv: y = aggregate_products' result (root term, bias, grid, sign,
/// residual from ep); otherwise y = S x (spmm with alpha 1, beta 0). Dynamic: strips taken
/// from counter[0] (zeroed again at the end, as for_taken_rows does), else a wave apart.
template <int R, int MinBlocks, bool Conv, bool Dynamic>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_strips(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                     k::MatRef<float> y, unsigned* counter)
{
    static_assert(R % 2 == 0 && R < 32, "a strip's offsets come from one warp load");
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[kWarps][kWindow];
    __shared__ float window_w[kWarps][kWindow];
    float* const wr = Conv ? stage_root_weights(ep, reinterpret_cast<float*>(probe_shared))
                           : nullptr;
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, half = lane >> 4;
    const std::uint32_t c0 = 4 * (lane & 15);
    std::uint32_t* const wj = window_j[warp];
    float* const ww = window_w[warp];
    const std::size_t n = y.rows;
    const auto take = [&]() -> std::size_t {
        unsigned t = 0;
        if (lane == 0) t = atomicAdd(counter, 1u);
        return std::size_t(__shfl_sync(0xffffffffu, t, 0)) * R;
    };
    for (std::size_t r0 = Dynamic ? take() : (blockIdx.x * std::size_t(kWarps) + warp) * R;
         r0 < n; r0 = Dynamic ? take() : r0 + std::size_t(gridDim.x) * kWarps * R) {
        const int rows = int(min(std::size_t(R), n - r0));
        const std::uint64_t off = lane <= rows ? s.offsets[r0 + lane] : 0;
        const float rs = lane < rows ? s.rs[r0 + lane] : 0.f;
        const std::uint64_t eb = __shfl_sync(kAll, off, 0);
        const std::uint64_t ee = __shfl_sync(kAll, off, rows);
        const std::uint32_t held = std::uint32_t(min(ee - eb, std::uint64_t(kWindow)));
        for (std::uint32_t q = lane; q < held; q += 32) {
            const std::uint32_t j = __ldg(s.targets + eb + q);
            wj[q] = j;
            ww[q] = __ldg(s.cs + j);
        }
        __syncwarp();
        for (int p = 0; p < rows; p += 2) {
            const int rl = p + half;
            const bool valid = rl < rows;
            const std::uint64_t b = __shfl_sync(kAll, off, valid ? rl : 0) - eb;
            const std::uint64_t end = __shfl_sync(kAll, off, valid ? rl + 1 : 0) - eb;
            const std::uint64_t e = valid ? end : b;
            const float scale = __shfl_sync(kAll, rs, valid ? rl : 0);
            const std::size_t r = r0 + rl;
            float acc[4] = {0.f, 0.f, 0.f, 0.f};
            const auto edge = [&](std::uint64_t q, std::uint32_t& j, float& w) {
                if (q < kWindow) {
                    j = wj[q], w = ww[q];
                } else {
                    j = __ldg(s.targets + eb + q);
                    w = __ldg(s.cs + j);
                }
            };
            std::uint64_t q = b;
            for (; q + k::kEdgeBatch <= e; q += k::kEdgeBatch) {
                std::uint32_t j[k::kEdgeBatch];
                float w[k::kEdgeBatch], vb[k::kEdgeBatch][4];
                for (int t = 0; t < k::kEdgeBatch; ++t) edge(q + t, j[t], w[t]);
                for (int t = 0; t < k::kEdgeBatch; ++t)
                    k::load_vec<float, 4>(u.p + c0 + j[t] * u.ld, vb[t]);
                for (int t = 0; t < k::kEdgeBatch; ++t)
                    for (int i = 0; i < 4; ++i) acc[i] += w[t] * vb[t][i];
            }
            for (; q < e; ++q) {
                std::uint32_t j;
                float w, v[4];
                edge(q, j, w);
                k::load_vec<float, 4>(u.p + c0 + j * u.ld, v);
                for (int i = 0; i < 4; ++i) acc[i] += w * v[i];
            }
            if (!valid) continue;
            for (int i = 0; i < 4; ++i) acc[i] *= scale;
            if (Conv)
                k::conv_epilogue4(acc, r, c0, ep, wr + c0, 64, y);
            else
                *reinterpret_cast<float4*>(y.row(r) + c0) =
                    make_float4(acc[0], acc[1], acc[2], acc[3]);
        }
        __syncwarp();
    }
    if (Dynamic && lane == 0 &&
        atomicAdd(counter + 1, 1u) == gridDim.x * (blockDim.x / 32) - 1) {
        counter[0] = 0;
        counter[1] = 0;
    }
}

/// The row sums and epilogue of aggregate_products<16, I> (one term).
__device__ inline void aggregate_row(const k::CsrRef<float>& s, k::MatRef<float> u,
                                     const k::GemmEpilogue<I>& ep, k::MatRef<float> y,
                                     const float* wr, std::size_t r)
{
    const std::uint32_t c0 = 4 * (threadIdx.x % 16);
    float v[4], t[4];
    k::neighbour_sum<float, 4>(s, r, u.p + c0, u.ld, t);
    for (int i = 0; i < 4; ++i) v[i] = t[i] * s.rs[r];
    k::conv_epilogue4(v, r, c0, ep, wr + c0, 64, y);
}

/// aggregate_products<16, I> with its rows handed out as before session 19: a half warp's
/// rows a wave apart.
__global__ void aggregate_interleaved(k::CsrRef<float> s, k::MatRef<float> u,
                                      k::GemmEpilogue<I> ep, k::MatRef<float> y, unsigned*)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const int per_block = blockDim.x / 16;
    for (std::size_t r = blockIdx.x * std::size_t(per_block) + threadIdx.x / 16; r < y.rows;
         r += std::size_t(gridDim.x) * per_block)
        aggregate_row(s, u, ep, y, wr, r);
}

/// aggregate_products<16, I> with Passes x 2 rows a take.
template <int Passes>
__global__ void aggregate_taken(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                                k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    k::for_taken_rows<16, Passes>(y.rows, counter,
                                  [&](std::size_t r) { aggregate_row(s, u, ep, y, wr, r); });
}

int main(int argc, char** argv)
{
    const char* file = argc > 1 ? argv[1] : ".deps/data/netlists/epfl/arithmetic/hyp_from_aig.blif";
    const int functions = argc > 2 ? std::atoi(argv[2]) : 224;
    const MeanAggregation graph = upload_mean_aggregation(file);
    const k::CsrRef<float> s = graph.s, st = graph.st;
    const std::uint32_t n = graph.n;

    std::mt19937 rng(19);
    const std::size_t nd = std::size_t(n) * kD, nk = std::size_t(n) * kK;
    Buf x0 = dev_random(nd, rng, 1.f);
    Buf ys[2] = {dev_random(nd, rng, 1.f), dev_random(nd, rng, 1.f)};
    Buf dy = dev_random(nd, rng, 0.01f), g = dev_random(nd, rng, 1.f);
    Buf u = dev_random(nd, rng, 1.f), vals = dev_random(nk, rng, 1.f);
    Buf stats = dev_random(2 * std::size_t(n), rng, 1.f);
    Buf w = dev_random(kD * kD, rng, 0.125f), wroot = dev_random(kD * kD, rng, 0.125f);
    Buf bias = dev_random(kD, rng, 0.1f), gamma = dev_random(kD, rng, 0.1f),
        beta = dev_random(kD, rng, 0.1f);
    fill_near_one(gamma, rng);
    I* idx;
    CK(cudaMalloc(&idx, nk));
    const float quantile = 0.6744898f; // normal quantile of 1 - 16 / 64
    const int sms = sm_count();
    const auto select_kernel = k::normalize_topk_pack_lanes<kLanes, I, true>;
    const std::size_t select_shared = k::topk_product_shared_bytes(kD, kK, kLanes);
    const unsigned select_blocks = resident_grid(select_kernel, select_shared, n, 64, sms);
    const auto agg_kernel = k::aggregate_products<16, I>;
    const std::size_t agg_shared = kD * kD * 4;
    const unsigned agg_blocks = resident_grid(agg_kernel, agg_shared, n, 16, sms);
    const unsigned spmm_blocks = k::blocks_for(n, 256 / 16, unsigned(sms) * 32);

    const auto epilogue = [&](const Buf& y) {
        k::GemmEpilogue<I> ep;
        ep.bias = bias.p;
        ep.values = vals.mat(n, kK);
        ep.idx = idx;
        ep.wroot = wroot.mat(kD, kD);
        ep.vector_root = true;
        ep.residual = y.mat(n, kD); // the recomputation: y = y - f, in place
        ep.sign = -1.f;
        ep.quantum = 0x1p-16f;
        ep.inverse = 65536.f;
        ep.streaming = true;
        return ep;
    };
    const auto select = [&](const Buf& x) {
        select_kernel<<<select_blocks, 256, select_shared>>>(
            x.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, stats.mat(n, 2),
            vals.mat(n, kK), idx, w.mat(kD, kD), u.mat(n, kD));
    };
    const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
    };
    const std::vector<float> y_start = download(ys[0]);
    const auto reset = [&] {
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(u.p, 0xff, nd * 4));
    };
    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                            k::MatRef<float>, unsigned*);
    unsigned* const counter = device_counters();
    // Rows from `skip` on only (skip 256: without hyp's primary inputs), both ways.
    const auto tail = [&](k::CsrRef<float> c, std::uint32_t skip) {
        c.offsets += skip, c.rs += skip, c.rows -= skip;
        return c;
    };
    const auto rows_from = [&](k::MatRef<float> m, std::uint32_t skip) {
        m.p += std::size_t(skip) * m.ld, m.rows -= skip;
        return m;
    };
    const auto epilogue_from = [&](const Buf& y, std::uint32_t skip) {
        k::GemmEpilogue<I> ep = epilogue(y);
        ep.values = rows_from(ep.values, skip);
        ep.idx += std::size_t(skip) * kK;
        ep.residual = rows_from(ep.residual, skip);
        return ep;
    };
    {
        std::vector<std::uint64_t> off(n + 1);
        CK(cudaMemcpy(off.data(), s.offsets, off.size() * 8, cudaMemcpyDeviceToHost));
        std::uint64_t top = 0, top_tail = 0;
        for (std::uint32_t r = 0; r < n; ++r)
            (r < 256 ? top : top_tail) = std::max(r < 256 ? top : top_tail, off[r + 1] - off[r]);
        std::printf("largest degree: rows 0-255 %llu, rows 256- %llu\n", (unsigned long long)top,
                    (unsigned long long)top_tail);
    }
    const Named<Kernel> aggs[] = {
        {"a wave apart (before session 19)", aggregate_interleaved},
        {"taken 2 at a time", aggregate_taken<1>},
        {"taken 8 at a time", aggregate_taken<4>},
        {"strips of 4, taken", aggregate_strips<4, 5, true, true>},
        {"strips of 8, taken", aggregate_strips<8, 5, true, true>},
        {"strips of 8, a wave apart", aggregate_strips<8, 5, true, false>}};
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    for (std::uint32_t skip : {0u, 256u}) {
        int vi = -1;
        const k::CsrRef<float> sk = tail(s, skip);
        const auto production = [&](const Buf& y) {
            agg_kernel<<<agg_blocks, 256, agg_shared>>>(sk, sk, 1, u.mat(n, kD),
                                                        epilogue_from(y, skip),
                                                        rows_from(y.mat(n, kD), skip), counter);
        };
        reset();
        select(x0);
        production(ys[0]);
        CK(cudaDeviceSynchronize());
        const auto y_ref = download(ys[0]);
        for (const Named<Kernel>& a : aggs) {
            if (only >= 0 && only != ++vi) continue;
            const unsigned blocks = resident_grid(a.kernel, agg_shared, n, 16, sms);
            const auto run = [&](const Buf& y) {
                a.kernel<<<blocks, 256, agg_shared>>>(sk, u.mat(n, kD), epilogue_from(y, skip),
                                                      rows_from(y.mat(n, kD), skip), counter);
            };
            reset();
            select(x0);
            run(ys[0]);
            CK(cudaDeviceSynchronize());
            cudaFuncAttributes fa{}, pa{};
            CK(cudaFuncGetAttributes(&fa, a.kernel));
            CK(cudaFuncGetAttributes(&pa, agg_kernel));
            std::printf("rows from %u, %s: bits equal %d, %d regs (aggregate_products %d), %u "
                        "blocks (%u)\n",
                        skip, a.name, same(y_ref, download(ys[0])), fa.numRegs, pa.numRegs,
                        blocks, agg_blocks);
            const TwoWays t = time_two_ways(functions, [&](int way, int f) {
                const Buf& y = ys[f & 1];
                select(ys[(f + 1) & 1]);
                if (way == 0)
                    production(y);
                else
                    run(y);
            });
            std::printf("rows from %u, %s: per function (select + aggregation, median of 7): "
                        "aggregate_products %.4f ms, strips %.4f ms, ratio %.3fx\n",
                        skip, a.name, t.first[3], t.second[3], t.first[3] / t.second[3]);
        }
    }

    // The transposed gather g = S^T dy alone, as the backward runs it (spmm, 16 lanes a row).
    const auto spmm = [&] {
        k::spmm<float, 4><<<spmm_blocks, 256>>>(st, 1.f, dy.mat(n, kD), 0.f, g.mat(n, kD), 16);
    };
    CK(cudaMemset(g.p, 0xff, nd * 4));
    spmm();
    CK(cudaDeviceSynchronize());
    const auto g_ref = download(g);
    const Named<Kernel> gathers[] = {
        {"gather strips of 8, taken", aggregate_strips<8, 6, false, true>},
        {"gather strips of 4, taken", aggregate_strips<4, 6, false, true>}};
    for (const Named<Kernel>& a : gathers) {
        const unsigned blocks = resident_grid(a.kernel, 0, n, 16, sms);
        const auto run = [&] {
            a.kernel<<<blocks, 256>>>(st, dy.mat(n, kD), k::GemmEpilogue<I>{}, g.mat(n, kD),
                                      counter);
        };
        CK(cudaMemset(g.p, 0xff, nd * 4));
        run();
        CK(cudaDeviceSynchronize());
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, a.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks (spmm %u)\n", a.name,
                    same(g_ref, download(g)), fa.numRegs, blocks, spmm_blocks);
        const TwoWays t = time_two_ways(functions, [&](int way, int) {
            if (way == 0)
                spmm();
            else
                run();
        });
        std::printf("%s: per gather (median of 7): spmm %.4f ms, strips %.4f ms, ratio %.3fx\n",
                    a.name, t.first[3], t.second[3], t.first[3] / t.second[3]);
    }
    return 0;
}
