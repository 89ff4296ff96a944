#pragma once
// Row kernels: one warp per row (layernorm, layernorm + ReLU, the fused normalise + top-k +
// pack), and the reductions over rows (layernorm parameter gradients, column sums), which run
// over a fixed number of slabs: each block sums its slab in row order, a second kernel adds the
// slab partials in a fixed order. No atomics, so no run-to-run drift.
#include "kernels/common.cuh"

namespace gsr::gpu::kernels {

inline constexpr int kRowWarps = 4; ///< warps (rows in flight) per block of the row kernels
/// Warps per block of the kernels that give a row a few threads (norm_backward_rows4 and others).
inline constexpr int kNormWarps = 8;

/// Mean and 1/sqrt(var + 1e-5) of row x (width d) over the warp; two passes, like the CPU.
template <class T>
__device__ inline void row_stats(const T* x, std::uint32_t d, int lane, T& mean, T& rstd)
{
    T s = T(0);
    for (std::uint32_t c = lane; c < d; c += 32) s += x[c];
    mean = warp_sum(s) / T(d);
    T v = T(0);
    for (std::uint32_t c = lane; c < d; c += 32) v += (x[c] - mean) * (x[c] - mean);
    rstd = rsqrt_exact(warp_sum(v) / T(d) + T(1e-5));
}

/// y = layernorm(x) (affine); with Relu, y = ReLU(layernorm(x)) times the dropout mask (keep:
/// row stride `stride`, from column `column`), the arithmetic of layernorm then relu_forward.
template <class T, bool Relu>
__global__ void layernorm_forward(MatRef<T> x, const T* gamma, const T* beta,
                                  const std::uint8_t* keep, std::uint32_t stride,
                                  std::uint32_t column, T scale, MatRef<T> y, MatRef<T> stats)
{
    const int lane = threadIdx.x & 31;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x >> 5);
    for (std::size_t r = blockIdx.x * std::size_t(blockDim.x >> 5) + (threadIdx.x >> 5);
         r < x.rows; r += warps) {
        const T* xr = x.row(r);
        T mean, rstd;
        row_stats(xr, x.cols, lane, mean, rstd);
        if (lane == 0) {
            stats(r, 0) = mean;
            stats(r, 1) = rstd;
        }
        T* yr = y.row(r);
        const std::uint8_t* kr = keep ? keep + r * stride + column : nullptr;
        for (std::uint32_t c = lane; c < x.cols; c += 32) {
            const T v = gamma[c] * ((xr[c] - mean) * rstd) + beta[c];
            if constexpr (Relu) {
                const T a = v > T(0) ? v : T(0);
                yr[c] = kr ? (kr[c] ? a * scale : T(0)) : a;
            } else {
                yr[c] = v;
            }
        }
    }
}

