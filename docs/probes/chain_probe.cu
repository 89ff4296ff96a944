// PROBE (session 17; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, k 16 (one term plus a compressed root, uint8 columns),
//  - `fused` (printed chain1 / chain2): group function f's aggregation and then, on the rows
//    it just wrote, function f + 1's select + product in one kernel (chain1: the aggregation in
//    aggregate_products' layout, 16 lanes a row, y read back; chain2: in the select's layout,
//    4 lanes a row, the row kept in registers), against the two kernels training launches
//    (normalize_topk_pack_lanes<4, I, true>, then aggregate_products<16, 1, I>), in a chain of
//    224 functions;
//  - `aggregate_wide<V, Batch, MinBlocks>`: aggregate_products with V columns a lane.
// Every variant is checked to give the production kernels' bits. On the device machine, after
// `cmake --build build/device --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/chain_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/chain_probe
//   /tmp/chain_probe HYP.blif 224 MIN_BLOCKS [1|2] [stop]
// (MIN_BLOCKS 2, 3 or 4: the fused kernel's launch bound; 1 or 2: chain1 or chain2; a fifth
// argument stops after the aggregation-only comparison.)
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16, kLanes = 4;

/// A copy of the body of normalize_topk_pack_lanes (gpu/kernels/rows.cuh) after its load, for
/// a row whose 16 columns c0.. this lane holds in z: the fused kernels below select with the
/// production kernel's bits. (Calling one shared function from both changed the production
/// kernel's SASS, so the probe keeps a copy: of session 17's kernel. Session 18 reworked the
/// production kernel's counts and stores, with the same outputs, so the bit checks hold and
/// the probe's timings are of the older select.)
template <int Lanes, bool Product>
__device__ __forceinline__ void
select_row(float (&z)[16], std::size_t r, bool valid, int sub, int c0, int odd,
                        std::uint32_t k, const float* gamma, const float* beta,
                        const std::uint8_t* keep, std::uint32_t stride, std::uint32_t column,
                        float scale, float quantile, k::MatRef<float> stats,
                        k::MatRef<float> values,
                        I* indices, const float* ws, float2* stage, k::MatRef<float> product)
{
    using namespace gsr::gpu::kernels;
    constexpr int kCols = 16, kWidth = kCols * Lanes;
    constexpr float kD = float(kWidth);
    constexpr unsigned kAll = 0xffffffffu;
    float s = 0.f;
#pragma unroll
    for (int u = 0; u < kCols; ++u) s += z[u];
    const float mean = group_sum<Lanes>(s) / kD;
    float v = 0.f;
#pragma unroll
    for (int u = 0; u < kCols; ++u) v += (z[u] - mean) * (z[u] - mean);
    const float rstd = rsqrt_exact(group_sum<Lanes>(v) / kD + 1e-5f);
    if (valid && sub == 0) {
        stats(r, 0) = mean;
        stats(r, 1) = rstd;
    }
    // gamma and beta from L1 each row: in registers they would cost 32 more a thread.
    std::uint32_t key[kCols];
#pragma unroll
    for (int j = 0; j < kCols / 4; ++j) {
        const Float4s g = load4(gamma + c0 + 4 * j), b = load4(beta + c0 + 4 * j);
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            float& zu = z[4 * j + u];
            zu = g.v[u] * ((zu - mean) * rstd) + b.v[u];
            key[4 * j + u] = order_key(zu);
        }
    }
    // A bracket around the k-th largest value from the row's own mean and spread, at
    // `quantile` spreads above the mean (the normal quantile of 1 - k / d) +- half a
    // spread: where at least k keys reach key(lo) and fewer than k reach key(hi), the
    // k-th largest key shares their leading bits, and the select starts below them
    // (sign and most exponent bits, about 7 of its rounds). Otherwise from the top bit.
    float s1 = 0.f, s2 = 0.f;
