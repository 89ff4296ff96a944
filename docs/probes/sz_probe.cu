// PROBE (session 20; not built by CMake): the compressed forward's aggregation over the kept
// entries themselves, A = S Z (each neighbour's k kept values added at their columns, 20 bytes
// a neighbour where u = Z W costs 256), so that the product A W could follow as a dense GEMM.
// On hyp's CSR at d 64, k 16 (uint8 columns): the select without the product plus A = S Z,
// against training's select + product and aggregate_products, in a chain of F functions. A = S
// Z two ways: aggregate_compressed (graph.cuh, a row per 16 threads over a grid of every row)
// and strips of four rows taken from a counter (load_strip's window), the same adds in CSR
// order, checked for the same bits. On the device machine, after `cmake --build build/device
// --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/sz_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/sz_probe
//   /tmp/sz_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/graph.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;
constexpr int kWarps = 8; ///< warps a block of 256 threads

/// A = S Z for k = 16 kept entries a row (one a lane of a half warp): warps take strips of
/// four rows from the counter, a half warp a row, its sums in a row of shared memory.
template <int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    gather_kept_strips(k::CsrRef<float> s, k::MatRef<float> values, const I* idx,
                       k::MatRef<float> a, unsigned* counter)
{
    __shared__ std::uint32_t window_j[kWarps][k::kStripEdges];
    __shared__ float window_w[kWarps][k::kStripEdges];
    __shared__ float4 sums[kWarps][2][kD / 4];
    const int warp = threadIdx.x >> 5, half = (threadIdx.x & 31) >> 4, q = threadIdx.x & 15;
    const unsigned mask = 0xffffu << (16 * half);
    float* const acc = reinterpret_cast<float*>(sums[warp][half]);
    std::uint32_t* const wj = window_j[warp];
    float* const ww = window_w[warp];
    k::for_taken_strips<4>(a.rows, counter, [&](std::size_t r0, int count) {
        const k::Strip st = k::load_strip(s, r0, count, wj, ww);
        const auto edge = [&](std::uint64_t t, std::uint32_t& j, float& w) {
            if (t < st.held) {
                j = wj[t], w = ww[t];
            } else {
                j = __ldg(s.targets + st.first + t);
                w = __ldg(s.cs + j);
            }
        };
        for (int p = 0; p < count; p += 2) {
            const int i = p + half;
            const bool valid = i < count;
            const k::StripRow row = st.row(i, valid);
            const std::uint64_t b = row.b, e = row.e;
            const float scale = row.scale;
            if (!valid) continue;
            sums[warp][half][q] = make_float4(0.f, 0.f, 0.f, 0.f);
            __syncwarp(mask);
            std::uint64_t t = b;
            for (; t + k::kEdgeBatch <= e; t += k::kEdgeBatch) {
                std::uint32_t j[k::kEdgeBatch], c[k::kEdgeBatch];
                float w[k::kEdgeBatch], v[k::kEdgeBatch];
                for (int u = 0; u < k::kEdgeBatch; ++u) edge(t + u, j[u], w[u]);
                for (int u = 0; u < k::kEdgeBatch; ++u) {
                    v[u] = __ldg(values.row(j[u]) + q);
                    c[u] = idx[std::size_t(j[u]) * kK + q];
                }
                for (int u = 0; u < k::kEdgeBatch; ++u) {
                    acc[c[u]] += w[u] * v[u];
                    __syncwarp(mask);
                }
            }
            for (; t <= e; ++t) {
                std::uint32_t j;
                float w;
                if (t < e)
                    edge(t, j, w);
                else if (s.self_loop)
                    j = std::uint32_t(r0 + i), w = __ldg(s.cs + j);
                else
                    break;
                const float v = __ldg(values.row(j) + q);
                acc[idx[std::size_t(j) * kK + q]] += w * v;
                __syncwarp(mask);
            }
            float4 o = sums[warp][half][q];
            o.x *= scale, o.y *= scale, o.z *= scale, o.w *= scale;
            *reinterpret_cast<float4*>(a.row(r0 + i) + 4 * q) = o;
            __syncwarp(mask);
        }
    });
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 20);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    const GroupFunctionKernels gf(n, rng);
    const int sms = sm_count();
    Buf a = dev_random(nd, rng, 1.f);
    const auto select_only = k::normalize_topk_pack_lanes<4, I, false>;
    const unsigned select_blocks = resident_grid(select_only, 0, n, 64, sms);
    const auto select = [&](const Buf& x) {
        select_only<<<select_blocks, 256>>>(x.mat(n, kD), gf.gamma.p, gf.beta.p, nullptr, 0, 0,
                                            1.f, 0.6744898f, gf.stats.mat(n, 2),
                                            gf.vals.mat(n, kK), gf.idx, {}, {});
    };
    const unsigned old_blocks = unsigned((n + 15) / 16);
    const auto old_gather = [&] {
        k::aggregate_compressed<float, I><<<old_blocks, 256, 16 * kD * 4>>>(
            s, gf.vals.mat(n, kK), gf.idx, kD, a.mat(n, kD), 16);
    };
    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, const I*, k::MatRef<float>,
                            unsigned*);
    const Named<Kernel> variants[] = {{"strips, 6 blocks", gather_kept_strips<6>},
                                      {"strips, 5 blocks", gather_kept_strips<5>}};
    // Reference: the old kernel on the select's output of x0.
    select(x0);
    CK(cudaMemset(a.p, 0xff, nd * 4));
    old_gather();
    CK(cudaDeviceSynchronize());
    const auto a_ref = download(a);
    {
        // The select alone and the select + product give the same kept entries.
        const auto v0 = download(gf.vals);
        gf.select(x0);
        CK(cudaDeviceSynchronize());
        std::printf("select with and without the product: same kept values %d\n",
                    same_bits(v0, download(gf.vals)));
    }
    const auto production = [&](int f) {
        gf.select(ys[(f + 1) & 1]);
        gf.aggregate(s, ys[f & 1]);
    };
    for (const Named<Kernel>& v : variants) {
        const unsigned blocks = resident_grid(v.kernel, 0, n, 16, sms);
        const auto run = [&] {
            v.kernel<<<blocks, 256>>>(s, gf.vals.mat(n, kK), gf.idx, a.mat(n, kD), gf.counters);
        };
        select(x0);
        CK(cudaMemset(a.p, 0xff, nd * 4));
        run();
        CK(cudaDeviceSynchronize());
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        std::printf("%s: bits equal %d, %d regs, %u blocks\n", v.name, same_bits(a_ref, download(a)),
                    fa.numRegs, blocks);
        TwoWays t = time_two_ways(functions, [&](int way, int f) {
            if (way == 0) {
                production(f);
            } else {
                select(ys[(f + 1) & 1]);
                run();
            }
        });
        std::printf("%s: per function: select + product + aggregate_products %.4f ms, select + "
                    "S Z %.4f ms (difference %.4f)\n",
                    v.name, t.first[3], t.second[3], t.first[3] - t.second[3]);
        t = time_two_ways(functions, [&](int way, int f) {
            select(ys[(f + 1) & 1]);
            if (way == 0)
                old_gather();
            else
                run();
        });
        std::printf("%s: per function: select + aggregate_compressed %.4f ms, select + strips "
                    "%.4f ms\n",
                    v.name, t.first[3], t.second[3]);
    }
    TwoWays t = time_two_ways(functions, [&](int way, int f) {
        if (way == 0)
            select(ys[(f + 1) & 1]);
        else
            gf.select(ys[(f + 1) & 1]);
    });
    std::printf("select alone %.4f ms, select + product %.4f ms\n", t.first[3], t.second[3]);
    return 0;
}
