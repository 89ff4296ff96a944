// PROBE (session 22; not built by CMake): the aggregation's epilogue with its shape known when
// compiled. aggregate_products<16, 1, uint8> (training's forward aggregation at d 64) runs
// conv_epilogue4, whose root term loops over a runtime k four entries at a time (each four's
// columns from a 4-byte load) and whose bias, grid, residual and cache hints are tested at run
// time. Here the same kernel with k = 16 a template parameter: the row's 16 values in four
// 16-byte loads and its 16 columns in one, the 16 entries unrolled (or four at a time in a
// loop), at 5 or 4 blocks an SM, and the bias, grid and streamed residual taken as given
// (training's recomputation and forward always have them). The same adds in the same order,
// so the same bits (checked: y after the recomputation's in-place epilogue, u poisoned before
// the select). A chain of F
// group functions on hyp's CSR (the select + product, then the aggregation), each way
// alternating (compare_aggregations). On the device machine, after `cmake --build
// build/device --target gsr_core`:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/epilogue_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/epilogue_probe
//   /tmp/epilogue_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;

/// conv_epilogue4 for K kept entries a row (uint8 columns, rows of values and columns 16-byte
/// aligned), with a bias, the grid and a streamed residual.
template <int K, bool Unroll>
__device__ inline void fixed_epilogue(float (&v)[4], std::size_t r, std::uint32_t c0,
                                      const k::GemmEpilogue<I>& ep, const float* wr,
                                      k::MatRef<float> y)
{
    static_assert(K % 16 == 0, "a row's columns in 16-byte loads");
    std::uint32_t words[K / 4];
    const float4* const vr = reinterpret_cast<const float4*>(ep.values.row(r));
    const uint4* const ir = reinterpret_cast<const uint4*>(ep.idx + r * K);
#pragma unroll
    for (int q = 0; q < K / 16; ++q) {
        const uint4 w = ir[q];
        words[4 * q] = w.x, words[4 * q + 1] = w.y, words[4 * q + 2] = w.z, words[4 * q + 3] = w.w;
    }
#pragma unroll(Unroll ? K / 4 : 1)
    for (int q = 0; q < K / 4; ++q) {
        const float4 f = vr[q];
        const float x[4] = {f.x, f.y, f.z, f.w};
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            const std::uint32_t col = (words[q] >> (8 * u)) & 0xffu;
            const float4 w4 = *reinterpret_cast<const float4*>(wr + col * kD);
            v[0] += x[u] * w4.x, v[1] += x[u] * w4.y;
            v[2] += x[u] * w4.z, v[3] += x[u] * w4.w;
        }
    }
    const float4 b = *reinterpret_cast<const float4*>(ep.bias + c0);
    const float bias[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        v[j] += bias[j];
        v[j] = rintf(v[j] * ep.inverse) * ep.quantum;
        v[j] *= ep.sign;
    }
    const float4 q = __ldcs(reinterpret_cast<const float4*>(ep.residual.row(r) + c0));
    v[0] += q.x, v[1] += q.y, v[2] += q.z, v[3] += q.w;
    __stcs(reinterpret_cast<float4*>(y.row(r) + c0), make_float4(v[0], v[1], v[2], v[3]));
}

/// aggregate_products<16, 1, I> with fixed_epilogue<K, Unroll>, MinBlocks blocks an SM.
template <int K, int MinBlocks, bool Unroll>
__global__ void __launch_bounds__(k::kThreads, MinBlocks)
    aggregate_fixed(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                    k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 product_shared[];
    __shared__ std::uint32_t strip_targets[k::kThreads / 32][k::kStripEdges];
    __shared__ float strip_scales[k::kThreads / 32][k::kStripEdges];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(product_shared));
    const int warp = threadIdx.x >> 5, group = (threadIdx.x & 31) / 16;
    const std::uint32_t c0 = 4 * (threadIdx.x % 16);
    k::for_taken_strips<4>(y.rows, counter, [&](std::size_t r0, int count) {
        const k::Strip st = k::load_strip(s, r0, count, strip_targets[warp], strip_scales[warp]);
#pragma unroll 1
        for (int i = group; i < 4; i += 2) {
            const bool valid = i < count;
            const k::StripRow w = st.row(i, valid);
            float v[4];
            k::strip_sum<4>(s, st, w, r0 + i, valid, u.p + c0, u.ld, strip_targets[warp],
                            strip_scales[warp], v);
            for (int c = 0; c < 4; ++c) v[c] *= w.scale;
            if (valid) fixed_epilogue<K, Unroll>(v, r0 + i, c0, ep, wr + c0, y);
        }
    });
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 22);
    const GroupFunctionKernels gf(start.graph.n, start.rng);
    compare_aggregation_kernels(start, gf,
                                {{"k known, unrolled, 5 blocks", aggregate_fixed<kK, 5, true>},
                                 {"k known, unrolled, 4 blocks", aggregate_fixed<kK, 4, true>},
                                 {"k known, fours not unrolled, 5 blocks",
                                  aggregate_fixed<kK, 5, false>}});
    return 0;
}
