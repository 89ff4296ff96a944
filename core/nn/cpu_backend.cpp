#include "nn/cpu_backend.hpp"

#include "nn/backend_checks.hpp"
#include "nn/dense_product.hpp"
#include "nn/row_parallel.hpp"
#include "util/diagnostics.hpp"
#include "util/machine.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace gsr::nn {

namespace {

// Internal misuse of the backend (shapes that do not fit): a bug, not a user error.
#define GSR_NN_REQUIRE(cond, what)                                                             \
    do {                                                                                       \
        if (!(cond))                                                                           \
            throw std::logic_error(std::string("cpu backend: ") + (what) + " (" #cond ")");    \
    } while (0)

constexpr std::size_t kSlabMinRows = 256;
constexpr std::size_t kMaxSlabs = 16;
constexpr std::size_t kConvTempElements = 16384; ///< stack rows of f in the fused convolution

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

struct RowRange {
    std::size_t begin, end;
};

RowRange slab_range(std::size_t rows, std::size_t slabs, std::size_t s)
{
    const std::size_t size = ceil_div(rows, slabs);
    const std::size_t b = std::min(rows, s * size);
    return {b, std::min(rows, b + size)};
}

struct BlockFree {
    void operator()(std::byte* p) const { std::free(p); }
};

} // namespace

std::size_t cpu_slab_count(std::size_t rows)
{
    return std::clamp<std::size_t>(ceil_div(rows, kSlabMinRows), 1, kMaxSlabs);
}

namespace {

template <class T> class CpuBackend final : public Backend {
public:
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Map = Eigen::Map<Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
    using RowVec = Eigen::Matrix<T, 1, Eigen::Dynamic>;
    using RowMap = Eigen::Map<RowVec>;

    explicit CpuBackend(unsigned threads) : pool_(threads) {}

    std::string name() const override
    {
        return std::string("cpu-") + (sizeof(T) == 8 ? "f64" : "f32") + "-" +
               std::to_string(pool_.size()) + "t";
    }
    Precision precision() const override
    {
        return sizeof(T) == 8 ? Precision::Float64 : Precision::Float32;
    }

    void reserve(std::size_t bytes) override { grow(block_, arena_, bytes); }
    void reserve_host(std::size_t bytes) override { grow(host_, host_arena_, bytes); }

    // ---- transfers ------------------------------------------------------------------------

    void upload_bytes(DeviceBytes dst, const void* src, std::size_t bytes) override
    {
        GSR_NN_REQUIRE(bytes <= dst.bytes, "upload past the end of a buffer");
        if (bytes) std::memcpy(raw(dst.offset), src, bytes);
    }
    void download_bytes(DeviceBytes src, void* dst, std::size_t bytes) const override
    {
        GSR_NN_REQUIRE(bytes <= src.bytes, "download past the end of a buffer");
        if (bytes) std::memcpy(dst, raw(src.offset), bytes);
    }
    void upload(DeviceMatrix dst, std::span<const float> src) override { upload_as(dst, src); }
    void upload(DeviceMatrix dst, std::span<const double> src) override { upload_as(dst, src); }
    void download(DeviceMatrix src, std::span<float> dst) const override
    {
        download_as(src, dst);
    }
    void download(DeviceMatrix src, std::span<double> dst) const override
    {
        download_as(src, dst);
    }

    // ---- elementwise ----------------------------------------------------------------------

    void fill(DeviceMatrix x, double value) override
    {
        check(x);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) std::fill_n(row(x, r), x.cols, T(value));
        });
    }

    void axpby(double alpha, DeviceMatrix x, double beta, DeviceMatrix y) override
    {
        same_shape(x, y);
        const T a = T(alpha), b = T(beta);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const T* xr = row(x, r);
                T* yr = row(y, r);
                if (beta == 0.0)
                    for (std::uint32_t c = 0; c < x.cols; ++c) yr[c] = a * xr[c];
                else
                    for (std::uint32_t c = 0; c < x.cols; ++c) yr[c] = a * xr[c] + b * yr[c];
            }
        });
    }

    void sum_groups(DeviceMatrix x, std::uint32_t width, std::uint32_t first_group,
                    DeviceMatrix y) override
    {
        check(x);
        check(y);
        GSR_NN_REQUIRE(width > 0 && x.cols % width == 0 && y.cols == width && y.rows == x.rows,
                       "sum_groups shapes");
        const std::uint32_t groups = x.cols / width;
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* yr = row(y, r);
                std::fill_n(yr, width, T(0));
                for (std::uint32_t g = first_group; g < groups; ++g) {
                    const T* xr = row(x, r) + std::size_t(g) * width;
                    for (std::uint32_t c = 0; c < width; ++c) yr[c] += xr[c];
                }
            }
        });
    }

    void round_to_grid(DeviceMatrix x, double quantum) override
    {
        check(x);
        check_quantum(quantum);
        if (quantum == 0.0) return;
        const T q = T(quantum), iq = T(1 / quantum);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* xr = row(x, r);
                for (std::uint32_t c = 0; c < x.cols; ++c) xr[c] = std::nearbyint(xr[c] * iq) * q;
            }
        });
    }

    double max_abs_difference(DeviceMatrix a, DeviceMatrix b) const override
    {
        check(a);
        if (!b.empty()) same_shape(a, b);
        double m = 0.0;
        for (std::size_t r = 0; r < a.rows; ++r) {
            const T* ar = row(a, r);
            const T* br = b.empty() ? nullptr : row(b, r);
            for (std::uint32_t c = 0; c < a.cols; ++c) {
                const double d = br ? double(ar[c]) - double(br[c]) : double(ar[c]);
                m = std::max(m, std::abs(d));
            }
        }
        return m;
    }

    // ---- dense ----------------------------------------------------------------------------

    void gemm(Transpose ta, Transpose tb, double alpha, DeviceMatrix a, DeviceMatrix b,
              double beta, DeviceMatrix c) override
    {
        const std::size_t inner = limits().gemm(ta, tb, a, b, c);
        const std::size_t m = c.rows, n = c.cols;
        const T al = T(alpha), be = T(beta);
        if (ta == Transpose::No) {
            // Row-parallel: each row block of c is one fixed-shape product.
            for_row_blocks(m, [&](std::size_t r0, std::size_t r1) {
                detail::dense_product(detail::DenseProduct<T>{
                    .m = r1 - r0, .n = n, .k = inner, .a = row(a, r0), .lda = a.ld,
                    .b = row(b, 0), .ldb = b.ld, .tb = tb == Transpose::Yes,
                    .c = row(c, r0), .ldc = c.ld, .alpha = al, .beta = be});
            });
            return;
        }
        // c = op(a)^T op(b): a reduction over the rows of a, by slabs added in slab order.
        const std::size_t slabs = cpu_slab_count(inner);
        ArenaScope scope(arena_);
        const DeviceMatrix partial = alloc_matrix(std::uint32_t(slabs * m), std::uint32_t(n));
        pool_.run(slabs, [&](std::size_t s) {
            const RowRange rr = slab_range(inner, slabs, s);
            // a's rows rr, transposed; b's rows rr, or its columns rr transposed. An empty slab
            // (k = 0) writes zeros.
            const bool b_rows = tb == Transpose::No;
            detail::dense_product(detail::DenseProduct<T>{
                .m = m, .n = n, .k = rr.end - rr.begin, .a = row(a, rr.begin), .lda = a.ld,
                .ta = true, .b = b_rows ? row(b, rr.begin) : row(b, 0) + rr.begin,
                .ldb = b.ld, .tb = !b_rows, .c = row(partial, s * m), .ldc = partial.ld,
                .alpha = T(1), .beta = T(0)});
        });
        combine_slabs(partial, slabs, al, be, c);
    }

    void add_row_vector(DeviceMatrix bias, DeviceMatrix x) override
    {
        check(bias);
        check(x);
        GSR_NN_REQUIRE(bias.rows == 1 && bias.cols == x.cols, "add_row_vector shapes");
        const T* b = row(bias, 0);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* xr = row(x, r);
                for (std::uint32_t c = 0; c < x.cols; ++c) xr[c] += b[c];
            }
        });
    }

    void column_sums(DeviceMatrix x, double beta, DeviceMatrix out) override
    {
        check(x);
        check(out);
        GSR_NN_REQUIRE(out.rows == 1 && out.cols == x.cols, "column_sums shapes");
        const std::size_t slabs = cpu_slab_count(x.rows);
        ArenaScope scope(arena_);
        const DeviceMatrix partial = alloc_matrix(std::uint32_t(slabs), x.cols);
        pool_.run(slabs, [&](std::size_t s) {
            const RowRange rr = slab_range(x.rows, slabs, s);
            T* p = row(partial, s);
            std::fill_n(p, x.cols, T(0));
            for (std::size_t r = rr.begin; r < rr.end; ++r) {
                const T* xr = row(x, r);
                for (std::uint32_t c = 0; c < x.cols; ++c) p[c] += xr[c];
            }
        });
        combine_slabs(partial, slabs, T(1), T(beta), out);
    }

    // ---- graph ----------------------------------------------------------------------------

    void spmm(const DeviceGraph& s, Transpose t, double alpha, DeviceMatrix x, double beta,
              DeviceMatrix y) override
    {
        check(x);
        check(y);
        GSR_NN_REQUIRE(x.rows == s.pattern.rows && y.rows == s.pattern.rows &&
                           x.cols == y.cols && x.cols <= kCpuMaxWidth,
                       "spmm shapes");
        const T al = T(alpha), be = T(beta);
        for_row_blocks(y.rows, [&](std::size_t r0, std::size_t r1) {
            T acc[kCpuMaxWidth];
            for (std::size_t r = r0; r < r1; ++r) {
                aggregate_row(s, t, x, r, acc);
                T* yr = row(y, r);
                if (beta == 0.0)
                    for (std::uint32_t c = 0; c < y.cols; ++c) yr[c] = al * acc[c];
                else
                    for (std::uint32_t c = 0; c < y.cols; ++c) yr[c] = al * acc[c] + be * yr[c];
            }
        });
    }

    // ---- normalisation, activation, top-k -------------------------------------------------

    void layernorm_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta, DeviceMatrix y,
                           DeviceMatrix stats) override
    {
        check_norm(x, gamma, beta, stats);
        same_shape(x, y);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* st = row(stats, r);
                row_stats(row(x, r), x.cols, st);
                const T* xr = row(x, r);
                T* yr = row(y, r);
                const T* g = row(gamma, 0);
                const T* b = row(beta, 0);
                for (std::uint32_t c = 0; c < x.cols; ++c)
                    yr[c] = g[c] * ((xr[c] - st[0]) * st[1]) + b[c];
            }
        });
    }

    void layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                            DeviceMatrix dy, double dx_beta, DeviceMatrix dx, DeviceMatrix dgamma,
                            DeviceMatrix dbeta) override
    {
        check_norm(x, gamma, gamma, stats);
        same_shape(x, dy);
        same_shape(x, dx);
        same_shape(gamma, dgamma);
        same_shape(gamma, dbeta);
        const std::uint32_t d = x.cols;
        const std::size_t slabs = cpu_slab_count(x.rows);
        ArenaScope scope(arena_);
        const DeviceMatrix partial = alloc_matrix(std::uint32_t(slabs), 2 * d);
        pool_.run(slabs, [&](std::size_t s) {
            const RowRange rr = slab_range(x.rows, slabs, s);
            T* pg = row(partial, s);
            T* pb = pg + d;
            std::fill_n(pg, 2 * d, T(0));
            for (std::size_t r = rr.begin; r < rr.end; ++r)
                norm_backward_row(row(x, r), row(gamma, 0), row(stats, r), row(dy, r), nullptr,
                                  0, d, T(dx_beta), row(dx, r), pg, pb);
        });
        combine_norm_slabs(partial, slabs, d, dgamma, dbeta);
    }

    void relu_forward(DeviceMatrix x, const DropoutMask& mask, DeviceMatrix y) override
    {
        same_shape(x, y);
        const std::uint8_t* keep = mask.active() ? bytes_at(mask.keep.offset) : nullptr;
        const T scale = T(mask.scale);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const T* xr = row(x, r);
                T* yr = row(y, r);
                const std::uint8_t* kr = keep ? keep + r * mask.stride + mask.column : nullptr;
                for (std::uint32_t c = 0; c < x.cols; ++c) {
                    const T v = xr[c] > T(0) ? xr[c] : T(0);
                    yr[c] = kr ? (kr[c] ? v * scale : T(0)) : v;
                }
            }
        });
    }

    void relu_backward(DeviceMatrix y, double scale, DeviceMatrix dy, double dx_beta,
                       DeviceMatrix dx) override
    {
        same_shape(y, dy);
        same_shape(y, dx);
        const T sc = T(scale), be = T(dx_beta);
        for_row_blocks(y.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const T* yr = row(y, r);
                const T* gr = row(dy, r);
                T* dr = row(dx, r);
                for (std::uint32_t c = 0; c < y.cols; ++c) {
                    const T g = yr[c] > T(0) ? gr[c] * sc : T(0);
                    dr[c] = dx_beta == 0.0 ? g : be * dr[c] + g;
                }
            }
        });
    }

    void layernorm_relu_gate(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                             DeviceMatrix stats, const DropoutMask& mask, DeviceMatrix dy) override
    {
        check_norm(x, gamma, beta, stats);
        same_shape(x, dy);
        const std::uint8_t* keep = mask.active() ? bytes_at(mask.keep.offset) : nullptr;
        const T scale = keep ? T(mask.scale) : T(1);
        for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                const T* st = row(stats, r);
                const T* xr = row(x, r);
                const T* g = row(gamma, 0);
                const T* b = row(beta, 0);
                T* gr = row(dy, r);
                const std::uint8_t* kr = keep ? keep + r * mask.stride + mask.column : nullptr;
                for (std::uint32_t c = 0; c < x.cols; ++c) {
                    // layernorm_forward's value, then relu_forward's test.
                    const T v = g[c] * ((xr[c] - st[0]) * st[1]) + b[c];
                    gr[c] = v > T(0) && (!kr || kr[c]) ? gr[c] * scale : T(0);
                }
            }
        });
    }

    void make_dropout_mask(std::uint64_t seed, std::uint64_t step, double p, DeviceBytes keep,
                           std::uint32_t rows, std::uint32_t cols) override
    {
        GSR_NN_REQUIRE(keep.bytes >= std::size_t(rows) * cols, "dropout mask size");
        std::uint8_t* k = bytes_at(keep.offset);
        for_row_blocks(rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t i = r0 * cols; i < r1 * cols; ++i)
                k[i] = dropout_keeps(seed, step, i, p) ? 1 : 0;
        });
    }

    void normalize_topk_pack(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                             const DropoutMask& mask, DeviceMatrix stats,
                             const CompressedRows& out) override
    {
        check_norm(x, gamma, beta, stats);
        check_compressed(out, x.rows, x.cols);
        const std::uint32_t d = x.cols, k = out.k();
        const std::uint8_t* keep = mask.active() ? bytes_at(mask.keep.offset) : nullptr;
        with_indices(out, [&](auto* indices) {
            for_row_blocks(x.rows, [&](std::size_t r0, std::size_t r1) {
                T z[kCpuMaxWidth];
                std::uint16_t order[kCpuMaxWidth];
                for (std::size_t r = r0; r < r1; ++r) {
                    const T* xr = row(x, r);
                    T* st = row(stats, r);
                    row_stats(xr, d, st);
                    const T* g = row(gamma, 0);
                    const T* b = row(beta, 0);
                    for (std::uint32_t c = 0; c < d; ++c)
                        z[c] = g[c] * ((xr[c] - st[0]) * st[1]) + b[c];
                    select_top_k(z, d, k, order);
                    T* v = row(out.values, r);
                    auto* idx = indices + r * k;
                    const std::uint8_t* kr = keep ? keep + r * mask.stride + mask.column : nullptr;
                    for (std::uint32_t q = 0; q < k; ++q) {
                        const std::uint16_t c = order[q];
                        idx[q] = static_cast<std::remove_reference_t<decltype(*idx)>>(c);
                        v[q] = kr ? (kr[c] ? z[c] * T(mask.scale) : T(0)) : z[c];
                    }
                }
            });
        });
    }

    void normalize_topk_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                 const CompressedRows& kept, DeviceMatrix d_values,
                                 const DropoutMask& mask, double dx_beta, DeviceMatrix dx,
                                 DeviceMatrix dgamma, DeviceMatrix dbeta) override
    {
        check_norm(x, gamma, gamma, stats);
        check_compressed(kept, x.rows, x.cols);
        same_shape(kept.values, d_values);
        same_shape(x, dx);
        same_shape(gamma, dgamma);
        same_shape(gamma, dbeta);
        const std::uint32_t d = x.cols, k = kept.k();
        const std::uint8_t* keep = mask.active() ? bytes_at(mask.keep.offset) : nullptr;
        const std::size_t slabs = cpu_slab_count(x.rows);
        ArenaScope scope(arena_);
        const DeviceMatrix partial = alloc_matrix(std::uint32_t(slabs), 2 * d);
        with_indices(kept, [&](auto* indices) {
            pool_.run(slabs, [&](std::size_t s) {
                const RowRange rr = slab_range(x.rows, slabs, s);
                T* pg = row(partial, s);
                T* pb = pg + d;
                std::fill_n(pg, 2 * d, T(0));
                std::uint16_t idx16[kCpuMaxWidth];
                T dz[kCpuMaxWidth];
                for (std::size_t r = rr.begin; r < rr.end; ++r) {
                    const auto* idx = indices + r * k;
                    const T* dv = row(d_values, r);
                    const std::uint8_t* kr = keep ? keep + r * mask.stride + mask.column : nullptr;
                    for (std::uint32_t q = 0; q < k; ++q) {
                        idx16[q] = std::uint16_t(idx[q]);
                        dz[q] = kr ? (kr[idx[q]] ? dv[q] * T(mask.scale) : T(0)) : dv[q];
                    }
                    norm_backward_row(row(x, r), row(gamma, 0), row(stats, r), dz, idx16, k, d,
                                      T(dx_beta), row(dx, r), pg, pb);
                }
            });
        });
        combine_norm_slabs(partial, slabs, d, dgamma, dbeta);
    }

    void unpack(const CompressedRows& z, DeviceMatrix dense) override
    {
        check_compressed(z, dense.rows, dense.cols);
        with_indices(z, [&](auto* indices) {
            for_row_blocks(dense.rows, [&](std::size_t r0, std::size_t r1) {
                for (std::size_t r = r0; r < r1; ++r) {
                    T* out = row(dense, r);
                    std::fill_n(out, dense.cols, T(0));
                    const T* v = row(z.values, r);
                    for (std::uint32_t q = 0; q < z.k(); ++q) out[indices[r * z.k() + q]] = v[q];
                }
            });
        });
    }

    // ---- graph convolution ----------------------------------------------------------------

    void sage_conv_forward(const SageConvWeights& w, DeviceMatrix z, const ResidualAdd& add,
                           DeviceMatrix y, DeviceMatrix aggregated) override
    {
        check(z);
        check_conv(w, z.rows, z.cols, add, y, aggregated);
        conv_forward_blocks(w, z.cols, add, y, aggregated,
                            [&](std::size_t r0, std::size_t r1) {
            for (std::uint32_t t = 0; t < w.terms; ++t)
                for (std::size_t r = r0; r < r1; ++r)
                    aggregate_row(*w.graph[t], Transpose::No, z, r,
                                  row(aggregated, r) + std::size_t(t) * z.cols);
        }, [&](std::size_t r0, std::size_t r1, Map& f) {
            if (w.root.empty()) return;
            detail::dense_product(detail::DenseProduct<T>{
                .m = r1 - r0, .n = std::size_t(f.cols()), .k = z.cols, .a = row(z, r0),
                .lda = z.ld, .b = row(w.root, 0), .ldb = w.root.ld, .c = f.data(),
                .ldc = std::size_t(f.outerStride()), .alpha = T(1), .beta = T(1)});
        });
    }

    void sage_conv_forward(const SageConvWeights& w, const CompressedRows& z,
                           const ResidualAdd& add, DeviceMatrix y,
                           DeviceMatrix aggregated) override
    {
        check_compressed(z, z.rows(), z.width);
        check_conv(w, z.rows(), z.width, add, y, aggregated);
        with_indices(z, [&](auto* indices) {
            const std::uint32_t d = z.width, k = z.k();
            conv_forward_blocks(w, d, add, y, aggregated,
                                [&](std::size_t r0, std::size_t r1) {
                for (std::uint32_t t = 0; t < w.terms; ++t)
                    for (std::size_t r = r0; r < r1; ++r)
                        aggregate_compressed_row(*w.graph[t], z, indices, r,
                                                 row(aggregated, r) + std::size_t(t) * d);
            }, [&](std::size_t r0, std::size_t r1, Map& f) {
                if (w.root.empty()) return;
                for (std::size_t r = r0; r < r1; ++r) {
                    const T* v = row(z.values, r);
                    T* __restrict fr = &f(Eigen::Index(r - r0), 0);
                    for (std::uint32_t q = 0; q < k; ++q) {
                        const T* __restrict wr = row(w.root, indices[r * k + q]);
                        const T vq = v[q];
                        for (std::uint32_t c = 0; c < w.root.cols; ++c) fr[c] += vq * wr[c];
                    }
                }
            });
        });
    }

    void sage_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                            DeviceMatrix z, DeviceMatrix aggregated, DeviceMatrix dy,
                            double dz_beta, DeviceMatrix dz) override
    {
        dense_conv_backward(w, grads, z, aggregated, dy, dz_beta, dz);
    }

    void sage_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                            const CompressedRows& z, DeviceMatrix aggregated, DeviceMatrix dy,
                            DeviceMatrix d_values) override
    {
        check_compressed(z, z.rows(), z.width);
        same_shape(z.values, d_values);
        const std::uint32_t d = z.width, k = z.k(), n = z.rows();
        conv_weight_gradients(w, grads, d, aggregated, dy);
        with_indices(z, [&](auto* indices) {
            if (!w.root.empty()) {
                // grads.root += S^T dy, S the compressed rows: rows of W scattered by index.
                const std::uint32_t out = w.root.cols;
                const std::size_t slabs = cpu_slab_count(n);
                ArenaScope scope(arena_);
                const DeviceMatrix partial = alloc_matrix(std::uint32_t(slabs * d), out);
                pool_.run(slabs, [&](std::size_t s) {
                    const RowRange rr = slab_range(n, slabs, s);
                    auto p = map(partial).middleRows(s * d, d);
                    p.setZero();
                    for (std::size_t r = rr.begin; r < rr.end; ++r) {
                        const T* v = row(z.values, r);
                        const T* g = row(dy, r);
                        for (std::uint32_t q = 0; q < k; ++q) {
                            T* pr = &p(Eigen::Index(indices[r * k + q]), 0);
                            for (std::uint32_t c = 0; c < out; ++c) pr[c] += v[q] * g[c];
                        }
                    }
                });
                combine_slabs(partial, slabs, T(1), T(1), grads.root);
            }
            // d_values[r, q] = sum_t (S_t^T (dy W_t^T))[r, idx] + dy_r . W_root[idx, :]; the
            // aggregated rows, read by now, hold dy W_t^T.
            ArenaScope scope(arena_);
            const DeviceMatrix g =
                w.terms > 0 ? aggregated.columns(0, d) : alloc_matrix(n, d);
            for (std::uint32_t t = 0; t <= w.terms; ++t) {
                const bool root_term = t == w.terms;
                if (root_term && w.root.empty()) {
                    if (w.terms == 0) fill(d_values, 0.0);
                    break;
                }
                if (!root_term)
                    gemm(Transpose::No, Transpose::Yes, 1.0, dy, w.neighbour[t], 0.0, g);
                for_row_blocks(n, [&](std::size_t r0, std::size_t r1) {
                    T v[kCpuMaxWidth];
                    for (std::size_t r = r0; r < r1; ++r) {
                        const auto* idx = indices + r * k;
                        if (root_term) {
                            const T* gr = row(dy, r);
                            for (std::uint32_t q = 0; q < k; ++q) {
                                const T* wr = row(w.root, idx[q]);
                                T sum = T(0);
                                for (std::uint32_t c = 0; c < w.root.cols; ++c)
                                    sum += gr[c] * wr[c];
                                v[q] = sum;
                            }
                        } else {
                            gather_transpose(*w.graph[t], g, r, idx, k, v);
                        }
                        T* dv = row(d_values, r);
                        for (std::uint32_t q = 0; q < k; ++q) dv[q] = t == 0 ? v[q] : dv[q] + v[q];
                    }
                });
            }
        });
    }

    // ---- loss and optimiser ---------------------------------------------------------------

    double loss(LossKind kind, DeviceMatrix pred, DeviceMatrix target, DeviceBytes nodes,
                std::uint32_t node_count, double weight, DeviceMatrix grad) override
    {
        same_shape(pred, target);
        same_shape(pred, grad);
        GSR_NN_REQUIRE(pred.cols == 1 && nodes.bytes >= node_count * sizeof(std::uint32_t),
                       "loss shapes");
        fill(grad, 0.0);
        if (node_count == 0) return 0.0;
        const auto* list = reinterpret_cast<const std::uint32_t*>(raw(nodes.offset));
        double total = 0.0;
        const double scale = weight / node_count;
        for (std::uint32_t i = 0; i < node_count; ++i) {
            const std::uint32_t v = list[i];
            GSR_NN_REQUIRE(v < pred.rows, "loss node out of range");
            const double p = double(*row(pred, v)), y = double(*row(target, v));
            double g;
            if (kind == LossKind::MeanSquaredError) {
                total += (p - y) * (p - y);
                g = 2.0 * (p - y);
            } else {
                total += std::max(p, 0.0) - p * y + std::log1p(std::exp(-std::abs(p)));
                g = 1.0 / (1.0 + std::exp(-p)) - y;
            }
            *row(grad, v) += T(scale * g);
        }
        return total / node_count;
    }

    void adam_step(DeviceMatrix params, DeviceMatrix grads, DeviceMatrix m, DeviceMatrix v,
                   const AdamStep& step) override
    {
        same_shape(params, grads);
        same_shape(params, m);
        same_shape(params, v);
        GSR_NN_REQUIRE(params.cols == 1, "adam expects flat n x 1 vectors");
        const double c1 = 1.0 - std::pow(step.beta1, double(step.step));
        const double c2 = 1.0 - std::pow(step.beta2, double(step.step));
        const T b1 = T(step.beta1), b2 = T(step.beta2), lr = T(step.learning_rate);
        const T eps = T(step.epsilon), wd = T(step.weight_decay);
        const T ic1 = T(1.0 / c1), ic2 = T(1.0 / c2);
        T* p = row(params, 0);
        const T* g = row(grads, 0);
        T* mm = row(m, 0);
        T* vv = row(v, 0);
        for_row_blocks(params.rows, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t i = r0; i < r1; ++i) {
                mm[i] = b1 * mm[i] + (T(1) - b1) * g[i];
                vv[i] = b2 * vv[i] + (T(1) - b2) * g[i] * g[i];
                const T mhat = mm[i] * ic1, vhat = vv[i] * ic2;
                p[i] -= lr * (mhat / (std::sqrt(vhat) + eps) + wd * p[i]);
            }
        });
    }

