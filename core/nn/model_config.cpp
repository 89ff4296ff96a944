#include "nn/model_config.hpp"

#include "nn/cpu_backend.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gsr::nn {

namespace {

struct KindName {
    ModelKind kind;
    std::string_view name;
};

constexpr KindName kKindNames[] = {{ModelKind::Gcn, "gcn"},
                                   {ModelKind::Sage, "sage"},
                                   {ModelKind::Res, "res"},
                                   {ModelKind::Rev, "rev"},
                                   {ModelKind::Gsr, "gsr"}};

bool reversible(ModelKind kind) { return kind == ModelKind::Rev || kind == ModelKind::Gsr; }

} // namespace

std::string_view model_kind_name(ModelKind kind)
{
    for (const auto& k : kKindNames)
        if (k.kind == kind) return k.name;
    return "?";
}

ModelKind parse_model_kind(std::string_view name)
{
    for (const auto& k : kKindNames)
        if (k.name == name) return k.kind;
    throw Error("--model: unknown model '" + std::string(name) +
                "' (allowed: gcn, sage, res, rev, gsr)");
}

std::string_view loss_kind_name(LossKind kind)
{
    return kind == LossKind::MeanSquaredError ? "mse" : "bce";
}

LossKind parse_loss_kind(std::string_view name)
{
    if (name == "mse") return LossKind::MeanSquaredError;
    if (name == "bce") return LossKind::BinaryCrossEntropyWithLogits;
    throw Error("--loss: unknown loss '" + std::string(name) + "' (allowed: mse, bce)");
}

std::uint32_t group_count(const ModelConfig& c) { return reversible(c.kind) ? c.groups : 1; }

std::uint32_t group_width(const ModelConfig& c)
{
    return reversible(c.kind) && c.groups > 0 ? c.hidden / c.groups : c.hidden;
}

std::uint32_t default_topk(std::uint32_t hidden, std::uint32_t groups)
{
    const std::uint32_t k = ModelConfig{}.topk;
    const std::uint32_t d = groups > 0 ? hidden / groups : hidden;
    return std::max(1u, std::min(k, d / 2));
}

void validate(const ModelConfig& c)
{
    const std::string kind(model_kind_name(c.kind));
    if (c.layers < 1) throw Error("--layers: must be at least 1, got 0");
    if (c.layers > 100000)
        throw Error("--layers: at most 100000, got " + std::to_string(c.layers));
    if (c.hidden < 1) throw Error("--hidden: must be at least 1, got 0");
    if (c.hidden > kCpuMaxWidth)
        throw Error("--hidden: at most " + std::to_string(kCpuMaxWidth) + ", got " +
                    std::to_string(c.hidden));
    if (reversible(c.kind)) {
        if (c.groups < 2)
            throw Error("--groups: " + kind + " needs at least 2 groups (Y_0 sums groups 2..C), "
                        "got " + std::to_string(c.groups));
        if (c.hidden % c.groups != 0)
            throw Error("--groups: --hidden " + std::to_string(c.hidden) +
                        " is not divisible by --groups " + std::to_string(c.groups) +
                        " (each group is hidden/groups wide)");
        // A LayerNorm over one value is its beta whatever the input: no message would pass.
        if (c.hidden / c.groups < 2)
            throw Error("--groups: groups one value wide (--hidden " + std::to_string(c.hidden) +
                        " in " + std::to_string(c.groups) +
                        ") pass no messages (a LayerNorm over one value is constant); use at "
                        "most hidden/2 = " + std::to_string(c.hidden / 2) + " groups");
    }
    if (c.kind == ModelKind::Res && c.hidden < 2)
        throw Error("--hidden: res needs at least 2 (a LayerNorm over one value is constant), "
                    "got 1");
    if (c.kind == ModelKind::Gsr) {
        const std::uint32_t d = c.hidden / c.groups;
        if (c.topk < 1 || c.topk > d)
            throw Error("--topk: must be from 1 to the group width hidden/groups = " +
                        std::to_string(d) + ", got " + std::to_string(c.topk));
    }
    if (!(c.dropout >= 0.0 && c.dropout < 1.0))
        throw Error("--dropout: must be in [0, 1), got " + std::to_string(c.dropout));
    if (c.store_activations && !reversible(c.kind))
        throw Error("store_activations applies to rev and gsr only (got " + kind + ")");
}

void validate(const AdamConfig& a)
{
    if (!(a.learning_rate > 0.0) || !std::isfinite(a.learning_rate))
        throw Error("--lr: must be a positive number");
    if (!(a.beta1 >= 0.0 && a.beta1 < 1.0)) throw Error("--beta1: must be in [0, 1)");
    if (!(a.beta2 >= 0.0 && a.beta2 < 1.0)) throw Error("--beta2: must be in [0, 1)");
    if (!(a.epsilon > 0.0)) throw Error("--eps: must be positive");
    if (!(a.weight_decay >= 0.0)) throw Error("--weight-decay: must be >= 0");
}

} // namespace gsr::nn