#pragma unroll
    for (int u = 0; u < kCols; ++u) s1 += z[u], s2 += z[u] * z[u];
    const float zm = group_sum<Lanes>(s1) / kD;
    const float sd = sqrtf(fmaxf(group_sum<Lanes>(s2) / kD - zm * zm, 0.f));
    const std::uint32_t key_lo = order_key(zm + (quantile - 0.5f) * sd);
    const std::uint32_t key_hi = order_key(zm + (quantile + 0.5f) * sd);
    std::uint32_t n_lo = 0, n_hi = 0;
#pragma unroll
    for (int u = 0; u < kCols; ++u) n_lo += key[u] >= key_lo, n_hi += key[u] >= key_hi;
    n_lo = group_sum<Lanes>(n_lo);
    n_hi = group_sum<Lanes>(n_hi);
    // Invariant: at least k keys reach `prefix`, and the k-th largest key has its bits
    // above `top`.
    std::uint32_t prefix = 0;
    int top = 31;
    bool done = !valid;
    if (n_lo >= k && n_hi < k) { // then key_lo < key_hi
        top = 31 - __clz(key_lo ^ key_hi);
        prefix = top == 31 ? 0u : key_lo & ~((2u << top) - 1u);
        if (n_lo == k) prefix = key_lo, done = true;
    }
    for (int bit = int(warp_max(unsigned(done ? 0 : top)));
         bit >= 0 && !__all_sync(kAll, done); --bit) {
        const std::uint32_t candidate = prefix | (1u << bit);
        std::uint32_t reach = 0;
#pragma unroll
        for (int u = 0; u < kCols; ++u) reach += key[u] >= candidate;
        reach = group_sum<Lanes>(reach);
        if (!done && bit <= top && reach >= k) {
            prefix = candidate;
            done = reach == k;
        }
    }
    std::uint32_t above = 0, ties = 0;
#pragma unroll
    for (int u = 0; u < kCols; ++u) {
        above += key[u] > prefix;
        ties += key[u] == prefix;
    }
    // Ties kept: the first k - above of the row, in column order.
    const std::uint32_t tie_slots = k - group_sum<Lanes>(above);
    std::uint32_t tie_rank = group_exclusive_sum<Lanes>(ties, sub), kept = 0;
#pragma unroll
    for (int u = 0; u < kCols; ++u) {
        const bool tie = key[u] == prefix;
        if (key[u] > prefix || (tie && tie_rank < tie_slots)) kept |= 1u << u;
        tie_rank += tie;
    }
    std::uint32_t at = group_exclusive_sum<Lanes>(__popc(kept), sub);
    const std::uint8_t* kr = valid && keep ? keep + r * stride + column + c0 : nullptr;
    const auto stored = [&](int c) { return kr ? (kr[c] ? z[c] * scale : 0.f) : z[c]; };
    if constexpr (Product) {
        // Every lane reaches both warp barriers, rows past the end included.
        std::uint32_t a = at;
#pragma unroll
        for (int c = 0; c < kCols; ++c)
            if (valid && (kept >> c & 1u))
                stage[a++] = make_float2(stored(c), __int_as_float(c0 + c));
        __syncwarp();
        if (valid) {
            float acc[16] = {};
#pragma unroll 4
            for (std::uint32_t q = 0; q < k; ++q) {
                const float2 e = stage[q];
                const int c = __float_as_int(e.y);
                const float* wr = ws + c * kWidth;
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    const float4 w4 =
                        *reinterpret_cast<const float4*>(wr + 4 * (sub + Lanes * (i ^ odd)));
                    acc[4 * i] += e.x * w4.x, acc[4 * i + 1] += e.x * w4.y;
                    acc[4 * i + 2] += e.x * w4.z, acc[4 * i + 3] += e.x * w4.w;
                }
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
                *reinterpret_cast<float4*>(product.row(r) + 4 * (sub + Lanes * (i ^ odd))) =
                    make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
        }
        __syncwarp(); // the stage is written again for the warp's next rows
    }
    if (!valid) return;
    float* vr = values.row(r);
    I* ir = indices + r * k;
