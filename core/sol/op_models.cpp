#include "sol/op_models.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace gsr::sol {

namespace {

struct KindName {
    OpKind kind;
    const char* name;
};
constexpr std::array<KindName, 8> kKinds{{{OpKind::Gemm, "gemm"},
                                          {OpKind::Spmm, "spmm"},
                                          {OpKind::SpmmCompressed, "spmm_k"},
                                          {OpKind::Elementwise, "elementwise"},
                                          {OpKind::Reduction, "reduction"},
                                          {OpKind::Softmax, "softmax"},
                                          {OpKind::LayerNorm, "layernorm"},
                                          {OpKind::GroupTopK, "topk"}}};

constexpr std::array<const char*, 6> kActivations{"none", "relu",    "gelu",
                                                  "silu", "sigmoid", "tanh"};

} // namespace

std::string_view op_kind_name(OpKind kind)
{
    for (const auto& k : kKinds)
        if (k.kind == kind) return k.name;
    return "?";
}

OpKind parse_op_kind(std::string_view name)
{
    for (const auto& k : kKinds)
        if (name == k.name) return k.kind;
    std::string known;
    for (const auto& k : kKinds) known += std::string(known.empty() ? "" : ", ") + k.name;
    throw Error("unknown operation '" + std::string(name) + "'; expected one of " + known);
}

std::string_view dtype_name(DType dtype)
{
    switch (dtype) {
    case DType::F32: return "fp32";
    case DType::F16: return "fp16";
    case DType::BF16: return "bf16";
    }
    return "fp32";
}

DType parse_dtype(std::string_view name)
{
    if (name == "fp32" || name == "f32" || name == "float") return DType::F32;
    if (name == "fp16" || name == "f16" || name == "half") return DType::F16;
    if (name == "bf16") return DType::BF16;
    throw Error("unknown dtype '" + std::string(name) + "'; expected fp32, fp16 or bf16");
}

