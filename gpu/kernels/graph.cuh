#pragma once
// Graph kernels: SpMM over the CSR operator, aggregation over compressed rows (k of d columns
// per neighbour), the gather of the transposed operator at the kept columns (the compressed
// backward), and the convolution epilogue (root term of compressed rows, bias, grid rounding,
// residual add with its sign). Rows are spread over groups of `tpr` threads; each sums its
// neighbours in CSR order, the order of the CPU backend.
#include "kernels/common.cuh"

#include <type_traits>

namespace gsr::gpu::kernels {

template <class T, int V> __device__ inline void load_vec(const T* p, T (&v)[V])
{
    if constexpr (V == 4 && std::is_same_v<T, float>) {
        const float4 f = __ldg(reinterpret_cast<const float4*>(p));
        v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
    } else if constexpr (V == 2 && std::is_same_v<T, float>) {
        const float2 f = __ldg(reinterpret_cast<const float2*>(p));
        v[0] = f.x, v[1] = f.y;
    } else if constexpr (V == 2 && std::is_same_v<T, double>) {
        const double2 f = __ldg(reinterpret_cast<const double2*>(p));
        v[0] = f.x, v[1] = f.y;
    } else {
        for (int i = 0; i < V; ++i) v[i] = __ldg(p + i);
    }
}

/// Lanes of this thread's row group (tpr a power of two <= 32) within its warp.
__device__ inline unsigned group_mask(int tpr)
{
    if (tpr >= 32) return 0xffffffffu;
    const unsigned lane = threadIdx.x & 31;
    return ((1u << tpr) - 1u) << (lane & ~unsigned(tpr - 1));
}

/// Neighbours taken kEdgeBatch at a time: their targets, then their scales and rows, are
/// loaded before any is added, so a row's loads overlap instead of waiting on one another
/// (rows have about four neighbours in circuit graphs). The adds keep CSR order.
inline constexpr int kEdgeBatch = 4;

/// acc[0..V) += w x(j, ..) over edges [b, e) as edge(q, j, w) gives each one's row j and
/// scale w; `x` is column c0 of row 0, rows ld apart. kEdgeBatch edges at a time, every
/// target and scale, then every row, loaded before any add.
template <class T, int V, class Edge>
__device__ inline void gather_rows(std::uint64_t b, std::uint64_t e, const T* x,
                                   std::size_t ld, const Edge& edge, T (&acc)[V])
{
    std::uint64_t q = b;
    for (; q + kEdgeBatch <= e; q += kEdgeBatch) {
        std::uint32_t j[kEdgeBatch];
        T w[kEdgeBatch], vb[kEdgeBatch][V];
        for (int u = 0; u < kEdgeBatch; ++u) edge(q + u, j[u], w[u]);
        for (int u = 0; u < kEdgeBatch; ++u) load_vec<T, V>(x + j[u] * ld, vb[u]);
        for (int u = 0; u < kEdgeBatch; ++u)
            for (int i = 0; i < V; ++i) acc[i] += w[u] * vb[u][i];
    }
    T v[V];
    for (; q < e; ++q) {
        std::uint32_t j;
        T w;
        edge(q, j, w);
        load_vec<T, V>(x + j * ld, v);
        for (int i = 0; i < V; ++i) acc[i] += w * v[i];
    }
}

/// acc += cs[r] x(r, c0..): row r's self loop, where s has them.
template <class T, int V>
__device__ inline void add_self_loop(const CsrRef<T>& s, std::size_t r, const T* x,
                                     std::size_t ld, T (&acc)[V])
{
    if (!s.self_loop) return;
    T v[V];
    const T w = s.cs[r];
    load_vec<T, V>(x + r * ld, v);
    for (int i = 0; i < V; ++i) acc[i] += w * v[i];
}

/// acc[0..V) = sum_j cs[j] x(j, c0..) over row r's neighbours and its self loop, not yet
/// scaled by rs[r]: `x` is column c0 of row 0, rows ld apart. Neighbours in CSR order
/// (gather_rows).
template <class T, int V>
__device__ inline void neighbour_sum(const CsrRef<T>& s, std::size_t r, const T* x,
                                     std::size_t ld, T (&acc)[V])
{
    for (int i = 0; i < V; ++i) acc[i] = T(0);
    gather_rows<T, V>(s.offsets[r], s.offsets[r + 1], x, ld,
                      [&](std::uint64_t q, std::uint32_t& j, T& w) {
                          j = __ldg(s.targets + q);
                          w = __ldg(s.cs + j);
                      },
                      acc);
    add_self_loop<T, V>(s, r, x, ld, acc);
}

/// Edges of a strip (below) whose targets and column scales a warp holds in shared memory.
inline constexpr int kStripEdges = 128;

/// A row of a strip: its edges [b, e) counted from the strip's first, and its row scale.
struct StripRow {
    std::uint64_t b = 0, e = 0;
    float scale = 0.0f;
};

/// A warp's strip of `count` (< 32) consecutive rows of s from r0, for sums whose gathers need
/// not wait on the row's offsets and then its targets: lane i holds offsets[r0 + i] (i <=
/// count) and rs[r0 + i] (i < count), each in one load for the strip, and the targets and
/// column scales of the strip's first kStripEdges edges are copied to the warp's window in
/// shared memory (wj, ww) in coalesced loads. Every lane of the warp calls it.
struct Strip {
    std::uint64_t offset = 0; ///< this lane's row offset
    float scale = 0.0f;       ///< this lane's row scale
    std::uint64_t first = 0;  ///< the strip's first edge
    std::uint32_t held = 0;   ///< edges in the window

