#pragma once
// FLOP and minimal-byte models of the operations behind training (muCUTLASS SOL, ALGORITHMS.md
// section 4). Minimal bytes: every input read once, every output written once.
//
//   op          shape                 FLOP (counted?)        minimal bytes
//   gemm        M,N,K                 2MNK (yes)             e(MK + KN + MN)
//   spmm        M,N,NNZ,F             2*NNZ*F (yes)          4(M+1) + NNZ(4+ev) + eN'F + eMF
//   spmm_k      M,N,NNZ,F,K           2*NNZ*K (yes)          4(M+1) + NNZ(4+ev) + N'K(e+i) + eMF
//   elementwise N or R,C              N*ops (no)             e*N*(inputs + 1)
//   reduction   R,C (sum over C)      R*C (no)               e(RC + R)
//   softmax     R,C                   5RC (no)               2eRC
//   layernorm   R,C                   7RC (no)               2eRC + 2eC (gamma, beta)
//   topk        N,D,G,K (G groups)    N*D (no)               eND + N*G*K*(e+i)
//
// e = element bytes, ev = edge-value bytes (0 for a pattern-only matrix), i = index bytes of a
// compressed column (1 when the group width is at most 256, else 2). An epilogue adds e*cols
// for a bias and e*(output elements) for a residual; a scale is a scalar argument; epilogue
// arithmetic is elementwise and never counted in the compute term. "Counted" says whether the
// FLOPs enter T_SOL: elementwise and reduction-like arithmetic does not (their bound is memory).
// N' = min(N, NNZ): the rows of X a SpMM reads at least once (NNZ <= M*N is checked).
// SpMM also has a gather bound: every neighbour row fetched once per edge, eN'F -> e*NNZ*F.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::sol {

enum class OpKind {
    Gemm,
    Spmm,
    SpmmCompressed,
    Elementwise,
    Reduction,
    Softmax,
    LayerNorm,
    GroupTopK
};
enum class DType { F32, F16, BF16 };
enum class Activation { None, Relu, Gelu, Silu, Sigmoid, Tanh };

std::string_view op_kind_name(OpKind kind); ///< "gemm", "spmm", "spmm_k", ...
OpKind parse_op_kind(std::string_view name); ///< gsr::Error listing the names
std::string_view dtype_name(DType dtype); ///< "fp32", "fp16", "bf16"
DType parse_dtype(std::string_view name);
std::size_t dtype_bytes(DType dtype);
std::string_view activation_name(Activation a); ///< "none", "relu", "gelu", ...
/// Nullopt-free: gsr::Error when the name is unknown.
Activation parse_activation(std::string_view name);

/// The fused epilogue of an operation's output (y = act(alpha * (acc + bias)) + residual).
struct Epilogue {
    bool bias = false;
    bool scale = false;
    Activation activation = Activation::None;
    bool residual = false;
};

/// One operation at one shape. Shape arity and meaning per kind: see the table above.
struct OpSpec {
    OpKind kind = OpKind::Elementwise;
    std::vector<std::uint64_t> shape;
    DType dtype = DType::F32;
    bool tf32 = false; ///< an fp32 GEMM may run on TF32 tensor cores
    bool weighted = true; ///< SpMM: the sparse matrix has values (else pattern only)
    bool affine = true; ///< layernorm: gamma and beta
    unsigned inputs = 1; ///< elementwise: tensors read per element (residual adds one)
    Epilogue epilogue;
};

/// Shape names of a kind, e.g. {"M","N","K"}; the first `required` of them must be given.
struct ShapeSignature {
    std::vector<std::string> names;
    std::size_t required = 0;
};
ShapeSignature shape_signature(OpKind kind);

/// Checks arity and zeros; fills optional dimensions. gsr::Error saying what was expected.
OpSpec normalized(OpSpec op);

struct OpCost {
    double flops = 0; ///< arithmetic of the operation
    bool flops_counted = true; ///< whether the compute term of T_SOL uses them
    double bytes = 0; ///< minimal DRAM traffic
    double gather_bytes = 0; ///< SpMM: traffic when each edge fetches its row; else 0
    std::uint64_t output_elements = 0;
};

OpCost op_cost(const OpSpec& op);

} // namespace gsr::sol