private:
    using Block = std::unique_ptr<std::byte, BlockFree>;

    /// Makes `block` at least `bytes` large, keeping the bytes `arena` has in use.
    static void grow(Block& block, Arena& arena, std::size_t bytes)
    {
        bytes = Arena::align_up(bytes);
        if (bytes <= arena.capacity()) return;
        // Past the machine's memory the allocation may still succeed (overcommit) and the
        // process be killed as it touches the pages: said plainly before, as the GPU does.
        const std::uint64_t machine = physical_memory_bytes();
        if (machine > 0 && bytes > machine) throw out_of_memory(bytes, machine);
        Block fresh(static_cast<std::byte*>(std::aligned_alloc(Arena::kAlignment, bytes)));
        if (!fresh) throw out_of_memory(bytes, machine);
        if (block && arena.used() > 0) std::memcpy(fresh.get(), block.get(), arena.used());
        block = std::move(fresh);
        arena.set_capacity(bytes);
    }

    /// The plain message for an arena of `bytes` that the machine cannot give.
    static Error out_of_memory(std::size_t bytes, std::uint64_t machine)
    {
        const auto gib = [](double b) {
            char text[32];
            std::snprintf(text, sizeof text, "%.2f GiB", b / double(1ull << 30));
            return std::string(text);
        };
        return Error("out of memory: this model needs " + gib(double(bytes)) +
                     " (the estimate of `gsr memory` for this graph and configuration)" +
                     (machine ? ", and this machine gives " + gib(double(machine)) : "") +
                     ". Try --model gsr (compressed activations, flat in depth), fewer "
                     "--layers, a smaller --hidden, --offload-optimizer, or sampled "
                     "mini-batches (--batching cluster, or --batch-size N with --fanout "
                     "F1,F2,...)");
    }

    // ---- access ---------------------------------------------------------------------------

    std::byte* raw(std::size_t offset) const
    {
        return offset & kHostSpace ? host_.get() + (offset & ~kHostSpace) : block_.get() + offset;
    }
    std::uint8_t* bytes_at(std::size_t offset) const
    {
        return reinterpret_cast<std::uint8_t*>(raw(offset));
    }
    T* row(DeviceMatrix m, std::size_t r) const
    {
        return reinterpret_cast<T*>(raw(m.offset)) + r * m.ld;
    }
    Map map(DeviceMatrix m) const
    {
        return Map(row(m, 0), m.rows, m.cols, Eigen::OuterStride<>(m.ld));
    }

    BackendLimits limits() const
    {
        return {"cpu backend", sizeof(T), arena_.capacity(), std::uint32_t(kCpuMaxWidth),
                host_arena_.capacity()};
    }
    void check(DeviceMatrix m) const { limits().matrix(m); }
    void same_shape(DeviceMatrix a, DeviceMatrix b) const { limits().same_shape(a, b); }
    void check_norm(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                    DeviceMatrix stats) const
    {
        limits().norm(x, gamma, beta, stats);
    }
    void check_compressed(const CompressedRows& z, std::uint32_t rows, std::uint32_t width) const
    {
        limits().compressed(z, rows, width);
    }
    void check_conv(const SageConvWeights& w, std::uint32_t rows, std::uint32_t d_in,
                    const ResidualAdd& add, DeviceMatrix y, DeviceMatrix aggregated) const
    {
        limits().conv(w, rows, d_in, add, y, aggregated);
    }
    void check_quantum(double q) const { limits().quantum(q); }

    template <class F> void with_indices(const CompressedRows& z, F&& f) const
    {
        if (z.index_bytes == 1)
            f(reinterpret_cast<const std::uint8_t*>(raw(z.indices.offset)));
        else
            f(reinterpret_cast<const std::uint16_t*>(raw(z.indices.offset)));
    }
    template <class F> void with_indices(const CompressedRows& z, F&& f)
    {
        if (z.index_bytes == 1)
            f(reinterpret_cast<std::uint8_t*>(raw(z.indices.offset)));
        else
            f(reinterpret_cast<std::uint16_t*>(raw(z.indices.offset)));
    }

    template <class F> void for_row_blocks(std::size_t rows, F&& f)
    {
        const std::size_t blocks = ceil_div(rows, kCpuRowBlock);
        pool_.run(blocks, [&](std::size_t b) {
            f(b * kCpuRowBlock, std::min(rows, (b + 1) * kCpuRowBlock));
        });
    }

    template <class F> void upload_as(DeviceMatrix dst, std::span<const F> src)
    {
        check(dst);
        GSR_NN_REQUIRE(src.size() == dst.size(), "upload size");
        for (std::size_t r = 0; r < dst.rows; ++r) {
            T* out = row(dst, r);
            for (std::uint32_t c = 0; c < dst.cols; ++c) out[c] = T(src[r * dst.cols + c]);
        }
    }
    template <class F> void download_as(DeviceMatrix src, std::span<F> dst) const
    {
        check(src);
        GSR_NN_REQUIRE(dst.size() == src.size(), "download size");
        for (std::size_t r = 0; r < src.rows; ++r) {
            const T* in = row(src, r);
            for (std::uint32_t c = 0; c < src.cols; ++c) dst[r * src.cols + c] = F(in[c]);
        }
    }

    // ---- kernels --------------------------------------------------------------------------

    /// out = beta out + alpha * sum of the slab partials (each out-shaped), in slab order.
    void combine_slabs(DeviceMatrix partial, std::size_t slabs, T alpha, T beta,
                       DeviceMatrix out)
    {
        const std::uint32_t m = out.rows;
        for_row_blocks(m, [&](std::size_t r0, std::size_t r1) {
            for (std::size_t r = r0; r < r1; ++r) {
                T* o = row(out, r);
                for (std::uint32_t c = 0; c < out.cols; ++c) {
                    T sum = T(0);
                    for (std::size_t s = 0; s < slabs; ++s) sum += row(partial, s * m + r)[c];
                    o[c] = beta == T(0) ? alpha * sum : beta * o[c] + alpha * sum;
                }
            }
        });
    }

    void combine_norm_slabs(DeviceMatrix partial, std::size_t slabs, std::uint32_t d,
                            DeviceMatrix dgamma, DeviceMatrix dbeta)
    {
        T* g = row(dgamma, 0);
        T* b = row(dbeta, 0);
        for (std::uint32_t c = 0; c < d; ++c) {
            T sg = T(0), sb = T(0);
            for (std::size_t s = 0; s < slabs; ++s) {
                sg += row(partial, s)[c];
                sb += row(partial, s)[d + c];
            }
            g[c] += sg;
            b[c] += sb;
        }
    }

    /// order[0..k) = the columns of the k largest z (of equal values the lower column wins),
    /// ascending. Wide rows: one pass keeping the best k so far in descending order.
    static void select_top_k(const T* z, std::uint32_t d, std::uint32_t k, std::uint16_t* order)
    {
        if (d <= 64) {
            // Narrow rows: rank by counting (vectorises); c is kept when fewer than k beat it.
            std::uint32_t kept = 0;
            for (std::uint32_t c = 0; c < d; ++c) {
                const T zc = z[c];
                std::int32_t beaten_by = 0;
                for (std::uint32_t j = 0; j < c; ++j) beaten_by += z[j] >= zc;
                for (std::uint32_t j = c + 1; j < d; ++j) beaten_by += z[j] > zc;
                if (std::uint32_t(beaten_by) < k) order[kept++] = std::uint16_t(c);
            }
            return;
        }
        T best[kCpuMaxWidth];
        std::uint32_t count = 0;
        for (std::uint32_t c = 0; c < d; ++c) {
            const T v = z[c];
            if (count == k && !(v > best[k - 1])) continue; // ties keep the earlier column
            std::uint32_t at = count < k ? count++ : k - 1;
            while (at > 0 && v > best[at - 1]) {
                best[at] = best[at - 1];
                order[at] = order[at - 1];
                --at;
            }
            best[at] = v;
            order[at] = std::uint16_t(c);
        }
        std::sort(order, order + k);
    }

    static void row_stats(const T* x, std::uint32_t d, T* stats)
    {
        T sum = T(0);
        for (std::uint32_t c = 0; c < d; ++c) sum += x[c];
        const T mean = sum / T(d);
        T var = T(0);
        for (std::uint32_t c = 0; c < d; ++c) var += (x[c] - mean) * (x[c] - mean);
        var /= T(d);
        stats[0] = mean;
        stats[1] = T(1) / std::sqrt(var + T(1e-5));
    }

    /// One row of the layernorm backward. dy is dense (idx == nullptr) or given at the k
    /// columns idx[0..k) only. dgamma/dbeta partials accumulate.
    static void norm_backward_row(const T* x, const T* gamma, const T* stats, const T* dy,
                                  const std::uint16_t* idx, std::uint32_t k, std::uint32_t d,
                                  T dx_beta, T* dx, T* dgamma, T* dbeta)
    {
        const T mean = stats[0], rstd = stats[1];
        T sum_g = T(0), sum_gx = T(0);
        const std::uint32_t terms = idx ? k : d;
        for (std::uint32_t q = 0; q < terms; ++q) {
            const std::uint32_t c = idx ? idx[q] : q;
            const T xhat = (x[c] - mean) * rstd;
            const T g = dy[q] * gamma[c];
            sum_g += g;
            sum_gx += g * xhat;
            dgamma[c] += dy[q] * xhat;
            dbeta[c] += dy[q];
        }
        const T mg = sum_g / T(d), mgx = sum_gx / T(d);
        // Dense part first (dy may alias dx when dense and dx_beta is 0: read before write).
        if (!idx) {
            for (std::uint32_t c = 0; c < d; ++c) {
                const T xhat = (x[c] - mean) * rstd;
                const T v = rstd * (dy[c] * gamma[c] - mg - xhat * mgx);
                dx[c] = dx_beta == T(0) ? v : dx_beta * dx[c] + v;
            }
            return;
        }
        for (std::uint32_t c = 0; c < d; ++c) {
            const T xhat = (x[c] - mean) * rstd;
            const T v = rstd * (-mg - xhat * mgx);
            dx[c] = dx_beta == T(0) ? v : dx_beta * dx[c] + v;
        }
        for (std::uint32_t q = 0; q < k; ++q) dx[idx[q]] += rstd * dy[q] * gamma[idx[q]];
    }

    /// acc = (op(S) x)_r, op(S) = S or S^T (pattern + scales swapped), summed in CSR order.
    void aggregate_row(const DeviceGraph& s, Transpose t, DeviceMatrix x, std::size_t r,
                       T* acc) const
    {
        const DeviceCsr& csr = t == Transpose::No ? s.pattern : s.transposed;
        const T* rs = row(t == Transpose::No ? s.row_scale : s.col_scale, 0);
        const T* cs = row(t == Transpose::No ? s.col_scale : s.row_scale, 0);
        const auto* off = reinterpret_cast<const std::uint64_t*>(raw(csr.offsets.offset));
        const auto* tgt = reinterpret_cast<const std::uint32_t*>(raw(csr.targets.offset));
        const std::uint32_t w = x.cols;
        std::fill_n(acc, w, T(0));
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e) {
            const std::uint32_t j = tgt[e];
            const T* xj = row(x, j);
            const T c = cs[j];
            for (std::uint32_t q = 0; q < w; ++q) acc[q] += c * xj[q];
        }
        if (s.self_loop) {
            const T* xr = row(x, r);
            for (std::uint32_t q = 0; q < w; ++q) acc[q] += cs[r] * xr[q];
        }
        for (std::uint32_t q = 0; q < w; ++q) acc[q] *= rs[r];
    }

    /// acc (width d) = (S z)_r for compressed z: k columns per neighbour.
    template <class I>
    void aggregate_compressed_row(const DeviceGraph& s, const CompressedRows& z, const I* idx,
                                  std::size_t r, T* acc) const
    {
        const auto* off = reinterpret_cast<const std::uint64_t*>(raw(s.pattern.offsets.offset));
        const auto* tgt = reinterpret_cast<const std::uint32_t*>(raw(s.pattern.targets.offset));
        const T* rs = row(s.row_scale, 0);
        const T* cs = row(s.col_scale, 0);
        const std::uint32_t k = z.k();
        std::fill_n(acc, z.width, T(0));
        auto add = [&](std::size_t j) {
            const T* v = row(z.values, j);
            const I* ij = idx + j * k;
            const T c = cs[j];
            for (std::uint32_t q = 0; q < k; ++q) acc[ij[q]] += c * v[q];
        };
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e) add(tgt[e]);
        if (s.self_loop) add(r);
        for (std::uint32_t q = 0; q < z.width; ++q) acc[q] *= rs[r];
    }

    /// out[q] = (S^T g)[r, idx[q]] for q < k: one pass over the neighbours, k columns each.
    template <class I>
    void gather_transpose(const DeviceGraph& s, DeviceMatrix g, std::size_t r, const I* idx,
                          std::uint32_t k, T* out) const
    {
        const auto* off =
            reinterpret_cast<const std::uint64_t*>(raw(s.transposed.offsets.offset));
        const auto* tgt =
            reinterpret_cast<const std::uint32_t*>(raw(s.transposed.targets.offset));
        const T* rs = row(s.col_scale, 0); // S^T swaps the scales
        const T* cs = row(s.row_scale, 0);
        std::fill_n(out, k, T(0));
        auto add = [&](std::size_t j) {
            const T* gj = row(g, j);
            const T c = cs[j];
            for (std::uint32_t q = 0; q < k; ++q) out[q] += c * gj[idx[q]];
        };
        for (std::uint64_t e = off[r]; e < off[r + 1]; ++e) add(tgt[e]);
        if (s.self_loop) add(r);
        for (std::uint32_t q = 0; q < k; ++q) out[q] *= rs[r];
    }

    /// The fused forward: per row block, aggregate (into `aggregated`), f = sum_t A_t W_t +
    /// root + bias on a stack tile, then y = residual + sign * f (one rounding, so the inverse
    /// with sign -1 subtracts exactly the f that was added).
    template <class Aggregate, class Root>
    void conv_forward_blocks(const SageConvWeights& w, std::uint32_t d_in, const ResidualAdd& add,
                             DeviceMatrix y, DeviceMatrix aggregated, Aggregate&& aggregate,
                             Root&& root)
    {
        const DeviceMatrix residual = add.residual;
        const T quantum = T(add.quantum), inverse_quantum = add.quantum > 0 ? T(1 / add.quantum)
                                                                            : T(0);
        const std::uint32_t d_out = y.cols;
        const std::size_t block =
            std::clamp<std::size_t>(kConvTempElements / std::max<std::uint32_t>(d_out, 1), 1,
                                    kCpuRowBlock);
        const std::size_t rows = y.rows;
        const T sg = T(add.sign);
        pool_.run(ceil_div(rows, block), [&](std::size_t b) {
            const std::size_t r0 = b * block, r1 = std::min(rows, r0 + block);
            alignas(64) T tile[kConvTempElements];
            Map f(tile, Eigen::Index(r1 - r0), d_out, Eigen::OuterStride<>(d_out));
            aggregate(r0, r1);
            if (w.terms == 0) f.setZero();
            for (std::uint32_t t = 0; t < w.terms; ++t)
                detail::dense_product(detail::DenseProduct<T>{
                    .m = r1 - r0, .n = d_out, .k = d_in,
                    .a = row(aggregated, r0) + std::size_t(t) * d_in, .lda = aggregated.ld,
                    .b = row(w.neighbour[t], 0), .ldb = w.neighbour[t].ld, .c = tile,
                    .ldc = d_out, .alpha = T(1), .beta = T(t == 0 ? 0 : 1)});
            root(r0, r1, f);
            const T* bias = row(w.bias, 0);
            for (std::size_t r = r0; r < r1; ++r) {
                const T* fr = &f(Eigen::Index(r - r0), 0);
                const T* res = residual.empty() ? nullptr : row(residual, r);
                T* yr = row(y, r);
                for (std::uint32_t c = 0; c < d_out; ++c) {
                    T v = fr[c] + bias[c];
                    if (quantum > T(0)) v = std::nearbyint(v * inverse_quantum) * quantum;
                    yr[c] = res ? res[c] + sg * v : sg * v;
                }
            }
        });
    }

    RowParallel pool_;
    Block block_;
    Block host_;
};

} // namespace

std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads)
{
    if (precision == Precision::Float64) return std::make_unique<CpuBackend<double>>(threads);
    return std::make_unique<CpuBackend<float>>(threads);
}

} // namespace gsr::nn
