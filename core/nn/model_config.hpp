#pragma once
// Hyper-parameters of a model and of its optimiser, with the checks that name the flag at fault.
#include <cstdint>
#include <string>
#include <string_view>

namespace gsr::nn {

enum class ModelKind : std::uint8_t {
    Gcn,  ///< shallow GCN, symmetric-normalised D^-1/2 (A+I) D^-1/2
    Sage, ///< shallow GraphSAGE: W_l mean_{j in N(i)} x_j + b + W_r x_i
    Res,  ///< deep residual: x + SAGE(ReLU(LayerNorm(x))), stores every activation
    Rev,  ///< grouped reversible, dense ReLU: activation memory independent of depth
    Gsr,  ///< grouped reversible with group-wise top-k, stored compressed
};

enum class Precision : std::uint8_t { Float32, Float64 };

enum class LossKind : std::uint8_t {
    MeanSquaredError,            ///< regression targets
    BinaryCrossEntropyWithLogits ///< targets in [0, 1]; predictions are logits
};

struct ModelConfig {
    ModelKind kind = ModelKind::Gsr;
    std::uint32_t layers = 16;  ///< L: message-passing layers (blocks for res/rev/gsr)
    std::uint32_t hidden = 64;  ///< D: hidden width
    std::uint32_t groups = 4;   ///< C: groups of width d = D / C (rev, gsr; >= 2)
    std::uint32_t topk = 8;     ///< k: entries kept per node and group (gsr; 1..d)
    double dropout = 0.0;       ///< one mask per step, shared by all layers
    std::uint64_t seed = 1;     ///< initial weights and dropout masks
    bool directed = false;      ///< aggregate fan-in and fan-out separately (two weight sets)
    /// rev/gsr only: keep every layer's input instead of recomputing it by the inverse. The
    /// same network and gradients, with O(L N D) memory; for checks and comparisons.
    bool store_activations = false;
    /// rev/gsr: round each residual branch output f to a fixed-point grid (2^-16 in float32,
    /// 2^-40 in float64) and the encoder output too, so Y - f gives X back bit for bit (while
    /// |values| < 256 resp. 8192) and top-k re-selects exactly what the forward pass kept.
    /// Off: plain floating point, where reconstruction drifts by rounding.
    bool exact_reversal = true;
    /// Keep the gradients and Adam's moments in the backend's host block (pinned host memory
    /// the GPU reads over the bus, as ZeRO-Offload does) instead of the arena: the arena then
    /// holds 4 bytes per parameter instead of 16, and its peak hardly grows with depth.
    bool offload_optimizer = false;
    std::uint32_t threads = 0;  ///< CPU backend threads; 0: one per hardware thread
    Precision precision = Precision::Float32;
};

/// Adam with bias correction; decoupled weight decay (AdamW) when weight_decay > 0.
struct AdamConfig {
    double learning_rate = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-8;
    double weight_decay = 0.0;
};

/// "gcn", "sage", "res", "rev", "gsr".
std::string_view model_kind_name(ModelKind kind);
/// Parses a model name; gsr::Error naming --model and the allowed values otherwise.
ModelKind parse_model_kind(std::string_view name);
std::string_view loss_kind_name(LossKind kind); ///< "mse", "bce"
LossKind parse_loss_kind(std::string_view name); ///< "mse" or "bce"

/// Throws gsr::Error naming the flag (--layers, --hidden, --groups, --topk, --dropout) and what
/// is allowed when the configuration cannot be built.
void validate(const ModelConfig& config);
void validate(const AdamConfig& config);

/// Group width d: hidden / groups for rev and gsr, hidden otherwise.
std::uint32_t group_width(const ModelConfig& config);
/// Groups actually used: config.groups for rev and gsr, 1 otherwise.
std::uint32_t group_count(const ModelConfig& config);
/// k where none is given: ModelConfig's 8, or half the group width hidden / groups where
/// groups narrower than 16 would not hold 8 (so --hidden alone never asks for --topk).
std::uint32_t default_topk(std::uint32_t hidden, std::uint32_t groups);

} // namespace gsr::nn
