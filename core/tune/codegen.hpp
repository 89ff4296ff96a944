#pragma once
// From a kernel config and a problem to CUDA C++ source that NVRTC compiles (no includes, fp32,
// one extern "C" __global__ entry point), with the launch shape; and the reasons a config is
// rejected on a device before anything is compiled.
//
// Entry points (pointers of epilogue steps the problem lacks may be null):
//   elementwise  gsr_elementwise(const float* x, const float* bias, const float* residual,
//                                float* y, float alpha, long long n, int cols)
//   reduction    gsr_reduce_rows(const float* x, float* y, float alpha, int rows, int cols)
//   softmax      gsr_softmax(const float* x, const float* bias, const float* residual,
//                            float* y, float alpha, int rows, int cols)
//   layernorm    gsr_layernorm(const float* x, const float* gamma, const float* beta,
//                              const float* bias, const float* residual, float* y,
//                              float alpha, float eps, int rows, int cols)
//   gemm         gsr_gemm(const float* A, const float* B, const float* bias,
//                         const float* residual, float* C, float alpha, int M, int N, int K)
//                A [M x K], B [K x N], C [M x N], all row-major
//   spmm         gsr_spmm_csr(const int* row_ptr, const int* col_idx, const float* values,
//                             const float* X, const float* bias, const float* residual,
//                             float* Y, float alpha, int M, int F)
//                X [N x F], Y [M x F]; F must equal the problem's (the kernel traps otherwise)
// All buffers are device pointers from cudaMalloc (256-byte aligned, as vector loads need).
#include "sol/device_table.hpp"
#include "tune/kernel_config.hpp"
#include "tune/problem.hpp"

#include <array>
#include <string>
#include <vector>

namespace gsr::tune {

struct LaunchShape {
    std::array<unsigned, 3> grid{1, 1, 1};
    std::array<unsigned, 3> block{1, 1, 1};
    /// Dynamic shared memory; above 48 KiB the launcher must raise
    /// cudaFuncAttributeMaxDynamicSharedMemorySize first.
    std::size_t dynamic_shared_bytes = 0;
};

struct Validation {
    std::vector<std::string> reasons; ///< empty when the config is valid
    int registers = 0; ///< estimated registers per thread
    std::size_t shared_bytes = 0; ///< per block, static + dynamic

    bool ok() const { return reasons.empty(); }
    std::string text() const; ///< the reasons joined by "; "
};

/// Checks a config against a problem and a device: threads per block, divisibility of the
/// problem's dimensions, shared memory, an estimate of registers, the epilogue chain.
Validation validate(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d);

struct GeneratedKernel {
    std::string source;
    std::string entry;
    LaunchShape launch;
    KernelConfig config; ///< with the problem's epilogue filled in
    Validation validation;
};

/// gsr::Error with validate()'s reasons when the config is invalid.
GeneratedKernel generate_kernel(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& d);

std::string_view entry_point(OpFamily f);
/// The parameter list of a family's entry point, as documented above.
std::string_view entry_parameters(OpFamily f);

/// A plain config for a family: the "straightforward" baseline of the suite's memory-bound
/// problems and the start of the refine loop.
KernelConfig default_config(const Problem& p);

} // namespace gsr::tune
