#pragma once
// Regression metrics of predictions against targets: Pearson r, Spearman rho (average ranks for
// ties), Kendall tau-b (Knight's O(n log n) algorithm with the tie corrections), MAE and RMSE.
//
// A correlation is undefined when either side has no variance (every value equal) or fewer than
// two values are given: it is then NaN and `undefined` says why, in words fit for a user. The
// formulas never divide by zero. NaN and infinite inputs are a caller bug and are refused
// (std::domain_error): the trainer stops a diverged run before its predictions get here.
#include <cstddef>
#include <limits>
#include <span>
#include <string>

namespace gsr::train {

inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

/// A correlation coefficient, or NaN with the reason it has none.
struct Correlation {
    double value = kUndefined;
    std::string undefined = "not computed"; ///< empty when `value` is defined

    bool defined() const { return undefined.empty(); }
};

/// Every metric of one prediction/target pair of columns.
struct Metrics {
    std::size_t count = 0;
    double mae = kUndefined;  ///< NaN when count == 0
    double rmse = kUndefined; ///< NaN when count == 0
    Correlation pearson, spearman, kendall;
};

Correlation pearson(std::span<const double> prediction, std::span<const double> target);
Correlation spearman(std::span<const double> prediction, std::span<const double> target);
/// Kendall tau-b, in O(n log n).
Correlation kendall_tau_b(std::span<const double> prediction, std::span<const double> target);
double mean_absolute_error(std::span<const double> prediction, std::span<const double> target);
double root_mean_square_error(std::span<const double> prediction,
                              std::span<const double> target);

/// All metrics at once. Throws std::invalid_argument when the spans differ in length.
Metrics evaluate(std::span<const double> prediction, std::span<const double> target);

/// Ranks from 1, ties sharing the average of the ranks they span (the "fractional" ranking
/// Spearman's rho uses).
void average_ranks(std::span<const double> values, std::span<double> ranks);

} // namespace gsr::train
