#pragma once
// The kernel DSL: one struct that says how a kernel of an op family is laid out, with a text
// form and a JSON form. codegen.hpp turns a config plus a problem into CUDA C++.
//
//   family      elementwise | reduction | softmax | layernorm | gemm | spmm
//   block       threads per block (multiple of 32; GEMM: derived from tile/thread)
//   vec         elements per vector load/store: 1, 2 or 4 (float, float2, float4)
//   tpr         threads per row (row families and SpMM): a power of two, divides block
//   unroll      independent items per thread per loop iteration (elements, chunks or edges)
//   tile        GEMM block tile MxNxK;  thread: GEMM per-thread micro tile MxN
//   stages      GEMM shared-memory pipeline stages (1 = single buffer; >= 2 uses cp.async on
//               sm_80+, plain copies before)
//   epilogue    the fused chain on every output element, in order: bias, scale, an
//               activation (relu, gelu, silu, sigmoid, tanh), residual
//
// Text form (keys in any order, defaults for the missing ones):
//   "family=gemm tile=64x64x16 thread=4x4 stages=2 vec=4 epilogue=bias,relu"
// JSON form:
//   {"family":"gemm","tile":[64,64,16],"thread":[4,4],"stages":2,"vec":4,
//    "epilogue":["bias","relu"]}
#include "sol/op_models.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gsr::tune {

enum class OpFamily { Elementwise, Reduction, Softmax, LayerNorm, Gemm, Spmm };

std::string_view family_name(OpFamily f);
OpFamily parse_family(std::string_view name); ///< gsr::Error listing the names

enum class EpilogueKind { Bias, Scale, Activation, Residual };

struct EpilogueStep {
    EpilogueKind kind = EpilogueKind::Bias;
    sol::Activation activation = sol::Activation::None; ///< for kind == Activation

    bool operator==(const EpilogueStep&) const = default;
};

using EpilogueChain = std::vector<EpilogueStep>;

/// "bias", "scale", "residual" or an activation name.
std::string epilogue_step_name(const EpilogueStep& s);
EpilogueStep parse_epilogue_step(std::string_view name);
std::string epilogue_chain_text(const EpilogueChain& chain); ///< "bias,relu" ("none" if empty)
/// The SOL model's summary of a chain (which steps are present).
sol::Epilogue epilogue_summary(const EpilogueChain& chain);

struct KernelConfig {
    OpFamily family = OpFamily::Elementwise;
    int block = 256;
    int vec = 1;
    int tpr = 32;
    int unroll = 1;
    int tile_m = 64, tile_n = 64, tile_k = 16;
    int thread_m = 4, thread_n = 4;
    int stages = 2;
    /// Empty: take the problem's chain. Otherwise it must equal the problem's.
    EpilogueChain epilogue;

    /// The threads of a block as launched (GEMM derives them from the tiles).
    int block_threads() const;

    bool operator==(const KernelConfig&) const = default;
};

/// Only the keys that matter for the family are written.
std::string to_text(const KernelConfig& c);
KernelConfig config_from_text(std::string_view text);
nlohmann::json to_json(const KernelConfig& c);
/// gsr::Error naming the key for unknown keys or wrong types.
KernelConfig config_from_json(const nlohmann::json& j);

} // namespace gsr::tune
