// PROBE (session 18; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, k 16 (one term plus a compressed root, uint8 columns), the
// backward's recomputation of a group function followed by the compressed backward's first
// step, g = S^T dy, as training launches them (normalize_topk_pack_lanes<4, I, true>,
// aggregate_products<16, 1, I>, then spmm<float, 4> over the transposed pattern) against the
// same with aggregate_products_gather<Batch, MinBlocks> (below), which gathers u and dy in
// one pass over each row's neighbours; then the aggregation alone with Batch edges in flight
// (aggregate_batch) against aggregate_products. A chain of F functions, each way
// alternating, 8 rounds (the first dropped); every variant is checked to give the separate
// kernels' bits (outputs poisoned).
// On the device machine, after `cmake --build build/device --target gsr_core` (see
// .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/gather_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/gather_probe
//   /tmp/gather_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"


using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64;

/// neighbour_sum (gpu/kernels/graph.cuh) of two matrices over one pattern at once: acc_a
/// from a with s's column scales, acc_b from b with cs_b, each in neighbour_sum's order (so
/// each gets its bits), the targets loaded once for both, Batch edges' rows of both in flight.
template <int Batch>
__device__ inline void neighbour_sums(const k::CsrRef<float>& s, const float* cs_b,
                                      std::size_t r, const float* a, std::size_t lda,
                                      const float* b, std::size_t ldb, float (&acc_a)[4],
                                      float (&acc_b)[4])
{
    for (int i = 0; i < 4; ++i) acc_a[i] = acc_b[i] = 0.f;
    float va[4], vb[4];
    const std::uint64_t e1 = s.offsets[r + 1];
    std::uint64_t e = s.offsets[r];
    for (; e + Batch <= e1; e += Batch) {
        std::uint32_t j[Batch];
        float wa[Batch], wb[Batch], ra[Batch][4], rb[Batch][4];
        for (int u = 0; u < Batch; ++u) j[u] = __ldg(s.targets + e + u);
        for (int u = 0; u < Batch; ++u) {
            wa[u] = __ldg(s.cs + j[u]);
            wb[u] = __ldg(cs_b + j[u]);
            k::load_vec<float, 4>(a + j[u] * lda, ra[u]);
            k::load_vec<float, 4>(b + j[u] * ldb, rb[u]);
        }
        for (int u = 0; u < Batch; ++u)
            for (int i = 0; i < 4; ++i) {
                acc_a[i] += wa[u] * ra[u][i];
                acc_b[i] += wb[u] * rb[u][i];
            }
    }
    for (; e < e1; ++e) {
        const std::uint32_t j = __ldg(s.targets + e);
        const float wa = __ldg(s.cs + j), wb = __ldg(cs_b + j);
        k::load_vec<float, 4>(a + j * lda, va);
        k::load_vec<float, 4>(b + j * ldb, vb);
        for (int i = 0; i < 4; ++i) {
            acc_a[i] += wa * va[i];
            acc_b[i] += wb * vb[i];
        }
    }
}

/// aggregate_products<16, 1, I> for one term over a symmetric pattern (st: s's transpose, the
/// same offsets and targets, the scales swapped) that also gathers the compressed backward's
/// g = S^T dy in the same pass over each row's neighbours (no self loops: mean aggregation).
/// y gets aggregate_products' bits and g spmm's (alpha 1, beta 0).
template <int Batch, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_products_gather(k::CsrRef<float> s, k::CsrRef<float> st, k::MatRef<float> u,
                              k::GemmEpilogue<I> ep, k::MatRef<float> y, k::MatRef<float> dy,
                              k::MatRef<float> g)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const std::uint32_t c0 = 4 * (threadIdx.x % 16);
    for_rows_wave_apart(y.rows, [&](std::size_t r) {
        float v[4], t[4];
        neighbour_sums<Batch>(s, st.cs, r, u.p + c0, u.ld, dy.p + c0, dy.ld, v, t);
        const float scale = st.rs[r];
        *reinterpret_cast<float4*>(g.row(r) + c0) =
            make_float4(t[0] * scale, t[1] * scale, t[2] * scale, t[3] * scale);
        for (int i = 0; i < 4; ++i) v[i] *= s.rs[r];
        k::conv_epilogue4(v, r, c0, ep, wr + c0, 64, y);
    });
}

