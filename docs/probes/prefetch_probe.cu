// PROBE (session 22; not built by CMake): the aggregation's gathers asked into L1 ahead. In
// aggregate_products<16, 1, uint8> a warp sums a strip of four rows as two pairs, a half warp
// a row; here, once the strip's window of targets is loaded, the warp first prefetches every
// row of u the window's edges gather into L1 (prefetch.global.L1, one instruction a lane for
// up to 16 edges), so the second pair's gathers find their rows there (sum_strip with
// Prefetch). The probe's own copy of the kernel without the prefetch calibrates it. Same sums,
// same bits (checked). A chain of F group functions on hyp's CSR at d 64, k 16, each way
// alternating with training's aggregation (compare_aggregations). On the device machine,
// after `cmake --build build/device --target gsr_core`:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/prefetch_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/prefetch_probe
//   /tmp/prefetch_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kWarps = 8; ///< warps a block of 256 threads

/// aggregate_products<16, 1, I>: strips of four rows from the counter, with or without the
/// prefetch.
template <int MinBlocks, bool Prefetch>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_prefetching(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                          k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[kWarps][k::kStripEdges];
    __shared__ float window_w[kWarps][k::kStripEdges];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const int warp = threadIdx.x >> 5;
    k::for_taken_strips<4>(y.rows, counter, [&](std::size_t r0, int count) {
        sum_strip<true, I, Prefetch>(s, r0, count, u, ep, wr, y, window_j[warp], window_w[warp]);
    });
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 22);
    const GroupFunctionKernels gf(start.graph.n, start.rng);
    compare_aggregation_kernels(start, gf,
                                {{"the probe's copy, 5 blocks", aggregate_prefetching<5, false>},
                                 {"prefetch, 5 blocks", aggregate_prefetching<5, true>},
                                 {"prefetch, 4 blocks", aggregate_prefetching<4, true>}});
    return 0;
}
