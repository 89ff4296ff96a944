#pragma once
// The compressed convolution's forward taken as S (Z W) rather than (S Z) W. Z has k of d
// columns kept per row, so Z W costs k/d of the dense product and writes u = Z W once; the
// aggregation then gathers rows of u, and its epilogue adds the root term, the bias, the grid
// rounding and the residual. (S Z) W wrote S Z, read it back and multiplied it densely.
// Then the compressed backward from g = S^T dy at d = 64: the weight gradients Z^T [g | dy]
// and the gradient at the kept entries, each on the FMA pipe (the baseline, and GPUs before
// sm_80) and on the tensor cores in 3xTF32 (tensor_core.cuh), both also on Hopper's warpgroup
// MMA (sm_90a).
#include "kernels/common.cuh"
#include "kernels/gemm.cuh"
#include "kernels/graph.cuh"
#include "kernels/tensor_core.cuh"

namespace gsr::gpu::kernels {

/// Shared memory of compressed_product: the weights side by side, d_in x (terms d_out).
inline std::size_t compressed_product_shared_bytes(std::uint32_t d_in, std::uint32_t cols)
{
    return std::size_t(d_in) * cols * sizeof(float);
}

/// u = Z [W_0 | W_1] (one term: u = Z W_0) for compressed rows Z: k kept values and their
/// columns of d_in. A row per Lanes threads, four of u's 4 Lanes columns each; the weights sit
/// in shared memory, and a row's kept entries are read by all of its threads at once.
template <int Lanes, class I>
__global__ void compressed_product(MatRef<float> values, const I* idx, bool vector,
                                   MatRef<float> w0, MatRef<float> w1, MatRef<float> u)
{
    extern __shared__ float4 product_shared[];
    constexpr std::uint32_t kCols = 4 * Lanes;
    float* ws = reinterpret_cast<float*>(product_shared);
    const std::uint32_t d_in = w0.rows, part = w0.cols;
    for (std::uint32_t i = threadIdx.x; i < d_in * kCols; i += blockDim.x) {
        const std::uint32_t r = i / kCols, c = i % kCols;
        ws[i] = c < part ? w0(r, c) : w1(r, c - part);
    }
    __syncthreads();
    const int sub = threadIdx.x % Lanes, per_block = blockDim.x / Lanes;
    const std::uint32_t k = values.cols;
    for (std::size_t r = blockIdx.x * std::size_t(per_block) + threadIdx.x / Lanes;
         r < values.rows; r += std::size_t(gridDim.x) * per_block) {
        float v[4] = {};
        add_kept_rows(v, values.row(r), idx + r * k, k, ws + 4 * sub, kCols, vector);
        *reinterpret_cast<float4*>(u.row(r) + 4 * sub) = make_float4(v[0], v[1], v[2], v[3]);
    }
}

/// y = residual + sign * grid(S_0 u_0 (+ S_1 u_1) + Z W_root + bias), u = [u_0 | u_1] from
/// compressed_product (rows x terms d_out, d_out = 4 Lanes): a row per Lanes threads, four
/// columns each; W_root (d_in x d_out) in shared memory when the epilogue has a root term.
/// A grid of one wave; warps take strips of four rows or more (8 at d_out 16) from `counter`
/// (two unsigned, zero before the launch and after it: for_taken_strips), each term's strip
/// loaded with load_strip, so a row's gathers issue without waiting on its CSR entries.
/// Terms: 1 or 2 (s1 unused with one).
template <int Lanes, int Terms, class I>
__global__ void __launch_bounds__(kThreads, Terms > 1 ? 4 : 5)
    aggregate_products(CsrRef<float> s0, CsrRef<float> s1, MatRef<float> u, GemmEpilogue<I> ep,
                       MatRef<float> y, unsigned* counter)
{
    extern __shared__ float4 product_shared[];
    __shared__ std::uint32_t strip_targets[Terms][kThreads / 32][kStripEdges];
    __shared__ float strip_scales[Terms][kThreads / 32][kStripEdges];
    constexpr std::uint32_t kCols = 4 * Lanes;
    constexpr int kGroups = 32 / Lanes;                     // rows a warp at once
    constexpr int kPasses = kGroups >= 4 ? 1 : 4 / kGroups; // four rows or more a strip
    float* wr = reinterpret_cast<float*>(product_shared);
    const bool root = ep.values.p != nullptr;
    if (root)
        for (std::uint32_t i = threadIdx.x; i < ep.wroot.rows * kCols; i += blockDim.x)
            wr[i] = ep.wroot(i / kCols, i % kCols);
    __syncthreads();
    const int warp = threadIdx.x >> 5, group = (threadIdx.x & 31) / Lanes;
    const std::uint32_t c0 = 4 * (threadIdx.x % Lanes);
    for_taken_strips<kGroups * kPasses>(y.rows, counter, [&](std::size_t r0, int count) {
        Strip st[Terms];
#pragma unroll
        for (int t = 0; t < Terms; ++t)
            st[t] = load_strip(t == 0 ? s0 : s1, r0, count, strip_targets[t][warp],
                               strip_scales[t][warp]);
        // Each term's neighbour sum (as spmm) times its row scale, then the epilogue, a row at
        // a time.
#pragma unroll 1
        for (int i = group; i < kPasses * kGroups; i += kGroups) {
            const bool valid = i < count;
            float v[4];
#pragma unroll
            for (int t = 0; t < Terms; ++t) {
                const StripRow w = st[t].row(i, valid);
                float acc[4];
                strip_sum<4>(t == 0 ? s0 : s1, st[t], w, r0 + i, valid, u.p + t * kCols + c0,
                             u.ld, strip_targets[t][warp], strip_scales[t][warp], acc);
                for (int c = 0; c < 4; ++c)
                    v[c] = t == 0 ? acc[c] * w.scale : v[c] + acc[c] * w.scale;
            }
            if (valid) conv_epilogue4(v, r0 + i, c0, ep, root ? wr + c0 : nullptr, kCols, y);
        }
    });
}

/// The compressed convolution's gradient at the kept entries, from the transposed aggregates
/// g = [S_0^T dy | S_1^T dy] rather than S_t^T (dy W_t^T) (so the forward before it need not
/// keep S z): d_values(r, j) = sum_t g_t(r) . W_t(c_j, :) + dy(r) . W_root(c_j, :), c_j the
/// column of kept entry j. [W_0 | W_1 | W_root] sit side by side in shared memory (d_in rows of
/// (terms + 1) d_out, d_out = 4 Lanes). A row per Lanes threads, each holding four columns of
/// every operand: for Lanes kept entries at a time a thread forms its four-column parts of
/// their dot products, then the row's threads reduce-scatter them (Lanes - 1 shuffles in
/// halving rounds), thread j ending with entry j's sum. Blocks of whole warps.
template <int Lanes, class I>
__global__ void __launch_bounds__(kThreads, 3)
    compressed_input_gradient(MatRef<float> g, std::uint32_t terms, MatRef<float> dy,
                              MatRef<float> w0, MatRef<float> w1, MatRef<float> wroot,
                              const I* idx, MatRef<float> d_values)
{
    extern __shared__ float4 product_shared[];
    constexpr int kCols = 4 * Lanes;
    constexpr unsigned kAll = 0xffffffffu;
    float* ws = reinterpret_cast<float*>(product_shared);
    const std::uint32_t d_in = w0.rows, ld = (terms + 1) * kCols;
    for (std::uint32_t i = threadIdx.x; i < d_in * ld; i += blockDim.x) {
        const std::uint32_t r = i / ld, c = i % ld, t = c / kCols;
        ws[i] = (t == terms ? wroot : t == 0 ? w0 : w1)(r, c % kCols);
    }
    __syncthreads();
    const auto dot4 = [](float4 a, const float* w) {
        const float4 b = *reinterpret_cast<const float4*>(w);
        return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    };
    const int sub = (threadIdx.x & 31) % Lanes, c0 = 4 * sub;
    const std::uint32_t k = d_values.cols;
    // Every lane stays for the shuffles; rows past the end contribute zeros.
    for_warp_rows<Lanes>(dy.rows, [&](std::size_t r, bool valid) {
        const float4 none = make_float4(0.f, 0.f, 0.f, 0.f);
        const auto row4 = [&](MatRef<float> m, std::uint32_t c) {
            return valid ? *reinterpret_cast<const float4*>(m.row(r) + c) : none;
        };
        const float4 a0 = row4(g, c0), a1 = terms > 1 ? row4(g, kCols + c0) : none;
        const float4 ar = row4(dy, c0);
        // Unconditional index loads (a row past the end reads the last row's, an entry past
        // k the last entry's), so they all issue before the first is used.
        const I* ir = idx + (valid ? r : dy.rows - 1) * k;
        for (std::uint32_t j0 = 0; j0 < k; j0 += Lanes) {
            std::uint32_t col[Lanes];
#pragma unroll
            for (int m = 0; m < Lanes; ++m) col[m] = ir[min(j0 + m, k - 1)];
            float p[Lanes];
#pragma unroll
            for (int m = 0; m < Lanes; ++m) {
                const float* wc = ws + col[m] * ld + c0;
                float s = dot4(a0, wc);
                if (terms > 1) s += dot4(a1, wc + kCols);
                s += dot4(ar, wc + terms * kCols);
                p[m] = valid && j0 + m < k ? s : 0.f;
            }
            // Halving rounds: the thread with bit h set keeps the upper half of its entries
            // and sends the lower half to its partner, which keeps the lower.
#pragma unroll
            for (int h = Lanes / 2; h > 0; h >>= 1) {
                const bool upper = (sub & h) != 0;
#pragma unroll
                for (int m = 0; m < h; ++m) {
                    const float got = __shfl_xor_sync(kAll, upper ? p[m] : p[m + h], h);
                    p[m] = (upper ? p[m + h] : p[m]) + got;
                }
            }
            if (valid && j0 + sub < k) d_values(r, j0 + sub) = p[0];
        }
    });
}

inline constexpr int kWeightRows = 32;    ///< rows a tile of compressed_weight_gradient
inline constexpr int kWeightThreads = 256; ///< its block: 16 x 16 threads

/// The compressed convolution's weight gradients from the transposed aggregates, Z left
/// compressed in memory: [dW_0 | .. | dW_root] = Z^T [g_0 | .. | dy] (g = [S_0^T dy | S_1^T
/// dy]) and the column sums of [g | dy], for d_in = d_out = 64 and Terms = terms + 1 blocks
/// of columns. A block takes a slab of rows, 32 at a time: the rows of [g | dy] and of Z
/// unpacked go to shared memory, and each thread keeps a 4 x (4 Terms) tile of the result in
/// registers (rows 4 cg.. of Z^T, columns 4 og.. of each block), so every value read from
/// shared memory serves four or more multiply-adds. The slab's sums go to `partial`: Terms
/// blocks of 64 x 64, then Terms x 64 column sums; combine_slabs adds them in block order.
template <int Terms, class I>
__global__ void __launch_bounds__(kWeightThreads)
    compressed_weight_gradient(MatRef<float> g, MatRef<float> dy, MatRef<float> values,
                               const I* idx, std::size_t rows_per_block, float* partial)
{
    constexpr int kD = 64, kCols = Terms * kD, kQuads = kCols / 4;
    __shared__ float4 gs[kWeightRows * kQuads];
    __shared__ float4 zs4[kWeightRows * kD / 4];
    float* zs = reinterpret_cast<float*>(zs4);
    const int tid = threadIdx.x, og = tid % 16, cg = tid / 16;
    const std::uint32_t k = values.cols;
    const std::size_t r0 = blockIdx.x * rows_per_block;
    const std::size_t r1 = min(std::size_t(dy.rows), r0 + rows_per_block);
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    float acc[4][Terms][4] = {};
    float sum[Terms][4] = {};
    for (std::size_t b = r0; b < r1; b += kWeightRows) {
        const int rows = int(min(std::size_t(kWeightRows), r1 - b));
        for (int i = tid; i < kWeightRows * kD / 4; i += kWeightThreads) zs4[i] = zero;
        for (int i = tid; i < kWeightRows * kQuads; i += kWeightThreads) {
            const int r = i / kQuads, q = i % kQuads, t = q / 16;
            const float* src = t < Terms - 1 ? g.row(b + r) + t * kD : dy.row(b + r);
            gs[i] = r < rows ? *reinterpret_cast<const float4*>(src + 4 * (q % 16)) : zero;
        }
        __syncthreads();
        for (std::uint32_t i = tid; i < std::uint32_t(rows) * k; i += kWeightThreads) {
            const std::uint32_t r = i / k, j = i % k;
            zs[r * kD + idx[(b + r) * k + j]] = values(b + r, j);
        }
        __syncthreads();
        for (int r = 0; r < rows; ++r) {
            const float4 z = zs4[r * (kD / 4) + cg];
            const float zc[4] = {z.x, z.y, z.z, z.w};
#pragma unroll
            for (int t = 0; t < Terms; ++t) {
                const float4 x = gs[r * kQuads + t * 16 + og];
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    acc[c][t][0] += zc[c] * x.x, acc[c][t][1] += zc[c] * x.y;
                    acc[c][t][2] += zc[c] * x.z, acc[c][t][3] += zc[c] * x.w;
                }
                if (cg == 0) sum[t][0] += x.x, sum[t][1] += x.y, sum[t][2] += x.z, sum[t][3] += x.w;
            }
        }
        __syncthreads();
    }
    float* out = partial + blockIdx.x * std::size_t(Terms * kD * kD + Terms * kD);
#pragma unroll
    for (int t = 0; t < Terms; ++t) {
#pragma unroll
        for (int c = 0; c < 4; ++c)
            *reinterpret_cast<float4*>(out + t * kD * kD + (4 * cg + c) * kD + 4 * og) =
                make_float4(acc[c][t][0], acc[c][t][1], acc[c][t][2], acc[c][t][3]);
        if (cg == 0)
            *reinterpret_cast<float4*>(out + Terms * kD * kD + t * kD + 4 * og) =
                make_float4(sum[t][0], sum[t][1], sum[t][2], sum[t][3]);
    }
}

