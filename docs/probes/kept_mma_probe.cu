// PROBE (session 24; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, k 16 (one term plus a compressed root, uint8 columns), a
// group function's forward as training runs it (normalize_topk_pack_lanes<4, I, true, true>:
// select + u = Z W, then aggregate_products<16, 1, I> gathering rows of u) against the select
// alone (normalize_topk_pack_lanes<4, I, false, true>) followed by one kernel that gathers the
// neighbours' kept entries (80 bytes a neighbour, not u's 256) into S z in shared memory and
// forms S z W and z W_root on the tensor cores in 3xTF32 (mma.sync), with the recomputation's
// epilogue: kept_mma (a lane a row while gathering, 32 rows a warp) and kept_mma_tiles (a
// 16-row tile's edges shared by the half warps, each into a partial S z of its own: halved,
// or interleaved edge by edge with the halves in step). y is held against float64 on the host
// (the first 20,000 rows) and against training's y, then a chain of F functions is timed both
// ways, and each kernel alone.
// On the device machine, after `cmake --build build/device --target gsr_core` (see
// .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/kept_mma_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/kept_mma_probe
//   /tmp/kept_mma_probe HYP.blif F [CAP [VARIANT]]
// CAP > 0 cuts every row to its first CAP neighbours (hyp without its primary inputs' rows of
// about 130), VARIANT runs one of the table's variants only.
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

#include <cmath>

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;
constexpr int kRows = 32; ///< rows a warp takes at once: one a lane while gathering
constexpr int kLd = 68;   ///< words a staged row: a fragment's 32 reads hit 32 banks
constexpr std::size_t kFragWords = 2 * 8 * 8 * 32 * 4; ///< [W; W_root] as B fragments

/// [W; W_root] as mma B fragments in shared memory, staged by the whole block: entry
/// ((t 8 + s) 8 + n) 32 + l holds W_t(8 s + tig_l, 8 n + gid_l) and W_t(8 s + tig_l + 4,
/// 8 n + gid_l), big then small parts.
__device__ inline void stage_fragments(uint4* frag, k::MatRef<float> w, k::MatRef<float> wroot)
{
    for (int e = threadIdx.x; e < 2 * 8 * 8 * 32; e += blockDim.x) {
        const int l = e & 31, n = (e >> 5) & 7, st = (e >> 8) & 7, t = e >> 11;
        const k::MatRef<float> wt = t == 0 ? w : wroot;
        const int r = 8 * st + (l & 3), c = 8 * n + (l >> 2);
        uint4 f;
        k::split_tf32(wt(r, c), f.x, f.z);
        k::split_tf32(wt(r + 4, c), f.y, f.w);
        frag[e] = f;
    }
}

/// acc (an m16n64 tile: eight m16n8 accumulators) += A B in 3xTF32, A = the 16 staged rows at
/// p (16 x 64, rows kLd apart), plus those at q when Two (a second partial), B = W_t from the
/// fragments.
template <bool Two = false>
__device__ inline void stage_product(float (&acc)[8][4], const float* p, const uint4* frag,
                                     int t, int lane, const float* q = nullptr)
{
    const int gid = lane >> 2, tig = lane & 3;
    const int lo = gid * kLd + tig, hi = lo + 8 * kLd;
    const auto at = [&](int i) { return Two ? p[i] + q[i] : p[i]; };
#pragma unroll
    for (int s = 0; s < 8; ++s) {
        const k::Tf32Split<4> a({at(lo + 8 * s), at(hi + 8 * s), at(lo + 8 * s + 4),
                                 at(hi + 8 * s + 4)});
#pragma unroll
        for (int n = 0; n < 8; ++n) {
            const uint4 f = frag[((t * 8 + s) * 8 + n) * 32 + lane];
            k::Tf32Split<2> b;
            b.big[0] = f.x, b.big[1] = f.y, b.small[0] = f.z, b.small[1] = f.w;
            k::mma_3xtf32(acc[n], a, b);
        }
    }
}