#pragma unroll
    for (int c = 0; c < kCols; ++c)
        if (kept >> c & 1u) {
            vr[at] = stored(c);
            ir[at] = I(c0 + c);
            ++at;
        }
}

/// Row r of aggregate_products' result in V columns c0.. a lane: the neighbour sum of u's rows
/// in batches of Batch edges, the row scale, the compressed root term (W_root at wr, the kept
/// entries four at a time, `Unroll` groups unrolled), bias, grid, sign and residual, left in z
/// and stored to y (evict-first when Streaming). The same adds per column as the production
/// kernel, so the same bits.
template <int V, int Batch, int Unroll, bool Streaming>
__device__ __forceinline__ void aggregate_row(const k::CsrRef<float>& s, k::MatRef<float> u,
                                              const k::GemmEpilogue<I>& ep, const float* wr,
                                              std::size_t r, int c0, k::MatRef<float> y,
                                              float (&z)[V])
{
    using namespace gsr::gpu::kernels;
    constexpr int kQ = V / 4;
#pragma unroll
    for (int c = 0; c < V; ++c) z[c] = 0.f;
    const auto add = [&](float w, const float4 (&a)[kQ]) {
#pragma unroll
        for (int i = 0; i < kQ; ++i) {
            z[4 * i] += w * a[i].x, z[4 * i + 1] += w * a[i].y;
            z[4 * i + 2] += w * a[i].z, z[4 * i + 3] += w * a[i].w;
        }
    };
    const std::uint64_t e1 = s.offsets[r + 1];
    std::uint64_t e = s.offsets[r];
    const float* ub = u.p + c0;
    for (; e + Batch <= e1; e += Batch) {
        std::uint32_t j[Batch];
        float w[Batch];
        float4 a[Batch][kQ];
#pragma unroll
        for (int b = 0; b < Batch; ++b) j[b] = __ldg(s.targets + e + b);
#pragma unroll
        for (int b = 0; b < Batch; ++b) {
            w[b] = __ldg(s.cs + j[b]);
#pragma unroll
            for (int i = 0; i < kQ; ++i)
                a[b][i] = __ldg(
                    reinterpret_cast<const float4*>(ub + std::size_t(j[b]) * u.ld + 4 * i));
        }
#pragma unroll
        for (int b = 0; b < Batch; ++b) add(w[b], a[b]);
    }
    for (; e < e1; ++e) {
        const std::uint32_t j0 = __ldg(s.targets + e);
        float4 a[kQ];
#pragma unroll
        for (int i = 0; i < kQ; ++i)
            a[i] = __ldg(reinterpret_cast<const float4*>(ub + std::size_t(j0) * u.ld + 4 * i));
        add(__ldg(s.cs + j0), a);
    }
    const float scale = s.rs[r];
#pragma unroll
    for (int c = 0; c < V; ++c) z[c] = z[c] * scale;
    const float* vr = ep.values.row(r);
    const I* ir = ep.idx + r * ep.values.cols;
#pragma unroll Unroll
    for (std::uint32_t q = 0; q < ep.values.cols; q += 4) {
        const float4 v4 = *reinterpret_cast<const float4*>(vr + q);
        std::uint32_t col[4];
        load_index4(ir + q, col);
        const float xv[4] = {v4.x, v4.y, v4.z, v4.w};
#pragma unroll
        for (int t = 0; t < 4; ++t) {
            float4 w4[kQ];
#pragma unroll
            for (int i = 0; i < kQ; ++i)
                w4[i] = *reinterpret_cast<const float4*>(wr + col[t] * kD + c0 + 4 * i);
            add(xv[t], w4);
        }
    }
    const float* res = ep.residual.row(r) + c0;
#pragma unroll
    for (int i = 0; i < kQ; ++i) {
        const float4 q = __ldcs(reinterpret_cast<const float4*>(res + 4 * i));
        const float rq[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
            float& v = z[4 * i + jj];
            v += ep.bias[c0 + 4 * i + jj];
            v = rintf(v * ep.inverse) * ep.quantum;
            v *= ep.sign;
            v += rq[jj];
        }
        float4* out = reinterpret_cast<float4*>(y.row(r) + c0 + 4 * i);
        const float4 o = make_float4(z[4 * i], z[4 * i + 1], z[4 * i + 2], z[4 * i + 3]);
        if constexpr (Streaming)
            __stcs(out, o);
        else
            *out = o;
    }
}

