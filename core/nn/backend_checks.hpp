#pragma once
// The shape checks every backend runs on its arguments (one copy for the CPU and the CUDA
// backend). A failed check is internal misuse, a bug: std::logic_error naming the backend, what
// did not fit and the condition.
#include "nn/backend.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace gsr::nn {

#define GSR_BACKEND_REQUIRE(limits, cond, what)                                                \
    do {                                                                                       \
        if (!(cond))                                                                           \
            throw std::logic_error(std::string((limits).backend) + ": " + (what) + " (" #cond  \
                                   ")");                                                       \
    } while (0)

/// What a backend accepts: its scalar size, its arena's capacity, its widest row.
struct BackendLimits {
    const char* backend = "backend";
    std::size_t elem = 4;
    std::size_t capacity = 0;
    std::uint32_t max_width = 0;
    std::size_t host_capacity = 0; ///< of the host block (offsets tagged kHostSpace)

    /// The end of [offset, offset + bytes) fits its block.
    bool fits(std::size_t offset, std::size_t bytes) const
    {
        if (offset & kHostSpace) return (offset & ~kHostSpace) + bytes <= host_capacity;
        return offset + bytes <= capacity;
    }
    void matrix(DeviceMatrix m) const
    {
        GSR_BACKEND_REQUIRE(*this, m.elem == elem, "matrix of another precision");
        GSR_BACKEND_REQUIRE(*this, m.ld >= m.cols, "row stride below the width");
        GSR_BACKEND_REQUIRE(*this, m.rows == 0 || fits(m.offset, ((m.rows - 1) *
                                                                 std::size_t(m.ld) + m.cols) *
                                                                    elem),
                            "matrix past the end of the arena");
    }
    void bytes(DeviceBytes b) const
    {
        GSR_BACKEND_REQUIRE(*this, fits(b.offset, b.bytes), "bytes past the arena");
    }
    void same_shape(DeviceMatrix a, DeviceMatrix b) const
    {
        matrix(a);
        matrix(b);
        GSR_BACKEND_REQUIRE(*this, a.rows == b.rows && a.cols == b.cols, "shapes differ");
    }
    void norm(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta, DeviceMatrix stats) const
    {
        matrix(x);
        matrix(gamma);
        matrix(beta);
        matrix(stats);
        GSR_BACKEND_REQUIRE(*this, x.cols <= max_width && gamma.rows == 1 &&
                                       gamma.cols == x.cols && beta.rows == 1 &&
                                       beta.cols == x.cols && stats.rows == x.rows &&
                                       stats.cols == 2,
                            "layernorm shapes");
    }
    void compressed(const CompressedRows& z, std::uint32_t rows, std::uint32_t width) const
    {
        matrix(z.values);
        bytes(z.indices);
        GSR_BACKEND_REQUIRE(*this, z.values.rows == rows && z.width == width && z.k() >= 1 &&
                                       z.k() <= width && width <= max_width &&
                                       z.index_bytes == CompressedRows::index_bytes_for(width) &&
                                       z.indices.bytes >= std::size_t(rows) * z.k() *
                                                              z.index_bytes,
                            "compressed rows shapes");
    }
    /// c = op(a) op(b): checks the three shapes; returns the inner dimension.
    std::size_t gemm(Transpose ta, Transpose tb, DeviceMatrix a, DeviceMatrix b,
                     DeviceMatrix c) const
    {
        matrix(a);
        matrix(b);
        matrix(c);
        const std::size_t m = ta == Transpose::No ? a.rows : a.cols;
        const std::size_t inner = ta == Transpose::No ? a.cols : a.rows;
        const std::size_t inner_b = tb == Transpose::No ? b.rows : b.cols;
        const std::size_t n = tb == Transpose::No ? b.cols : b.rows;
        GSR_BACKEND_REQUIRE(*this, inner == inner_b && c.rows == m && c.cols == n,
                            "gemm shapes");
        return inner;
    }
    void quantum(double q) const
    {
        int e = 0;
        GSR_BACKEND_REQUIRE(*this, q == 0.0 || (q > 0.0 && std::frexp(q, &e) == 0.5),
                            "quantum is not 2^-s");
    }
    void conv(const SageConvWeights& w, std::uint32_t rows, std::uint32_t d_in,
              const ResidualAdd& add, DeviceMatrix y, DeviceMatrix aggregated) const
    {
        quantum(add.quantum);
        matrix(y);
        matrix(w.bias);
        GSR_BACKEND_REQUIRE(*this, w.terms <= 2 && y.rows == rows && w.bias.rows == 1 &&
                                       w.bias.cols == y.cols && d_in <= max_width,
                            "convolution shapes");
        for (std::uint32_t t = 0; t < w.terms; ++t) {
            matrix(w.neighbour[t]);
            GSR_BACKEND_REQUIRE(*this, w.graph[t] && w.graph[t]->pattern.rows == rows &&
                                           w.neighbour[t].rows == d_in &&
                                           w.neighbour[t].cols == y.cols,
                                "convolution term shapes");
        }
        if (!w.root.empty()) {
            matrix(w.root);
            GSR_BACKEND_REQUIRE(*this, w.root.rows == d_in && w.root.cols == y.cols,
                                "root weight shape");
        }
        if (!add.residual.empty()) same_shape(add.residual, y);
        matrix(aggregated);
        GSR_BACKEND_REQUIRE(*this, aggregated.rows == rows && aggregated.cols == w.terms * d_in,
                            "aggregated shape");
    }
};

} // namespace gsr::nn