/// Shared memory of compressed_weight_gradient_mma: a tile of [g | dy] and of Z, each as big
/// and small TF32 parts.
template <int Terms> constexpr int kWeightMmaGld = Terms * 64 + 8;
inline constexpr int kWeightMmaZld = 64 + 8;
template <int Terms> constexpr std::size_t compressed_weight_gradient_mma_shared_bytes()
{
    return 2 * std::size_t(kWeightRows) * (kWeightMmaGld<Terms> + kWeightMmaZld) * sizeof(float);
}

/// compressed_weight_gradient on the tensor cores (3xTF32), same operands, tiles and partials:
/// a block's 32-row tile of [g | dy] and of Z unpacked sit in shared memory, split into big and
/// small TF32 parts as they are staged (rows padded to 8 mod 32 words, so a fragment's 32 reads
/// hit 32 banks), and warp w forms rows 16 (w % 4).. of Z^T against columns 32 (w / 4).. of
/// every block, Terms x 4 tiles of 16 x 8, 4 k-steps of 8 rows a tile. Z's kept entries are
/// scattered in and zeroed again after the tile. The column sums are taken as the tile is
/// staged: a thread keeps the sum of one column quad over its rows, added up at the end.
template <int Terms, class I>
__global__ void __launch_bounds__(kWeightThreads)
    compressed_weight_gradient_mma(MatRef<float> g, MatRef<float> dy, MatRef<float> values,
                                   const I* idx, std::size_t rows_per_block, float* partial)
{
    constexpr int kD = 64, kCols = Terms * kD, kQuads = kCols / 4;
    constexpr int kGld = kWeightMmaGld<Terms>, kZld = kWeightMmaZld;
    constexpr int kGroups = kWeightThreads / kQuads; // rows staged at once
    constexpr int kPerRow = kWeightThreads / kWeightRows; // threads scattering a row of Z
    static_assert(kZld % 32 == 8 && kGld % 32 == 8 && kGld % 4 == 0 &&
                  kWeightThreads * 4 <= kWeightRows * kGld);
    extern __shared__ float4 product_shared[];
    std::uint32_t* gb = reinterpret_cast<std::uint32_t*>(product_shared);
    std::uint32_t* gsm = gb + kWeightRows * kGld;
    std::uint32_t* zb = gsm + kWeightRows * kGld;
    std::uint32_t* zsm = zb + kWeightRows * kZld;
    const int tid = threadIdx.x, warp = tid / 32, gid = (tid & 31) / 4, tig = tid & 3;
    const int m0 = 16 * (warp % 4), n0 = 32 * (warp / 4);
    const int q = tid % kQuads, first = tid / kQuads;
    const int zr = tid / kPerRow, zj = tid % kPerRow;
    const std::uint32_t k = values.cols;
    const std::size_t r0 = blockIdx.x * rows_per_block;
    const std::size_t r1 = min(std::size_t(dy.rows), r0 + rows_per_block);
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int i = tid; i < kWeightRows * kZld; i += kWeightThreads) zb[i] = zsm[i] = 0u;
    __syncthreads(); // zeros down before any thread scatters the first tile's entries
    float acc[Terms][4][4] = {};
    float4 sum = zero;
    for (std::size_t b = r0; b < r1; b += kWeightRows) {
        const int rows = int(min(std::size_t(kWeightRows), r1 - b));
        if (first < kGroups)
            for (int r = first; r < kWeightRows; r += kGroups) {
                const int t = q / 16;
                const float* src = t < Terms - 1 ? g.row(b + r) + t * kD : dy.row(b + r);
                const float4 x =
                    r < rows ? *reinterpret_cast<const float4*>(src + 4 * (q % 16)) : zero;
                sum.x += x.x, sum.y += x.y, sum.z += x.z, sum.w += x.w;
                const Tf32Split<4> xs({x.x, x.y, x.z, x.w});
                *reinterpret_cast<uint4*>(gb + r * kGld + 4 * q) =
                    make_uint4(xs.big[0], xs.big[1], xs.big[2], xs.big[3]);
                *reinterpret_cast<uint4*>(gsm + r * kGld + 4 * q) =
                    make_uint4(xs.small[0], xs.small[1], xs.small[2], xs.small[3]);
            }
        if (zr < rows)
            for (std::uint32_t j = zj; j < k; j += kPerRow) {
                const std::uint32_t c = zr * kZld + idx[(b + zr) * k + j];
                split_tf32(values(b + zr, j), zb[c], zsm[c]);
            }
        __syncthreads();
#pragma unroll
        for (int k0 = 0; k0 < kWeightRows; k0 += 8) {
            const int z0 = (k0 + tig) * kZld + m0 + gid, z1 = z0 + 4 * kZld;
            Tf32Split<4> a;
            a.big[0] = zb[z0], a.big[1] = zb[z0 + 8], a.big[2] = zb[z1], a.big[3] = zb[z1 + 8];
            a.small[0] = zsm[z0], a.small[1] = zsm[z0 + 8];
            a.small[2] = zsm[z1], a.small[3] = zsm[z1 + 8];
#pragma unroll
            for (int t = 0; t < Terms; ++t)
#pragma unroll
                for (int n = 0; n < 4; ++n) {
                    const int x = (k0 + tig) * kGld + t * kD + n0 + 8 * n + gid;
                    Tf32Split<2> bs;
                    bs.big[0] = gb[x], bs.big[1] = gb[x + 4 * kGld];
                    bs.small[0] = gsm[x], bs.small[1] = gsm[x + 4 * kGld];
                    mma_3xtf32(acc[t][n], a, bs);
                }
        }
        __syncthreads();
        if (zr < rows)
            for (std::uint32_t j = zj; j < k; j += kPerRow) {
                const std::uint32_t c = zr * kZld + idx[(b + zr) * k + j];
                zb[c] = zsm[c] = 0u;
            }
        __syncwarp(); // a row's threads share a warp: its zeros land before its next entries
    }
    float* out = partial + blockIdx.x * std::size_t(Terms * kD * kD + Terms * kD);
