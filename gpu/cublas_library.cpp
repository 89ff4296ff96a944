#include "cublas_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace gsr::gpu {

namespace {

struct Loaded {
    CublasLibrary api;
    bool ok = false;
    std::string why;
};

template <class F> bool bind(void* handle, const char* name, F& f, std::string& why)
{
    f = reinterpret_cast<F>(dlsym(handle, name));
    if (!f) why = std::string("libcublas has no ") + name;
    return f != nullptr;
}

Loaded load()
{
    Loaded l;
    void* h = nullptr;
    for (const char* name : {"libcublas.so.13", "libcublas.so"})
        if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
        const char* e = dlerror();
        l.why = std::string("the CUDA 13 cuBLAS library (libcublas.so.13) was not found (") +
                (e ? e : "dlopen failed") + "); install NVIDIA's CUDA 13 libraries";
        return l;
    }
    CublasLibrary& a = l.api;
    l.ok = bind(h, "cublasCreate_v2", a.create, l.why) &&
           bind(h, "cublasDestroy_v2", a.destroy, l.why) &&
           bind(h, "cublasSetStream_v2", a.set_stream, l.why) &&
           bind(h, "cublasSetMathMode", a.set_math_mode, l.why) &&
           bind(h, "cublasSetWorkspace_v2", a.set_workspace, l.why) &&
           bind(h, "cublasSgemm_v2", a.sgemm, l.why) &&
           bind(h, "cublasDgemm_v2", a.dgemm, l.why) &&
           bind(h, "cublasSgemmStridedBatched", a.sgemm_strided_batched, l.why) &&
           bind(h, "cublasDgemmStridedBatched", a.dgemm_strided_batched, l.why);
    return l; // the handle stays open for the life of the process
}

} // namespace

const CublasLibrary* cublas_library(std::string* why)
{
    static const Loaded loaded = load(); // thread-safe once
    if (!loaded.ok && why) *why = loaded.why;
    return loaded.ok ? &loaded.api : nullptr;
}

} // namespace gsr::gpu
