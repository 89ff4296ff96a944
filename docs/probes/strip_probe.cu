// PROBE (session 19; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, k 16 (one term plus a compressed root, uint8 columns), the
// forward's aggregation as training launches it (aggregate_products<16, 1, I>: a grid of one
// wave whose warps take strips of four rows from a counter, for_taken_strips; a strip's
// offsets and row scales in one load, its edges' targets and column scales in shared memory,
// load_strip, so a row's gathers need not wait on its CSR entries) against other ways of
// handing out its rows: a wave apart (the kernel before session 19), rows taken 2, 4 (the
// session's first version) or 8 at a time, each row's CSR entries loaded for the row, and
// strips of 8, taken or a wave apart. Each over all rows, then over the rows from 256 on
// (without hyp's primary inputs, about 130 neighbours each). Then the backward's transposed
// gather (spmm<float, 4>, 16 lanes a row) against strips, taken by a wave of blocks or one a
// warp over a grid of every row (the last two gather variants first ran in session 20: 0.89x
// and 1.007x of spmm). The same sums in the same order:
// every variant is checked to give the production kernel's bits (outputs poisoned). A chain
// of F functions (the select + product, then the aggregation), each way alternating, 8
// rounds (the first dropped). On the device machine, after `cmake --build build/device
// --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/strip_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/strip_probe
//   /tmp/strip_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"


using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;
constexpr int kWarps = 8; ///< warps a block of 256 threads

/// The row sums and epilogue of aggregate_products<16, 1, I> (one term), the row's CSR entries
/// loaded for the row (neighbour_sum), as before session 19.
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

/// aggregate_products<16, 1, I> before session 19: a half warp's rows a wave apart.
__global__ void aggregate_interleaved(k::CsrRef<float> s, k::MatRef<float> u,
                                      k::GemmEpilogue<I> ep, k::MatRef<float> y, unsigned*)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    for_rows_wave_apart(y.rows, [&](std::size_t r) { aggregate_row(s, u, ep, y, wr, r); });
}

/// Session 19's first version: rows taken R at a time from the counter, each row's CSR entries
/// loaded for the row.
template <int R>
__global__ void aggregate_taken(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                                k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    k::for_taken_strips<R>(y.rows, counter, [&](std::size_t r0, int count) {
        for (int i = (threadIdx.x & 31) / 16; i < count; i += 2) aggregate_row(s, u, ep, y, wr, r0 + i);
    });
}

