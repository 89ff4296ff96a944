#pragma once
// The layers models are made of, written against nn::Backend only. Internal to core/nn (the
// public surface is nn/model.hpp); tests use them directly.
//
//   ParameterLayout       names every parameter tensor; one flat buffer per params/grads/m/v
//   LinearLayer           y = x W + b (encoder F -> D, head D -> 1)
//   GroupFunction         f(x) = SAGE-conv(act(LayerNorm(x))), act = ReLU or group top-k
//   ReversibleGroupBlock  C groups, Y_i = X_i + f_i(Y_{i-1}); inverse; backward by recompute
//   ResidualBlock         x_{l+1} = x_l + f(x_l), every activation kept
//   GraphConvLayer        shallow GCN / SAGE layer: ReLU(conv(x)), input and aggregate kept
#include "nn/backend.hpp"

#include <string>
#include <vector>

namespace gsr::nn {

/// A parameter tensor and its gradient.
struct Parameter {
    DeviceMatrix value;
    DeviceMatrix grad;
};

enum class ParameterInit : std::uint8_t { Zero, One, Uniform };

/// Order and shapes of all parameters; offsets are in elements of the flat buffers.
class ParameterLayout {
public:
    struct Entry {
        std::string name;
        std::uint32_t rows = 0, cols = 0;
        std::size_t offset = 0;
        ParameterInit init = ParameterInit::Zero;
        double bound = 0.0; ///< Uniform: U(-bound, bound)
    };

    /// Registers a tensor; returns its index.
    std::size_t add(std::string name, std::uint32_t rows, std::uint32_t cols, ParameterInit init,
                    double bound = 0.0);
    std::size_t count() const { return count_; }
    const std::vector<Entry>& entries() const { return entries_; }

    /// Binds the flat buffers (count() x 1 each); views become valid.
    void bind(DeviceMatrix values, DeviceMatrix grads);
    Parameter operator[](std::size_t index) const;

    /// Initial values, deterministic for `seed`: uniform weights, zero biases, unit gains.
    std::vector<double> initial_values(std::uint64_t seed) const;

private:
    std::vector<Entry> entries_;
    std::size_t count_ = 0;
    DeviceMatrix values_, grads_;
};

/// What one step's layers share: the backend, the aggregation operators, the dropout mask.
struct StepContext {
    Backend* backend = nullptr;
    const DeviceGraph* graph[2] = {nullptr, nullptr};
    std::uint32_t terms = 0;
    DropoutMask mask; ///< inactive in eval mode
    double quantum = 0.0; ///< grid of the reversible residual stream (ResidualAdd); 0: none
};

class LinearLayer {
public:
    LinearLayer() = default;
    LinearLayer(ParameterLayout& layout, const std::string& name, std::uint32_t in,
                std::uint32_t out);
    void forward(const ParameterLayout& p, Backend& be, DeviceMatrix x, DeviceMatrix y) const;
    /// grads += ...; dx = dy W^T when dx is not empty.
    void backward(const ParameterLayout& p, Backend& be, DeviceMatrix x, DeviceMatrix dy,
                  DeviceMatrix dx) const;
    std::size_t weight_index() const { return weight_; }

private:
    std::size_t weight_ = 0, bias_ = 0;
};

enum class Activation : std::uint8_t { Relu, TopK };

/// f(x) = conv(act(LayerNorm(x))) over a `width`-wide slice, conv = sum_t S_t z W_t + z W_r + b.
class GroupFunction {
public:
    /// Intermediates of one evaluation of f, kept for its backward pass.
    struct Scratch {
        DeviceMatrix stats; ///< N x 2
        DeviceMatrix z;     ///< Relu: N x width after activation (and dropout), the columns
                            ///< right of `aggregated` in the same rows
        CompressedRows kept;///< TopK: N x k values + indices
        DeviceMatrix aggregated; ///< N x terms*width
        DeviceMatrix dz;    ///< TopK: N x k (gradient at the kept entries); Relu: empty (the
                            ///< backward leaves dz in z's columns) or a caller's buffer
    };

    GroupFunction() = default;
    /// `branch_scale` shrinks the initial convolution weights: deep stacks start close to
    /// the identity (and the reversible inverse stays well conditioned).
    GroupFunction(ParameterLayout& layout, const std::string& name, std::uint32_t width,
                  std::uint32_t terms, Activation act, std::uint32_t k,
                  double branch_scale = 1.0);

    /// Allocates a scratch in the arena (order: stats, [aggregated | z] or kept and aggregated,
    /// dz for TopK); without `with_gradient` dz is left for the caller to point at a shared
    /// buffer, which the backward then uses.
    static Scratch allocate(Backend& be, std::uint32_t rows, std::uint32_t width,
                            std::uint32_t terms, Activation act, std::uint32_t k,
                            bool with_gradient = true);

