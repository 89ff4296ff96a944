#pragma once
// cuBLAS, loaded at run time. The CUDA runtime is linked statically and the driver is found by
// it, so the only NVIDIA library a `gsr` binary would need at load time is cuBLAS; opening it
// with dlopen keeps the packages free of CUDA dependencies (a machine without the CUDA
// libraries starts fine and is told why it trains on the CPU).
#include <cublas_v2.h>

#include <string>

namespace gsr::gpu {

struct CublasLibrary {
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) set_stream = nullptr;
    decltype(&cublasSetMathMode) set_math_mode = nullptr;
    decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
    decltype(&cublasSgemm_v2) sgemm = nullptr;
    decltype(&cublasDgemm_v2) dgemm = nullptr;
    decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
    decltype(&cublasDgemmStridedBatched) dgemm_strided_batched = nullptr;
};

/// The loaded library (libcublas.so.13, else libcublas.so), or nullptr with the reason in *why.
const CublasLibrary* cublas_library(std::string* why = nullptr);

} // namespace gsr::gpu