#pragma unroll
    for (int t = 0; t < Terms; ++t)
#pragma unroll
        for (int n = 0; n < 4; ++n) {
            float* o = out + t * kD * kD + (m0 + gid) * kD + n0 + 8 * n + 2 * tig;
            *reinterpret_cast<float2*>(o) = make_float2(acc[t][n][0], acc[t][n][1]);
            *reinterpret_cast<float2*>(o + 8 * kD) = make_float2(acc[t][n][2], acc[t][n][3]);
        }
    // The column sums: the staging threads' quads, added over their row groups (the tile's
    // big parts are free again: every thread is past the last tile's barrier).
    float4* red = product_shared;
    red[tid] = first < kGroups ? sum : zero;
    __syncthreads();
    if (tid < kQuads) {
        float4 s = zero;
        for (int r = 0; r < kGroups; ++r) {
            const float4 x = red[r * kQuads + tid];
            s.x += x.x, s.y += x.y, s.z += x.z, s.w += x.w;
        }
        *reinterpret_cast<float4*>(out + Terms * kD * kD + 4 * tid) = s;
    }
}

inline constexpr int kWgmmaThreads = 128; ///< compressed_weight_gradient_wgmma: a warpgroup
inline constexpr int kWgmmaRows = 16;     ///< rows a tile of compressed_weight_gradient_wgmma
inline constexpr int kWgmmaKept = 16;     ///< and the most kept entries a row it takes
/// Shared memory of compressed_weight_gradient_wgmma: two stages of a tile's Z^T (64 x 16) as
/// big and small TF32 parts.
inline constexpr std::size_t compressed_weight_gradient_wgmma_shared_bytes()
{
    return 2 * 2 * std::size_t(64) * kWgmmaRows * sizeof(float);
}