/// Four floats from 16-byte aligned memory.
struct Float4s {
    float v[4];
};
__device__ inline Float4s load4(const float* p)
{
    const float4 q = *reinterpret_cast<const float4*>(p);
    return {{q.x, q.y, q.z, q.w}};
}
__device__ inline void store4(float* p, const Float4s& a)
{
    *reinterpret_cast<float4*>(p) = make_float4(a.v[0], a.v[1], a.v[2], a.v[3]);
}
/// Sum over the `Lanes` threads of a row's group (aligned groups of a warp), the same order in
/// every group.
template <int Lanes, class V> __device__ inline V group_sum(V v)
{
    for (int o = Lanes / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
/// The sum of v over the threads before this one (`sub`) in its group of `Lanes`.
template <int Lanes> __device__ inline std::uint32_t group_exclusive_sum(std::uint32_t v, int sub)
{
    std::uint32_t inclusive = v;
    for (int o = 1; o < Lanes; o <<= 1) {
        const std::uint32_t t = __shfl_up_sync(0xffffffffu, inclusive, o, Lanes);
        if (sub >= o) inclusive += t;
    }
    return inclusive - v;
}

/// How many of the keys v[0..N) reach c (unsigned, v >= c): the carries out of v + (2^32 - c),
/// added up by the carry chain, two instructions a key where a compare and a conditional
/// increment took three. Every key reaches c = 0.
template <int N>
__device__ inline std::uint32_t count_reaching(const std::uint32_t (&v)[N], std::uint32_t c)
{
    if (c == 0) return N;
    const std::uint32_t minus_c = 0u - c;
    std::uint32_t n = 0;
#pragma unroll
    for (int u = 0; u < N; ++u) {
        std::uint32_t sum;
        asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %1, 0;"
            : "=r"(sum), "+r"(n)
            : "r"(v[u]), "r"(minus_c));
    }
    return n;
}

/// layernorm_forward for float rows d = 4 Lanes wide (Lanes a power of two up to 32): Lanes
/// threads take a row, four columns each through 16-byte loads, so a warp normalises 32 / Lanes
/// rows at once; the one-warp-per-row kernel leaves lanes idle on narrow rows (d = 64 gives each
/// lane two columns and a chain of loads and reductions per row). The arithmetic per element is
/// that of layernorm_forward (two-pass statistics). Rows and pointers: 16-byte aligned.
template <int Lanes, bool Relu>
__global__ void layernorm_forward_rows4(MatRef<float> x, const float* gamma, const float* beta,
                                        const std::uint8_t* keep, std::uint32_t stride,
                                        std::uint32_t column, float scale, MatRef<float> y,
                                        MatRef<float> stats)
{
    constexpr float kD = 4 * Lanes;
    const int c = (threadIdx.x % Lanes) * 4;
    const Float4s g = load4(gamma + c), b = load4(beta + c);
    // Every lane stays for the group sums; rows past the end add zeros and store nothing.
    for_warp_rows<Lanes>(x.rows, [&](std::size_t r, bool valid) {
        const Float4s xv = valid ? load4(x.row(r) + c) : Float4s{};
        const float mean = group_sum<Lanes>(xv.v[0] + xv.v[1] + xv.v[2] + xv.v[3]) / kD;
        float v = 0;
        for (int j = 0; j < 4; ++j) v += (xv.v[j] - mean) * (xv.v[j] - mean);
        const float rstd = rsqrt_exact(group_sum<Lanes>(v) / kD + 1e-5f);
        if (!valid) return;
        if (c == 0) {
            stats(r, 0) = mean;
            stats(r, 1) = rstd;
        }
        const std::uint8_t* kr = keep ? keep + r * stride + column + c : nullptr;
        Float4s out;
        for (int j = 0; j < 4; ++j) {
            const float t = g.v[j] * ((xv.v[j] - mean) * rstd) + b.v[j];
            if constexpr (Relu) {
                const float a = t > 0.f ? t : 0.f;
                out.v[j] = kr ? (kr[j] ? a * scale : 0.f) : a;
            } else {
                out.v[j] = t;
            }
        }
        store4(y.row(r) + c, out);
    });
}

/// An order-preserving key: a > b as numbers exactly when key(a) > key(b); -0 and +0 equal.
/// A total order (NaN included, above +inf or below -inf by its sign), so a rank counted on
/// keys keeps exactly k of a row that holds NaN, as the radix selects do.
__device__ inline std::uint32_t order_key(float v)
{
    const std::uint32_t u = v == 0.0f ? 0u : __float_as_uint(v);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}
__device__ inline std::uint64_t order_key(double v)
{
    const std::uint64_t u = v == 0.0 ? 0ull : std::uint64_t(__double_as_longlong(v));
    return u & 0x8000000000000000ull ? ~u : u | 0x8000000000000000ull;
}

/// Fused: z = layernorm(x) (affine); keep the k largest of each row (of equal values the lower
/// column wins), ascending by column; values times the dropout mask; pack. A column is kept
/// when fewer than k columns beat it, the rule of the CPU backend, so both keep the same set.
/// Shared memory: kRowWarps * d scalars.
template <class T, class I>
__global__ void normalize_topk_pack(MatRef<T> x, const T* gamma, const T* beta,
                                    const std::uint8_t* keep, std::uint32_t stride,
                                    std::uint32_t column, T scale, MatRef<T> stats,
                                    MatRef<T> values, I* indices)
{
    extern __shared__ unsigned char shared_raw[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::uint32_t d = x.cols, k = values.cols;
    T* z = reinterpret_cast<T*>(shared_raw) + std::size_t(warp) * d;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x >> 5);
    for (std::size_t r = blockIdx.x * std::size_t(blockDim.x >> 5) + warp; r < x.rows;
         r += warps) {
        const T* xr = x.row(r);
        T mean, rstd;
        row_stats(xr, d, lane, mean, rstd);
        if (lane == 0) {
            stats(r, 0) = mean;
            stats(r, 1) = rstd;
        }
        for (std::uint32_t c = lane; c < d; c += 32)
            z[c] = gamma[c] * ((xr[c] - mean) * rstd) + beta[c];
        __syncwarp();
        std::uint32_t base = 0;
        const std::uint8_t* kr = keep ? keep + r * stride + column : nullptr;
        for (std::uint32_t c0 = 0; c0 < d; c0 += 32) {
            const std::uint32_t c = c0 + lane;
            bool kept = false;
            if (c < d) {
                // On keys, not numbers: compared with a NaN every number is "not beaten", and
                // a diverged row kept all d columns, written past its k slots.
                const auto kc = order_key(z[c]);
                std::uint32_t beaten = 0;
#pragma unroll 8
                for (std::uint32_t j = 0; j < c; ++j) beaten += order_key(z[j]) >= kc;
#pragma unroll 8
                for (std::uint32_t j = c + 1; j < d; ++j) beaten += order_key(z[j]) > kc;
                kept = beaten < k;
            }
            const unsigned ballot = __ballot_sync(0xffffffffu, kept);
            if (kept) {
                const std::uint32_t at = base + __popc(ballot & ((1u << lane) - 1u));
                const T zc = z[c];
                values(r, at) = kr ? (kr[c] ? zc * scale : T(0)) : zc;
                indices[r * k + at] = I(c);
            }
            base += __popc(ballot);
        }
        __syncwarp();
    }
}

/// normalize_topk_pack for rows of at most 32 E columns, held in registers (E per lane), with
/// a radix select instead of rank counting. From the top bit down, a ballot counts the
/// candidates whose key has the bit set: the k-th largest key is among them or they are all
/// kept. The select stops as soon as every candidate left is kept (about 12 of 32 bits for
/// normalised values); keys still equal after the last bit are exact ties, of which the lower
/// columns win. The kept set is the rank-counting rule's, bit for bit.
template <class T, class I, int E>
__global__ void normalize_topk_pack_select(MatRef<T> x, const T* gamma, const T* beta,
                                           const std::uint8_t* keep, std::uint32_t stride,
                                           std::uint32_t column, T scale, MatRef<T> stats,
                                           MatRef<T> values, I* indices)
{
    using Key = decltype(order_key(T(0)));
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1u;
    const std::uint32_t d = x.cols, k = values.cols;
    bool valid[E];
    T g[E], b[E];
#pragma unroll
    for (int e = 0; e < E; ++e) {
        const std::uint32_t c = lane + 32 * e;
        valid[e] = c < d;
        g[e] = valid[e] ? gamma[c] : T(0);
        b[e] = valid[e] ? beta[c] : T(0);
    }
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x >> 5);
    for (std::size_t r = blockIdx.x * std::size_t(blockDim.x >> 5) + (threadIdx.x >> 5);
         r < x.rows; r += warps) {
        const T* xr = x.row(r);
        T v[E], s = T(0);
#pragma unroll
        for (int e = 0; e < E; ++e) {
            v[e] = valid[e] ? xr[lane + 32 * e] : T(0);
            if (valid[e]) s += v[e];
        }
        const T mean = warp_sum(s) / T(d);
        T q = T(0);
#pragma unroll
        for (int e = 0; e < E; ++e)
            if (valid[e]) q += (v[e] - mean) * (v[e] - mean);
        const T rstd = rsqrt_exact(warp_sum(q) / T(d) + T(1e-5));
        if (lane == 0) {
            stats(r, 0) = mean;
            stats(r, 1) = rstd;
        }
        T z[E];
        Key key[E];
#pragma unroll
        for (int e = 0; e < E; ++e) {
            z[e] = g[e] * ((v[e] - mean) * rstd) + b[e];
            key[e] = order_key(z[e]);
        }
        // The bucket: keys whose decided top bits equal prefix; `left` of them are kept.
        Key prefix = 0, decided = 0;
        std::uint32_t left = k, bucket = d;
        for (int bit = int(sizeof(Key) * 8) - 1; bit >= 0 && bucket != left; --bit) {
            const Key probe = Key(1) << bit, mask = decided | probe, want = prefix | probe;
            std::uint32_t ones = 0;
#pragma unroll
            for (int e = 0; e < E; ++e)
                ones += __popc(__ballot_sync(kAll, valid[e] && (key[e] & mask) == want));
            decided = mask;
            if (ones >= left) {
                prefix = want;
                bucket = ones;
            } else {
                left -= ones;
                bucket -= ones;
            }
        }
        bool kept[E];
        std::uint32_t ties_before = 0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const Key top = key[e] & decided;
            const bool tie = valid[e] && top == prefix;
            const unsigned tied = __ballot_sync(kAll, tie);
            const bool tie_kept = bucket == left || ties_before + __popc(tied & below) < left;
            kept[e] = valid[e] && (top > prefix || (tie && tie_kept));
            ties_before += __popc(tied);
        }
        const std::uint8_t* kr = keep ? keep + r * stride + column : nullptr;
        std::uint32_t base = 0;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const unsigned ballot = __ballot_sync(kAll, kept[e]);
            if (kept[e]) {
                const std::uint32_t c = lane + 32 * e;
                const std::uint32_t at = base + __popc(ballot & below);
                values(r, at) = kr ? (kr[c] ? z[e] * scale : T(0)) : z[e];
                indices[r * k + at] = I(c);
            }
            base += __popc(ballot);
        }
    }
}

