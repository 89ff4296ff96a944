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

/// The engine's binding of an SpMM config (the kernel lab's Apply): the same thread layout
/// as gsr_spmm_csr, over the CUDA backend's operator (nn::DeviceGraph) instead of a CSR with
/// values, so the backend can run it in place of its own SpMM:
///   gsr_spmm_engine(const unsigned long long* offsets, const unsigned* targets,
///                   const float* rs, const float* cs, int self_loop, const float* X,
///                   long long ldx, float* Y, long long ldy, float alpha, float beta, int M,
///                   int F)
/// Y = alpha S X + beta Y, S_ij = rs_i cs_j per edge (plus the diagonal when self_loop); beta 0
/// does not read Y. ldx and ldy must be multiples of the config's vector width. gsr::Error for
/// a problem that is not an SpMM without epilogue, or an invalid config.
GeneratedKernel generate_engine_spmm(const Problem& p, const KernelConfig& c,
                                     const sol::DeviceSpec& d);

std::string_view entry_point(OpFamily f);
/// The parameter list of a family's entry point, as documented above.
std::string_view entry_parameters(OpFamily f);

/// A plain config for a family: the "straightforward" baseline of the suite's memory-bound
/// problems and the start of the refine loop.
KernelConfig default_config(const Problem& p);

} // namespace gsr::tune