    /// What forward leaves in the scratch: Keep, the intermediates backward needs; Drop,
    /// nothing of use (a reversible block's forward and inverse: its backward recomputes f),
    /// which lets a backend take a cheaper order of the work.
    enum class Intermediates { Keep, Drop };
    /// y = residual + sign * f(x); the mask is shifted to column `mask_column`.
    void forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x,
                 DeviceMatrix residual, double sign, DeviceMatrix y, Scratch& sc,
                 std::uint32_t mask_column, Intermediates keep = Intermediates::Keep) const;
    /// What a forward before backward(.., dy, ..) must keep: Drop where the backend's
    /// compressed convolution backward does not read S z (it takes S^T dy), else Keep.
    Intermediates kept_for_backward(const ParameterLayout& p, const StepContext& s,
                                    const Scratch& sc, DeviceMatrix dy) const;
    /// Given dy = dL/df and the scratch of forward(x): grads +=, dx = dx_beta dx + df/dx^T dy.
    void backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x, Scratch& sc,
                  DeviceMatrix dy, double dx_beta, DeviceMatrix dx,
                  std::uint32_t mask_column) const;

    Activation activation() const { return act_; }

private:
    SageConvWeights weights(const ParameterLayout& p, const StepContext& s) const;
    SageConvWeights gradients(const ParameterLayout& p) const;

    std::uint32_t width_ = 0, terms_ = 0, k_ = 0;
    Activation act_ = Activation::Relu;
    std::size_t gamma_ = 0, beta_ = 0, neighbour_[2] = {0, 0}, root_ = 0, bias_ = 0;
};

/// The grouped reversible residual over an N x D matrix held in place.
class ReversibleGroupBlock {
public:
    /// Per-layer scratch: Y_0, its gradient, one GroupFunction scratch reused by every group.
    /// With two groups Y_0 is X_2 itself and its gradient goes straight into dX_2: y0 and dy0
    /// stay empty and the block works on views of h and dh (two N x d buffers fewer).
    struct Scratch {
        DeviceMatrix y0;
        DeviceMatrix dy0;
        GroupFunction::Scratch f;
    };

    ReversibleGroupBlock() = default;
    ReversibleGroupBlock(ParameterLayout& layout, const std::string& name, std::uint32_t groups,
                         std::uint32_t width, std::uint32_t terms, Activation act,
                         std::uint32_t k, double branch_scale);

    /// Allocation order: y0, dy0 (more than two groups only), then GroupFunction::allocate.
    static Scratch allocate(Backend& be, std::uint32_t rows, std::uint32_t groups,
                            std::uint32_t width, std::uint32_t terms, Activation act,
                            std::uint32_t k);

    /// h: X -> Y in place.
    void forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix h,
                 Scratch& sc) const;
    /// h: Y -> X in place (X_i = Y_i - f_i(Y_{i-1}), i = C..2; Y_0; X_1 = Y_1 - f_1(Y_0)).
    void inverse(const ParameterLayout& p, const StepContext& s, DeviceMatrix h,
                 Scratch& sc) const;
    /// h: Y -> X and dh: dY -> dX in place, weight gradients accumulated. With `stored_input`
    /// (the X kept by the forward pass) Y_0 and the result come from it instead of the
    /// inverse: the non-reversible reference.
    void backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix h, DeviceMatrix dh,
                  const DeviceMatrix* stored_input, Scratch& sc) const;

private:
    /// Y_0 = sum_{i>=2} X_i of `x`: a view of X_2 with two groups, else summed into sc.y0.
    DeviceMatrix y0_of(Backend& be, DeviceMatrix x, Scratch& sc) const;

    std::vector<GroupFunction> groups_;
    std::uint32_t width_ = 0;
};

/// x_{l+1} = x_l + f(x_l) with the scratch of f kept per layer.
class ResidualBlock {
public:
    ResidualBlock() = default;
    ResidualBlock(ParameterLayout& layout, const std::string& name, std::uint32_t width,
                  std::uint32_t terms, double branch_scale);
    void forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x, DeviceMatrix y,
                 GroupFunction::Scratch& kept) const;
    /// dh: dX_{l+1} -> dX_l in place.
    void backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x, DeviceMatrix dh,
                  GroupFunction::Scratch& kept) const;

private:
    GroupFunction f_;
};

/// Shallow layer: y = ReLU(conv(x)) (dropout after the ReLU); conv is GCN (no root weight) or
/// SAGE (root weight).
class GraphConvLayer {
public:
    GraphConvLayer() = default;
    GraphConvLayer(ParameterLayout& layout, const std::string& name, std::uint32_t width,
                   std::uint32_t terms, bool root);
    void forward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x, DeviceMatrix y,
                 DeviceMatrix aggregated) const;
    /// dy: gradient of y, overwritten; dx = gradient of x.
    void backward(const ParameterLayout& p, const StepContext& s, DeviceMatrix x, DeviceMatrix y,
                  DeviceMatrix aggregated, DeviceMatrix dy, DeviceMatrix dx) const;

private:
    SageConvWeights weights(const ParameterLayout& p, const StepContext& s, bool grads) const;

    std::uint32_t terms_ = 0;
    bool root_ = false;
    std::size_t neighbour_[2] = {0, 0}, root_weight_ = 0, bias_ = 0;
};

} // namespace gsr::nn
