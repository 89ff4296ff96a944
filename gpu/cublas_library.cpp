#include "cublas_library.hpp"

#include "dynamic_library.hpp"

namespace gsr::gpu {

namespace {

LoadedLibrary<CublasLibrary> load()
{
    LoadedLibrary<CublasLibrary> l;
    void* h = open_first({"libcublas.so.13", "libcublas.so"}, l.why);
    if (!h) {
        l.why = "the CUDA 13 cuBLAS library: " + l.why + "; install NVIDIA's CUDA 13 libraries";
        return l;
    }
    CublasLibrary& a = l.api;
    l.ok = bind(h, "cublasCreate_v2", a.create, "libcublas", l.why) &&
           bind(h, "cublasDestroy_v2", a.destroy, "libcublas", l.why) &&
           bind(h, "cublasSetStream_v2", a.set_stream, "libcublas", l.why) &&
           bind(h, "cublasSetMathMode", a.set_math_mode, "libcublas", l.why) &&
           bind(h, "cublasSetWorkspace_v2", a.set_workspace, "libcublas", l.why) &&
           bind(h, "cublasSgemm_v2", a.sgemm, "libcublas", l.why) &&
           bind(h, "cublasDgemm_v2", a.dgemm, "libcublas", l.why) &&
           bind(h, "cublasSgemmStridedBatched", a.sgemm_strided_batched, "libcublas", l.why) &&
           bind(h, "cublasDgemmStridedBatched", a.dgemm_strided_batched, "libcublas", l.why);
    return l; // the handle stays open for the life of the process
}

} // namespace

const CublasLibrary* cublas_library(std::string* why)
{
    return load_once<CublasLibrary>(load, why);
}

} // namespace gsr::gpu
