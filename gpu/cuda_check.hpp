#pragma once
// The one checking path for CUDA and cuBLAS calls: every call goes through a macro
// that names the call, the file and the line. Failures throw CudaError (a std::runtime_error):
// a failed call is a bug or a broken device, not a user mistake; the places a user can cause
// (no device, too little memory) throw gsr::Error with a plain message instead.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gsr::gpu {

struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(const char* what, const char* call, const char* file,
                                   int line);

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line)
{
    if (e != cudaSuccess) throw_cuda_error(cudaGetErrorString(e), call, file, line);
}
inline void check_cuda(cublasStatus_t s, const char* call, const char* file, int line)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw_cuda_error(("cuBLAS status " + std::to_string(int(s))).c_str(), call, file, line);
}

} // namespace gsr::gpu

#define GSR_CUDA(call) ::gsr::gpu::check_cuda((call), #call, __FILE__, __LINE__)
/// After a kernel launch: launch errors (bad configuration) surface here.
#define GSR_CUDA_LAUNCH() GSR_CUDA(cudaGetLastError())
