// Metrics: hand-computed cases, and the fast algorithms against O(n^2) definitions on random
// data with many ties.
#include "train/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace gsr::train;

namespace {

double brute_pearson(const std::vector<double>& x, const std::vector<double>& y)
{
    // The textbook one-pass formula, deliberately unlike the library's two-pass one.
    const double n = static_cast<double>(x.size());
    long double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sx += x[i];
        sy += y[i];
        sxx += static_cast<long double>(x[i]) * x[i];
        syy += static_cast<long double>(y[i]) * y[i];
        sxy += static_cast<long double>(x[i]) * y[i];
    }
    const long double cov = sxy - sx * sy / n;
    return static_cast<double>(cov / std::sqrt((sxx - sx * sx / n) * (syy - sy * sy / n)));
}

std::vector<double> brute_ranks(const std::vector<double>& v)
{
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        double less = 0, equal = 0;
        for (double w : v) {
            less += w < v[i];
            equal += w == v[i];
        }
        r[i] = less + (equal + 1) / 2;
    }
    return r;
}

double brute_kendall_b(const std::vector<double>& x, const std::vector<double>& y)
{
    long long concordant_minus_discordant = 0, tied_x = 0, tied_y = 0, pairs = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        for (std::size_t j = i + 1; j < x.size(); ++j) {
            ++pairs;
            const int sx = (x[i] < x[j]) - (x[i] > x[j]);
            const int sy = (y[i] < y[j]) - (y[i] > y[j]);
            concordant_minus_discordant += sx * sy;
            tied_x += sx == 0;
            tied_y += sy == 0;
        }
    }
    return static_cast<double>(concordant_minus_discordant) /
           std::sqrt(static_cast<double>(pairs - tied_x) * static_cast<double>(pairs - tied_y));
}

} // namespace

TEST(Metrics, PearsonOfAHandComputedCase)
{
    const std::vector<double> x{1, 2, 3}, y{2, 4, 7};
    EXPECT_NEAR(pearson(y, x).value, 5.0 / std::sqrt(228.0 / 9.0), 1e-14);
}

TEST(Metrics, SpearmanAveragesTheRanksOfTies)
{
    const std::vector<double> x{1, 2, 2, 3}, y{1, 2, 3, 4};
    std::vector<double> ranks(4);
    average_ranks(x, ranks);
    EXPECT_EQ(ranks, (std::vector<double>{1, 2.5, 2.5, 4}));
    EXPECT_NEAR(spearman(x, y).value, 4.5 / std::sqrt(22.5), 1e-14);
}

TEST(Metrics, KendallTauBOfTheScipyExample)
{
    // scipy.stats.kendalltau documentation: -0.47140452079103173.
    const std::vector<double> x{12, 2, 1, 12, 2}, y{1, 4, 7, 1, 0};
    EXPECT_NEAR(kendall_tau_b(x, y).value, -0.47140452079103173, 1e-14);
    EXPECT_NEAR(kendall_tau_b(y, x).value, -0.47140452079103173, 1e-14);
}

TEST(Metrics, PerfectAndReversedOrder)
{
    const std::vector<double> x{1, 5, 7, 9}, up{0, 1, 2, 30}, down{4, 3, 2, 1};
    EXPECT_DOUBLE_EQ(spearman(up, x).value, 1.0);
    EXPECT_DOUBLE_EQ(kendall_tau_b(up, x).value, 1.0);
    EXPECT_DOUBLE_EQ(kendall_tau_b(down, x).value, -1.0);
    EXPECT_DOUBLE_EQ(spearman(down, x).value, -1.0);
}

TEST(Metrics, MaeAndRmse)
{
    const std::vector<double> p{1, 2, 3}, t{2, 2, 5};
    EXPECT_DOUBLE_EQ(mean_absolute_error(p, t), 1.0);
    EXPECT_DOUBLE_EQ(root_mean_square_error(p, t), std::sqrt(5.0 / 3.0));
}

TEST(Metrics, ConstantTargetIsReportedNotDividedBy)
{
    const std::vector<double> p{0.1, 0.2, 0.3}, t{1, 1, 1};
    const Metrics m = evaluate(p, t);
    EXPECT_EQ(m.count, 3u);
    for (const Correlation* c : {&m.pearson, &m.spearman, &m.kendall}) {
        EXPECT_FALSE(c->defined());
        EXPECT_TRUE(std::isnan(c->value));
        EXPECT_NE(c->undefined.find("target has no variance"), std::string::npos) << c->undefined;
    }
    EXPECT_NEAR(m.mae, 0.8, 1e-12);
}