    /// Row i of the strip from the lanes that hold it, its edge range empty where !valid (a
    /// row past the strip's end). Every lane of the warp calls it.
    __device__ StripRow row(int i, bool valid) const
    {
        constexpr unsigned kAll = 0xffffffffu;
        const int from = valid ? i : 0;
        StripRow w;
        const std::uint64_t b = __shfl_sync(kAll, offset, from) - first;
        w.e = __shfl_sync(kAll, offset, from + 1) - first;
        w.b = valid ? b : w.e;
        w.scale = __shfl_sync(kAll, scale, from);
        return w;
    }
};
__device__ inline Strip load_strip(const CsrRef<float>& s, std::size_t r0, int count,
                                   std::uint32_t* wj, float* ww)
{
    constexpr unsigned kAll = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    Strip st;
    st.offset = lane <= count ? s.offsets[r0 + lane] : 0;
    st.scale = lane < count ? s.rs[r0 + lane] : 0.0f;
    st.first = __shfl_sync(kAll, st.offset, 0);
    const std::uint64_t last = __shfl_sync(kAll, st.offset, count);
    st.held = std::uint32_t(min(last - st.first, std::uint64_t(kStripEdges)));
    __syncwarp(); // every lane is done with the window's last strip
    for (std::uint32_t q = lane; q < st.held; q += 32) {
        const std::uint32_t j = __ldg(s.targets + st.first + q);
        wj[q] = j;
        ww[q] = __ldg(s.cs + j);
    }
    __syncwarp();
    return st;
}

/// neighbour_sum<float, V> (the same adds in the same order) of row r of a strip over its
/// edges [w.b, w.e): targets and scales from the window where it holds them. No self loop if
/// !valid (a row past the strip's end).
template <int V>
__device__ inline void strip_sum(const CsrRef<float>& s, const Strip& st, const StripRow& w,
                                 std::size_t r, bool valid, const float* x, std::size_t ld,
                                 const std::uint32_t* wj, const float* ww, float (&acc)[V])
{
    for (int i = 0; i < V; ++i) acc[i] = 0.0f;
    gather_rows<float, V>(w.b, w.e, x, ld,
                          [&](std::uint64_t q, std::uint32_t& j, float& scale) {
                              if (q < st.held) {
                                  j = wj[q], scale = ww[q];
                              } else {
                                  j = __ldg(s.targets + st.first + q);
                                  scale = __ldg(s.cs + j);
                              }
                          },
                          acc);
    if (valid) add_self_loop<float, V>(s, r, x, ld, acc);
}

/// y = alpha S x + beta y (beta 0: y not read). V: elements per load; cols % V == 0.
template <class T, int V>
__global__ void spmm(CsrRef<T> s, T alpha, MatRef<T> x, T beta, MatRef<T> y, int tpr)
{
    const int groups = blockDim.x / tpr, sub = threadIdx.x % tpr;
    const std::uint32_t step = std::uint32_t(tpr) * V;
    for (std::size_t r = blockIdx.x * std::size_t(groups) + threadIdx.x / tpr; r < s.rows;
         r += std::size_t(gridDim.x) * groups) {
        const T scale = s.rs[r];
        for (std::uint32_t c0 = std::uint32_t(sub) * V; c0 < x.cols; c0 += step) {
            T acc[V];
            neighbour_sum<T, V>(s, r, x.p + c0, x.ld, acc);
            T* yr = y.row(r) + c0;
            for (int i = 0; i < V; ++i) {
                const T a = acc[i] * scale;
                yr[i] = beta == T(0) ? alpha * a : alpha * a + beta * yr[i];
            }
        }
    }
}

/// out(r, 0..width) = (S Z)_r for compressed Z: each neighbour adds its k kept values at their
/// columns, into a shared row buffer. Shared memory: (blockDim / tpr) * width scalars.
template <class T, class I>
__global__ void aggregate_compressed(CsrRef<T> s, MatRef<T> values, const I* idx,
                                     std::uint32_t width, MatRef<T> out, int tpr)
{
    extern __shared__ unsigned char shared_raw[];
    const int groups = blockDim.x / tpr, sub = threadIdx.x % tpr;
    T* acc = reinterpret_cast<T*>(shared_raw) + std::size_t(threadIdx.x / tpr) * width;
    const unsigned mask = group_mask(tpr);
    const std::uint32_t k = values.cols;
    for (std::size_t r = blockIdx.x * std::size_t(groups) + threadIdx.x / tpr; r < s.rows;
         r += std::size_t(gridDim.x) * groups) {
        for (std::uint32_t c = sub; c < width; c += tpr) acc[c] = T(0);
        __syncwarp(mask);
        const std::uint64_t e0 = s.offsets[r], e1 = s.offsets[r + 1];
        std::uint64_t e = e0;
        if (k <= std::uint32_t(tpr)) {
            // One kept entry per thread: batches of neighbours, loads first (kEdgeBatch).
            const std::uint32_t q = sub;
            const bool mine = q < k;
            for (; e + kEdgeBatch <= e1; e += kEdgeBatch) {
                std::uint32_t j[kEdgeBatch], c[kEdgeBatch];
                T w[kEdgeBatch], v[kEdgeBatch];
                for (int u = 0; u < kEdgeBatch; ++u) j[u] = __ldg(s.targets + e + u);
                for (int u = 0; u < kEdgeBatch; ++u) {
                    w[u] = __ldg(s.cs + j[u]);
                    v[u] = mine ? __ldg(values.row(j[u]) + q) : T(0);
                    c[u] = mine ? std::uint32_t(idx[std::size_t(j[u]) * k + q]) : 0;
                }
                for (int u = 0; u < kEdgeBatch; ++u) {
                    if (mine) acc[c[u]] += w[u] * v[u];
                    __syncwarp(mask);
                }
            }
        }
        for (; e <= e1; ++e) {
            std::size_t j;
            if (e < e1)
                j = __ldg(s.targets + e);
            else if (s.self_loop)
                j = r;
            else
                break;
            const T w = __ldg(s.cs + j);
            const T* vj = values.row(j);
            const I* ij = idx + j * k;
            for (std::uint32_t q = sub; q < k; q += tpr) acc[ij[q]] += w * __ldg(vj + q);
            __syncwarp(mask);
        }
        const T scale = s.rs[r];
        T* o = out.row(r);
        for (std::uint32_t c = sub; c < width; c += tpr) o[c] = acc[c] * scale;
        __syncwarp(mask);
    }
}

/// dv(r, q) (=, or += when accumulate) (S^T g)(r, idx[r][q]): `st` is the transposed pattern
/// with the scales swapped (rs = col_scale, cs = row_scale).
template <class T, class I>
__global__ void gather_transpose(CsrRef<T> st, MatRef<T> g, const I* idx, MatRef<T> dv,
                                 bool accumulate, int tpr)
{
    const int groups = blockDim.x / tpr, sub = threadIdx.x % tpr;
    const std::uint32_t k = dv.cols;
    for (std::size_t r = blockIdx.x * std::size_t(groups) + threadIdx.x / tpr; r < st.rows;
         r += std::size_t(gridDim.x) * groups) {
        const std::uint64_t e0 = st.offsets[r], e1 = st.offsets[r + 1];
        for (std::uint32_t q = sub; q < k; q += tpr) {
            const std::uint32_t c = idx[r * k + q];
            T acc = T(0);
            std::uint64_t e = e0;
            for (; e + kEdgeBatch <= e1; e += kEdgeBatch) {
                std::uint32_t j[kEdgeBatch];
                T w[kEdgeBatch], v[kEdgeBatch];
                for (int u = 0; u < kEdgeBatch; ++u) j[u] = __ldg(st.targets + e + u);
                for (int u = 0; u < kEdgeBatch; ++u) {
                    w[u] = __ldg(st.cs + j[u]);
                    v[u] = __ldg(g.row(j[u]) + c);
                }
                for (int u = 0; u < kEdgeBatch; ++u) acc += w[u] * v[u];
            }
            for (; e < e1; ++e) {
                const std::uint32_t j = __ldg(st.targets + e);
                acc += __ldg(st.cs + j) * __ldg(g.row(j) + c);
            }
            if (st.self_loop) acc += st.cs[r] * g(r, c);
            acc *= st.rs[r];
            dv(r, q) = accumulate ? dv(r, q) + acc : acc;
        }
    }
}

/// dv(r, q) (=, or += when accumulate) g(r, idx[r][q]): the kept columns of a dense row.
template <class T, class I>
__global__ void gather_columns(MatRef<T> g, const I* idx, MatRef<T> dv, bool accumulate)
{
    const std::uint32_t k = dv.cols;
    const std::size_t n = std::size_t(dv.rows) * k;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t r = i / k;
        const std::uint32_t q = i % k;
        const T v = g(r, idx[r * k + q]);
        dv(r, q) = accumulate ? dv(r, q) + v : v;
    }
}

