#pragma once
// The operations a GSR-GNN runs, at the granularity a GPU backend fuses them. Everything lives
// in the backend's one arena (nn/arena.hpp) and is named by byte offsets with explicit shapes,
// so a CUDA backend implements the same interface over device memory. The CPU backend
// (nn/cpu_backend.hpp) runs it in float32 or float64.
//
// Sections: views (matrices, CSR operators, compressed rows, dropout masks) | memory and
// transfers | elementwise | dense | graph | normalisation, activation, top-k | graph convolution
// | loss and Adam.
//
// Conventions: matrices are row-major with a row stride `ld` (a group of an N x D matrix is a
// column slice with ld = D); "accumulate" means out = beta * out + result; reductions over rows
// run in a fixed order, so results never depend on the thread count. Ops may take scratch from
// the arena for themselves (stack order: released before they return); that is part of the
// measured peak. No op allocates outside the arena.
#include "nn/arena.hpp"
#include "nn/model_config.hpp"
#include "nn/tuned_kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gsr::nn {

enum class Transpose : std::uint8_t { No, Yes };

/// Offsets with this bit set lie in the backend's host block (Backend::alloc_host_matrix),
/// not in the arena; views built by adding to an offset keep the bit.
inline constexpr std::size_t kHostSpace = std::size_t(1) << 62;

/// Raw bytes in the arena (CSR arrays, indices, masks, node lists).
struct DeviceBytes {
    std::size_t offset = 0;
    std::size_t bytes = 0;
};

/// A row-major matrix of the backend's scalar type in the arena.
struct DeviceMatrix {
    std::size_t offset = 0;  ///< bytes from the arena base
    std::uint32_t rows = 0;
    std::uint32_t cols = 0;
    std::uint32_t ld = 0;    ///< elements from the start of one row to the next
    std::uint32_t elem = 4;  ///< bytes per element

    DeviceMatrix columns(std::uint32_t first, std::uint32_t count) const
    {
        DeviceMatrix m = *this;
        m.offset += std::size_t(first) * elem;
        m.cols = count;
        return m;
    }
    DeviceMatrix row_block(std::uint32_t first, std::uint32_t count) const
    {
        DeviceMatrix m = *this;
        m.offset += std::size_t(first) * ld * elem;
        m.rows = count;
        return m;
    }
    bool empty() const { return rows == 0 || cols == 0; }
    std::size_t size() const { return std::size_t(rows) * cols; }
};

/// Sparsity pattern in CSR: row r's columns are targets[offsets[r] .. offsets[r+1]).
struct DeviceCsr {
    DeviceBytes offsets; ///< rows + 1 uint64
    DeviceBytes targets; ///< nnz uint32
    std::uint32_t rows = 0;
    std::uint64_t nnz = 0;
};

/// A sparse operator S over node rows: S_ij = row_scale_i * col_scale_j for every edge j of row
/// i (with multiplicity), plus row_scale_i * col_scale_i on the diagonal when self_loop.
/// Mean aggregation: row_scale = 1/deg (0 for deg 0), col_scale = 1. GCN: both D^-1/2.
/// `transposed` is the pattern of S^T, so S^T is applied row by row, without atomics.
struct DeviceGraph {
    DeviceCsr pattern;
    DeviceCsr transposed;
    DeviceMatrix row_scale; ///< N x 1
    DeviceMatrix col_scale; ///< N x 1
    bool self_loop = false;
};

/// Rows of width `width` of which k entries are kept: k values and k column indices per row,
/// indices ascending. Index type uint8 when width <= 256, else uint16.
struct CompressedRows {
    DeviceMatrix values;  ///< rows x k
    DeviceBytes indices;  ///< rows x k indices of index_bytes each
    std::uint32_t width = 0;
    std::uint32_t index_bytes = 1;

    std::uint32_t rows() const { return values.rows; }
    std::uint32_t k() const { return values.cols; }
    static std::uint32_t index_bytes_for(std::uint32_t width) { return width <= 256 ? 1 : 2; }
};

/// A dropout mask of one step: keep[r * stride + column + c] != 0 keeps entry (r, c) of the
/// matrix it is applied to, scaled by `scale` = 1/(1-p). Inactive (no dropout) when empty.
struct DropoutMask {
    DeviceBytes keep;
    std::uint32_t stride = 0;
    std::uint32_t column = 0;
    double scale = 1.0;

