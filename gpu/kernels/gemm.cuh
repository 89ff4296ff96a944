#pragma once
// A float GEMM for the tall, narrow products of training, y = epilogue(A B): A has many rows
// and K <= kGemmMaxDepth columns, B is K x (a multiple of 64). A block keeps 64 columns of the
// whole of B in shared memory and walks tiles of kGemmRows rows of A in stages of kGemmDepth
// columns, copied ahead with cp.async; each thread sums 8 rows x 4 columns in registers, in
// k order. The epilogue is the convolution's: the compressed root term, the bias, the grid
// rounding and the residual with its sign, so that the forward convolution is one kernel
// (cuBLAS wrote the product to a workspace for a second pass to read back). W_root of the
// compressed root term sits in shared memory too.
#include "kernels/common.cuh"

#include <cuda_pipeline.h>

namespace gsr::gpu::kernels {

inline constexpr int kGemmThreads = 256;
inline constexpr int kGemmRows = 128;   ///< rows of A per tile: 16 thread rows x 8
inline constexpr int kGemmCols = 64;    ///< columns of y per block: 16 thread columns x 4
inline constexpr int kGemmDepth = 32;   ///< columns of A per stage
inline constexpr int kGemmStages = 3;   ///< stages in flight or in use
/// Up to 128, two blocks fit an SM (87 KB of shared memory each); at K = 256 one did, and
/// cuBLAS with a second pass was faster (res at D = 128: 1.05x).
inline constexpr int kGemmMaxDepth = 128;
inline constexpr int kGemmLd = kGemmDepth + 4; ///< a staged row: 16-byte aligned

/// y(r, c) = residual(r, c) + sign * grid(acc + sum_q values(r, q) wroot(idx(r, q), c) +
/// bias[c]); every part optional (p == nullptr): sign 1 and nothing else is a plain store.
template <class I> struct GemmEpilogue {
    const float* bias = nullptr;
    MatRef<float> values; ///< compressed root term: kept values, their indices, W_root
    const I* idx = nullptr;
    MatRef<float> wroot;
    MatRef<float> residual;
    float sign = 1.0f, quantum = 0.0f, inverse = 0.0f;
    /// Kept entries four at a time in one 16-byte load of values and one of 4 indices: set
    /// when every row of values and of idx starts aligned for it (k a multiple of 4).
    bool vector_root = false;
    /// The residual read and y written with evict-first cache hints (a kernel whose gathers
    /// should keep L2).
    bool streaming = false;
};

/// Four indices in one load (4 or 8 bytes, aligned).
__device__ inline void load_index4(const std::uint8_t* p, std::uint32_t (&c)[4])
{
    const uchar4 v = *reinterpret_cast<const uchar4*>(p);
    c[0] = v.x, c[1] = v.y, c[2] = v.z, c[3] = v.w;
}
__device__ inline void load_index4(const std::uint16_t* p, std::uint32_t (&c)[4])
{
    const ushort4 v = *reinterpret_cast<const ushort4*>(p);
    c[0] = v.x, c[1] = v.y, c[2] = v.z, c[3] = v.w;
}

/// v[0..3] += sum_q values[q] w[idx[q]][0..3] over a row's `kept` entries: w is row-major with
/// stride ldw (shared memory), already offset to the thread's four columns. Four entries at a
/// time, values and indices loaded before their rows of w (each in one 16-byte load when
/// `vector`: k a multiple of 4, rows aligned for it); the adds keep the entries' order.
template <class I>
__device__ inline void add_kept_rows(float (&v)[4], const float* vr, const I* ir,
                                     std::uint32_t kept, const float* w, std::uint32_t ldw,
                                     bool vector)
{
    std::uint32_t q = 0;
    for (; q + 4 <= kept; q += 4) {
        float x[4];
        std::uint32_t col[4];
        if (vector) {
            const float4 v4 = *reinterpret_cast<const float4*>(vr + q);
            x[0] = v4.x, x[1] = v4.y, x[2] = v4.z, x[3] = v4.w;
            load_index4(ir + q, col);
        } else {
            for (int u = 0; u < 4; ++u) x[u] = vr[q + u], col[u] = ir[q + u];
        }
        for (int u = 0; u < 4; ++u) {
            const float4 w4 = *reinterpret_cast<const float4*>(w + col[u] * ldw);
            v[0] += x[u] * w4.x, v[1] += x[u] * w4.y;
            v[2] += x[u] * w4.z, v[3] += x[u] * w4.w;
        }
    }
    for (; q < kept; ++q) {
        const float x = vr[q];
        const float4 w4 = *reinterpret_cast<const float4*>(w + ir[q] * ldw);
        v[0] += x * w4.x, v[1] += x * w4.y, v[2] += x * w4.z, v[3] += x * w4.w;
    }
}

/// The convolution epilogue on four columns c0.. of row r: v += the compressed root term (W_root
/// in shared memory at wr, stride ldw, offset to the columns), then bias, grid rounding, sign
/// and residual; the result stored to y.
template <class I>
__device__ inline void conv_epilogue4(float (&v)[4], std::size_t r, std::uint32_t c0,
                                      const GemmEpilogue<I>& ep, const float* wr,
                                      std::uint32_t ldw, MatRef<float> y)
{
    if (wr)
        add_kept_rows(v, ep.values.row(r), ep.idx + r * ep.values.cols, ep.values.cols, wr, ldw,
                      ep.vector_root);
    for (int j = 0; j < 4; ++j) {
        if (ep.bias) v[j] += ep.bias[c0 + j];
        if (ep.quantum > 0.0f) v[j] = rintf(v[j] * ep.inverse) * ep.quantum;
        v[j] *= ep.sign;
    }
    if (ep.residual.p) {
        const float* res = ep.residual.row(r) + c0;
        if (ep.streaming) {
            const float4 q = __ldcs(reinterpret_cast<const float4*>(res));
            v[0] += q.x, v[1] += q.y, v[2] += q.z, v[3] += q.w;
        } else {
            for (int j = 0; j < 4; ++j) v[j] += res[j];
        }
    }
    float4* out = reinterpret_cast<float4*>(y.row(r) + c0);
    if (ep.streaming)
        __stcs(out, make_float4(v[0], v[1], v[2], v[3]));
    else
        *out = make_float4(v[0], v[1], v[2], v[3]);
}

/// Shared memory of gemm_rows for depth K and a compressed root term over W_root's
/// `root_rows` rows (0: none).
inline std::size_t gemm_shared_bytes(std::uint32_t depth, std::uint32_t root_rows)
{
    return ((std::size_t(depth) + root_rows) * kGemmCols +
            std::size_t(kGemmStages) * kGemmRows * kGemmLd) *
           sizeof(float);
}

/// y = epilogue(A B). Requires a.cols % kGemmDepth == 0, rows of A and y 16-byte aligned, and
/// y.cols == gridDim.y * kGemmCols. A block takes row tiles blockIdx.x, + gridDim.x, ..; their
/// stages of A form one sequence, copied kGemmStages - 1 ahead with cp.async, so the next
/// tile's loads are in flight while a tile's epilogue runs.
template <class I>
__global__ void __launch_bounds__(kGemmThreads, 2)
    gemm_rows(MatRef<float> a, MatRef<float> b, MatRef<float> y, GemmEpilogue<I> ep)
{
    constexpr int TN = 4, BN = kGemmCols, BM = kGemmRows, BK = kGemmDepth, P = kGemmStages;
    extern __shared__ float4 gemm_shared[];
    const std::uint32_t depth = a.cols, per_tile = depth / BK;
    const std::uint32_t root_rows = ep.values.p ? ep.wroot.rows : 0;
    float* ws = reinterpret_cast<float*>(gemm_shared); // depth x BN
    float* wr = ws + std::size_t(depth) * BN;           // root_rows x BN: W_root's columns
    float* as = wr + std::size_t(root_rows) * BN;       // P x BM x kGemmLd
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const std::uint32_t col0 = blockIdx.y * BN;
    const std::size_t tiles = (std::size_t(a.rows) + BM - 1) / BM;
    const std::size_t mine = blockIdx.x < tiles ? (tiles - blockIdx.x + gridDim.x - 1) / gridDim.x
                                                : 0;
    const std::size_t stages = mine * per_tile;
    const auto row0_of = [&](std::size_t s) {
        return (blockIdx.x + (s / per_tile) * gridDim.x) * std::size_t(BM);
    };
    // Stage s into buffer s % P: 128 rows x 32 columns, 16 bytes per copy, a row's 128 bytes
    // by 8 neighbouring threads; rows past the end are zero-filled.
    const auto issue = [&](std::size_t s) {
        if (s < stages) {
            const std::size_t row0 = row0_of(s);
            const std::uint32_t k0 = std::uint32_t(s % per_tile) * BK;
            float* buf = as + (s % P) * BM * kGemmLd;
            for (int c = tid; c < BM * BK / 4; c += kGemmThreads) {
                const int r = c / (BK / 4), q = c % (BK / 4);
                const std::size_t row = row0 + r;
                const bool inside = row < a.rows;
                __pipeline_memcpy_async(buf + r * kGemmLd + q * 4,
                                        a.row(inside ? row : 0) + k0 + q * 4, 16,
                                        inside ? 0 : 16);
            }
        }
        __pipeline_commit(); // an empty group past the end keeps the wait counts uniform
    };
    for (int s = 0; s < P - 1; ++s) issue(std::size_t(s));
    for (std::uint32_t i = tid; i < depth * BN; i += kGemmThreads)
        ws[i] = b(i / BN, col0 + i % BN);
    for (std::uint32_t i = tid; i < root_rows * BN; i += kGemmThreads)
        wr[i] = ep.wroot(i / BN, col0 + i % BN);

    float acc[8][TN] = {};
    for (std::size_t s = 0; s < stages; ++s) {
        __pipeline_wait_prior(P - 2); // this thread's copies of stage s have landed
        __syncthreads();              // everyone's have, and stage s - 1's buffer is free
        issue(s + P - 1);
        const float* sa = as + (s % P) * BM * kGemmLd + ty * 8 * kGemmLd;
        const float* w = ws + (s % per_tile) * BK * BN + tx * TN;
#pragma unroll
        for (int k4 = 0; k4 < BK; k4 += 4) {
            float4 av[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                av[i] = *reinterpret_cast<const float4*>(sa + i * kGemmLd + k4);
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const float4 b4 = *reinterpret_cast<const float4*>(w + (k4 + q) * BN);
                const float bv[TN] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const float x = q == 0 ? av[i].x : q == 1 ? av[i].y : q == 2 ? av[i].z
                                                                                : av[i].w;
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(x, bv[j], acc[i][j]);
                }
            }
        }
        if (s % per_tile != per_tile - 1) continue;

        const std::size_t row0 = row0_of(s);
        const std::uint32_t c0 = col0 + tx * TN;
#pragma unroll
        for (int i = 0; i < 8; ++i) { // unrolled: acc stays in registers
            const std::size_t r = row0 + ty * 8 + i;
            if (r >= a.rows) continue;
            float v[TN];
            for (int j = 0; j < TN; ++j) v[j] = acc[i][j];
            conv_epilogue4(v, r, c0, ep, root_rows > 0 ? wr + tx * TN : nullptr, BN, y);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    }
    __pipeline_wait_prior(0); // no copy outlives the block
}

} // namespace gsr::gpu::kernels
