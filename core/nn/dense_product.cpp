// The baseline copy of dense_product, and the choice between it and the AVX2 + FMA copy
// (dense_product_avx2.cpp).

#define GSR_DENSE_PRODUCT_NAME dense_product_baseline
#include "nn/dense_product_impl.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace gsr::nn::detail {

#if defined(GSR_DENSE_AVX2)
void dense_product_avx2_copy(const DenseProduct<float>& p);
void dense_product_avx2_copy(const DenseProduct<double>& p);
#endif

bool dense_product_avx2_available()
{
#if defined(GSR_DENSE_AVX2)
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return supported;
#else
    return false;
#endif
}

namespace {

bool use_avx2()
{
    static const bool use = [] {
        const char* isa = std::getenv("GSR_CPU_ISA");
        return dense_product_avx2_available() && !(isa && std::strcmp(isa, "baseline") == 0);
    }();
    return use;
}

template <class T> void avx2_or_throw(const DenseProduct<T>& p)
{
    if (!dense_product_avx2_available())
        throw std::runtime_error("dense_product: no AVX2/FMA copy on this build or CPU");
#if defined(GSR_DENSE_AVX2)
    dense_product_avx2_copy(p);
#endif
}

template <class T> void dispatch(const DenseProduct<T>& p)
{
    if (use_avx2()) avx2_or_throw(p);
    else dense_product_baseline(p);
}

} // namespace

void dense_product_avx2(const DenseProduct<float>& p) { avx2_or_throw(p); }
void dense_product_avx2(const DenseProduct<double>& p) { avx2_or_throw(p); }
void dense_product(const DenseProduct<float>& p) { dispatch(p); }
void dense_product(const DenseProduct<double>& p) { dispatch(p); }

const char* dense_product_isa() { return use_avx2() ? "avx2-fma" : "baseline"; }

} // namespace gsr::nn::detail