    bool active() const { return keep.bytes != 0; }
    DropoutMask shifted(std::uint32_t first_column) const
    {
        DropoutMask m = *this;
        m.column += first_column;
        return m;
    }
};

/// Weights of a SAGE-style convolution (GCN: no root, one term):
///   y = residual + sign * (sum_t S_t z W_t + z W_root + bias)
/// The same struct names the gradients (graph pointers unused there).
struct SageConvWeights {
    const DeviceGraph* graph[2] = {nullptr, nullptr};
    DeviceMatrix neighbour[2]; ///< d_in x d_out, one per graph
    std::uint32_t terms = 0;
    DeviceMatrix root;         ///< d_in x d_out, or empty
    DeviceMatrix bias;         ///< 1 x d_out
};

/// [aggregated | z] as one rows x (terms + 1) d matrix, when z's columns directly follow the
/// aggregated ones in the same rows (GroupFunction::allocate lays them out so); empty
/// otherwise. With stacked_conv_weights, one GEMM then takes every term and the root.
DeviceMatrix joined_conv_input(DeviceMatrix aggregated, DeviceMatrix z);
/// [W_0; ..; W_{terms-1}; W_root] as one (terms + 1) d_in x d_out matrix, when the matrices
/// are stored one after another (ParameterLayout adds them in that order); empty otherwise.
DeviceMatrix stacked_conv_weights(const SageConvWeights& w);

/// The epilogue of a convolution: y = residual + sign * grid(f). grid rounds to the nearest
/// multiple of `quantum` (a power of two; 0: no rounding). With X and grid(f) on one fixed-point
/// grid, X + grid(f) and its inverse Y - grid(f) are exact in floating point: the reversible
/// stack then reconstructs its input bit for bit, and top-k re-selects the same entries.
struct ResidualAdd {
    DeviceMatrix residual;
    double sign = 1.0;
    double quantum = 0.0;
};

struct AdamStep {
    double learning_rate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weight_decay = 0.0;
    std::uint64_t step = 1; ///< 1-based, for the bias correction
};

#if defined(__CUDACC__)
#define GSR_HOST_DEVICE __host__ __device__
#else
#define GSR_HOST_DEVICE
#endif