/// compressed_weight_gradient_mma for one term (Terms = 2) on Hopper's asynchronous warpgroup
/// MMA (sm_90a), same operands, slabs and partials (of the column sums only dy's, the bias's,
/// are written: nothing reads g's). It forms the transpose, [g | dy]^T Z (128 x 64, K = the
/// slab's rows), as two m64n64 halves: A = [g | dy]^T comes from registers, B = Z from shared
/// memory. A block is one warpgroup; for each tile of kWgmmaRows (16) rows, thread (warp w,
/// gid, tig) loads features 4 (8 w + gid) .. + 3 of rows tig and tig + 4 of each k-step as
/// 16-byte loads (a warp reads 128 contiguous bytes of four rows), and M is ordered so that
/// they are its fragment: half h's row 16 w + gid + 8 b is feature 4 (8 w + gid) + 2 h + b.
/// Z's kept entries are scattered into zeros of Z^T (64 x 16, big and small parts) in the
/// K-major core layout (element (c, r) at core (c / 8) * 4 + r / 4, word (c % 8) * 4 + r % 4),
/// two stages: the next tile's Z is staged, and its rows of [g | dy] loaded into registers,
/// while the current tile's twelve wgmma (two k-steps, two halves, 3xTF32) run.
template <class I>
__global__ void __launch_bounds__(kWgmmaThreads, 3)
    compressed_weight_gradient_wgmma(MatRef<float> g, MatRef<float> dy, MatRef<float> values,
                                     const I* idx, std::size_t rows_per_block, float* partial)
{
    constexpr int kD = 64, kRows = kWgmmaRows, kCores = kRows / 4, kSteps = kRows / 8;
    constexpr int kB = kD * kRows, kStage = 2 * kB;
    constexpr int kPerRow = kWgmmaThreads / kRows; // threads scattering a row of Z
    constexpr int kZ = kWgmmaKept / kPerRow;       // Z's entries a thread scatters a tile
    constexpr unsigned kCoreBytes = 128, kGroupBytes = kCoreBytes * kCores;
    extern __shared__ float4 product_shared[];
    std::uint32_t* smem = reinterpret_cast<std::uint32_t*>(product_shared);
    const auto core_at = [](int c, int r) {
        return ((c / 8) * kCores + r / 4) * 32 + (c % 8) * 4 + r % 4;
    };
    const int tid = threadIdx.x, lane = tid & 31, warp = tid / 32;
    const int gid = lane / 4, tig = lane % 4;
    const int zr = tid / kPerRow, zj = tid % kPerRow;
    const std::uint32_t k = values.cols;
    const std::size_t r0 = blockIdx.x * rows_per_block;
    const std::size_t r1 = min(std::size_t(dy.rows), r0 + rows_per_block);
    for (int e = tid; e < 2 * kStage; e += kWgmmaThreads) smem[e] = 0u;
    __syncthreads(); // zeros down before any thread scatters the first tile's entries
    // This thread's four features of [g | dy] (warps 0 and 1 g's, 2 and 3 dy's).
    const int feature = 4 * (8 * warp + gid);
    const MatRef<float> x = feature < kD ? g : dy;
    const int xc = feature % kD;
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    // A tile's rows tig + 4 j (j < 2 kSteps) of the thread's features.
    const auto load = [&](std::size_t b, float4 (&v)[2 * kSteps]) {
#pragma unroll
        for (int j = 0; j < 2 * kSteps; ++j) {
            const std::size_t r = b + tig + 4 * j;
            v[j] = r < r1 ? *reinterpret_cast<const float4*>(x.row(r) + xc) : zero;
        }
    };
    // Z's entries: thread (zr, zj) takes entries zj and zj + kPerRow of the tile's row zr,
    // loaded a tile ahead; it zeroes the entries it staged two tiles ago before it scatters
    // (the row's threads share a warp).
    constexpr std::uint32_t kNone = 0xffffffffu;
    struct Entries {
        std::uint32_t c[kZ];
        float v[kZ];
    };
    const auto load_z = [&](std::size_t b) {
        Entries e;
#pragma unroll
        for (int i = 0; i < kZ; ++i) {
            const std::uint32_t j = zj + kPerRow * i;
            const std::size_t r = b + zr;
            const bool valid = r < r1 && j < k;
            e.c[i] = valid ? std::uint32_t(idx[r * k + j]) : kNone;
            e.v[i] = valid ? values(r, j) : 0.f;
        }
        return e;
    };
    const auto stage = [&](int s, const Entries& old, const Entries& e) {
        std::uint32_t* zb = smem + s * kStage;
        std::uint32_t* zs = zb + kB;
#pragma unroll
        for (int i = 0; i < kZ; ++i)
            if (old.c[i] != kNone) zb[core_at(old.c[i], zr)] = zs[core_at(old.c[i], zr)] = 0u;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < kZ; ++i)
            if (e.c[i] != kNone) {
                const int at = core_at(e.c[i], zr);
                split_tf32(e.v[i], zb[at], zs[at]);
            }
    };
    float acc[2][32] = {};
    float4 sum = zero; // of dy's rows (warps 2 and 3)
    float4 cur[2 * kSteps], next[2 * kSteps];
    Entries none;