/// The tile's rows lo (gid) and hi (gid + 8) of acc scaled by their row scales; false for a
/// row past the end.
struct TileRows {
    std::size_t lo, hi;
    bool lo_valid, hi_valid;
};
__device__ inline TileRows scale_tile_rows(float (&acc)[8][4], const k::CsrRef<float>& s,
                                           std::size_t r0, int count, int gid)
{
    const TileRows t{r0 + gid, r0 + gid + 8, gid < count, gid + 8 < count};
    const float s_lo = t.lo_valid ? s.rs[t.lo] : 0.f, s_hi = t.hi_valid ? s.rs[t.hi] : 0.f;
#pragma unroll
    for (int n = 0; n < 8; ++n) {
        acc[n][0] *= s_lo, acc[n][1] *= s_lo;
        acc[n][2] *= s_hi, acc[n][3] *= s_hi;
    }
    return t;
}

/// The epilogue of the tile's rows, as conv_epilogue4's: bias, grid, sign, residual (read and
/// y written with evict-first hints).
__device__ inline void tile_epilogue(const float (&acc)[8][4], const TileRows& t,
                                     const k::GemmEpilogue<I>& ep, k::MatRef<float> y, int tig)
{
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const std::size_t r = h ? t.hi : t.lo;
        if (!(h ? t.hi_valid : t.lo_valid)) continue;
        float2 res[8];
        if (ep.residual.p)
#pragma unroll
            for (int n = 0; n < 8; ++n)
                res[n] = __ldcs(
                    reinterpret_cast<const float2*>(ep.residual.row(r) + 8 * n + 2 * tig));
#pragma unroll
        for (int n = 0; n < 8; ++n) {
            const int c = 8 * n + 2 * tig;
            float v[2] = {acc[n][2 * h], acc[n][2 * h + 1]};
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                if (ep.bias) v[q] += ep.bias[c + q];
                if (ep.quantum > 0.0f) v[q] = rintf(v[q] * ep.inverse) * ep.quantum;
                v[q] *= ep.sign;
            }
            if (ep.residual.p) v[0] += res[n].x, v[1] += res[n].y;
            __stcs(reinterpret_cast<float2*>(y.row(r) + c), make_float2(v[0], v[1]));
        }
    }
}