/// normalize_topk_pack for float rows of d = 16 Lanes (Lanes a power of two up to 8; rows,
/// gamma and beta 16-byte aligned): Lanes threads take a row, 16 adjacent columns each in
/// registers, so a warp selects for 32 / Lanes rows at once where normalize_topk_pack_select
/// spends a whole warp's ballots on one row per bit. The select counts, in each thread, the
/// keys at or above a candidate and sums the counts over the row's threads. From the top bit
/// (or, where a bracket from the row's mean and spread holds the k-th largest key, from the
/// first bit in which its ends differ) down, a candidate bit stays when at least k keys reach
/// it, and a row is done once exactly k do; otherwise the candidate left is the k-th largest
/// key. `quantile` is the standard normal quantile of 1 - k / d. Kept: the keys above it, and of
/// the keys equal to it the lowest columns, so the set is the rank-counting rule's, bit for
/// bit. The statistics are the two-pass ones of layernorm_forward_rows4.
///
/// With Product, also `product` = Z W for the packed rows Z and a square W (d x d, one term of
/// the transient convolution; rows x d): compressed_product's sums in its order, so the same
/// bits as its u. W sits in shared memory (topk_product_shared_bytes); a row's kept entries go
/// through a per-warp staging area (rows padded apart by a bank) to all of its threads, each
/// forming 16 columns of the product: chunks of 4 columns sub, sub + Lanes, .., the odd rows
/// of a warp taking them in the other order of each pair, so that the two rows a quarter warp
/// reads at once use other banks of W whatever their kept columns. The packed row is then
/// written from the staging area, k / Lanes slots a thread.
///
/// Descending: the warps walk the rows from the last down (for_warp_rows), so that a kernel
/// walking them from row 0 up next finds the rows written last still in L2.
template <int Lanes, class I, bool Product = false, bool Descending = false>
__global__ void __launch_bounds__(32 * kNormWarps, 3)
    normalize_topk_pack_lanes(MatRef<float> x, const float* gamma, const float* beta,
                              const std::uint8_t* keep, std::uint32_t stride,
                              std::uint32_t column, float scale, float quantile,
                              MatRef<float> stats, MatRef<float> values, I* indices,
                              MatRef<float> w = {}, MatRef<float> product = {})
{
    constexpr int kCols = 16, kWidth = kCols * Lanes, kRowsPerWarp = 32 / Lanes;
    constexpr float kD = float(kWidth);
    constexpr unsigned kAll = 0xffffffffu;
    const int sub = (threadIdx.x & 31) % Lanes, c0 = sub * kCols;
    const std::uint32_t k = values.cols;
    extern __shared__ float4 topk_shared[];
    float* const ws = reinterpret_cast<float*>(topk_shared); // kWidth x kWidth
    const int row_in_warp = (threadIdx.x & 31) / Lanes, odd = row_in_warp & 1;
    float2* const stage = reinterpret_cast<float2*>(ws + kWidth * kWidth) +
                          std::size_t((threadIdx.x >> 5) * kRowsPerWarp + row_in_warp) * (k + 1);
    if constexpr (Product) {
        for (int i = threadIdx.x; i < kWidth * kWidth; i += blockDim.x)
            ws[i] = w(i / kWidth, i % kWidth);
        __syncthreads();
    }
    for_warp_rows<Lanes, Descending>(x.rows, [&](std::size_t r, bool valid) {
        float z[kCols];
#pragma unroll
        for (int j = 0; j < kCols / 4; ++j) {
            const Float4s q = valid ? load4(x.row(r) + c0 + 4 * j) : Float4s{};
#pragma unroll
            for (int u = 0; u < 4; ++u) z[4 * j + u] = q.v[u];
        }
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
        const std::uint32_t n_lo = group_sum<Lanes>(count_reaching(key, key_lo));
        const std::uint32_t n_hi = group_sum<Lanes>(count_reaching(key, key_hi));
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
            const std::uint32_t reach = group_sum<Lanes>(count_reaching(key, candidate));
            if (!done && bit <= top && reach >= k) {
                prefix = candidate;
                done = reach == k;
            }
        }
        // The columns above the k-th largest key and those equal to it, as bit masks.
        std::uint32_t kept = 0, ties = 0;
#pragma unroll
        for (int u = 0; u < kCols; ++u) {
            if (key[u] > prefix) kept |= 1u << u;
            if (key[u] == prefix) ties |= 1u << u;
        }
        // Ties kept: the first k - above of the row, in column order, so this thread's lowest
        // (usually none or one).
        const std::uint32_t tie_slots = k - group_sum<Lanes>(std::uint32_t(__popc(kept)));
        const std::uint32_t tie_rank = group_exclusive_sum<Lanes>(__popc(ties), sub);
        for (std::uint32_t m = tie_rank < tie_slots ? tie_slots - tie_rank : 0; m > 0 && ties;
             --m) {
            kept |= ties & (0u - ties);
            ties &= ties - 1u;
        }
        std::uint32_t at = group_exclusive_sum<Lanes>(__popc(kept), sub);
        const std::uint8_t* kr = valid && keep ? keep + r * stride + column + c0 : nullptr;
        const auto stored = [&](int c) { return kr ? (kr[c] ? z[c] * scale : 0.f) : z[c]; };
        if constexpr (Product) {
            // Every lane reaches both warp barriers, rows past the end included. Each kept
            // entry's slot from the count of kept columns below it: predicated stores, where
            // a running slot made a branch per column.
#pragma unroll
            for (int c = 0; c < kCols; ++c)
                if (valid && (kept >> c & 1u))
                    stage[at + __popc(kept & ((1u << c) - 1u))] =
                        make_float2(stored(c), __int_as_float(c0 + c));
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
                // The packed row from the stage, slots sub, sub + Lanes, .. a thread.
                float* vr = values.row(r);
                I* ir = indices + r * k;
                for (std::uint32_t q = sub; q < k; q += Lanes) {
                    const float2 e = stage[q];
                    vr[q] = e.x;
                    ir[q] = I(__float_as_int(e.y));
                }
            }
            __syncwarp(); // the stage is written again for the warp's next rows
            return;
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
    });
}