/// Function f's aggregation of the warp's 8 rows into y, then function f + 1's select +
/// product on those rows (4 lanes a row, as normalize_topk_pack_lanes<4, I, true>: the same
/// arithmetic, so the same bits). Not RowInRegisters (chain1): the aggregation in
/// aggregate_products' layout, 16 lanes a row, two rows at a time, and the select reads y back;
/// RowInRegisters (chain2): the aggregation in the select's layout, so the row never leaves
/// registers between the two (y is still stored).
template <bool Product, int MinBlocks, bool RowInRegisters>
__global__ void __launch_bounds__(256, MinBlocks)
    fused(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep, k::MatRef<float> y,
          const float* gamma, const float* beta, float quantile, k::MatRef<float> stats,
          k::MatRef<float> values, I* indices, k::MatRef<float> w, k::MatRef<float> product)
{
    using namespace gsr::gpu::kernels;
    constexpr int kCols = 16, kWidth = kCols * kLanes, kRowsPerWarp = 32 / kLanes;
    const int lane = threadIdx.x & 31;
    const int sub = lane % kLanes, c0 = sub * kCols;
    const std::uint32_t k = values.cols;
    extern __shared__ float4 chain_shared[];
    float* const ws = reinterpret_cast<float*>(chain_shared); // W, kWidth x kWidth
    float* const wr = ws + kWidth * kWidth;                    // W_root
    const int row_in_warp = lane / kLanes, odd = row_in_warp & 1;
    float2* const stage = reinterpret_cast<float2*>(wr + kWidth * kWidth) +
                          std::size_t((threadIdx.x >> 5) * kRowsPerWarp + row_in_warp) * (k + 1);
    for (int i = threadIdx.x; i < kWidth * kWidth; i += blockDim.x) {
        ws[i] = w(i / kWidth, i % kWidth);
        wr[i] = ep.wroot(i / kWidth, i % kWidth);
    }
    __syncthreads();
    for_warp_rows<kLanes>(y.rows, [&](std::size_t r, bool valid) {
        float z[kCols] = {};
        if constexpr (RowInRegisters) {
            if (valid) aggregate_row<kCols, 2, 1, false>(s, u, ep, wr, r, c0, y, z);
        } else {
            const std::size_t base = r - row_in_warp;
            const int ac0 = 4 * (lane % 16);
#pragma unroll 1
            for (int h = 0; h < kRowsPerWarp / 2; ++h) {
                const std::size_t ra = base + 2 * h + lane / 16;
                if (ra < y.rows) {
                    float v[4], t[4];
                    neighbour_sum<float, 4>(s, ra, u.p + ac0, u.ld, t);
                    for (int i = 0; i < 4; ++i) v[i] = t[i] * s.rs[ra];
                    conv_epilogue4(v, ra, ac0, ep, wr + ac0, kWidth, y);
                }
            }
            __syncwarp();
#pragma unroll
            for (int j = 0; j < kCols / 4; ++j) {
                const Float4s q = valid ? load4(y.row(r) + c0 + 4 * j) : Float4s{};
#pragma unroll
                for (int q4 = 0; q4 < 4; ++q4) z[4 * j + q4] = q.v[q4];
            }
        }
        select_row<kLanes, Product>(z, r, valid, sub, c0, odd, k, gamma, beta, nullptr, 0, 0, 1.f,
                                    quantile, stats, values, indices, ws, stage, product);
    });
}