/// Zeros rows [first, first + rows) of a warp's stage.
__device__ inline void clear_rows(float* stage, int first, int rows, int lane)
{
    float4* p = reinterpret_cast<float4*>(stage + first * kLd);
    for (int i = lane; i < rows * kLd / 4; i += 32) p[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}

template <int Warps> constexpr std::size_t kept_mma_shared()
{
    return (kFragWords + std::size_t(Warps) * kRows * kLd) * sizeof(float);
}

/// y = residual + sign * grid(S (Z W) + Z W_root + bias) as (S Z) W: a block of Warps warps,
/// each taking 32 rows at a time from `counter`; lane i gathers row i's neighbours' kept
/// entries (times their column scales, CSR order) into its staged row of S z, then per half
/// (16 rows) the warp forms S z W on the tensor cores, scales the rows, stages z's own kept
/// entries in place of S z and adds z W_root, and applies the epilogue.
template <int Warps, int Unroll, int MinBlocks = 1>
__global__ void __launch_bounds__(32 * Warps, MinBlocks)
    kept_mma(k::CsrRef<float> s, k::MatRef<float> values, const I* idx, k::MatRef<float> w,
             k::GemmEpilogue<I> ep, k::MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 kept_shared[];
    uint4* const frag = reinterpret_cast<uint4*>(kept_shared);
    float* const stage = reinterpret_cast<float*>(kept_shared) + kFragWords +
                         std::size_t(threadIdx.x >> 5) * kRows * kLd;
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    stage_fragments(frag, w, ep.wroot);
    clear_rows(stage, 0, kRows, lane);
    __syncthreads();
    // v scaled by wv into row `row` at the 16 columns of ip.
    const auto scatter = [](float* row, const float4 (&v)[4], const uint4 ip, float wv) {
        const std::uint32_t words[4] = {ip.x, ip.y, ip.z, ip.w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const float e[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
            for (int b = 0; b < 4; ++b) row[(words[q] >> (8 * b)) & 0xffu] += wv * e[b];
        }
    };
    const auto load_kept = [&](std::uint32_t j, float4 (&v)[4], uint4& ip) {
        const float4* vp = reinterpret_cast<const float4*>(values.row(j));
#pragma unroll
        for (int q = 0; q < 4; ++q) v[q] = __ldg(vp + q);
        ip = __ldg(reinterpret_cast<const uint4*>(idx + std::size_t(j) * kK));
    };
    k::for_taken_strips<kRows>(y.rows, counter, [&](std::size_t r0, int count) {
        if (lane < count) {
            float* row = stage + lane * kLd;
            const std::size_t r = r0 + lane;
            std::uint64_t e = s.offsets[r];
            const std::uint64_t e1 = s.offsets[r + 1];
            for (; e + Unroll <= e1; e += Unroll) {
                std::uint32_t j[Unroll];
                float wj[Unroll];
                float4 v[Unroll][4];
                uint4 ip[Unroll];
#pragma unroll
                for (int u = 0; u < Unroll; ++u) j[u] = __ldg(s.targets + e + u);
#pragma unroll
                for (int u = 0; u < Unroll; ++u) {
                    wj[u] = __ldg(s.cs + j[u]);
                    load_kept(j[u], v[u], ip[u]);
                }
#pragma unroll
                for (int u = 0; u < Unroll; ++u) scatter(row, v[u], ip[u], wj[u]);
            }
            for (; e < e1; ++e) {
                const std::uint32_t j = __ldg(s.targets + e);
                float4 v[4];
                uint4 ip;
                load_kept(j, v, ip);
                scatter(row, v, ip, __ldg(s.cs + j));
            }
        }
        __syncwarp();
#pragma unroll 1
        for (int m = 0; m < 2; ++m) {
            float* const tile = stage + 16 * m * kLd;
            float acc[8][4] = {};
            stage_product(acc, tile, frag, 0, lane);
            const TileRows rows = scale_tile_rows(acc, s, r0 + 16 * m, count - 16 * m, gid);
            __syncwarp();
            clear_rows(stage, 16 * m, 16, lane);
            __syncwarp();
            // The root term: the half's rows' own kept entries, a lane each (lanes 0..15).
            if (lane < 16 && 16 * m + lane < count) {
                float4 v[4];
                uint4 ip;
                load_kept(std::uint32_t(r0 + 16 * m + lane), v, ip);
                scatter(tile + lane * kLd, v, ip, 1.f);
            }
            __syncwarp();
            stage_product(acc, tile, frag, 1, lane);
            __syncwarp();
            clear_rows(stage, 16 * m, 16, lane); // zeros again for the next strip
            tile_epilogue(acc, rows, ep, y, tig);
        }
        __syncwarp();
    });
}

/// The gathers of kept_mma_tiles: the tile's edges (contiguous in the CSR) split in two
/// halves, each walked in CSR order by a half warp (lane j: kept entry j of each neighbour,
/// Unroll neighbours in flight) into the half's partial S z.
template <int Unroll> struct HalvedGather {
    __device__ void operator()(const k::CsrRef<float>& s, k::MatRef<float> values, const I* idx,
                               const std::uint64_t* off, int count, float* part, int lane) const
    {
        const int half = lane >> 4, j = lane & 15;
        const unsigned hmask = 0xffffu << (16 * half);
        const std::uint64_t e0 = off[0], e1 = off[count], mid = e0 + (e1 - e0 + 1) / 2;
        std::uint64_t e = half ? mid : e0;
        const std::uint64_t end = half ? e1 : mid;
        int row = 0;
        const auto add = [&](std::uint64_t at, float x, std::uint32_t c) {
            while (at >= off[row + 1]) ++row;
            part[row * kLd + c] += x;
            __syncwarp(hmask);
        };
        for (; e + Unroll <= end; e += Unroll) {
            std::uint32_t t[Unroll], c[Unroll];
            float x[Unroll], ws[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) t[u] = __ldg(s.targets + e + u);
#pragma unroll
            for (int u = 0; u < Unroll; ++u) {
                ws[u] = __ldg(s.cs + t[u]);
                x[u] = __ldg(values.row(t[u]) + j);
                c[u] = __ldg(idx + std::size_t(t[u]) * kK + j);
            }
#pragma unroll
            for (int u = 0; u < Unroll; ++u) add(e + u, ws[u] * x[u], c[u]);
        }
        for (; e < end; ++e) {
            const std::uint32_t t = __ldg(s.targets + e);
            add(e, __ldg(s.cs + t) * __ldg(values.row(t) + j),
                __ldg(idx + std::size_t(t) * kK + j));
        }
    }
};

/// The gathers of kept_mma_tiles with both half warps in step: edge 2 i + h of the tile goes
/// to half warp h (its partial), the row of each edge from a ballot over the tile's row ends.
template <int Unroll> struct InterleavedGather {
    __device__ void operator()(const k::CsrRef<float>& s, k::MatRef<float> values, const I* idx,
                               const std::uint64_t* off, int count, float* part, int lane) const
    {
        const int half = lane >> 4, j = lane & 15;
        const unsigned hmask = 0xffffu << (16 * half);
        const std::uint64_t e0 = off[0], e1 = off[count];
        // Lane l compares its half's edge with the end of row l % 16.
        const std::uint64_t row_end = j < count ? off[j + 1] : ~std::uint64_t(0);
        for (std::uint64_t base = e0; base < e1; base += 2 * Unroll) {
            std::uint32_t t[Unroll], c[Unroll];
            float x[Unroll];
#pragma unroll
            for (int u = 0; u < Unroll; ++u) {
                const std::uint64_t e = base + 2 * u + half;
                t[u] = e < e1 ? __ldg(s.targets + e) : 0u;
            }
#pragma unroll
            for (int u = 0; u < Unroll; ++u) {
                const bool valid = base + 2 * u + half < e1;
                x[u] = valid ? __ldg(s.cs + t[u]) * __ldg(values.row(t[u]) + j) : 0.f;
                c[u] = valid ? __ldg(idx + std::size_t(t[u]) * kK + j) : 0u;
            }
#pragma unroll
            for (int u = 0; u < Unroll; ++u) {
                const std::uint64_t e = base + 2 * u + half;
                const int row = __popc(__ballot_sync(0xffffffffu, row_end <= e) & hmask);
                if (e < e1) part[row * kLd + c[u]] += x[u];
                __syncwarp();
            }
        }
    }
};

/// kept_mma with the gather balanced by edges: a warp takes 16 rows (one m16 tile) at a time
/// and Gather fills two partial S z, one a half warp; the A fragments are their sum. The
/// tile's residual rows are prefetched into L2 when it is taken.
template <int Warps, class Gather, int MinBlocks = 1>
__global__ void __launch_bounds__(32 * Warps, MinBlocks)
    kept_mma_tiles(k::CsrRef<float> s, k::MatRef<float> values, const I* idx,
                   k::MatRef<float> w, k::GemmEpilogue<I> ep, k::MatRef<float> y,
                   unsigned* counter)
{
    extern __shared__ float4 kept_shared[];
    __shared__ std::uint64_t tile_offsets[Warps][17];
    uint4* const frag = reinterpret_cast<uint4*>(kept_shared);
    const int warp = threadIdx.x >> 5;
    float* const stage = reinterpret_cast<float*>(kept_shared) + kFragWords +
                         std::size_t(warp) * 2 * 16 * kLd; // two partials of 16 rows
    std::uint64_t* const off = tile_offsets[warp];
    const int lane = threadIdx.x & 31, gid = lane >> 2, tig = lane & 3;
    const int half = lane >> 4, j = lane & 15;
    stage_fragments(frag, w, ep.wroot);
    clear_rows(stage, 0, 32, lane);
    __syncthreads();
    k::for_taken_strips<16>(y.rows, counter, [&](std::size_t r0, int count) {
        if (ep.residual.p)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(ep.residual.row(r0 + (lane >> 1)) +
                                                         32 * (lane & 1)));
        if (lane <= count) off[lane] = s.offsets[r0 + lane];
        __syncwarp();
        Gather{}(s, values, idx, off, count, stage + half * 16 * kLd, lane);
        __syncwarp();
        float acc[8][4] = {};
        stage_product<true>(acc, stage, frag, 0, lane, stage + 16 * kLd);
        const TileRows rows = scale_tile_rows(acc, s, r0, count, gid);
        __syncwarp();
        clear_rows(stage, 0, 32, lane);
        __syncwarp();
        // The root term: each half warp stages its rows' own kept entries (rows half, half +
        // 2, ..), lane j entry j, into the first partial.
        for (int i = half; i < count; i += 2)
            stage[i * kLd + __ldg(idx + (r0 + i) * kK + j)] = __ldg(values.row(r0 + i) + j);
        __syncwarp();
        stage_product(acc, stage, frag, 1, lane);
        __syncwarp();
        clear_rows(stage, 0, 16, lane);
        tile_epilogue(acc, rows, ep, y, tig);
        __syncwarp();
    });
}

template <int Warps> constexpr std::size_t kept_mma_tiles_shared()
{
    return (kFragWords + std::size_t(Warps) * 2 * 16 * kLd) * sizeof(float);
}

/// y = y - f on the grid in float64 on the host for rows [0, rows), from the kept entries
/// (downloaded): the reference the two kernels' y are held against.
static std::vector<double> reference(const MeanAggregation& g, const GroupFunctionKernels& gf,
                                     const std::vector<float>& y_start, std::uint32_t rows)
{
    const std::uint32_t n = gf.n;
    const auto vals = download(gf.vals), w = download(gf.w), wr = download(gf.wroot),
               bias = download(gf.bias);
    std::vector<I> idx(std::size_t(n) * kK);
    CK(cudaMemcpy(idx.data(), gf.idx, idx.size(), cudaMemcpyDeviceToHost));
    std::vector<std::uint64_t> off(n + 1);
    CK(cudaMemcpy(off.data(), g.s.offsets, off.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> tgt(off[n]);
    CK(cudaMemcpy(tgt.data(), g.s.targets, tgt.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<double> out(std::size_t(rows) * kD);
    for (std::uint32_t r = 0; r < rows; ++r) {
        double sz[kD] = {}, root[kD] = {};
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e)
            for (int q = 0; q < kK; ++q)
                sz[idx[std::size_t(tgt[e]) * kK + q]] += vals[std::size_t(tgt[e]) * kK + q];
        const double scale = off[r + 1] > off[r] ? 1.0 / double(off[r + 1] - off[r]) : 0.0;
        for (int q = 0; q < kK; ++q) root[idx[std::size_t(r) * kK + q]] += vals[std::size_t(r) * kK + q];
        for (int c = 0; c < kD; ++c) {
            double f = bias[c];
            for (int i = 0; i < kD; ++i) f += scale * sz[i] * w[i * kD + c] + root[i] * wr[i * kD + c];
            f = std::rint(f * 65536.0) / 65536.0;
            out[std::size_t(r) * kD + c] = y_start[std::size_t(r) * kD + c] - f;
        }
    }
    return out;
}

static double max_difference(const std::vector<double>& ref, const std::vector<float>& y)
{
    double d = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) d = std::max(d, std::abs(ref[i] - double(y[i])));
    return d;
}

/// g with each row cut to its first `cap` neighbours (row scales 1 / the new degree): a graph
/// without hyp's primary inputs' long rows, to time the kernels without their tail.
static MeanAggregation capped(const MeanAggregation& g, std::uint32_t cap)
{
    const std::uint32_t n = g.n;
    std::vector<std::uint64_t> off(n + 1), out_off(n + 1, 0);
    CK(cudaMemcpy(off.data(), g.s.offsets, off.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> tgt(off[n]), out_tgt;
    CK(cudaMemcpy(tgt.data(), g.s.targets, tgt.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<float> rs(n), cs(n, 1.f);
    for (std::uint32_t r = 0; r < n; ++r) {
        const std::uint64_t d = std::min<std::uint64_t>(off[r + 1] - off[r], cap);
        for (std::uint64_t e = 0; e < d; ++e) out_tgt.push_back(tgt[off[r] + e]);
        out_off[r + 1] = out_tgt.size();
        rs[r] = d ? 1.f / float(d) : 0.f;
    }
    std::uint64_t* d_off;
    std::uint32_t* d_tgt;
    float *d_rs, *d_cs;
    CK(cudaMalloc(&d_off, out_off.size() * 8));
    CK(cudaMalloc(&d_tgt, out_tgt.size() * 4));
    CK(cudaMalloc(&d_rs, n * 4));
    CK(cudaMalloc(&d_cs, n * 4));
    CK(cudaMemcpy(d_off, out_off.data(), out_off.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tgt, out_tgt.data(), out_tgt.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_rs, rs.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_cs, cs.data(), n * 4, cudaMemcpyHostToDevice));
    std::printf("rows cut to %u neighbours: %zu entries\n", cap, out_tgt.size());
    return {{d_off, d_tgt, d_rs, d_cs, n, false}, {d_off, d_tgt, d_cs, d_rs, n, false}, n};
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 24);
    auto& [full_graph, functions, rng, x0, ys] = start;
    const std::uint32_t cap = argc > 3 ? std::uint32_t(std::atoi(argv[3])) : 0;
    const MeanAggregation graph = cap ? capped(full_graph, cap) : full_graph;
    const k::CsrRef<float> s = graph.s;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    const GroupFunctionKernels gf(n, rng);
    const int sms = sm_count();
    const float quantile = 0.6744898f;
    const auto select_only_kernel = k::normalize_topk_pack_lanes<4, I, false, true>;
    const unsigned select_blocks = resident_grid(select_only_kernel, 0, n, 64, sms);
    const auto select_only = [&](const Buf& x) {
        select_only_kernel<<<select_blocks, 256>>>(x.mat(n, kD), gf.gamma.p, gf.beta.p, nullptr, 0,
                                                   0, 1.f, quantile, gf.stats.mat(n, 2),
                                                   gf.vals.mat(n, kK), gf.idx, k::MatRef<float>{},
                                                   k::MatRef<float>{});
    };
    unsigned* counters = device_counters();
    const std::vector<float> y_start = download(ys[0]);
    const std::uint32_t check_rows = std::min<std::uint32_t>(n, 20000);

    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, const I*, k::MatRef<float>,
                            k::GemmEpilogue<I>, k::MatRef<float>, unsigned*);
    struct Variant {
        const char* name;
        Kernel kernel;
        int warps;
        std::size_t shared;
    };
    const Variant variants[] = {
        {"tiles, interleaved, 16 warps, unroll 4", kept_mma_tiles<16, InterleavedGather<4>>, 16,
         kept_mma_tiles_shared<16>()},
        {"tiles, interleaved, 16 warps, unroll 8", kept_mma_tiles<16, InterleavedGather<8>>, 16,
         kept_mma_tiles_shared<16>()},
        {"tiles, halved, 16 warps, unroll 4", kept_mma_tiles<16, HalvedGather<4>>, 16,
         kept_mma_tiles_shared<16>()},
        {"tiles, halved, 16 warps, unroll 8", kept_mma_tiles<16, HalvedGather<8>>, 16,
         kept_mma_tiles_shared<16>()},
        {"tiles, halved, 8 warps, unroll 8", kept_mma_tiles<8, HalvedGather<8>>, 8,
         kept_mma_tiles_shared<8>()},
        {"tiles, halved, 12 warps, unroll 8", kept_mma_tiles<12, HalvedGather<8>>, 12,
         kept_mma_tiles_shared<12>()},
        {"a lane a row, 16 warps, unroll 2", kept_mma<16, 2>, 16, kept_mma_shared<16>()},
        {"a lane a row, 16 warps, unroll 4", kept_mma<16, 4>, 16, kept_mma_shared<16>()},
        {"a lane a row, 12 warps, unroll 2", kept_mma<12, 2>, 12, kept_mma_shared<12>()},
        {"a lane a row, 8 warps, unroll 2", kept_mma<8, 2, 2>, 8, kept_mma_shared<8>()}};

    // Training's y, one function from x0.
    CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
    const auto y_train = one_function(gf, s, x0, ys[0]);
    const auto ref = reference(graph, gf, y_start, check_rows);
    double f_max = 0;
    for (std::size_t i = 0; i < ref.size(); ++i)
        f_max = std::max(f_max, std::abs(ref[i] - double(y_start[i])));
    std::printf("training's y against float64 on %u rows: max |diff| %.3g (max |f| %.3g)\n",
                check_rows, max_difference(ref, y_train), f_max);

    const int only = argc > 4 ? std::atoi(argv[4]) : -1;
    for (const Variant& v : variants) {
        if (only >= 0 && &v != &variants[only]) continue;
        CK(cudaFuncSetAttribute(v.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(v.shared)));
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.kernel, 32 * v.warps,
                                                         v.shared));
        const unsigned blocks = unsigned(std::max(per_sm, 1) * sms);
        const auto run = [&](const Buf& y) {
            v.kernel<<<blocks, 32 * v.warps, v.shared>>>(s, gf.vals.mat(n, kK), gf.idx,
                                                         gf.w.mat(kD, kD), gf.epilogue(y),
                                                         y.mat(n, kD), counters);
        };
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(gf.vals.p, 0xff, gf.vals.n * 4));
        select_only(x0);
        run(ys[0]);
        CK(cudaDeviceSynchronize());
        const auto y_mma = download(ys[0]);
        double d_train = 0;
        for (std::size_t i = 0; i < nd; ++i)
            d_train = std::max(d_train, std::abs(double(y_mma[i]) - double(y_train[i])));
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        std::printf("%s: %d regs, %zu B local, %d blocks an SM; y against float64 max |diff| "
                    "%.3g, against training's (all rows) %.3g\n",
                    v.name, fa.numRegs, std::size_t(fa.localSizeBytes), per_sm,
                    max_difference(ref, y_mma), d_train);
        for (int round = 0; round < 2; ++round) {
            const TwoWays t = time_two_ways(functions, [&](int way, int f) {
                const Buf& y = ys[f & 1];
                if (way == 0) {
                    gf.select(ys[(f + 1) & 1]);
                    gf.aggregate(s, y);
                } else {
                    select_only(ys[(f + 1) & 1]);
                    run(y);
                }
            });
            std::printf("%s: per function (median of 7): training %.4f ms, select + kept_mma "
                        "%.4f ms, ratio %.3fx\n",
                        v.name, t.first[3], t.second[3], t.first[3] / t.second[3]);
        }
        // The parts alone.
        print_two_ways(v.name, "launch", "aggregate_products", "kept_mma", functions,
                       [&] { gf.aggregate(s, ys[0]); }, [&] { run(ys[1]); });
        print_two_ways(v.name, "launch", "select + product", "select alone", functions,
                       [&] { gf.select(ys[0]); }, [&] { select_only(ys[0]); });
    }
    return 0;
}