#pragma unroll
    for (int i = 0; i < kZ; ++i) none.c[i] = kNone, none.v[i] = 0.f;
    Entries previous = none, current = none, coming = none;
    if (r0 < r1) {
        load(r0, cur);
        current = load_z(r0);
        stage(0, none, current);
        coming = load_z(r0 + kRows);
    }
    fence_async_shared();
    __syncthreads();
    int s = 0;
    for (std::size_t b = r0; b < r1; b += kRows, s ^= 1) {
        const bool more = b + kRows < r1;
        if (more) load(b + kRows, next);
        const std::uint32_t* zb = smem + s * kStage;
        const std::uint32_t* zs = zb + kB;
        Tf32Split<4> a[kSteps][2];
#pragma unroll
        for (int t = 0; t < kSteps; ++t) {
            const float4 p = cur[2 * t], q = cur[2 * t + 1]; // rows tig, tig + 4 of the step
            sum.x += p.x + q.x, sum.y += p.y + q.y, sum.z += p.z + q.z, sum.w += p.w + q.w;
            a[t][0] = Tf32Split<4>({p.x, p.y, q.x, q.y});
            a[t][1] = Tf32Split<4>({p.z, p.w, q.z, q.w});
        }
        wgmma_registers(acc[0]);
        wgmma_registers(acc[1]);
        wgmma_fence();
#pragma unroll
        for (int t = 0; t < kSteps; ++t) {
            const int at = 2 * t * 32; // the step's first core along K
            const std::uint64_t b_big = wgmma_descriptor(zb + at, kCoreBytes, kGroupBytes);
            const std::uint64_t b_small = wgmma_descriptor(zs + at, kCoreBytes, kGroupBytes);
#pragma unroll
            for (int h = 0; h < 2; ++h) wgmma_m64n64k8_3xtf32(acc[h], a[t][h], b_big, b_small);
        }
        wgmma_commit();
        if (more) {
            stage(s ^ 1, previous, coming);
            previous = current;
            current = coming;
            coming = b + 2 * kRows < r1 ? load_z(b + 2 * kRows) : none;
        }
        wgmma_wait<0>();
        wgmma_registers(acc[0]);
        wgmma_registers(acc[1]);
        fence_async_shared();
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 2 * kSteps; ++j) cur[j] = next[j];
    }
    // Half h's accumulator: rows gid + 8 (i % 4 / 2) (features f = feature + 2 h + i % 4 / 2)
    // by columns 8 (i / 4) + 2 tig + i % 2 (c) at acc[h][i]; dW_t(c, f % 64) for t = f / 64.
    float* out = partial + blockIdx.x * std::size_t(2 * kD * kD + 2 * kD);
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            const int f = feature + 2 * h + i % 4 / 2, c = 8 * (i / 4) + 2 * tig + i % 2;
            out[(f / kD) * kD * kD + c * kD + f % kD] = acc[h][i];
        }
    // dy's column sums: each of features feature.. + 3 is summed by the four threads of one
    // gid (lanes differing in tig), added in lane order.
    if (feature >= kD) {
        float v[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            float t = 0.f;
#pragma unroll
            for (int l = 0; l < 4; ++l) t += __shfl_sync(0xffffffffu, v[u], 4 * gid + l);
            v[u] = t;
        }
        if (tig == 0)
            *reinterpret_cast<float4*>(out + 2 * kD * kD + kD + (feature - kD)) =
                make_float4(v[0], v[1], v[2], v[3]);
    }
}

