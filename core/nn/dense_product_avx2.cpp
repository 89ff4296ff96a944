// The AVX2 + FMA copy of dense_product. CMake compiles this file with -mavx2 -mfma and defines
// GSR_DENSE_AVX2 where the compiler targets x86-64; elsewhere it is empty. Nothing here may be
// shared with the rest of the program: a function or template instance that the linker merged
// with a baseline copy could run AVX2 code on a CPU without it. So Eigen's namespace is renamed
// (every Eigen symbol here is GsrEigenAvx2::...) and product_impl has internal linkage. The
// test dense_product_avx2_symbols (tests/CMakeLists.txt, tests/core/nn/check_avx2_symbols.cmake)
// lists the object's symbols and fails on any other name that the linker could merge.

#if defined(GSR_DENSE_AVX2)
#if !defined(__AVX2__) || !defined(__FMA__)
#error "dense_product_avx2.cpp must be compiled with -mavx2 -mfma"
#endif
#define Eigen GsrEigenAvx2
#define GSR_DENSE_PRODUCT_NAME dense_product_avx2_copy
#include "nn/dense_product_impl.hpp"
#endif
