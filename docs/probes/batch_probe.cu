// PROBE (session 22; not built by CMake): the aggregation at more blocks an SM. ncu finds
// aggregate_products<16, 1, uint8> bound by latency at 5 blocks an SM (48 registers; shared
// memory, at the default carveout, also allows 5). Here its strips (sum_strip's work) with B
// neighbours a batch in place of kEdgeBatch = 4 (gather_rows: B targets and scales, then B
// rows, loaded before any add; the adds in CSR order, so the same bits, checked), at M blocks
// an SM, the carveout raised to the most shared memory so that registers alone bound the
// blocks. A chain of F group functions on hyp's CSR at d 64, k 16, each way alternating with
// training's aggregation (compare_aggregations). On the device machine, after `cmake --build
// build/device --target gsr_core`:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/batch_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/batch_probe
//   /tmp/batch_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kWarps = 8; ///< warps a block of 256 threads

/// acc = the strip row's neighbour sums (strip_sum) with B edges a batch.
template <int B>
__device__ inline void strip_sum_batched(const k::CsrRef<float>& s, const k::Strip& st,
                                         const k::StripRow& w, const float* x, std::size_t ld,
                                         const std::uint32_t* wj, const float* ww,
                                         float (&acc)[4])
{
    const auto edge = [&](std::uint64_t q, std::uint32_t& j, float& scale) {
        if (q < st.held) {
            j = wj[q], scale = ww[q];
        } else {
            j = __ldg(s.targets + st.first + q);
            scale = __ldg(s.cs + j);
        }
    };
    for (int i = 0; i < 4; ++i) acc[i] = 0.0f;
    std::uint64_t q = w.b;
    for (; q + B <= w.e; q += B) {
        std::uint32_t j[B];
        float sc[B], vb[B][4];
        for (int u = 0; u < B; ++u) edge(q + u, j[u], sc[u]);
        for (int u = 0; u < B; ++u) k::load_vec<float, 4>(x + j[u] * ld, vb[u]);
        for (int u = 0; u < B; ++u)
            for (int i = 0; i < 4; ++i) acc[i] += sc[u] * vb[u][i];
    }
    for (; q < w.e; ++q) {
        std::uint32_t j;
        float sc, v[4];
        edge(q, j, sc);
        k::load_vec<float, 4>(x + j * ld, v);
        for (int i = 0; i < 4; ++i) acc[i] += sc * v[i];
    }
}

/// aggregate_products<16, 1, I> (strips of four from the counter) with B edges a batch, M
/// blocks an SM.
template <int B, int M>
__global__ void __launch_bounds__(256, M)
    aggregate_batched(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                      k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[kWarps][k::kStripEdges];
    __shared__ float window_w[kWarps][k::kStripEdges];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const int warp = threadIdx.x >> 5, half = (threadIdx.x & 31) >> 4;
    const std::uint32_t c0 = 4 * (threadIdx.x & 15);
    std::uint32_t* const wj = window_j[warp];
    float* const ww = window_w[warp];
    k::for_taken_strips<4>(y.rows, counter, [&](std::size_t r0, int count) {
        const k::Strip st = k::load_strip(s, r0, count, wj, ww);
#pragma unroll 1
        for (int i = half; i < 4; i += 2) {
            const bool valid = i < count;
            const k::StripRow row = st.row(i, valid);
            float acc[4];
            strip_sum_batched<B>(s, st, row, u.p + c0, u.ld, wj, ww, acc);
            if (!valid) continue;
            for (int c = 0; c < 4; ++c) acc[c] *= row.scale;
            k::conv_epilogue4(acc, r0 + i, c0, ep, wr + c0, 64, y);
        }
    });
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 22);
    const GroupFunctionKernels gf(start.graph.n, start.rng);
    compare_aggregation_kernels(start, gf,
                                {{"batch 4, 5 blocks (training's shape)", aggregate_batched<4, 5>},
                                 {"batch 2, 6 blocks", aggregate_batched<2, 6>},
                                 {"batch 3, 6 blocks", aggregate_batched<3, 6>},
                                 {"batch 2, 7 blocks", aggregate_batched<2, 7>},
                                 {"batch 1, 8 blocks", aggregate_batched<1, 8>},
                                 {"batch 4, 6 blocks", aggregate_batched<4, 6>}}, true);
    return 0;
}
