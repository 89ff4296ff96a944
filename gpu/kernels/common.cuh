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

/// For a grid of one wave over rows of unequal cost (a graph's: hyp's primary inputs have about
/// 130 neighbours, most rows four): each warp takes Take consecutive rows at a time, its first
/// take by its place in the grid and the next ones from counter[0], so a warp that drew costly
/// rows draws fewer of the rest, and calls f(r0, count) with every lane (rows r0 .. r0 +
/// count, count = Take but at the end). counter[0] and counter[1] (the warps finished) start
/// at zero; the last warp to finish zeroes them again for the next launch.
template <int Take, class F>
__device__ inline void for_taken_strips(std::size_t rows, unsigned* counter, F&& f)
{
    const unsigned lane = threadIdx.x & 31, warps = gridDim.x * (blockDim.x >> 5);
    std::size_t take = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    while (take * Take < rows) {
        f(take * Take, int(min(std::size_t(Take), rows - take * Take)));
        unsigned t = 0;
        if (lane == 0) t = atomicAdd(counter, 1u);
        take = std::size_t(warps) + __shfl_sync(0xffffffffu, t, 0);
    }
    if (lane == 0) {
        __threadfence(); // this warp's takes are counted before it counts itself finished
        if (atomicAdd(counter + 1, 1u) == warps - 1) {
            counter[0] = 0;
            counter[1] = 0;
        }
    }
}

/// f(r, valid) for each row r of `rows` that this thread's group of Lanes threads takes: a
/// warp takes 32 / Lanes rows at a time, the warps of the grid a stride apart. Every lane of a
/// warp stays to the end (valid is false for rows past it), so the groups may shuffle and
/// vote across the whole warp; f returns to skip the rest of a row. Descending: row r stands
/// for rows - 1 - r, so the grid walks the rows from the last down.
template <int Lanes, bool Descending = false, class F>
__device__ inline void for_warp_rows(std::size_t rows, F&& f)
{
    constexpr int kRowsPerWarp = 32 / Lanes;
    const std::size_t warps = std::size_t(gridDim.x) * (blockDim.x >> 5);
    for (std::size_t base = (blockIdx.x * std::size_t(blockDim.x >> 5) + (threadIdx.x >> 5)) *
                            kRowsPerWarp;
         base < rows; base += warps * kRowsPerWarp) {
        const std::size_t r = base + (threadIdx.x & 31) / Lanes;
        f(Descending && r < rows ? rows - 1 - r : r, r < rows);
    }
}

} // namespace gsr::gpu::kernels
