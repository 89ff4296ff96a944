#pragma once
// The compressed convolution's forward taken as S (Z W) rather than (S Z) W. Z has k of d
// columns kept per row, so Z W costs k/d of the dense product and writes u = Z W once; the
// aggregation then gathers rows of u, and its epilogue adds the root term, the bias, the grid
// rounding and the residual. (S Z) W wrote S Z, read it back and multiplied it densely.
#include "kernels/common.cuh"
#include "kernels/gemm.cuh"
#include "kernels/graph.cuh"

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
template <int Lanes, class I>
__global__ void aggregate_products(CsrRef<float> s0, CsrRef<float> s1, std::uint32_t terms,
                                   MatRef<float> u, GemmEpilogue<I> ep, MatRef<float> y)
{
    extern __shared__ float4 product_shared[];
    constexpr std::uint32_t kCols = 4 * Lanes;
    float* wr = reinterpret_cast<float*>(product_shared);
    const bool root = ep.values.p != nullptr;
    if (root)
        for (std::uint32_t i = threadIdx.x; i < ep.wroot.rows * kCols; i += blockDim.x)
            wr[i] = ep.wroot(i / kCols, i % kCols);
    __syncthreads();
    const int sub = threadIdx.x % Lanes, per_block = blockDim.x / Lanes;
    const std::uint32_t c0 = 4 * sub;
    for (std::size_t r = blockIdx.x * std::size_t(per_block) + threadIdx.x / Lanes; r < y.rows;
         r += std::size_t(gridDim.x) * per_block) {
        // Each term's neighbour sum (as spmm) times its row scale.
        float v[4], t[4];
        neighbour_sum<float, 4>(s0, r, u.p + c0, u.ld, t);
        for (int i = 0; i < 4; ++i) v[i] = t[i] * s0.rs[r];
        if (terms > 1) {
            neighbour_sum<float, 4>(s1, r, u.p + kCols + c0, u.ld, t);
            for (int i = 0; i < 4; ++i) v[i] += t[i] * s1.rs[r];
        }
        conv_epilogue4(v, r, c0, ep, root ? wr + c0 : nullptr, kCols, y);
    }
}

} // namespace gsr::gpu::kernels