/// Rows r0.. of y = residual + sign * grid(f + Z W_root + bias), f a chunk (its row 0 is row
/// r0). values.p == nullptr: no compressed root term (a dense root is already in f).
template <class T, class I>
__global__ void conv_epilogue(MatRef<T> f, std::size_t r0, const T* bias, MatRef<T> values,
                              const I* idx, MatRef<T> wroot, MatRef<T> residual, T sign,
                              T quantum, T inverse, MatRef<T> y)
{
    const std::uint32_t k = values.cols;
    const std::size_t n = std::size_t(f.rows) * f.cols;
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const std::size_t fr = i / f.cols, r = r0 + fr;
        const std::uint32_t c = i % f.cols;
        T v = f(fr, c);
        if (values.p) {
            // Four kept entries at a time: values, indices, then their weights, loaded before
            // the adds (which keep the column order).
            const I* ir = idx + r * k;
            const T* vr = values.row(r);
            std::uint32_t q = 0;
            for (; q + 4 <= k; q += 4) {
                T a[4], w[4];
                std::uint32_t col[4];
                for (int u = 0; u < 4; ++u) {
                    a[u] = vr[q + u];
                    col[u] = ir[q + u];
                }
                for (int u = 0; u < 4; ++u) w[u] = wroot(col[u], c);
                for (int u = 0; u < 4; ++u) v += a[u] * w[u];
            }
            for (; q < k; ++q) v += vr[q] * wroot(ir[q], c);
        }
        v += bias[c];
        if (quantum > T(0)) v = round_even(v * inverse) * quantum;
        y(r, c) = residual.p ? residual(r, c) + sign * v : sign * v;
    }
}

} // namespace gsr::gpu::kernels
