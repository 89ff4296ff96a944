// PROBE (session 22; not built by CMake): the aggregation's rows in contiguous ranges, one a
// block, so that the rows a block gathers (hyp's edges join nodes a few ids apart: median span
// 5) are the ones its SM's L1 fetched for the block's previous rows. Training's
// aggregate_products hands strips of four rows to warps from one counter for the whole grid,
// so consecutive strips land on different SMs. Here block b takes the rows [bounds[b],
// bounds[b + 1]), the ranges cut on the host so that each holds about the same rows + edges
// (hyp's first 256 rows have about 130 neighbours each), its warps taking strips of four from
// a counter in shared memory; the strips are summed as aggregate_products does (load_strip,
// strip_sum, conv_epilogue4), so the same bits (checked). The grid: one wave of blocks, or W
// waves of smaller ranges. On hyp's CSR at d 64, k 16: the aggregation in a chain of F group
// functions against training's (compare_aggregations), then the transposed gather g = S^T dy
// alone against spmm<float, 4>. On the device machine, after `cmake --build build/device
// --target gsr_core`:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/range_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/range_probe
//   /tmp/range_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64;
constexpr int kWarps = 8;     ///< warps a block of 256 threads
constexpr int kRowCost = 2;   ///< a row's epilogue in edges, for cutting the ranges
constexpr unsigned kAll = 0xffffffffu;

/// Conv: aggregate_products<16, 1, I>'s sums and epilogue over the block's range of rows;
/// otherwise y = S x (spmm with alpha 1, beta 0).
template <int MinBlocks, bool Conv>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_ranges(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                     k::MatRef<float> y, const std::uint32_t* bounds)
{
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[kWarps][k::kStripEdges];
    __shared__ float window_w[kWarps][k::kStripEdges];
    __shared__ unsigned taken;
    if (threadIdx.x == 0) taken = 0;
    __syncthreads();
    float* const wr = Conv ? stage_root_weights(ep, reinterpret_cast<float*>(probe_shared))
                           : nullptr;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    std::uint32_t* const wj = window_j[warp];
    float* const ww = window_w[warp];
    const std::size_t begin = bounds[blockIdx.x], end = bounds[blockIdx.x + 1];
    for (unsigned take = warp;;) {
        const std::size_t r0 = begin + std::size_t(take) * 4;
        if (r0 >= end) break;
        sum_strip<Conv>(s, r0, int(min(std::size_t(4), end - r0)), u, ep, wr, y, wj, ww);
        unsigned t = 0;
        if (lane == 0) t = atomicAdd(&taken, 1u);
        take = kWarps + __shfl_sync(kAll, t, 0);
    }
}

/// `blocks` + 1 row bounds on the device, cutting s's rows into ranges of about equal rows
/// (kRowCost each) + edges.
std::uint32_t* range_bounds(const k::CsrRef<float>& s, unsigned blocks)
{
    std::vector<std::uint64_t> off(s.rows + 1);
    CK(cudaMemcpy(off.data(), s.offsets, off.size() * 8, cudaMemcpyDeviceToHost));
    const auto cost = [&](std::uint32_t r) { return off[r] + std::uint64_t(kRowCost) * r; };
    const double total = double(cost(s.rows));
    std::vector<std::uint32_t> b(blocks + 1, s.rows);
    b[0] = 0;
    std::uint32_t r = 0;
    for (unsigned i = 1; i < blocks; ++i) {
        while (r < s.rows && double(cost(r)) < total * i / blocks) ++r;
        b[i] = r;
    }
    std::uint32_t* d = nullptr;
    CK(cudaMalloc(&d, b.size() * 4));
    CK(cudaMemcpy(d, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    return d;
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 22);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s, st = graph.st;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    const GroupFunctionKernels gf(n, rng);
    const int sms = sm_count();
    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                            k::MatRef<float>, const std::uint32_t*);
    struct Variant {
        const char* name;
        Kernel kernel;
        unsigned waves;
    };
    const Variant aggregations[] = {
        {"ranges, 5 blocks an SM, one wave", aggregate_ranges<5, true>, 1},
        {"ranges, 5 blocks an SM, 2 waves", aggregate_ranges<5, true>, 2},
        {"ranges, 5 blocks an SM, 4 waves", aggregate_ranges<5, true>, 4},
        {"ranges, 4 blocks an SM, 2 waves", aggregate_ranges<4, true>, 2}};
    const std::vector<float> y_start = download(ys[0]);
    for (const Variant& v : aggregations) {
        const unsigned blocks = v.waves * resident_grid(v.kernel, gf.agg_shared, n, 16, sms);
        std::uint32_t* const bounds = range_bounds(s, blocks);
        const auto ranges = [&](const Buf& y) {
            v.kernel<<<blocks, 256, gf.agg_shared>>>(s, gf.u.mat(n, kD), gf.epilogue(y),
                                                     y.mat(n, kD), bounds);
        };
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks (training's %u)\n", v.name,
                    same_aggregation(gf, s, x0, ys[0], y_start, ranges), fa.numRegs, blocks,
                    gf.agg_blocks);
        for (int round = 0; round < 2; ++round)
            compare_aggregations(v.name, gf, functions, ys,
                                 [&](const Buf& y) { gf.aggregate(s, y); }, ranges);
        CK(cudaFree(bounds));
    }

    // The transposed gather g = S^T dy alone.
    Buf dy = dev_random(nd, rng, 0.01f), g = dev_random(nd, rng, 1.f);
    const unsigned spmm_blocks = k::blocks_for(n, 256 / 16, unsigned(sms) * 32);
    const auto spmm = [&] {
        k::spmm<float, 4><<<spmm_blocks, 256>>>(st, 1.f, dy.mat(n, kD), 0.f, g.mat(n, kD), 16);
    };
    const auto g_ref = poisoned_output(g, spmm);
    const Variant gathers[] = {
        {"gather ranges, 5 blocks an SM, one wave", aggregate_ranges<5, false>, 1},
        {"gather ranges, 5 blocks an SM, 4 waves", aggregate_ranges<5, false>, 4},
        {"gather ranges, 6 blocks an SM, 4 waves", aggregate_ranges<6, false>, 4}};
    for (const Variant& v : gathers) {
        const unsigned blocks = v.waves * resident_grid(v.kernel, 0, n, 16, sms);
        std::uint32_t* const bounds = range_bounds(st, blocks);
        const auto run = [&] {
            v.kernel<<<blocks, 256>>>(st, dy.mat(n, kD), k::GemmEpilogue<I>{}, g.mat(n, kD),
                                      bounds);
        };
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks (spmm %u)\n", v.name,
                    same_bits(g_ref, poisoned_output(g, run)), fa.numRegs, blocks, spmm_blocks);
        print_two_ways(v.name, "gather", "spmm", "ranges", functions, spmm, run);
        CK(cudaFree(bounds));
    }
    return 0;
}