/// Shared memory of compressed_input_gradient_mma: the Terms weights as big and small TF32
/// parts, then a 16-row gradient tile per warp.
inline constexpr int kInputDld = 64 + 8; ///< a row of its per-warp gradient tile
inline std::size_t compressed_input_gradient_mma_shared_bytes(int terms)
{
    return (2 * std::size_t(terms) * 64 * 64 + std::size_t(kThreads / 32) * 16 * kInputDld) *
           sizeof(float);
}

/// compressed_input_gradient on the tensor cores (3xTF32), for d_in = d_out = 64 and Terms =
/// terms + 1: a warp takes 16 rows and forms their whole gradient [g_0 | .. | dy] [W_0 | .. |
/// W_root]^T (16 x 64, K = 64 Terms) as 8 tiles of 16 x 8, then reads the kept columns out of
/// it through shared memory (d of k columns formed, on units that do 8x the FMA pipe's work).
/// K is walked 16 columns at a time in an order that lets every operand load be 16 bytes: a
/// thread's four columns 16 q + 4 tig .. + 3 are k = tig, tig + 4 of one k-step and of the
/// next, in A (rows of g and dy, from global memory) and in B alike (rows of W in shared
/// memory as big and small TF32 parts, an odd row's halves of 16 columns swapped so a quarter
/// warp's 16-byte reads hit distinct banks; the tile's rows padded to 8 mod 32 words so a half
/// warp's 8-byte writes do).
template <int Terms, class I>
__global__ void __launch_bounds__(kThreads, 2)
    compressed_input_gradient_mma(MatRef<float> g, MatRef<float> dy, MatRef<float> w0,
                                  MatRef<float> w1, MatRef<float> wroot, const I* idx,
                                  MatRef<float> d_values)
{
    constexpr int kD = 64, kW = Terms * kD * kD;
    static_assert(kInputDld % 32 == 8);
    extern __shared__ float4 product_shared[];
    std::uint32_t* wb = reinterpret_cast<std::uint32_t*>(product_shared);
    std::uint32_t* wsm = wb + kW;
    const auto swizzled = [](int i, int c) { return i * kD + (c ^ ((i & 1) << 4)); };
    for (int e = threadIdx.x; e < kW; e += blockDim.x) {
        const int t = e / (kD * kD), i = e / kD % kD, c = e % kD;
        const std::uint32_t at = t * kD * kD + swizzled(i, c);
        split_tf32((t == Terms - 1 ? wroot : t == 0 ? w0 : w1)(i, c), wb[at], wsm[at]);
    }
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31, gid = lane / 4, tig = lane & 3;
    float* ds = reinterpret_cast<float*>(wsm + kW) + warp * 16 * kInputDld;
    const std::uint32_t k = d_values.cols;
    const std::size_t n = dy.rows, warps = std::size_t(gridDim.x) * (blockDim.x / 32);
    const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
    for (std::size_t r0 = 16 * (blockIdx.x * std::size_t(blockDim.x / 32) + warp); r0 < n;
         r0 += 16 * warps) {
        const std::size_t ra = r0 + gid, rb = ra + 8;
        float acc[8][4] = {};
#pragma unroll
        for (int q = 0; q < 4 * Terms; ++q) {
            const int t = q / 4, c = 16 * (q % 4) + 4 * tig;
            const MatRef<float> x = t == Terms - 1 ? dy : g;
            const int xc = (t == Terms - 1 ? 0 : t * kD) + c;
            const float4 va = ra < n ? *reinterpret_cast<const float4*>(x.row(ra) + xc) : zero;
            const float4 vb = rb < n ? *reinterpret_cast<const float4*>(x.row(rb) + xc) : zero;
            const Tf32Split<4> a0({va.x, vb.x, va.y, vb.y}), a1({va.z, vb.z, va.w, vb.w});
#pragma unroll
            for (int m = 0; m < 8; ++m) {
                const int at = t * kD * kD + swizzled(8 * m + gid, c);
                const uint4 big = *reinterpret_cast<const uint4*>(wb + at);
                const uint4 small = *reinterpret_cast<const uint4*>(wsm + at);
                Tf32Split<2> b0, b1;
                b0.big[0] = big.x, b0.big[1] = big.y, b0.small[0] = small.x, b0.small[1] = small.y;
                b1.big[0] = big.z, b1.big[1] = big.w, b1.small[0] = small.z, b1.small[1] = small.w;
                mma_3xtf32(acc[m], a0, b0);
                mma_3xtf32(acc[m], a1, b1);
            }
        }
        // The tile through shared memory, then each kept entry read at its column.
#pragma unroll
        for (int m = 0; m < 8; ++m) {
            float* d = ds + gid * kInputDld + 8 * m + 2 * tig;
            *reinterpret_cast<float2*>(d) = make_float2(acc[m][0], acc[m][1]);
            *reinterpret_cast<float2*>(d + 8 * kInputDld) = make_float2(acc[m][2], acc[m][3]);
        }
        __syncwarp();
        const std::uint32_t rows = std::uint32_t(min(std::size_t(16), n - r0));
        for (std::uint32_t e = lane; e < rows * k; e += 32) {
            const std::uint32_t r = e / k, j = e % k;
            d_values(r0 + r, j) = ds[r * kInputDld + idx[(r0 + r) * k + j]];
        }
        __syncwarp();
    }
}

