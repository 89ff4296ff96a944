#pragma once
// CUDA C++ compiled at run time for the GPU in hand: NVRTC (dlopened, nvrtc_library.hpp) to a
// cubin for its compute capability, loaded as a CUDA library. The kernel lab's worker compiles
// candidates with it (kernel_runner.cpp); the backend compiles the kernels a user applied
// (cuda_backend.cu, nn::TunedKernel).
#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace gsr::gpu {

/// A loaded kernel; unloads its library when destroyed.
struct RuntimeKernel {
    cudaLibrary_t library = nullptr;
    cudaKernel_t kernel = nullptr;
    int registers = 0;
    double seconds = 0; ///< compiling and loading

    RuntimeKernel() = default;
    RuntimeKernel(const RuntimeKernel&) = delete;
    RuntimeKernel& operator=(const RuntimeKernel&) = delete;
    ~RuntimeKernel();
};

/// The source does not compile, has no such entry point, or NVRTC is missing: `log` says which.
struct RuntimeCompileError {
    std::string log;
};

/// A CUDA call failed while loading the compiled code.
struct RuntimeLoadError {
    cudaError_t code;
    std::string where;
};

/// Compiles `source` for the current device and loads `entry`. `file_name` names the source
/// in NVRTC's messages. Throws RuntimeCompileError or RuntimeLoadError.
std::unique_ptr<RuntimeKernel> compile_runtime_kernel(const std::string& source,
                                                      const std::string& entry,
                                                      const std::string& file_name);

} // namespace gsr::gpu