TEST(Metrics, ConstantPredictionAndTooFewValues)
{
    const std::vector<double> p{2, 2, 2}, t{1, 2, 3};
    EXPECT_NE(kendall_tau_b(p, t).undefined.find("predictions have no variance"),
              std::string::npos);
    const std::vector<double> one{1};
    EXPECT_EQ(pearson(one, one).undefined, "fewer than two values");
    const Metrics empty = evaluate({}, {});
    EXPECT_TRUE(std::isnan(empty.mae));
    EXPECT_FALSE(empty.spearman.defined());
}

TEST(Metrics, MismatchedLengthsAndNonFiniteValuesAreRefused)
{
    const std::vector<double> a{1, 2}, b{1, 2, 3}, bad{1, std::nan("")};
    EXPECT_THROW(evaluate(a, b), std::invalid_argument);
    EXPECT_THROW(pearson(bad, a), std::domain_error);
    // An infinity gave a NaN r that claimed to be defined.
    const std::vector<double> inf{1, HUGE_VAL};
    try {
        evaluate(inf, a);
        ADD_FAILURE() << "an infinite prediction was scored";
    } catch (const std::domain_error& e) {
        EXPECT_STREQ(e.what(), "metrics: an infinite value at position 1");
    }
}

TEST(Metrics, PearsonHoldsAtExtremeMagnitudes)
{
    // sqrt(sxx * syy) overflowed at 1e80 (r = 0) and underflowed at 1e-170 (r = NaN).
    for (double scale : {1e80, 1e-170, 1e150, 1e-300}) {
        const std::vector<double> x{scale, -scale, 0.0, 0.5 * scale};
        const std::vector<double> y{2 * scale, -2 * scale, 0.0, scale};
        const std::vector<double> z{-scale, scale, 0.0, -0.5 * scale};
        EXPECT_NEAR(pearson(x, y).value, 1.0, 1e-15) << scale;
        EXPECT_NEAR(pearson(x, z).value, -1.0, 1e-15) << scale;
    }
    // n = 2: +1 or -1 whatever the values.
    EXPECT_DOUBLE_EQ(pearson(std::vector<double>{3, 4}, std::vector<double>{-7, 100}).value, 1.0);
    EXPECT_DOUBLE_EQ(pearson(std::vector<double>{3, 4}, std::vector<double>{100, -7}).value,
                     -1.0);
}

TEST(Metrics, FastAlgorithmsAgreeWithBruteForceOnTiedRandomData)
{
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t n = 2 + rng() % 300;
        // Few distinct values in some trials, so ties (and joint ties) are common.
        const int levels = trial % 3 == 0 ? 3 : (trial % 3 == 1 ? 20 : 100000);
        std::vector<double> x(n), y(n);
        for (std::size_t i = 0; i < n; ++i) {
            x[i] = static_cast<double>(rng() % levels);
            y[i] = trial % 2 ? x[i] * 0.5 + static_cast<double>(rng() % levels)
                             : static_cast<double>(rng() % levels);
        }
        x[0] = 0; // never constant
        x[n - 1] = 1;
        y[0] = 5;
        y[n - 1] = -2;
        SCOPED_TRACE("trial " + std::to_string(trial) + ", n " + std::to_string(n));
        EXPECT_NEAR(pearson(x, y).value, brute_pearson(x, y), 1e-9);
        EXPECT_NEAR(spearman(x, y).value, brute_pearson(brute_ranks(x), brute_ranks(y)), 1e-9);
        EXPECT_NEAR(kendall_tau_b(x, y).value, brute_kendall_b(x, y), 1e-12);
        std::vector<double> ranks(n);
        average_ranks(x, ranks);
        EXPECT_EQ(ranks, brute_ranks(x));
    }
}

TEST(Metrics, KendallOnALargeTiedInputMatchesThePairCount)
{
    // 200k values would take minutes in O(n^2) (the suite would time out); Knight's algorithm
    // takes milliseconds. Heavy ties in both (1,000 and 1,100 distinct values): its first 3,000
    // pairs' tau-b is counted pair by pair, and the whole sits where the model puts it.
    std::mt19937_64 rng(3);
    std::vector<double> x(200000), y(200000);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<double>(rng() % 1000);
        y[i] = x[i] + static_cast<double>(rng() % 100);
    }
    const std::vector<double> xs(x.begin(), x.begin() + 3000), ys(y.begin(), y.begin() + 3000);
    EXPECT_NEAR(kendall_tau_b(ys, xs).value, brute_kendall_b(ys, xs), 1e-12);
    const Correlation t = kendall_tau_b(y, x);
    EXPECT_TRUE(t.defined());
    EXPECT_NEAR(t.value, kendall_tau_b(ys, xs).value, 0.02); // a sample of the same law
}