/// aggregate_products<16, 1, I> (one term) with Batch edges in flight and a launch bound of
/// MinBlocks blocks an SM: the same sums in the same order.
template <int Batch, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_batch(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                    k::MatRef<float> y)
{
    extern __shared__ float4 probe_shared[];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const std::uint32_t c0 = 4 * (threadIdx.x % 16);
    for_rows_wave_apart(y.rows, [&](std::size_t r) {
        float v[4] = {0, 0, 0, 0}, vb[Batch][4];
        const std::uint64_t e1 = s.offsets[r + 1];
        std::uint64_t e = s.offsets[r];
        for (; e + Batch <= e1; e += Batch) {
            std::uint32_t j[Batch];
            float w[Batch];
            for (int q = 0; q < Batch; ++q) j[q] = __ldg(s.targets + e + q);
            for (int q = 0; q < Batch; ++q) {
                w[q] = __ldg(s.cs + j[q]);
                k::load_vec<float, 4>(u.p + c0 + j[q] * u.ld, vb[q]);
            }
            for (int q = 0; q < Batch; ++q)
                for (int i = 0; i < 4; ++i) v[i] += w[q] * vb[q][i];
        }
        for (; e < e1; ++e) {
            const std::uint32_t j = __ldg(s.targets + e);
            const float w = __ldg(s.cs + j);
            k::load_vec<float, 4>(u.p + c0 + j * u.ld, vb[0]);
            for (int i = 0; i < 4; ++i) v[i] += w * vb[0][i];
        }
        for (int i = 0; i < 4; ++i) v[i] *= s.rs[r];
        k::conv_epilogue4(v, r, c0, ep, wr + c0, 64, y);
    });
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 18);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s, st = graph.st;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    Buf dys[2] = {dev_random(nd, rng, 0.01f), dev_random(nd, rng, 0.01f)};
    Buf gs[2] = {dev_random(nd, rng, 1.f), dev_random(nd, rng, 1.f)};
    const GroupFunctionKernels gf(n, rng);
    const Buf& u = gf.u;
    const int sms = sm_count();
    const unsigned spmm_blocks = k::blocks_for(n, 256 / 16, unsigned(sms) * 32);
    const auto separate = [&](const Buf& y, const Buf& dy, const Buf& gt) {
        gf.aggregate(s, y);
        k::spmm<float, 4><<<spmm_blocks, 256>>>(st, 1.f, dy.mat(n, kD), 0.f, gt.mat(n, kD), 16);
    };
    using Fused = void (*)(k::CsrRef<float>, k::CsrRef<float>, k::MatRef<float>,
                           k::GemmEpilogue<I>, k::MatRef<float>, k::MatRef<float>,
                           k::MatRef<float>);
    const Named<Fused> variants[] = {{"batch 4, 6 blocks", aggregate_products_gather<4, 6>},
                                {"batch 4, 5 blocks", aggregate_products_gather<4, 5>},
                                {"batch 4, 4 blocks", aggregate_products_gather<4, 4>},
                                {"batch 6, 4 blocks", aggregate_products_gather<6, 4>},
                                {"batch 8, 4 blocks", aggregate_products_gather<8, 4>},
                                {"batch 8, 3 blocks", aggregate_products_gather<8, 3>}};
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;

    // Bits: one function from x0 each way, y starting from the same values, outputs poisoned.
    const std::vector<float> y_start = download(ys[0]);
    const auto reset = [&] {
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(gs[0].p, 0xff, nd * 4));
        CK(cudaMemset(u.p, 0xff, nd * 4));
    };
    reset();
    gf.select(x0);
    separate(ys[0], dys[0], gs[0]);
    CK(cudaDeviceSynchronize());
    const auto y_ref = download(ys[0]), g_ref = download(gs[0]);

    for (int vi = 0; vi < 6; ++vi) {
        if (only >= 0 && only != vi) continue;
        const Named<Fused>& v = variants[vi];
        const unsigned blocks = resident_grid(v.kernel, gf.agg_shared, n, 16, sms);
        const auto fused = [&](const Buf& y, const Buf& dy, const Buf& gt) {
            v.kernel<<<blocks, 256, gf.agg_shared>>>(s, st, u.mat(n, kD), gf.epilogue(y), y.mat(n, kD),
                                                  dy.mat(n, kD), gt.mat(n, kD));
        };
        reset();
        gf.select(x0);
        fused(ys[0], dys[0], gs[0]);
        CK(cudaDeviceSynchronize());
        const bool y_same = same_bits(y_ref, download(ys[0])), g_same = same_bits(g_ref, download(gs[0]));
        cudaFuncAttributes fa{}, aa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        CK(cudaFuncGetAttributes(&aa, gf.aggregate_kernel()));
        std::printf("%s: bits equal y %d g %d; %d regs (aggregate_products %d), %u blocks "
                    "(aggregate_products %u, spmm %u)\n",
                    v.name, y_same, g_same, fa.numRegs, aa.numRegs, blocks, gf.agg_blocks,
                    spmm_blocks);

        // A chain of `functions`: select on the last y, then the aggregation (+ gather).
        const TwoWays t = time_two_ways(functions, [&](int way, int f) {
            const Buf& y = ys[f & 1];
            gf.select(ys[(f + 1) & 1]);
            if (way == 0)
                separate(y, dys[f & 1], gs[f & 1]);
            else
                fused(y, dys[f & 1], gs[f & 1]);
        });
        const std::vector<double>& t_sep = t.first;
        const std::vector<double>& t_fused = t.second;
        std::printf("%s: per function (select + aggregation + gather, median of 7): separate "
                    "%.4f ms, fused %.4f ms, ratio %.3fx (ranges %.4f-%.4f, %.4f-%.4f)\n",
                    v.name, t_sep[3], t_fused[3], t_sep[3] / t_fused[3], t_sep.front(),
                    t_sep.back(), t_fused.front(), t_fused.back());
    }
    // The aggregation alone (no gather), as training's forward runs it: select, then
    // aggregate_products<16> against aggregate_batch<Batch, MinBlocks>, bits and time.
    using Agg = void (*)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                         k::MatRef<float>);
    const Named<Agg> aggs[] = {{"aggregation batch 4, 6 blocks", aggregate_batch<4, 6>},
                               {"aggregation batch 4, 4 blocks", aggregate_batch<4, 4>},
                               {"aggregation batch 8, 4 blocks", aggregate_batch<8, 4>},
                               {"aggregation batch 8, 3 blocks", aggregate_batch<8, 3>},
                               {"aggregation batch 6, 5 blocks", aggregate_batch<6, 5>}};
    reset();
    const auto y_agg = one_function(gf, s, x0, ys[0]);
    for (const Named<Agg>& a : aggs) {
        const unsigned blocks = resident_grid(a.kernel, gf.agg_shared, n, 16, sms);
        const auto run = [&](const Buf& y) {
            a.kernel<<<blocks, 256, gf.agg_shared>>>(s, u.mat(n, kD), gf.epilogue(y), y.mat(n, kD));
        };
        reset();
        gf.select(x0);
        run(ys[0]);
        CK(cudaDeviceSynchronize());
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, a.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks\n", a.name,
                    same_bits(y_agg, download(ys[0])), fa.numRegs, blocks);
        compare_aggregations(a.name, gf, functions, ys, [&](const Buf& y) { gf.aggregate(s, y); },
                             run);
    }
    return 0;
}