inline constexpr int kInputGroups = 3; ///< compressed_input_gradient_wgmma: warpgroups a block
/// 16-byte chunks of compressed_input_gradient_wgmma's staging area per warp: 16 rows of
/// [g | dy], 32 chunks a row.
inline constexpr int kInputStageChunks = 16 * 32;
/// Shared memory of compressed_input_gradient_wgmma: [W | W_root] (64 x 128) as big and small
/// TF32 parts; per warp, its staging area and a 16-row gradient tile; then, per warp, the
/// staged indices (16 k of them, k * sizeof(I) bytes a row).
inline std::size_t compressed_input_gradient_wgmma_shared_bytes(std::uint32_t k, std::size_t index)
{
    const std::size_t warps = kInputGroups * kWgmmaThreads / 32;
    const std::size_t index_bytes = (16 * k * index + 15) / 16 * 16;
    return 2 * std::size_t(64) * 128 * sizeof(float) +
           warps * (kInputStageChunks * 16 + 16 * kInputDld * sizeof(float) + index_bytes);
}

/// compressed_input_gradient_mma for one term on Hopper's asynchronous warpgroup MMA (sm_90a):
/// a block is kInputGroups warpgroups sharing the weights, and a warpgroup takes 64 rows at a
/// time, their whole gradient [g | dy] [W | W_root]^T (64 x 64, K = 128) as sixteen k-steps of
/// m64n64k8 in 3xTF32. A comes from registers in the mma.sync kernel's K order (a thread's
/// four columns 16 q + 4 tig .. + 3 are k = tig, tig + 4 of k-steps 2 q and 2 q + 1), and B,
/// staged once a block, holds [W | W_root] in wgmma's K-major core layout in the same K order
/// (no fragment loads from shared memory at all). Each warp copies its next 16 rows of [g |
/// dy] and their kept indices into shared memory with cp.async as soon as it has read the
/// current ones into registers, so the copies run under the current tile's products and its
/// epilogue (the kept columns read out of the warp's 16 x 64 tile through shared memory, as
/// there). A row's 32 chunks sit in order with bit 2 flipped on odd rows, so a quarter warp's
/// 16-byte fragment reads (two rows, four chunks each) hit distinct banks. Three warpgroups
/// use about 220 KB of shared memory. A's big and small parts live in two sets of registers,
/// each rewritten only once the group of wgmma that read it is done (one group in flight):
/// with a single set, or four warpgroups, ptxas lacks the registers to keep the wgmma in
/// flight and serialises them (C7511). Kept: k known when compiled (16, d / 4: a kept entry's
/// row and place are then a shift and a mask), or 0 for k = d_values.cols.
template <class I, int Kept>
__global__ void __launch_bounds__(kInputGroups * kWgmmaThreads, 1)
    compressed_input_gradient_wgmma(MatRef<float> g, MatRef<float> dy, MatRef<float> w0,
                                    MatRef<float> wroot, const I* idx, MatRef<float> d_values)
{
    constexpr int kD = 64, kK = 2 * kD, kSteps = kK / 8, kWarps = kInputGroups * 4;
    constexpr int kEntries = 8; // kept entries a lane reads out per tile from registers
    constexpr unsigned kCoreBytes = 128, kGroupBytes = kCoreBytes * (kK / 4);
    extern __shared__ float4 product_shared[];
    std::uint32_t* wb = reinterpret_cast<std::uint32_t*>(product_shared);
    std::uint32_t* wsm = wb + kD * kK;
    const std::uint32_t k = Kept > 0 ? std::uint32_t(Kept) : d_values.cols;
    const int warp_id = threadIdx.x / 32;
    // After the weights: every warp's staging area, then every warp's gradient tile, then
    // every warp's staged indices (in 16-byte chunks).
    float4* const stages = reinterpret_cast<float4*>(wsm + kD * kK);
    float* const tiles = reinterpret_cast<float*>(stages + kWarps * kInputStageChunks);
    float4* const index_areas = reinterpret_cast<float4*>(tiles + kWarps * 16 * kInputDld);
    const std::uint32_t index_chunks = (16 * k * sizeof(I) + 15) / 16;
    float4* stage = stages + warp_id * kInputStageChunks;
    float* ds = tiles + warp_id * 16 * kInputDld;
    I* staged_idx = reinterpret_cast<I*>(index_areas + warp_id * index_chunks);
    // Element (n, r) of B (n = kept column, r = position along K) at core (n / 8) * 32 + r / 4,
    // word (n % 8) * 4 + r % 4; position r = 8 s + kk is feature 16 (s / 2) + 4 (kk % 4) +
    // 2 (s % 2) + kk / 4 of [W | W_root]'s rows.
    for (int e = threadIdx.x; e < kD * kK; e += blockDim.x) {
        const int n = e / kK, r = e % kK, s = r / 8, kk = r % 8;
        const int f = 16 * (s / 2) + 4 * (kk % 4) + 2 * (s % 2) + kk / 4;
        const int at = ((n / 8) * (kK / 4) + r / 4) * 32 + (n % 8) * 4 + r % 4;
        split_tf32(f < kD ? w0(n, f) : wroot(n, f - kD), wb[at], wsm[at]);
    }
    fence_async_shared();
    __syncthreads();
    const int group = threadIdx.x / kWgmmaThreads, warp = warp_id % 4;
    const int lane = threadIdx.x & 31, gid = lane / 4, tig = lane & 3;
    const std::size_t n = dy.rows, step = 64 * std::size_t(gridDim.x) * kInputGroups;
    // This warp's 16 rows from `first` into its staging area: lane l copies chunk l of each
    // row (g's columns 4 l.. for l < 16, dy's 4 (l - 16).. above), then the rows' indices
    // (contiguous: row first + i's entry j at idx[(first + i) k + j]); past the end, zeros.
    const auto fetch = [&](std::size_t first) {
        for (int i = 0; i < 16; ++i) {
            const std::size_t row = first + i;
            const bool inside = row < n;
            const float* src = lane < 16 ? g.row(inside ? row : 0) + 4 * lane
                                         : dy.row(inside ? row : 0) + 4 * (lane - 16);
            __pipeline_memcpy_async(stage + i * 32 + (lane ^ 4 * (i & 1)), src, 16,
                                    inside ? 0 : 16);
        }
        const std::size_t bytes =
            (min(n, first + 16) - min(n, first)) * k * sizeof(I); // this tile's indices
        const char* src = reinterpret_cast<const char*>(idx + first * k);
        for (std::uint32_t c = lane; c < index_chunks; c += 32) {
            const std::size_t at = std::size_t(c) * 16;
            const std::size_t valid = at < bytes ? min(std::size_t(16), bytes - at) : 0;
            __pipeline_memcpy_async(reinterpret_cast<float4*>(staged_idx) + c,
                                    valid > 0 ? src + at : reinterpret_cast<const char*>(idx),
                                    16, std::size_t(16) - valid);
        }
        __pipeline_commit();
    };
    std::size_t r0 = 64 * (std::size_t(blockIdx.x) * kInputGroups + group);
    if (r0 < n) fetch(r0 + 16 * warp);
    for (; r0 < n; r0 += step) {
        const std::size_t first = r0 + 16 * warp;
        __pipeline_wait_prior(0);
        __syncwarp();
        float4 xa[kSteps / 2], xb[kSteps / 2];
#pragma unroll
        for (int q = 0; q < kSteps / 2; ++q) {
            const int c = 4 * (q % 4) + tig + 16 * (q / 4); // the chunk of columns 4 c..
            xa[q] = stage[gid * 32 + (c ^ 4 * (gid & 1))];
            xb[q] = stage[(gid + 8) * 32 + (c ^ 4 * (gid & 1))];
        }
        const std::uint32_t rows = first < n ? std::uint32_t(min(std::size_t(16), n - first)) : 0u;
        const std::uint32_t entries = rows * k;
        std::uint32_t col[kEntries];
#pragma unroll
        for (int i = 0; i < kEntries; ++i) {
            const std::uint32_t e = lane + 32 * i;
            col[i] = e < entries ? std::uint32_t(staged_idx[e]) : 0u;
        }
        __syncwarp(); // every lane has its operands: the next rows may land
        if (r0 + step < n) fetch(r0 + step + 16 * warp);
        float acc[32] = {};
        wgmma_registers(acc);
        // A's parts in two sets of registers, each written only once the group that read it
        // two steps of q ago is done (at most one group in flight).
        Tf32Split<4> parts[2][2];
#pragma unroll
        for (int q = 0; q < kSteps / 2; ++q) {
            Tf32Split<4>(&a)[2] = parts[q % 2];
            if (q >= 2) wgmma_wait<1>();
            a[0] = Tf32Split<4>({xa[q].x, xb[q].x, xa[q].y, xb[q].y});
            a[1] = Tf32Split<4>({xa[q].z, xb[q].z, xa[q].w, xb[q].w});
            wgmma_fence(); // A's registers (and, the first time, the zeroed accumulators)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int at = (2 * q + h) * 2 * 32; // the step's first core along K
                const std::uint64_t b_big = wgmma_descriptor(wb + at, kCoreBytes, kGroupBytes);
                const std::uint64_t b_small =
                    wgmma_descriptor(wsm + at, kCoreBytes, kGroupBytes);
                wgmma_m64n64k8_3xtf32(acc, a[h], b_big, b_small);
            }
            wgmma_commit();
        }
        wgmma_wait<0>();
        wgmma_registers(acc);
        // The tile through shared memory, then each kept entry read at its column.
#pragma unroll
        for (int m = 0; m < kD / 8; ++m) {
            float* d = ds + gid * kInputDld + 8 * m + 2 * tig;
            *reinterpret_cast<float2*>(d) = make_float2(acc[4 * m], acc[4 * m + 1]);
            *reinterpret_cast<float2*>(d + 8 * kInputDld) =
                make_float2(acc[4 * m + 2], acc[4 * m + 3]);
        }
        __syncwarp();
#pragma unroll
        for (int i = 0; i < kEntries; ++i) {
            const std::uint32_t e = lane + 32 * i;
            if (e < entries) d_values(first + e / k, e % k) = ds[e / k * kInputDld + col[i]];
        }
        for (std::uint32_t e = lane + 32 * kEntries; e < entries; e += 32)
            d_values(first + e / k, e % k) = ds[e / k * kInputDld + idx[first * k + e]];
        __syncwarp();
    }
    __pipeline_wait_prior(0); // no copy outlives the block
}

} // namespace gsr::gpu::kernels