/// Whether dropout keeps entry `index` of the mask of `step`: a counter-based hash, so every
/// backend (the CUDA kernels call this same function) and every thread count draws the same mask.
inline GSR_HOST_DEVICE bool dropout_keeps(std::uint64_t seed, std::uint64_t step, std::uint64_t index, double p)
{
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ (step + 1) * 0xD1B54A32D192ED03ull;
    z += (index + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return double(z >> 11) * 0x1.0p-53 >= p;
}

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;
    virtual Precision precision() const = 0;
    std::uint32_t scalar_bytes() const { return precision() == Precision::Float64 ? 8 : 4; }

    /// Hands the backend generated kernels to run instead of its own where they apply; one
    /// line per kernel says whether it is used and why not. Backends without a run-time
    /// compiler (the CPU) use none.
    virtual std::vector<std::string> use_tuned_kernels(const std::vector<TunedKernel>& kernels)
    {
        std::vector<std::string> notes;
        for (const TunedKernel& k : kernels)
            notes.push_back(k.origin + ": not used: the " + name() +
                            " backend runs only its own kernels");
        return notes;
    }
    /// Launches of tuned kernels so far (tests and benchmarks check they ran).
    virtual std::uint64_t tuned_launches() const { return 0; }

    // ---- memory and transfers -------------------------------------------------------------
    Arena& arena() { return arena_; }
    const Arena& arena() const { return arena_; }
    /// Makes the one block at least `bytes` large, keeping the bytes in use (offsets stay).
    virtual void reserve(std::size_t bytes) = 0;
    DeviceMatrix alloc_matrix(std::uint32_t rows, std::uint32_t cols)
    {
        const std::uint32_t e = scalar_bytes();
        return {arena_.allocate(std::size_t(rows) * cols * e), rows, cols, cols, e};
    }
    DeviceBytes alloc_bytes(std::size_t bytes) { return {arena_.allocate(bytes), bytes}; }

    /// The host block: pinned host memory that the device reads and writes over the bus, for
    /// what a step touches only a few times (gradients and Adam moments when the optimizer is
    /// offloaded). It is not part of the arena or its peak. On the CPU backend it is simply a
    /// second block.
    Arena& host_arena() { return host_arena_; }
    const Arena& host_arena() const { return host_arena_; }
    /// Makes the host block at least `bytes` large, keeping the bytes in use.
    virtual void reserve_host(std::size_t bytes) = 0;
    DeviceMatrix alloc_host_matrix(std::uint32_t rows, std::uint32_t cols)
    {
        const std::uint32_t e = scalar_bytes();
        return {host_arena_.allocate(std::size_t(rows) * cols * e) | kHostSpace, rows, cols, cols,
                e};
    }

    virtual void upload_bytes(DeviceBytes dst, const void* src, std::size_t bytes) = 0;
    virtual void download_bytes(DeviceBytes src, void* dst, std::size_t bytes) const = 0;
    /// Host data is dense row-major rows x cols; converted to or from the scalar type.
    virtual void upload(DeviceMatrix dst, std::span<const float> src) = 0;
    virtual void upload(DeviceMatrix dst, std::span<const double> src) = 0;
    virtual void download(DeviceMatrix src, std::span<float> dst) const = 0;
    virtual void download(DeviceMatrix src, std::span<double> dst) const = 0;

    // ---- elementwise ----------------------------------------------------------------------
    virtual void fill(DeviceMatrix x, double value) = 0;
    /// y = alpha x + beta y
    virtual void axpby(double alpha, DeviceMatrix x, double beta, DeviceMatrix y) = 0;
    /// y = sum of the column groups first_group.. of x, each `width` wide (y: rows x width).
    virtual void sum_groups(DeviceMatrix x, std::uint32_t width, std::uint32_t first_group,
                            DeviceMatrix y) = 0;
    /// x = nearest multiple of quantum (a power of two), ties to even.
    virtual void round_to_grid(DeviceMatrix x, double quantum) = 0;
    /// max |a - b| (b empty: max |a|).
    virtual double max_abs_difference(DeviceMatrix a, DeviceMatrix b) const = 0;

    // ---- dense ----------------------------------------------------------------------------
    /// c = alpha op(a) op(b) + beta c
    virtual void gemm(Transpose ta, Transpose tb, double alpha, DeviceMatrix a, DeviceMatrix b,
                      double beta, DeviceMatrix c) = 0;
    /// x_r += bias for every row r (bias: 1 x cols)
    virtual void add_row_vector(DeviceMatrix bias, DeviceMatrix x) = 0;
    /// out = beta out + sum over rows of x (out: 1 x cols)
    virtual void column_sums(DeviceMatrix x, double beta, DeviceMatrix out) = 0;

    // ---- graph ----------------------------------------------------------------------------
    /// y = alpha op(S) x + beta y
    virtual void spmm(const DeviceGraph& s, Transpose t, double alpha, DeviceMatrix x,
                      double beta, DeviceMatrix y) = 0;

    // ---- normalisation, activation, top-k (per row) ---------------------------------------
    /// y = gamma * (x - mean) * rstd + beta over each row; stats: rows x 2 (mean, rstd).
    virtual void layernorm_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                   DeviceMatrix y, DeviceMatrix stats) = 0;
    /// dx = dx_beta dx + d/dx; dgamma += ..., dbeta += ... (over all rows, fixed order).
    virtual void layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                    DeviceMatrix dy, double dx_beta, DeviceMatrix dx,
                                    DeviceMatrix dgamma, DeviceMatrix dbeta) = 0;
    /// y = max(x, 0), times the dropout mask when active. y may alias x.
    virtual void relu_forward(DeviceMatrix x, const DropoutMask& mask, DeviceMatrix y) = 0;
    /// dx = dx_beta dx + dy * scale * (y > 0), from the forward output y (dropout included).
    /// dx may alias dy.
    virtual void relu_backward(DeviceMatrix y, double scale, DeviceMatrix dy, double dx_beta,
                               DeviceMatrix dx) = 0;
    /// y = ReLU(layernorm(x)) times the dropout mask: layernorm_forward then relu_forward,
    /// which a backend may fuse (the same bits either way).
    virtual void layernorm_relu_forward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                        const DropoutMask& mask, DeviceMatrix y,
                                        DeviceMatrix stats);
    /// The backward of layernorm_relu_forward from its output y and dy = dL/dy: relu_backward
    /// (gradient scale `scale`) then layernorm_backward. dy is scratch: it may be overwritten.
    virtual void relu_layernorm_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                         DeviceMatrix y, double scale, DeviceMatrix dy,
                                         double dx_beta, DeviceMatrix dx, DeviceMatrix dgamma,
                                         DeviceMatrix dbeta);
    /// dy = dy * the gate of layernorm_relu_forward(x, gamma, beta, mask) recomputed from its
    /// input and statistics: mask.scale (1 without a mask) where the normalised value is
    /// positive and the mask keeps the entry, else 0 (the same arithmetic as the forward, so
    /// the same gate).
    virtual void layernorm_relu_gate(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                     DeviceMatrix stats, const DropoutMask& mask,
                                     DeviceMatrix dy) = 0;
    /// The backward of layernorm_relu_forward without its output: layernorm_relu_gate then
    /// layernorm_backward, which a backend may fuse. dy is scratch: it may be overwritten.
    virtual void relu_layernorm_backward_from_input(DeviceMatrix x, DeviceMatrix gamma,
                                                    DeviceMatrix beta, DeviceMatrix stats,
                                                    const DropoutMask& mask, DeviceMatrix dy,
                                                    double dx_beta, DeviceMatrix dx,
                                                    DeviceMatrix dgamma, DeviceMatrix dbeta);
    /// keep (rows x cols bytes): 1 with probability 1-p, from a counter-based hash of
    /// (seed, step, index): the same on every backend and for any thread count.
    virtual void make_dropout_mask(std::uint64_t seed, std::uint64_t step, double p,
                                   DeviceBytes keep, std::uint32_t rows,
                                   std::uint32_t cols) = 0;
    /// Fused: z = layernorm(x) (affine), keep the k = out.k() largest of each row (ties to
    /// the lower index), apply the dropout mask to the kept values, pack into `out`.
    virtual void normalize_topk_pack(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix beta,
                                     const DropoutMask& mask, DeviceMatrix stats,
                                     const CompressedRows& out) = 0;
    /// normalize_topk_pack of x into `kept`, then sage_conv_forward_transient of it into y: a
    /// reversible block's forward (and inverse) through one group function. A backend may
    /// form part of the convolution in the select's pass; y, kept and stats get the bits of
    /// the two calls.
    virtual void normalize_topk_conv_transient(DeviceMatrix x, DeviceMatrix gamma,
                                               DeviceMatrix beta, const DropoutMask& mask,
                                               DeviceMatrix stats, const CompressedRows& kept,
                                               const SageConvWeights& w, const ResidualAdd& add,
                                               DeviceMatrix y, DeviceMatrix scratch)
    {
        normalize_topk_pack(x, gamma, beta, mask, stats, kept);
        sage_conv_forward_transient(w, kept, add, y, scratch);
    }
    /// Backward of normalize_topk_pack: the gradient at the kept entries (rows x k, d_values)
    /// goes through the mask and the layernorm into dx = dx_beta dx + ...; dgamma/dbeta +=.
    virtual void normalize_topk_backward(DeviceMatrix x, DeviceMatrix gamma, DeviceMatrix stats,
                                         const CompressedRows& kept, DeviceMatrix d_values,
                                         const DropoutMask& mask, double dx_beta,
                                         DeviceMatrix dx, DeviceMatrix dgamma,
                                         DeviceMatrix dbeta) = 0;
    /// Dense copy of compressed rows (zeros elsewhere); for checks.
    virtual void unpack(const CompressedRows& z, DeviceMatrix dense) = 0;

    // ---- graph convolution ----------------------------------------------------------------
    /// y = add.residual + add.sign * grid(f), f = sum_t S_t z W_t + z W_root + bias, the
    /// residual add fused in the epilogue. The residual may be empty (0) and may alias y; then
    /// sign -1 undoes sign +1, exactly when add.quantum > 0 and the values stay on the grid.
    /// `aggregated` (rows x terms*d_in) receives S_t z for the backward pass.
    virtual void sage_conv_forward(const SageConvWeights& w, DeviceMatrix z,
                                   const ResidualAdd& add, DeviceMatrix y,
                                   DeviceMatrix aggregated) = 0;
    /// The same over compressed rows: the aggregation touches only the k kept columns.
    virtual void sage_conv_forward(const SageConvWeights& w, const CompressedRows& z,
                                   const ResidualAdd& add, DeviceMatrix y,
                                   DeviceMatrix aggregated) = 0;
    /// The compressed forward when S z is not needed afterwards (a reversible block's forward
    /// and inverse; its backward recomputes f): `scratch` (rows x terms*d_in) may be left
    /// holding anything. y gets the same bits as from sage_conv_forward, so the inverse and the
    /// backward's recomputation undo exactly what the forward added. By default the forward
    /// above.
    virtual void sage_conv_forward_transient(const SageConvWeights& w, const CompressedRows& z,
                                             const ResidualAdd& add, DeviceMatrix y,
                                             DeviceMatrix scratch)
    {
        sage_conv_forward(w, z, add, y, scratch);
    }
    /// Backward of the sign +1 forward for the gradient dy of y: grads += dW, dz = dz_beta dz +
    /// sum_t S_t^T dy W_t^T + dy W_root^T (dz may be empty: not needed).
    virtual void sage_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                                    DeviceMatrix z, DeviceMatrix aggregated, DeviceMatrix dy,
                                    double dz_beta, DeviceMatrix dz) = 0;
    /// The dense backward over the forward's joined input [S_0 z | .. | z] (joined_conv_input;
    /// a root is required), which it overwrites: grads += dW, then the z columns receive dz =
    /// sum_t S_t^T dy W_t^T + dy W_root^T, the aggregated columns serving as scratch. No
    /// scratch of its own: the reversible block's backward keeps no dz buffer.
    virtual void sage_conv_backward_joined(const SageConvWeights& w,
                                           const SageConvWeights& grads, DeviceMatrix joined,
                                           DeviceMatrix dy);
    /// Compressed: the gradient at the kept entries only, d_values (rows x k) overwritten;
    /// `aggregated` serves as scratch once the weight gradients have read it. It holds the
    /// forward's S_t z unless compressed_backward_reads_aggregated says they are not read.
    virtual void sage_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                                    const CompressedRows& z, DeviceMatrix aggregated,
                                    DeviceMatrix dy, DeviceMatrix d_values) = 0;
    /// Whether the compressed sage_conv_backward for these operands reads S_t z from
    /// `aggregated`: true (the default), so the forward before it must keep them; false when
    /// it works from S_t^T dy instead (dW_t = Z^T S_t^T dy) and `aggregated` is only scratch,
    /// so that forward may drop them (Intermediates::Drop).
    virtual bool compressed_backward_reads_aggregated(const SageConvWeights& /*w*/,
                                                      const CompressedRows& /*z*/,
                                                      DeviceMatrix /*dy*/) const
    {
        return true;
    }

    // ---- loss and optimiser ---------------------------------------------------------------
    /// Mean loss over the listed rows (uint32 node ids) of pred (N x 1) against target (N x 1);
    /// grad (N x 1) = weight * d(mean loss)/d(pred), zero for rows not listed.
    virtual double loss(LossKind kind, DeviceMatrix pred, DeviceMatrix target,
                        DeviceBytes nodes, std::uint32_t node_count, double weight,
                        DeviceMatrix grad) = 0;
    /// Adam with bias correction over flat params/grads/m/v (n x 1 each).
    virtual void adam_step(DeviceMatrix params, DeviceMatrix grads, DeviceMatrix m,
                           DeviceMatrix v, const AdamStep& step) = 0;

protected:
    // Shared by the backends: compositions of the ops above that no backend fuses further.
    /// grads.neighbour[t] += A_t^T dy (A_t: the columns of `aggregated` of term t), grads.bias +=
    /// the column sums of dy.
    void conv_weight_gradients(const SageConvWeights& w, const SageConvWeights& grads,
                               std::uint32_t d_in, DeviceMatrix aggregated, DeviceMatrix dy);
    /// sage_conv_backward over dense z, from GEMMs and the transposed SpMM (scratch: one z-shaped
    /// matrix from the arena).
    void dense_conv_backward(const SageConvWeights& w, const SageConvWeights& grads,
                             DeviceMatrix z, DeviceMatrix aggregated, DeviceMatrix dy,
                             double dz_beta, DeviceMatrix dz);
    /// Its input-gradient half: dz = dz_beta dz + sum_t S_t^T dy W_t^T + dy W_root^T.
    void conv_input_gradient(const SageConvWeights& w, DeviceMatrix z, DeviceMatrix dy,
                             double dz_beta, DeviceMatrix dz);

    Arena arena_;
    Arena host_arena_;
};

} // namespace gsr::nn
