#pragma once
// Views kernels take (non-owning, by value) and the launch helpers they share.
#include <cstddef>
#include <cstdint>

#include "nn/backend.hpp" // nn::dropout_keeps, host and device

namespace gsr::gpu::kernels {

/// A row-major matrix in device memory with row stride ld (elements).
template <class T> struct MatRef {
    T* p = nullptr;
    std::uint32_t rows = 0, cols = 0, ld = 0;

    __device__ T& operator()(std::size_t r, std::uint32_t c) const { return p[r * ld + c]; }
    __device__ T* row(std::size_t r) const { return p + r * ld; }
};

/// A CSR pattern with its operator scales: S_ij = rs_i * cs_j per edge, plus rs_i cs_i when
/// self_loop.
template <class T> struct CsrRef {
    const std::uint64_t* offsets = nullptr;
    const std::uint32_t* targets = nullptr;
    const T* rs = nullptr;
    const T* cs = nullptr;
    std::uint32_t rows = 0;
    bool self_loop = false;
};

inline constexpr int kThreads = 256;

inline unsigned blocks_for(std::size_t work, int per_block = kThreads, unsigned cap = 65535u * 8)
{
    std::size_t b = (work + per_block - 1) / per_block;
    if (b == 0) b = 1;
    return b > cap ? cap : unsigned(b);
}

__device__ inline float round_even(float x) { return rintf(x); }
__device__ inline double round_even(double x) { return rint(x); }
__device__ inline float rsqrt_exact(float x) { return 1.0f / sqrtf(x); }
__device__ inline double rsqrt_exact(double x) { return 1.0 / sqrt(x); }

/// The largest of the warp's v (every lane): one instruction from sm_80 on, else shuffles
/// (a build for older GPUs).
__device__ inline unsigned warp_max(unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
#endif
}

template <class T> __device__ inline T warp_sum(T v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/// f(r, valid) for each row r of `rows` that this thread's group of Lanes threads takes: a
/// warp takes 32 / Lanes rows at a time, the warps of the grid a stride apart. Every lane of a
/// warp stays to the end (valid is false for rows past it), so the groups may shuffle and
/// vote across the whole warp; f returns to skip the rest of a row.
template <int Lanes, class F> __device__ inline void for_warp_rows(std::size_t rows, F&& f)
{
    constexpr int kRowsPerWarp = 32 / Lanes;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x >> 5);
    for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x >> 5) + (threadIdx.x >> 5)) *
                            kRowsPerWarp;
         base < rows; base += warps * kRowsPerWarp) {
        const std::size_t r = base + (threadIdx.x & 31) / Lanes;
        f(r, r < rows);
    }
}

} // namespace gsr::gpu::kernels