/// aggregate_products with V columns a lane (64 / V lanes a row): the same adds in the same
/// order per column, so the same bits; the per-edge work (target, scale, address) and the kept
/// entries' loads are shared by V columns instead of 4.
template <int V, int Batch, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_wide(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                   k::MatRef<float> y)
{
    using namespace gsr::gpu::kernels;
    constexpr int kLanesRow = kD / V, kQ = V / 4;
    extern __shared__ float4 wide_shared[];
    float* const wr = reinterpret_cast<float*>(wide_shared);
    for (int i = threadIdx.x; i < kD * kD; i += blockDim.x) wr[i] = ep.wroot(i / kD, i % kD);
    __syncthreads();
    const int sub = (threadIdx.x & 31) % kLanesRow, c0 = sub * V;
    const std::uint32_t kept = ep.values.cols;
    for_warp_rows<kLanesRow>(y.rows, [&](std::size_t r, bool valid) {
        if (!valid) return;
        float z[V];
        aggregate_row<V, Batch, 2, true>(s, u, ep, wr, r, c0, y, z);
    });
}

int main(int argc, char** argv)
{
    const char* file = argc > 1 ? argv[1] : ".deps/data/netlists/epfl/arithmetic/hyp_from_aig.blif";
    const int functions = argc > 2 ? std::atoi(argv[2]) : 224;
    const MeanAggregation graph = upload_mean_aggregation(file);
    const k::CsrRef<float> s = graph.s;
    const std::uint32_t n = graph.n;

    std::mt19937 rng(17);
    const std::size_t nd = std::size_t(n) * kD, nk = std::size_t(n) * kK;
    Buf x0 = dev_random(nd, rng, 1.f), res = dev_random(nd, rng, 1.f);
    Buf ya = dev_random(nd, rng, 1.f), yb = dev_random(nd, rng, 1.f);
    Buf u[2] = {dev_random(nd, rng, 1.f), dev_random(nd, rng, 1.f)};
    Buf vals[2] = {dev_random(nk, rng, 1.f), dev_random(nk, rng, 1.f)};
    Buf st[2] = {dev_random(2 * std::size_t(n), rng, 1.f),
                 dev_random(2 * std::size_t(n), rng, 1.f)};
    Buf w = dev_random(kD * kD, rng, 0.125f), wroot = dev_random(kD * kD, rng, 0.125f);
    Buf bias = dev_random(kD, rng, 0.1f), gamma = dev_random(kD, rng, 0.1f),
        beta = dev_random(kD, rng, 0.1f);
    fill_near_one(gamma, rng);
    I* idx[2];
    CK(cudaMalloc(&idx[0], nk));
    CK(cudaMalloc(&idx[1], nk));
    const float quantile = 0.6744898f; // normal quantile of 1 - 16 / 64
    const int sms = sm_count();
    const auto select_kernel = k::normalize_topk_pack_lanes<kLanes, I, true>;
    const std::size_t select_shared = k::topk_product_shared_bytes(kD, kK, kLanes);
    const auto agg_kernel = k::aggregate_products<16, 1, I>;
    const std::size_t agg_shared = kD * kD * 4;
    const int min_blocks = argc > 3 ? std::atoi(argv[3]) : 3;
    const bool second = argc > 4 && std::atoi(argv[4]) == 2;
    const auto chain_kernel =
        second ? (min_blocks == 4   ? fused<true, 4, true>
                  : min_blocks == 2 ? fused<true, 2, true>
                                    : fused<true, 3, true>)
               : (min_blocks == 4   ? fused<true, 4, false>
                  : min_blocks == 2 ? fused<true, 2, false>
                                    : fused<true, 3, false>);
    const std::size_t chain_shared = (2 * kD * kD + 8 * 8 * (kK + 1) * 2) * 4;
    const unsigned select_blocks = resident_grid(select_kernel, select_shared, n, 64, sms);
    const unsigned agg_blocks = resident_grid(agg_kernel, agg_shared, n, 16, sms);
    unsigned* const counters = device_counters();
    const unsigned chain_blocks = resident_grid(chain_kernel, chain_shared, n, 64, sms);
    cudaFuncAttributes fa{};
    CK(cudaFuncGetAttributes(&fa, chain_kernel));
    std::printf("chain%s, min blocks %d: blocks select %u agg %u chain %u (chain %d regs, "
                "%d B local, %zu B shared)\n",
                second ? "2" : "1", min_blocks, select_blocks, agg_blocks, chain_blocks, fa.numRegs,
                int(fa.localSizeBytes), chain_shared);

    const auto epilogue = [&](int p, bool streaming) {
        k::GemmEpilogue<I> ep;
        ep.bias = bias.p;
        ep.values = vals[p].mat(n, kK);
        ep.idx = idx[p];
        ep.wroot = wroot.mat(kD, kD);
        ep.vector_root = true;
        ep.residual = res.mat(n, kD);
        ep.sign = 1.f;
        ep.quantum = 0x1p-16f;
        ep.inverse = 65536.f;
        ep.streaming = streaming;
        return ep;
    };
    const auto select = [&](const Buf& x, int p) {
        select_kernel<<<select_blocks, 256, select_shared>>>(
            x.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, st[p].mat(n, 2),
            vals[p].mat(n, kK), idx[p], w.mat(kD, kD), u[p].mat(n, kD));
    };
    const auto aggregate = [&](int p, const Buf& y) {
        agg_kernel<<<agg_blocks, 256, agg_shared>>>(s, s, u[p].mat(n, kD), epilogue(p, true),
                                                    y.mat(n, kD), counters);
    };
    const auto chained = [&](int p, const Buf& y) { // aggregate function p, select p ^ 1 on y
        chain_kernel<<<chain_blocks, 256, chain_shared>>>(
            s, u[p].mat(n, kD), epilogue(p, false), y.mat(n, kD), gamma.p, beta.p, quantile,
            st[p ^ 1].mat(n, 2), vals[p ^ 1].mat(n, kK), idx[p ^ 1], w.mat(kD, kD),
            u[p ^ 1].mat(n, kD));
    };
    const auto download = [&](const Buf& b) {
        std::vector<float> h(b.n);
        CK(cudaMemcpy(h.data(), b.p, b.n * 4, cudaMemcpyDeviceToHost));
        return h;
    };
    const auto download_idx = [&](int p) {
        std::vector<I> h(nk);
        CK(cudaMemcpy(h.data(), idx[p], nk, cudaMemcpyDeviceToHost));
        return h;
    };

    // Bits: select(x0) -> f0; aggregate f0 -> ya; select(ya) -> f1; aggregate f1 -> yb, both ways.
    select(x0, 0);
    aggregate(0, ya);
    select(ya, 1);
    aggregate(1, yb);
    CK(cudaDeviceSynchronize());
    const auto ya1 = download(ya), yb1 = download(yb), u1 = download(u[1]), v1 = download(vals[1]);
    const auto i1 = download_idx(1);
    CK(cudaMemset(ya.p, 0xff, nd * 4));
    CK(cudaMemset(yb.p, 0xff, nd * 4));
    CK(cudaMemset(u[1].p, 0xff, nd * 4));
    CK(cudaMemset(vals[1].p, 0xff, nk * 4));
    CK(cudaMemset(idx[1], 0xff, nk));
    select(x0, 0);
    chained(0, ya);
    aggregate(1, yb);
    CK(cudaDeviceSynchronize());
    const auto ya2 = download(ya), yb2 = download(yb), u2 = download(u[1]), v2 = download(vals[1]);
    const auto i2 = download_idx(1);
    const auto same = [](const auto& a, const auto& b) {
        return a.size() == b.size() &&
               std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0;
    };
    std::printf("bits equal: y %d, u %d, values %d, columns %d, y after %d\n", same(ya1, ya2),
                same(u1, u2), same(v1, v2), same(i1, i2), same(yb1, yb2));

    // The aggregation alone: aggregate_products<16> against aggregate_wide, same inputs
    // (function 0's products and kept entries from select(x0) above), bits and time.
    {
        select(x0, 0);
        aggregate(0, ya);
        CK(cudaDeviceSynchronize());
        const auto ref = download(ya);
        struct Wide {
            const char* name;
            void (*kernel)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                           k::MatRef<float>);
            int lanes;
        };
        const Wide wides[] = {{"wide V8 B4 mb4", aggregate_wide<8, 4, 4>, 8},
                              {"wide V8 B2 mb4", aggregate_wide<8, 2, 4>, 8},
                              {"wide V8 B4 mb3", aggregate_wide<8, 4, 3>, 8},
                              {"wide V16 B2 mb4", aggregate_wide<16, 2, 4>, 4},
                              {"wide V16 B2 mb3", aggregate_wide<16, 2, 3>, 4},
                              {"wide V4 B4 mb6", aggregate_wide<4, 4, 6>, 16}};
        cudaEvent_t a0, a1;
        CK(cudaEventCreate(&a0));
        CK(cudaEventCreate(&a1));
        const int reps = 100;
        const auto time_it = [&](auto launch) {
            std::vector<double> t;
            for (int round = 0; round < 6; ++round) {
                CK(cudaEventRecord(a0));
                for (int i = 0; i < reps; ++i) launch();
                CK(cudaEventRecord(a1));
                CK(cudaEventSynchronize(a1));
                CK(cudaGetLastError());
                float ms = 0;
                CK(cudaEventElapsedTime(&ms, a0, a1));
                if (round > 0) t.push_back(ms / reps);
            }
            std::sort(t.begin(), t.end());
            return t[t.size() / 2];
        };
        const double base = time_it([&] { aggregate(0, yb); });
        std::printf("aggregate_products<16>: %.4f ms\n", base);
        for (const Wide& wd : wides) {
            const std::size_t shared = kD * kD * 4;
            const unsigned blocks = resident_grid(wd.kernel, shared, n, 256 / wd.lanes, sms);
            cudaFuncAttributes at{};
            CK(cudaFuncGetAttributes(&at, wd.kernel));
            CK(cudaMemset(yb.p, 0xff, nd * 4));
            const auto launch = [&] {
                wd.kernel<<<blocks, 256, shared>>>(s, u[0].mat(n, kD), epilogue(0, true),
                                                   yb.mat(n, kD));
            };
            launch();
            CK(cudaDeviceSynchronize());
            const bool eq = same(ref, download(yb));
            const double t = time_it(launch);
            const double again = time_it([&] { aggregate(0, yb); });
            std::printf("%s: %.4f ms (%d regs, %d B local, %u blocks), bits equal %d; "
                        "aggregate_products again %.4f ms; ratio %.3fx\n",
                        wd.name, t, at.numRegs, int(at.localSizeBytes), blocks, eq, again,
                        again / t);
        }
    }
    if (argc > 5) return 0;

    // Timing: `functions` group functions in a chain, each way, alternating, 7 rounds.
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> t_sep, t_chain;
    const Buf* ys[2] = {&ya, &yb};
    for (int round = 0; round < 8; ++round) {
        for (int variant = 0; variant < 2; ++variant) {
            select(x0, 0);
            CK(cudaEventRecord(e0));
            if (variant == 0) {
                for (int f = 0; f < functions; ++f) {
                    aggregate(f & 1, *ys[f & 1]);
                    select(*ys[f & 1], (f + 1) & 1);
                }
            } else {
                for (int f = 0; f < functions; ++f) chained(f & 1, *ys[f & 1]);
            }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (round > 0) (variant ? t_chain : t_sep).push_back(ms / functions);
        }
    }
    std::sort(t_sep.begin(), t_sep.end());
    std::sort(t_chain.begin(), t_chain.end());
    std::printf("per group function (median of 7, %d functions a run): separate %.4f ms, chained "
                "%.4f ms, ratio %.3fx\n",
                functions, t_sep[3], t_chain[3], t_sep[3] / t_chain[3]);
    std::printf("all separate:");
    for (double t : t_sep) std::printf(" %.4f", t);
    std::printf("\nall chained:");
    for (double t : t_chain) std::printf(" %.4f", t);
    std::printf("\n");
    return 0;
}
