#pragma once
// Elementwise kernels: grid-stride loops over rows x cols of strided matrices.
#include "kernels/common.cuh"

namespace gsr::gpu::kernels {

#define GSR_FOR_ELEMENTS(m)                                                                    \
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x,                  \
                     n_ = std::size_t((m).rows) * (m).cols;                                    \
         i < n_; i += std::size_t(gridDim.x) * blockDim.x)

template <class T> __global__ void fill(MatRef<T> y, T value)
{
    GSR_FOR_ELEMENTS(y) y(i / y.cols, i % y.cols) = value;
}

/// y = a x + b y (b == 0: y is not read).
template <class T> __global__ void axpby(T a, MatRef<T> x, T b, MatRef<T> y)
{
    GSR_FOR_ELEMENTS(x)
    {
        const std::size_t r = i / x.cols;
        const std::uint32_t c = i % x.cols;
        y(r, c) = b == T(0) ? a * x(r, c) : a * x(r, c) + b * y(r, c);
    }
}

template <class T> __global__ void round_to_grid(MatRef<T> x, T quantum, T inverse)
{
    GSR_FOR_ELEMENTS(x)
    {
        T& v = x(i / x.cols, i % x.cols);
        v = round_even(v * inverse) * quantum;
    }
}

template <class T> __global__ void add_row_vector(const T* bias, MatRef<T> x)
{
    GSR_FOR_ELEMENTS(x) x(i / x.cols, i % x.cols) += bias[i % x.cols];
}

/// y = sum of the groups first.. of x, each `width` wide, added in group order.
template <class T>
__global__ void sum_groups(MatRef<T> x, std::uint32_t width, std::uint32_t first,
                           MatRef<T> y)
{
    const std::uint32_t groups = x.cols / width;
    GSR_FOR_ELEMENTS(y)
    {
        const std::size_t r = i / width;
        const std::uint32_t c = i % width;
        T s = T(0);
        for (std::uint32_t g = first; g < groups; ++g) s += x(r, g * width + c);
        y(r, c) = s;
    }
}

/// y = max(x, 0), times the mask scale where kept (keep == nullptr: no dropout).
template <class T>
__global__ void relu_forward(MatRef<T> x, const std::uint8_t* keep, std::uint32_t stride,
                             std::uint32_t column, T scale, MatRef<T> y)
{
    GSR_FOR_ELEMENTS(x)
    {
        const std::size_t r = i / x.cols;
        const std::uint32_t c = i % x.cols;
        const T v = x(r, c) > T(0) ? x(r, c) : T(0);
        y(r, c) = keep ? (keep[r * stride + column + c] ? v * scale : T(0)) : v;
    }
}

template <class T>
__global__ void relu_backward(MatRef<T> y, T scale, MatRef<T> dy, T beta, MatRef<T> dx)
{
    GSR_FOR_ELEMENTS(y)
    {
        const std::size_t r = i / y.cols;
        const std::uint32_t c = i % y.cols;
        const T g = y(r, c) > T(0) ? dy(r, c) * scale : T(0);
        dx(r, c) = beta == T(0) ? g : beta * dx(r, c) + g;
    }
}

__global__ void dropout_mask(std::uint64_t seed, std::uint64_t step, double p,
                             std::uint8_t* keep, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        keep[i] = nn::dropout_keeps(seed, step, i, p) ? 1 : 0;
}

/// dy = dy * scale where layernorm(x) (gamma, beta, the rows' mean and 1/sigma in stats; the
/// arithmetic of layernorm_forward) is positive and keep (row stride `stride`, from column
/// `column`; nullptr: no mask) keeps the entry, else 0: the ReLU's gate from its input.
template <class T>
__global__ void layernorm_relu_gate(MatRef<T> x, const T* gamma, const T* beta,
                                    MatRef<T> stats, const std::uint8_t* keep,
                                    std::uint32_t stride, std::uint32_t column, T scale,
                                    MatRef<T> dy)
{
    GSR_FOR_ELEMENTS(dy)
    {
        const std::size_t r = i / dy.cols;
        const std::uint32_t c = i % dy.cols;
        const T v = gamma[c] * ((x(r, c) - stats(r, 0)) * stats(r, 1)) + beta[c];
        const bool on = v > T(0) && (!keep || keep[r * stride + column + c]);
        dy(r, c) = on ? dy(r, c) * scale : T(0);
    }
}

/// dense(r, idx[r][q]) = values(r, q); dense is zeroed first by `fill`.
template <class T, class I>
__global__ void scatter_compressed(MatRef<T> values, const I* idx, MatRef<T> dense)
{
    GSR_FOR_ELEMENTS(values)
    {
        const std::size_t r = i / values.cols;
        const std::uint32_t q = i % values.cols;
        dense(r, idx[r * values.cols + q]) = values(r, q);
    }
}

/// *out = max |a - b| as the bits of a non-negative double (NaN counts as infinite).
template <class T>
__global__ void max_abs_difference(MatRef<T> a, MatRef<T> b, bool has_b,
                                   unsigned long long* out)
{
    double m = 0.0;
    GSR_FOR_ELEMENTS(a)
    {
        const std::size_t r = i / a.cols;
        const std::uint32_t c = i % a.cols;
        double d = fabs(double(a(r, c)) - (has_b ? double(b(r, c)) : 0.0));
        if (d != d) d = __longlong_as_double(0x7ff0000000000000ll);
        m = fmax(m, d);
    }
    atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}

#undef GSR_FOR_ELEMENTS

} // namespace gsr::gpu::kernels
