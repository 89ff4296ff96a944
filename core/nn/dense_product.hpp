#pragma once
// One dense product on row-major strided blocks, the CPU backend's GEMM. It is compiled twice:
// for the baseline x86-64 instruction set and, where the compiler can target it, for AVX2 with
// FMA; the CPU picks one at run time (dense_product_isa()).

#include <cstddef>

namespace gsr::nn::detail {

/// c = alpha * op(a) * op(b) + beta * c, with c m x n, op(a) m x k and op(b) k x n. op(a) is a
/// (m rows of k, stride lda) or, with ta, the transpose of a stored as k rows of m; the same
/// for b. beta 0: c is not read.
template <class T> struct DenseProduct {
    std::size_t m = 0, n = 0, k = 0;
    const T* a = nullptr;
    std::size_t lda = 0;
    bool ta = false;
    const T* b = nullptr;
    std::size_t ldb = 0;
    bool tb = false;
    T* c = nullptr;
    std::size_t ldc = 0;
    T alpha = 1, beta = 0;
};

void dense_product(const DenseProduct<float>& p);
void dense_product(const DenseProduct<double>& p);

/// "avx2-fma" or "baseline": the instruction set dense_product runs. AVX2 with FMA where the
/// build has that copy and the CPU supports it, unless GSR_CPU_ISA=baseline (for A/B runs).
const char* dense_product_isa();

/// Each copy directly, for tests that compare them; the AVX2 one throws std::runtime_error
/// where it is not built or the CPU lacks AVX2/FMA.
void dense_product_baseline(const DenseProduct<float>& p);
void dense_product_baseline(const DenseProduct<double>& p);
void dense_product_avx2(const DenseProduct<float>& p);
void dense_product_avx2(const DenseProduct<double>& p);
bool dense_product_avx2_available();

} // namespace gsr::nn::detail
