#include "cusparse_library.hpp"

#include "dynamic_library.hpp"

namespace gsr::gpu {

namespace {

LoadedLibrary<CusparseLibrary> load()
{
    LoadedLibrary<CusparseLibrary> l;
    void* h = open_first({"libcusparse.so.12", "libcusparse.so"}, l.why);
    if (!h) {
        l.why = "cuSPARSE: " + l.why + "; install NVIDIA's CUDA 13 libraries";
        return l;
    }
    CusparseLibrary& a = l.api;
    const char* lib = "libcusparse";
    l.ok = bind(h, "cusparseCreate", a.create, lib, l.why) &&
           bind(h, "cusparseDestroy", a.destroy, lib, l.why) &&
           bind(h, "cusparseSetStream", a.set_stream, lib, l.why) &&
           bind(h, "cusparseCreateCsr", a.create_csr, lib, l.why) &&
           bind(h, "cusparseDestroySpMat", a.destroy_sp_mat, lib, l.why) &&
           bind(h, "cusparseCreateDnMat", a.create_dn_mat, lib, l.why) &&
           bind(h, "cusparseDestroyDnMat", a.destroy_dn_mat, lib, l.why) &&
           bind(h, "cusparseSpMM_bufferSize", a.spmm_buffer_size, lib, l.why) &&
           bind(h, "cusparseSpMM_preprocess", a.spmm_preprocess, lib, l.why) &&
           bind(h, "cusparseSpMM", a.spmm, lib, l.why) &&
           bind(h, "cusparseGetErrorString", a.error_string, lib, l.why);
    return l;
}

} // namespace

const CusparseLibrary* cusparse_library(std::string* why)
{
    return load_once<CusparseLibrary>(load, why);
}

} // namespace gsr::gpu