/// Strips of R rows through load_strip and strip_sum as aggregate_products takes them, handed
/// out from the counter (Dynamic) or a wave apart. Conv: aggregate_products' epilogue (one
/// term); otherwise y = S x (spmm with alpha 1, beta 0).
template <int R, int MinBlocks, bool Conv, bool Dynamic>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_strips(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                     k::MatRef<float> y, unsigned* counter)
{
    static_assert(R % 2 == 0 && R < 32, "a strip's offsets come from one warp load");
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[kWarps][k::kStripEdges];
    __shared__ float window_w[kWarps][k::kStripEdges];
    float* const wr = Conv ? stage_root_weights(ep, reinterpret_cast<float*>(probe_shared))
                           : nullptr;
    const int warp = threadIdx.x >> 5;
    std::uint32_t* const wj = window_j[warp];
    float* const ww = window_w[warp];
    const auto strip = [&](std::size_t r0, int count) {
        sum_strip<Conv>(s, r0, count, u, ep, wr, y, wj, ww);
    };
    if constexpr (Dynamic)
        k::for_taken_strips<R>(y.rows, counter, strip);
    else
        for (std::size_t r0 = (blockIdx.x * std::size_t(kWarps) + warp) * R; r0 < y.rows;
             r0 += std::size_t(gridDim.x) * kWarps * R)
            strip(r0, int(min(std::size_t(R), y.rows - r0)));
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 19);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s, st = graph.st;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    Buf dy = dev_random(nd, rng, 0.01f), g = dev_random(nd, rng, 1.f);
    const GroupFunctionKernels gf(n, rng);
    const Buf& u = gf.u;
    const int sms = sm_count();
    const unsigned spmm_blocks = k::blocks_for(n, 256 / 16, unsigned(sms) * 32);
    const std::vector<float> y_start = download(ys[0]);
    const auto reset = [&] {
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(u.p, 0xff, nd * 4));
    };
    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                            k::MatRef<float>, unsigned*);
    unsigned* const counter = gf.counters;
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
        k::GemmEpilogue<I> ep = gf.epilogue(y);
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
        {"rows taken 4 at a time (session 19's first version)", aggregate_taken<4>},
        {"rows taken 2 at a time", aggregate_taken<2>},
        {"rows taken 8 at a time", aggregate_taken<8>},
        {"strips of 8, taken", aggregate_strips<8, 5, true, true>},
        {"strips of 8, a wave apart", aggregate_strips<8, 5, true, false>}};
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    for (std::uint32_t skip : {0u, 256u}) {
        int vi = -1;
        const k::CsrRef<float> sk = tail(s, skip);
        const auto production = [&](const Buf& y) {
            gf.aggregate(sk, epilogue_from(y, skip), rows_from(y.mat(n, kD), skip));
        };
        reset();
        gf.select(x0);
        production(ys[0]);
        CK(cudaDeviceSynchronize());
        const auto y_ref = download(ys[0]);
        for (const Named<Kernel>& a : aggs) {
            if (only >= 0 && only != ++vi) continue;
            const unsigned blocks = resident_grid(a.kernel, gf.agg_shared, n, 16, sms);
            const auto run = [&](const Buf& y) {
                a.kernel<<<blocks, 256, gf.agg_shared>>>(sk, u.mat(n, kD), epilogue_from(y, skip),
                                                      rows_from(y.mat(n, kD), skip), counter);
            };
            reset();
            gf.select(x0);
            run(ys[0]);
            CK(cudaDeviceSynchronize());
            cudaFuncAttributes fa{}, pa{};
            CK(cudaFuncGetAttributes(&fa, a.kernel));
            CK(cudaFuncGetAttributes(&pa, gf.aggregate_kernel()));
            std::printf("rows from %u, %s: bits equal %d, %d regs (aggregate_products %d), %u "
                        "blocks (%u)\n",
                        skip, a.name, same_bits(y_ref, download(ys[0])), fa.numRegs, pa.numRegs,
                        blocks, gf.agg_blocks);
            char label[128];
            std::snprintf(label, sizeof label, "rows from %u, %s", skip, a.name);
            compare_aggregations(label, gf, functions, ys, production, run);
        }
    }

    // The transposed gather g = S^T dy alone, as the backward runs it (spmm, 16 lanes a row).
    const auto spmm = [&] {
        k::spmm<float, 4><<<spmm_blocks, 256>>>(st, 1.f, dy.mat(n, kD), 0.f, g.mat(n, kD), 16);
    };
    const auto g_ref = poisoned_output(g, spmm);
    // Strips taken from the counter by a wave of blocks (at 6 blocks an SM, 40 registers,
    // spilling; at 4, without), or one strip a warp over a grid of every row (R = 4: 32
    // rows a block), as spmm's grid covers every row.
    struct Gather {
        const char* name;
        Kernel kernel;
        bool every_row;
    };
    const Gather gathers[] = {
        {"gather strips of 8, taken, 6 blocks", aggregate_strips<8, 6, false, true>, false},
        {"gather strips of 4, taken, 6 blocks", aggregate_strips<4, 6, false, true>, false},
        {"gather strips of 4, taken, 4 blocks", aggregate_strips<4, 4, false, true>, false},
        {"gather strips of 4, a warp each", aggregate_strips<4, 4, false, false>, true}};
    for (const Gather& a : gathers) {
        const unsigned blocks =
            a.every_row ? unsigned((n + 32 - 1) / 32) : resident_grid(a.kernel, 0, n, 16, sms);
        const auto run = [&] {
            a.kernel<<<blocks, 256>>>(st, dy.mat(n, kD), k::GemmEpilogue<I>{}, g.mat(n, kD),
                                      counter);
        };
        const bool same = same_bits(g_ref, poisoned_output(g, run));
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, a.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks (spmm %u)\n", a.name, same,
                    fa.numRegs, blocks, spmm_blocks);
        print_two_ways(a.name, "gather", "spmm", "strips", functions, spmm, run);
    }
    return 0;
}
