#pragma once
// Kernel problems: what a candidate must compute, at which shape, its inputs, and the float64
// CPU reference the verifier compares with.
//
//   Problem          one operation at one shape (+ its SOL OpSpec and its baseline)
//   builtin_suite()  elementwise, reduction, softmax, layernorm, GEMM + bias + activation and
//                    SpMM at feature widths 32..256 (all fp32)
//   make_inputs()    fresh inputs for a seed; reference() the float64 result (optionally of
//                    chosen rows only, so a 4096^3 GEMM is checked without 137 GFLOP on the CPU)
//
// Input values are counter-based so any row can be regenerated alone:
//   input_value(seed, tensor, i) = (SplitMix64::mix(seed * G + tensor * H + i + G) >> 40)
//                                  * 2^-23 - 1          (uniform in [-1, 1), 2^24 steps)
// with G = 0x9E3779B97F4A7C15, H = 0xD1B54A32D192ED03, i the element's linear index and
// tensor the InputTensor number. (The planted "hard-coded for the test seed" kernel relies on
// this formula; the verifier defeats it with fresh seeds.)
//
// Kernel entry points and their arguments, one per family (codegen.hpp documents them).
#include "sol/op_models.hpp"
#include "tune/kernel_config.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace gsr::tune {

enum class BaselineKind { Cublas, Cusparse, Straightforward };
std::string_view baseline_name(BaselineKind b);

struct Problem {
    std::string name;
    std::string description;
    OpFamily family = OpFamily::Elementwise;
    /// Output rows x cols: elementwise/softmax/layernorm [rows x cols]; reduction reads
    /// [rows x cols] and writes rows; GEMM M = rows, N = cols; SpMM M = N = rows, F = cols.
    std::uint64_t rows = 0, cols = 0;
    std::uint64_t inner = 0; ///< GEMM K
    std::uint64_t nnz = 0; ///< SpMM, set by the graph generator
    std::uint32_t max_degree = 0; ///< SpMM: row degrees are 1..max_degree
    std::uint64_t graph_seed = 0; ///< SpMM: the fixed sparsity pattern
    EpilogueChain epilogue;
    float alpha = 1.0f; ///< the scale step's factor
    float eps = 1e-5f; ///< layernorm
    BaselineKind baseline = BaselineKind::Straightforward;

    /// Elements of the output.
    std::uint64_t output_size() const;
    std::uint64_t output_cols() const { return family == OpFamily::Reduction ? 1 : cols; }
    sol::OpSpec op_spec() const;
};

/// The chain of the named steps, in order ("bias", "scale", "residual" or an activation).
EpilogueChain epilogue_chain(std::initializer_list<const char*> names);
/// A problem over `rows` x `cols` (the row families; SpMM and GEMM set their extras after).
Problem rows_problem(std::string name, std::string description, OpFamily family,
                     std::uint64_t rows, std::uint64_t cols, EpilogueChain epilogue = {},
                     float alpha = 1.0f);

/// The built-in suite, in a fixed order.
const std::vector<Problem>& builtin_suite();
/// By name, or gsr::Error listing the names.
const Problem& suite_problem(std::string_view name);

/// Every field of a problem (the worker process and the agents receive problems this way).
nlohmann::json problem_json(const Problem& p);
/// gsr::Error naming the missing or mistyped key.
Problem problem_from_json(const nlohmann::json& j);

/// Tensor numbers of input_value.
enum class InputTensor : std::uint64_t {
    X = 1,
    B = 2,
    Bias = 3,
    Residual = 4,
    Gamma = 5,
    Beta = 6,
    EdgeValues = 7
};

float input_value(std::uint64_t seed, InputTensor tensor, std::uint64_t index);

/// The fixed CSR pattern of an SpMM problem: rows with 1..max_degree distinct sorted columns.
struct CsrPattern {
    std::vector<std::int32_t> row_ptr, col_idx;
};
CsrPattern spmm_pattern(std::uint64_t nodes, std::uint32_t max_degree, std::uint64_t seed);

/// Inputs of one run. Only those the family reads are filled.
struct ProblemInputs {
    std::uint64_t seed = 0;
    std::vector<float> x; ///< elementwise/row ops: [rows x cols]; GEMM A [M x K];
        ///< SpMM X [N x F]
    std::vector<float> b; ///< GEMM B [K x N]
    std::vector<float> bias; ///< [output cols]
    std::vector<float> residual; ///< [output]
    std::vector<float> gamma, beta;
    std::vector<std::int32_t> row_ptr, col_idx;
    std::vector<float> values; ///< SpMM edge values
};

ProblemInputs make_inputs(const Problem& p, std::uint64_t seed);

/// The float64 result of output rows `rows` (all rows when empty), row after row.
std::vector<double> reference(const Problem& p, const ProblemInputs& in,
                              const std::vector<std::uint64_t>& rows = {});

/// |y - ref| <= atol + rtol * |ref|, KernelBench's fp32 (1e-4) and fp16/bf16 (1e-2).
struct Tolerance {
    double atol = 1e-4, rtol = 1e-4;
};
Tolerance tolerance_for(sol::DType dtype);
/// tolerance_for(fp32) widened by sqrt(L / 64) for an accumulation of length L (GEMM K,
/// reduced columns, SpMM degree): fp32 rounding of a sum grows like sqrt(L), and an honest
/// 4096-long dot product must not fail a check meant to catch wrong kernels.
Tolerance tolerance_for(const Problem& p);

/// The first element out of tolerance, or -1 when all are within it.
std::int64_t first_mismatch(const std::vector<float>& got, const std::vector<double>& want,
                            Tolerance tol);

/// The verdicts of the verifier and of search, shared with the GPU side and the agents.
enum class Verdict {
    Ok,
    InvalidConfig, ///< rejected by validate() before compiling
    CompileError,
    WrongResult, ///< an element out of tolerance
    UnwrittenOutput, ///< an element still holds the poison
    InputInsensitive, ///< changed inputs left the output unchanged
    Timeout, ///< the worker ran past its limit (a hang)
    Crash, ///< the worker died (signal, lost context)
    IllegalAddress, ///< CUDA reported an illegal memory access
    Gaming, ///< faster than T_SOL by more than 5%: never ranked
    Unsupported ///< the evaluator cannot run this kind of candidate
};
std::string_view verdict_name(Verdict v);
Verdict parse_verdict(std::string_view name);

} // namespace gsr::tune
