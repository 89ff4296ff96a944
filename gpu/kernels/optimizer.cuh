#pragma once
// The loss over a node list (one block, a fixed-order reduction) and the fused Adam step.
#include "kernels/common.cuh"

namespace gsr::gpu::kernels {

inline constexpr int kLossThreads = 256;

/// grad (zeroed before) += scale * dL/dpred at the listed nodes; partial[block] = the sum of
/// the losses of the block's run of the list (a fixed tree order), for loss_total to add in
/// block order. A node listed twice adds the same value twice, so the atomic order cannot
/// change a bit.
template <class T>
__global__ void loss(int kind, MatRef<T> pred, MatRef<T> target, const std::uint32_t* nodes,
                     std::uint32_t count, std::uint32_t per_block, double scale, MatRef<T> grad,
                     double* partial)
{
    __shared__ double sums[kLossThreads];
    double sum = 0.0;
    const std::uint32_t first = blockIdx.x * per_block;
    const std::uint32_t last = min(count, first + per_block);
    for (std::uint32_t i = first + threadIdx.x; i < last; i += blockDim.x) {
        const std::uint32_t v = nodes[i];
        const double p = double(pred(v, 0)), y = double(target(v, 0));
        double g;
        if (kind == 0) {
            sum += (p - y) * (p - y);
            g = 2.0 * (p - y);
        } else {
            sum += fmax(p, 0.0) - p * y + log1p(exp(-fabs(p)));
            g = 1.0 / (1.0 + exp(-p)) - y;
        }
        atomicAdd(&grad(v, 0), T(scale * g));
    }
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

/// *total = the blocks' partial sums of loss, added in block order by one thread.
__global__ inline void loss_total(const double* partial, std::uint32_t blocks, double* total)
{
    double t = 0.0;
    for (std::uint32_t b = 0; b < blocks; ++b) t += partial[b];
    *total = t;
}

template <class T>
__global__ void adam(T* p, const T* g, T* m, T* v, std::size_t n, T b1, T b2, T lr, T eps,
                     T wd, T ic1, T ic2)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const T gi = g[i];
        const T mi = b1 * m[i] + (T(1) - b1) * gi;
        const T vi = b2 * v[i] + (T(1) - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        const T mhat = mi * ic1, vhat = vi * ic2;
        p[i] -= lr * (mhat / (sqrt(vhat) + eps) + wd * p[i]);
    }
}

} // namespace gsr::gpu::kernels