std::size_t dtype_bytes(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

std::string_view activation_name(Activation a) { return kActivations[std::size_t(a)]; }

Activation parse_activation(std::string_view name)
{
    for (std::size_t i = 0; i < kActivations.size(); ++i)
        if (name == kActivations[i]) return Activation(i);
    throw Error("unknown activation '" + std::string(name) +
                "'; expected none, relu, gelu, silu, sigmoid or tanh");
}

ShapeSignature shape_signature(OpKind kind)
{
    switch (kind) {
    case OpKind::Gemm: return {{"M", "N", "K"}, 3};
    case OpKind::Spmm: return {{"M", "N", "NNZ", "F"}, 4};
    case OpKind::SpmmCompressed: return {{"M", "N", "NNZ", "F", "K"}, 5};
    case OpKind::Elementwise: return {{"N"}, 1}; // or R,C (see normalized)
    case OpKind::Reduction: return {{"R", "C"}, 2};
    case OpKind::Softmax: return {{"R", "C"}, 2};
    case OpKind::LayerNorm: return {{"R", "C"}, 2};
    case OpKind::GroupTopK: return {{"N", "D", "G", "K"}, 4};
    }
    return {};
}

OpSpec normalized(OpSpec op)
{
    const ShapeSignature sig = shape_signature(op.kind);
    const std::string kind(op_kind_name(op.kind));
    std::string expected;
    for (const auto& n : sig.names) expected += (expected.empty() ? "" : ",") + n;
    if (op.kind == OpKind::Elementwise) {
        // N elements, or R,C when a bias needs the column count; stored as R,C.
        if (op.shape.size() == 1) op.shape = {1, op.shape[0]};
        expected = "N or R,C";
        if (op.shape.size() != 2)
            throw Error(kind + ": the shape is " + expected + ", got " +
                        std::to_string(op.shape.size()) + " numbers");
    } else if (op.kind == OpKind::Reduction && op.shape.size() == 1) {
        op.shape = {1, op.shape[0]}; // a full reduction is one row
    } else if (op.shape.size() != sig.names.size()) {
        throw Error(kind + ": the shape is " + expected + ", got " +
                    std::to_string(op.shape.size()) + " numbers");
    }
    for (std::uint64_t v : op.shape)
        if (v == 0) throw Error(kind + ": every dimension of " + expected + " must be positive");
    if (op.kind == OpKind::GroupTopK) {
        if (op.shape[1] % op.shape[2] != 0)
            throw Error("topk: D must be a multiple of the group count G");
        if (op.shape[3] > op.shape[1] / op.shape[2])
            throw Error("topk: K must not exceed the group width D/G");
    }
    if (op.kind == OpKind::Spmm || op.kind == OpKind::SpmmCompressed) {
        // NNZ <= M N, without forming M N (it may not fit 64 bits).
        const std::uint64_t m = op.shape[0], n = op.shape[1], nnz = op.shape[2];
        if (nnz / m > n || (nnz / m == n && nnz % m != 0))
            throw Error(kind + ": NNZ must not exceed M*N");
    }
    if (op.kind == OpKind::SpmmCompressed && op.shape[4] > op.shape[3])
        throw Error("spmm_k: K must not exceed the width F");
    if (op.kind == OpKind::Elementwise && op.inputs == 0)
        throw Error("elementwise: at least one input");
    return op;
}

OpCost op_cost(const OpSpec& spec)
{
    const OpSpec op = normalized(spec);
    const double e = double(dtype_bytes(op.dtype));
    const auto& s = op.shape;
    OpCost c;
    double out_rows = 0, out_cols = 0;
    switch (op.kind) {
    case OpKind::Gemm: {
        const double m = double(s[0]), n = double(s[1]), k = double(s[2]);
        c.flops = 2 * m * n * k;
        c.bytes = e * (m * k + k * n + m * n);
        out_rows = m;
        out_cols = n;
        break;
    }
    case OpKind::Spmm:
    case OpKind::SpmmCompressed: {
        const double m = double(s[0]), n = double(s[1]), nnz = double(s[2]), f = double(s[3]);
        const double ev = op.weighted ? e : 0.0;
        const double csr = 4 * (m + 1) + nnz * (4 + ev);
        // The rows of X read at least once: those with a nonzero in their column, at most
        // min(N, NNZ).
        const double touched = std::min(n, nnz);
        if (op.kind == OpKind::Spmm) {
            c.flops = 2 * nnz * f;
            c.bytes = csr + e * touched * f + e * m * f;
            c.gather_bytes = csr + e * nnz * f + e * m * f;
        } else {
            const double k = double(s[4]);
            const double row = k * (e + (s[3] <= 256 ? 1 : 2)); // k values + k column indices
            c.flops = 2 * nnz * k;
            c.bytes = csr + touched * row + e * m * f;
            c.gather_bytes = csr + nnz * row + e * m * f;
        }
        out_rows = m;
        out_cols = f;
        break;
    }
    case OpKind::Elementwise: {
        const double n = double(s[0]) * double(s[1]);
        int ops = int(op.epilogue.bias) + int(op.epilogue.scale) + int(op.epilogue.residual) +
                  int(op.epilogue.activation != Activation::None);
        c.flops = n * (ops > 0 ? ops : 1);
        c.flops_counted = false;
        c.bytes = e * n * (double(op.inputs) + 1);
        out_rows = double(s[0]);
        out_cols = double(s[1]);
        break;
    }
    case OpKind::Reduction: {
        const double r = double(s[0]), cols = double(s[1]);
        c.flops = r * cols;
        c.flops_counted = false;
        c.bytes = e * (r * cols + r);
        out_rows = r;
        out_cols = 1;
        break;
    }
    case OpKind::Softmax:
    case OpKind::LayerNorm: {
        const double r = double(s[0]), cols = double(s[1]);
        const bool ln = op.kind == OpKind::LayerNorm;
        c.flops = (ln ? 7 : 5) * r * cols;
        c.flops_counted = false;
        c.bytes = 2 * e * r * cols + (ln && op.affine ? 2 * e * cols : 0);
        out_rows = r;
        out_cols = cols;
        break;
    }
    case OpKind::GroupTopK: {
        const double n = double(s[0]), d = double(s[1]), g = double(s[2]), k = double(s[3]);
        const double index_bytes = s[1] / s[2] <= 256 ? 1 : 2;
        c.flops = n * d;
        c.flops_counted = false;
        c.bytes = e * n * d + n * g * k * (e + index_bytes);
        out_rows = 0; // compressed output: no epilogue
        out_cols = 0;
        break;
    }
    }
    // Saturated: an output of 2^64 elements or more is past what any count here can mean.
    const double outputs = out_rows * out_cols;
    c.output_elements = outputs < 0x1p64 ? std::uint64_t(outputs)
                                         : std::numeric_limits<std::uint64_t>::max();
    if (op.epilogue.bias) c.bytes += e * out_cols;
    if (op.epilogue.residual) c.bytes += e * out_rows * out_cols;
    if (c.gather_bytes > 0) {
        if (op.epilogue.bias) c.gather_bytes += e * out_cols;
        if (op.epilogue.residual) c.gather_bytes += e * out_rows * out_cols;
    }
    return c;
}

} // namespace gsr::sol
