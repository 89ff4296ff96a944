// The CPU backend's GEMM (nn/dense_product.hpp), both copies: every transpose case, strided
// blocks, alpha and beta, against a float64 reference on fresh random inputs. With beta 0 the
// output starts as NaN, so a copy that read it would fail.
#include "nn/dense_product.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using gsr::nn::detail::DenseProduct;

namespace {

struct Case {
    std::size_t m, n, k;
    bool ta, tb;
    double alpha, beta;
};

template <class T> using Copy = void (*)(const DenseProduct<T>&);

/// Runs `copy` on one case with random strided operands; returns the largest error relative
/// to the float64 reference's largest absolute entry.
template <class T> double copy_error(Copy<T> copy, const Case& cs, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const std::size_t pad = 3; // every leading dimension is wider than its block
    const std::size_t a_rows = cs.ta ? cs.k : cs.m, a_cols = cs.ta ? cs.m : cs.k;
    const std::size_t b_rows = cs.tb ? cs.n : cs.k, b_cols = cs.tb ? cs.k : cs.n;
    const std::size_t lda = a_cols + pad, ldb = b_cols + pad, ldc = cs.n + pad;
    std::vector<T> a(a_rows * lda + 1), b(b_rows * ldb + 1), c(cs.m * ldc + 1);
    for (T& x : a) x = T(u(rng));
    for (T& x : b) x = T(u(rng));
    for (T& x : c) x = cs.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : T(u(rng));
    const auto at = [&](std::size_t i, std::size_t l) {
        return double(cs.ta ? a[l * lda + i] : a[i * lda + l]);
    };
    const auto bt = [&](std::size_t l, std::size_t j) {
        return double(cs.tb ? b[j * ldb + l] : b[l * ldb + j]);
    };
    std::vector<double> want(cs.m * cs.n);
    double scale = 1e-30;
    for (std::size_t i = 0; i < cs.m; ++i)
        for (std::size_t j = 0; j < cs.n; ++j) {
            double s = 0;
            for (std::size_t l = 0; l < cs.k; ++l) s += at(i, l) * bt(l, j);
            const double old = cs.beta == 0 ? 0.0 : double(c[i * ldc + j]);
            want[i * cs.n + j] = cs.alpha * s + cs.beta * old;
            scale = std::max(scale, std::abs(want[i * cs.n + j]));
        }
    const std::vector<T> before = c;
    DenseProduct<T> p;
    p.m = cs.m, p.n = cs.n, p.k = cs.k;
    p.a = a.data(), p.lda = lda, p.ta = cs.ta;
    p.b = b.data(), p.ldb = ldb, p.tb = cs.tb;
    p.c = c.data(), p.ldc = ldc;
    p.alpha = T(cs.alpha), p.beta = T(cs.beta);
    copy(p);
    double worst = 0;
    for (std::size_t i = 0; i < cs.m; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
            const std::size_t at_c = i * ldc + j;
            if (j >= cs.n) { // the padding stays as it was
                const bool same = std::isnan(double(before[at_c]))
                                      ? std::isnan(double(c[at_c]))
                                      : c[at_c] == before[at_c];
                if (!same) return std::numeric_limits<double>::infinity();
                continue;
            }
            const double e = std::abs(double(c[at_c]) - want[i * cs.n + j]) / scale;
            worst = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(worst, e);
        }
    return worst;
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    const std::size_t shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {64, 64, 64}, {130, 33, 97},
                                     {17, 128, 256}, {300, 64, 128}, {5, 9, 0}};
    const double blends[][2] = {{1, 0}, {1, 1}, {-0.5, 0.25}};
    for (const auto& s : shapes)
        for (int t = 0; t < 4; ++t)
            for (const auto& ab : blends)
                out.push_back({s[0], s[1], s[2], (t & 1) != 0, (t & 2) != 0, ab[0], ab[1]});
    return out;
}

template <class T> void check_copy(Copy<T> copy, double tolerance)
{
    std::uint64_t seed = 0x5eed;
    for (const Case& cs : cases()) {
        const double e = copy_error<T>(copy, cs, ++seed);
        EXPECT_LE(e, tolerance) << cs.m << "x" << cs.n << "x" << cs.k << " ta " << cs.ta
                                << " tb " << cs.tb << " alpha " << cs.alpha << " beta "
                                << cs.beta;
    }
}

TEST(DenseProduct, BaselineCopyMatchesFloat64Reference)
{
    check_copy<double>(gsr::nn::detail::dense_product_baseline, 1e-13);
    check_copy<float>(gsr::nn::detail::dense_product_baseline, 1e-5);
}

TEST(DenseProduct, Avx2CopyMatchesFloat64Reference)
{
    if (!gsr::nn::detail::dense_product_avx2_available())
        GTEST_SKIP() << "no AVX2/FMA copy on this build or CPU";
    check_copy<double>(gsr::nn::detail::dense_product_avx2, 1e-13);
    check_copy<float>(gsr::nn::detail::dense_product_avx2, 1e-5);
}

TEST(DenseProduct, DispatchNamesTheCopyItRuns)
{
    const char* env = std::getenv("GSR_CPU_ISA");
    const bool forced_baseline = env && std::string(env) == "baseline";
    const std::string isa = gsr::nn::detail::dense_product_isa();
    EXPECT_EQ(isa, gsr::nn::detail::dense_product_avx2_available() && !forced_baseline
                       ? "avx2-fma"
                       : "baseline");
    check_copy<float>(gsr::nn::detail::dense_product, 1e-5);
}

} // namespace
