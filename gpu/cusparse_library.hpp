#pragma once
// cuSPARSE, loaded at run time (see dynamic_library.hpp): the generic SpMM API, the vendor
// baseline of the kernel lab's SpMM problems.
#include <cusparse.h>

#include <string>

namespace gsr::gpu {

struct CusparseLibrary {
    decltype(&cusparseCreate) create = nullptr;
    decltype(&cusparseDestroy) destroy = nullptr;
    decltype(&cusparseSetStream) set_stream = nullptr;
    decltype(&cusparseCreateCsr) create_csr = nullptr;
    decltype(&cusparseDestroySpMat) destroy_sp_mat = nullptr;
    decltype(&cusparseCreateDnMat) create_dn_mat = nullptr;
    decltype(&cusparseDestroyDnMat) destroy_dn_mat = nullptr;
    decltype(&cusparseSpMM_bufferSize) spmm_buffer_size = nullptr;
    decltype(&cusparseSpMM_preprocess) spmm_preprocess = nullptr;
    decltype(&cusparseSpMM) spmm = nullptr;
    decltype(&cusparseGetErrorString) error_string = nullptr;
};

/// The loaded library (libcusparse.so.12 as CUDA 13 ships it, else libcusparse.so), or
/// nullptr with the reason in *why.
const CusparseLibrary* cusparse_library(std::string* why = nullptr);

} // namespace gsr::gpu
