// The body of one copy of dense_product (dense_product.cpp, dense_product_avx2.cpp): included
// once per copy, after GSR_DENSE_PRODUCT_NAME is defined. The AVX2 copy renames Eigen's
// namespace first, so that none of its template instances share a symbol with the baseline
// copy's (the linker would keep one of them for both).

#include "nn/dense_product.hpp"

#include <Eigen/Core>

namespace {

template <class T> void product_impl(const gsr::nn::detail::DenseProduct<T>& p)
{
    if (p.m == 0 || p.n == 0) return;
    using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using In = Eigen::Map<const Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
    using Out = Eigen::Map<Mat, Eigen::Unaligned, Eigen::OuterStride<>>;
    const auto idx = [](std::size_t i) { return Eigen::Index(i); };
    Out c(p.c, idx(p.m), idx(p.n), Eigen::OuterStride<>(idx(p.ldc)));
    if (p.k == 0) {
        if (p.beta == T(0))
            c.setZero();
        else
            c *= p.beta;
        return;
    }
    // a stored as m x k, or as k x m and transposed; b as k x n, or n x k transposed.
    const In a(p.a, idx(p.ta ? p.k : p.m), idx(p.ta ? p.m : p.k),
               Eigen::OuterStride<>(idx(p.lda)));
    const In b(p.b, idx(p.tb ? p.n : p.k), idx(p.tb ? p.k : p.n),
               Eigen::OuterStride<>(idx(p.ldb)));
    const auto blend = [&](const auto& product) {
        if (p.beta == T(0)) {
            c.noalias() = p.alpha * product;
        } else {
            if (p.beta != T(1)) c *= p.beta;
            c.noalias() += p.alpha * product;
        }
    };
    if (!p.ta && !p.tb) blend(a * b);
    else if (!p.ta) blend(a * b.transpose());
    else if (!p.tb) blend(a.transpose() * b);
    else blend(a.transpose() * b.transpose());
}

} // namespace

namespace gsr::nn::detail {

void GSR_DENSE_PRODUCT_NAME(const DenseProduct<float>& p) { product_impl(p); }
void GSR_DENSE_PRODUCT_NAME(const DenseProduct<double>& p) { product_impl(p); }

} // namespace gsr::nn::detail