/// Dynamic shared memory of normalize_topk_pack_lanes with Product: W, then the staging area.
inline std::size_t topk_product_shared_bytes(std::uint32_t d, std::uint32_t k, int lanes)
{
    return (std::size_t(d) * d + std::size_t(kNormWarps) * (32 / lanes) * (k + 1) * 2) *
           sizeof(float);
}

/// The layernorm backward of rows in slabs. dy is dense (idx == nullptr, dy width d) or given
/// at k columns idx per row (sparse; the dropout mask applied to it here). dx = beta dx + ...;
/// partial[slab] (2d: dgamma then dbeta) receives the slab's parameter gradients.
/// Shared memory: kRowWarps * 2d scalars.
template <class T, class I>
__global__ void norm_backward_slabs(MatRef<T> x, const T* gamma, MatRef<T> stats, MatRef<T> dy,
                                    const I* idx, const std::uint8_t* keep, std::uint32_t stride,
                                    std::uint32_t column, T scale, T dx_beta, MatRef<T> dx,
                                    std::size_t rows_per_slab, T* partial, MatRef<T> gate,
                                    T gate_scale)
{
    extern __shared__ unsigned char shared_raw[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const std::uint32_t d = x.cols;
    T* pg = reinterpret_cast<T*>(shared_raw) + std::size_t(warp) * 2 * d;
    T* pb = pg + d;
    for (std::uint32_t c = lane; c < 2 * d; c += 32) pg[c] = T(0);
    __syncwarp();
    const std::size_t r0 = blockIdx.x * rows_per_slab;
    const std::size_t r1 = min(std::size_t(x.rows), r0 + rows_per_slab);
    const std::uint32_t k = idx ? dy.cols : d;
    for (std::size_t r = r0 + warp; r < r1; r += kRowWarps) {
        const T* xr = x.row(r);
        const T mean = stats(r, 0), rstd = stats(r, 1);
        const T* g = dy.row(r);
        const I* ir = idx ? idx + r * k : nullptr;
        const std::uint8_t* kr = keep ? keep + r * stride + column : nullptr;
        T sum_g = T(0), sum_gx = T(0);
        // Dense dy behind a ReLU (gate: its output): the ReLU's backward on the fly.
        const T* gr = gate.p ? gate.row(r) : nullptr;
        const auto dense_dy = [&](std::uint32_t c) {
            return gr ? (gr[c] > T(0) ? g[c] * gate_scale : T(0)) : g[c];
        };
        for (std::uint32_t q = lane; q < k; q += 32) {
            const std::uint32_t c = ir ? std::uint32_t(ir[q]) : q;
            const T dyq = ir ? (kr ? (kr[c] ? g[q] * scale : T(0)) : g[q]) : dense_dy(c);
            const T xhat = (xr[c] - mean) * rstd;
            const T gg = dyq * gamma[c];
            sum_g += gg;
            sum_gx += gg * xhat;
            pg[c] += dyq * xhat;
            pb[c] += dyq;
        }
        const T mg = warp_sum(sum_g) / T(d), mgx = warp_sum(sum_gx) / T(d);
        T* dr = dx.row(r);
        if (!ir) {
            for (std::uint32_t c = lane; c < d; c += 32) {
                const T xhat = (xr[c] - mean) * rstd;
                const T v = rstd * (dense_dy(c) * gamma[c] - mg - xhat * mgx);
                dr[c] = dx_beta == T(0) ? v : dx_beta * dr[c] + v;
            }
        } else {
            for (std::uint32_t c = lane; c < d; c += 32) {
                const T xhat = (xr[c] - mean) * rstd;
                const T v = rstd * (-mg - xhat * mgx);
                dr[c] = dx_beta == T(0) ? v : dx_beta * dr[c] + v;
            }
            __syncwarp();
            for (std::uint32_t q = lane; q < k; q += 32) {
                const std::uint32_t c = ir[q];
                const T dyq = kr ? (kr[c] ? g[q] * scale : T(0)) : g[q];
                dr[c] += rstd * dyq * gamma[c];
            }
        }
        __syncwarp();
    }
    __syncthreads();
    T* out = partial + std::size_t(blockIdx.x) * 2 * d;
    for (std::uint32_t c = threadIdx.x; c < 2 * d; c += blockDim.x) {
        T s = T(0);
        for (int w = 0; w < kRowWarps; ++w)
            s += reinterpret_cast<T*>(shared_raw)[std::size_t(w) * 2 * d + c];
        out[c] = s;
    }
}


/// The layernorm backward (dy dense, optionally behind a ReLU gate, or given at kept columns,
/// as in norm_backward_slabs) of float rows d = 4 Lanes wide: `Lanes` threads take a row, four
/// columns each through 16-byte loads, so a warp works on 32 / Lanes rows at once (two for
/// d = 64) and each thread keeps its columns' parameter-gradient sums in registers. The
/// one-warp-per-row kernel leaves most lanes waiting on one row's loads and reductions at a
/// time. Same slab contract: partial[slab] (2d: dgamma then dbeta), rows of a slab in a fixed
/// order. Rows and pointers: 16-byte aligned.
/// Shared memory: kNormWarps * 32 * 12 floats.
/// The ReLU's gate recomputed from the LayerNorm's input (beta != nullptr): the output of
/// layernorm_forward_rows4 (same arithmetic) positive and kept by the mask (keep: row stride
/// `stride`, from column `column`; nullptr: no mask).
struct ReluGateFromInput {
    const float* beta = nullptr;
    const std::uint8_t* keep = nullptr;
    std::uint32_t stride = 0, column = 0;
};
/// dy given at k kept columns per row (the top-k backward; values.p == nullptr: dy is dense):
/// values times the dropout mask (keep: row stride `stride`, from column `column`; nullptr:
/// no mask) at columns idx, zero elsewhere. A warp lays its rows of dy out in shared memory
/// (zeros, then the kept values at their columns) and reads them back four columns a lane.
template <class I> struct KeptGradient {
    MatRef<float> values;
    const I* idx = nullptr;
    const std::uint8_t* keep = nullptr;
    std::uint32_t stride = 0, column = 0;
    float scale = 1.0f;
};

/// Row r of compressed rows laid out densely in shared memory, and this thread's four columns
/// c.. of it read back: `row` is the row's 4 Lanes floats in the warp's staging, cleared, then
/// the kept values written at their columns (times the dropout mask when kr is given). Each
/// lane clears and reads back its own four columns; only the scatter crosses lanes, between
/// the two syncs, so every lane of the warp must call it.
template <int Lanes, class I>
__device__ inline Float4s stage_kept_row(float* row, int c, std::size_t r, bool valid,
                                         MatRef<float> values, const I* idx,
                                         const std::uint8_t* kr, float scale)
{
    store4(row + c, Float4s{});
    __syncwarp();
    if (valid) {
        const std::uint32_t k = values.cols;
        for (std::uint32_t q = (threadIdx.x & 31) % Lanes; q < k; q += Lanes) {
            const std::uint32_t col = idx[r * k + q];
            const float v = values(r, q);
            row[col] = kr ? (kr[col] ? v * scale : 0.f) : v;
        }
    }
    __syncwarp();
    return load4(row + c);
}

template <int Lanes, class I>
__global__ void norm_backward_rows4(MatRef<float> x, const float* gamma, MatRef<float> stats,
                                    MatRef<float> dy, float dx_beta, MatRef<float> dx,
                                    std::size_t rows_per_slab, float* partial,
                                    MatRef<float> gate, float gate_scale,
                                    ReluGateFromInput relu, KeptGradient<I> kept)
{
    static_assert(Lanes >= 1 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0);
    constexpr int kRowsPerWarp = 32 / Lanes, kD = 4 * Lanes;
    __shared__ float sums[kNormWarps * 32][8];
    __shared__ float4 staged[kNormWarps][32]; // a warp's rows of dy given at kept columns
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane / Lanes, c = (lane % Lanes) * 4;
    const Float4s g4 = load4(gamma + c);
    const float* gm = g4.v;
    const Float4s b4 = relu.beta ? load4(relu.beta + c) : Float4s{};
    float pg[4] = {0, 0, 0, 0}, pb[4] = {0, 0, 0, 0};
    const std::size_t r0 = blockIdx.x * rows_per_slab;
    const std::size_t r1 = min(std::size_t(x.rows), r0 + rows_per_slab);
    for (std::size_t base = r0 + std::size_t(warp) * kRowsPerWarp; base < r1;
         base += std::size_t(kNormWarps) * kRowsPerWarp) {
        const std::size_t r = base + sub;
        const bool valid = r < r1;
        Float4s xv{}, g{}, d{};
        float mean = 0, rstd = 0;
        // The row's own loads first, so that their latency overlaps the kept entries' (an
        // index, then its value and mask byte) rather than following it.
        if (valid) {
            xv = load4(x.row(r) + c);
            mean = stats(r, 0);
            rstd = stats(r, 1);
            if (dx_beta != 0.f) d = load4(dx.row(r) + c);
        }
        if (kept.values.p) {
            const std::uint8_t* kr =
                valid && kept.keep ? kept.keep + r * kept.stride + kept.column : nullptr;
            g = stage_kept_row<Lanes>(reinterpret_cast<float*>(staged[warp]) + sub * kD, c, r,
                                      valid, kept.values, kept.idx, kr, kept.scale);
        }
        if (valid) {
            if (!kept.values.p) g = load4(dy.row(r) + c);
            if (gate.p) {
                const Float4s y = load4(gate.row(r) + c);
                for (int j = 0; j < 4; ++j)
                    g.v[j] = y.v[j] > 0.f ? g.v[j] * gate_scale : 0.f;
            } else if (relu.beta) {
                const std::uint8_t* kr =
                    relu.keep ? relu.keep + r * relu.stride + relu.column + c : nullptr;
                for (int j = 0; j < 4; ++j) {
                    const float t = gm[j] * ((xv.v[j] - mean) * rstd) + b4.v[j];
                    g.v[j] = t > 0.f && (!kr || kr[j]) ? g.v[j] * gate_scale : 0.f;
                }
            }
        }
        float xhat[4], sum_g = 0, sum_gx = 0;
        for (int j = 0; j < 4; ++j) {
            xhat[j] = (xv.v[j] - mean) * rstd;
            const float gg = g.v[j] * gm[j];
            sum_g += gg;
            sum_gx += gg * xhat[j];
            pg[j] += g.v[j] * xhat[j];
            pb[j] += g.v[j];
        }
        sum_g = group_sum<Lanes>(sum_g);
        sum_gx = group_sum<Lanes>(sum_gx);
        if (!valid) continue;
        const float mg = sum_g / float(kD), mgx = sum_gx / float(kD);
        Float4s out;
        for (int j = 0; j < 4; ++j) {
            const float v = rstd * (g.v[j] * gm[j] - mg - xhat[j] * mgx);
            out.v[j] = dx_beta == 0.f ? v : dx_beta * d.v[j] + v;
        }
        store4(dx.row(r) + c, out);
    }
    // The block's sum in a fixed order: thread (warp, lane) holds columns c..c+3 of its rows.
    for (int j = 0; j < 4; ++j) {
        sums[threadIdx.x][j] = pg[j];
        sums[threadIdx.x][4 + j] = pb[j];
    }
    __syncthreads();
    float* out = partial + std::size_t(blockIdx.x) * 2 * kD;
    for (int q = threadIdx.x; q < 2 * kD; q += blockDim.x) {
        const int col = q % kD, which = q / kD, holder = col / 4;
        float t = 0;
        for (int w = 0; w < kNormWarps; ++w)
            for (int s = 0; s < kRowsPerWarp; ++s)
                t += sums[w * 32 + s * Lanes + holder][which * 4 + col % 4];
        out[q] = t;
    }
}

/// dense = the compressed rows unpacked, for float rows d = 4 Lanes wide (16-byte aligned):
/// `Lanes` threads take a row and write each of its four columns once, zeros or a kept value,
/// laid out first in shared memory as in norm_backward_rows4. One pass over dense, where a
/// fill and then a scatter of the kept values were two. Blocks of kNormWarps warps.
template <int Lanes, class I>
__global__ void unpack_rows4(MatRef<float> values, const I* idx, MatRef<float> dense)
{
    constexpr int kD = 4 * Lanes;
    __shared__ float4 staged[kNormWarps][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane / Lanes, c = (lane % Lanes) * 4;
    float* const row = reinterpret_cast<float*>(staged[warp]) + sub * kD;
    for_warp_rows<Lanes>(dense.rows, [&](std::size_t r, bool valid) {
        const Float4s v = stage_kept_row<Lanes>(row, c, r, valid, values, idx, nullptr, 1.f);
        if (valid) store4(dense.row(r) + c, v);
    });
}

inline constexpr int kColumnSumRows = 8; ///< thread rows splitting a slab in column_sum_slabs

/// partial[slab][c] = sum of x's rows of the slab: kColumnSumRows thread rows each sum every
/// kColumnSumRows-th row in row order, then one adds their sums in order (fixed order).
/// Block: 32 x kColumnSumRows threads over 32 columns.
template <class T>
__global__ void column_sum_slabs(MatRef<T> x, std::size_t rows_per_slab, T* partial)
{
    __shared__ T sums[kColumnSumRows][32];
    const std::size_t r0 = blockIdx.y * rows_per_slab;
    const std::size_t r1 = min(std::size_t(x.rows), r0 + rows_per_slab);
    const std::uint32_t c = blockIdx.x * 32 + threadIdx.x;
    T s = T(0);
    if (c < x.cols)
        for (std::size_t r = r0 + threadIdx.y; r < r1; r += kColumnSumRows) s += x(r, c);
    sums[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && c < x.cols) {
        T t = T(0);
        for (int q = 0; q < kColumnSumRows; ++q) t += sums[q][threadIdx.x];
        partial[std::size_t(blockIdx.y) * x.cols + c] = t;
    }
}

inline constexpr int kCombineRows = 32; ///< thread rows splitting the slabs in combine_slabs

/// The outputs of one combine_slabs launch, each its own part of every slab: output j sums
/// the slabs from partial + offset[j] into out[j], with blocks first_block[j] up to
/// first_block[j + 1] (32 outputs a block).
template <class T> struct CombineOutputs {
    static constexpr int kMax = 4; ///< a convolution's weights: two terms, the root and the bias
    std::size_t offset[kMax] = {};
    MatRef<T> out[kMax];
    unsigned first_block[kMax + 1] = {};
    int count = 0;
};

/// out = beta out + alpha sum_s partial[s * stride ..] (each out-shaped, dense) for each output
/// of `outputs`. A block takes 32 outputs (threadIdx.x, coalesced); its kCombineRows thread
/// rows sum every kCombineRows-th slab each, then one row adds their sums in row order: a fixed
/// order, so the same bits on every run, and enough loads in flight when a reduction has many
/// slabs and few outputs (a thread per output summing ~800 slabs in turn waited on one load
/// after another). The outputs share a launch: a step's weight gradients are several small
/// reductions of one kernel's slabs, each too short to be worth a launch of its own.
template <class T>
__global__ void combine_slabs(const T* partial, std::uint32_t slabs, std::size_t stride,
                              T alpha, T beta, CombineOutputs<T> outputs)
{
    __shared__ T sums[kCombineRows][33];
    int j = 0;
    while (j + 1 < outputs.count && blockIdx.x >= outputs.first_block[j + 1]) ++j;
    const MatRef<T> out = outputs.out[j];
    partial += outputs.offset[j];
    const std::size_t n = std::size_t(out.rows) * out.cols;
    const std::size_t i = (blockIdx.x - outputs.first_block[j]) * std::size_t(32) + threadIdx.x;
    T s = T(0);
    if (i < n)
        for (std::uint32_t k = threadIdx.y; k < slabs; k += kCombineRows)
            s += partial[k * stride + i];
    sums[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y != 0 || i >= n) return;
    T total = T(0);
    for (int y = 0; y < kCombineRows; ++y) total += sums[y][threadIdx.x];
    T& o = out(i / out.cols, i % out.cols);
    o = beta == T(0) ? alpha * total : beta * o + alpha * total;
}

} // namespace gsr::gpu::kernels
