#include "train/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gsr::train {

namespace {

void check_sizes(std::span<const double> a, std::span<const double> b)
{
    if (a.size() != b.size()) {
        throw std::invalid_argument("metrics: " + std::to_string(a.size()) +
                                    " predictions against " + std::to_string(b.size()) +
                                    " targets");
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
            throw std::domain_error("metrics: " +
                                    std::string(std::isnan(a[i]) || std::isnan(b[i])
                                                    ? "NaN"
                                                    : "an infinite value") +
                                    " at position " + std::to_string(i));
        }
    }
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

bool constant(std::span<const double> v)
{
    return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

/// Why no correlation of the two columns exists; empty when one does.
std::string why_undefined(std::span<const double> prediction, std::span<const double> target)
{
    if (target.size() < 2) return "fewer than two values";
    if (constant(target)) {
        return "the target has no variance (every value is " + number(target.front()) + ")";
    }
    if (constant(prediction)) {
        return "the predictions have no variance (every value is " +
               number(prediction.front()) + ")";
    }
    return {};
}

Correlation undefined(std::string reason)
{
    Correlation c;
    c.undefined = std::move(reason);
    return c;
}

/// Pearson's r of two columns known to have variance. Means first, so large offsets (arrival
/// times, levels) do not cancel catastrophically; the deviations scaled by their largest
/// magnitude, so that neither their squares nor the product of the two sums over- or
/// underflows (values near 1e80 gave r = 0, near 1e-170 NaN).
double pearson_of(std::span<const double> x, std::span<const double> y)
{
    const double n = static_cast<double>(x.size());
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double ax = 0.0, ay = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        ax = std::max(ax, std::abs(x[i] - mx));
        ay = std::max(ay, std::abs(y[i] - my));
    }
    // Both columns vary, so both are positive, and every scaled deviation is at most 1.
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double dx = (x[i] - mx) / ax;
        const double dy = (y[i] - my) / ay;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return std::clamp(sxy / (std::sqrt(sxx) * std::sqrt(syy)), -1.0, 1.0);
}

/// Pairs tied within each run of equal values of `sorted`: sum of t (t - 1) / 2.
std::int64_t tied_pairs(std::span<const double> sorted)
{
    std::int64_t pairs = 0;
    std::size_t i = 0;
    while (i < sorted.size()) {
        std::size_t j = i + 1;
        while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
        const auto t = static_cast<std::int64_t>(j - i);
        pairs += t * (t - 1) / 2;
        i = j;
    }
    return pairs;
}

/// Sorts `v` ascending by a stable bottom-up merge sort; returns the number of inversions
/// (pairs i < j with v[i] > v[j]; equal values are not inversions).
std::int64_t sort_counting_inversions(std::vector<double>& v)
{
    const std::size_t n = v.size();
    std::vector<double> buffer(n);
    std::int64_t inversions = 0;
    for (std::size_t width = 1; width < n; width *= 2) {
        for (std::size_t lo = 0; lo < n; lo += 2 * width) {
            const std::size_t mid = std::min(lo + width, n);
            const std::size_t hi = std::min(lo + 2 * width, n);
            std::size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (v[j] < v[i]) {
                    inversions += static_cast<std::int64_t>(mid - i);
                    buffer[k++] = v[j++];
                } else {
                    buffer[k++] = v[i++];
                }
            }
            while (i < mid) buffer[k++] = v[i++];
            while (j < hi) buffer[k++] = v[j++];
        }
        v.swap(buffer);
    }
    return inversions;
}

} // namespace

void average_ranks(std::span<const double> values, std::span<double> ranks)
{
    if (values.size() != ranks.size()) {
        throw std::invalid_argument("average_ranks: output has the wrong length");
    }
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::size_t i = 0;
    while (i < order.size()) {
        std::size_t j = i + 1;
        while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
        // Positions i .. j-1 hold ranks i+1 .. j; their mean is (i + 1 + j) / 2.
        const double rank = 0.5 * static_cast<double>(i + 1 + j);
        for (std::size_t k = i; k < j; ++k) ranks[order[k]] = rank;
        i = j;
    }
}

Correlation pearson(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    if (std::string why = why_undefined(prediction, target); !why.empty()) {
        return undefined(std::move(why));
    }
    return {pearson_of(prediction, target), {}};
}

Correlation spearman(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    if (std::string why = why_undefined(prediction, target); !why.empty()) {
        return undefined(std::move(why));
    }
    std::vector<double> rp(prediction.size()), rt(target.size());
    average_ranks(prediction, rp);
    average_ranks(target, rt);
    return {pearson_of(rp, rt), {}};
}

Correlation kendall_tau_b(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    if (std::string why = why_undefined(prediction, target); !why.empty()) {
        return undefined(std::move(why));
    }
    // Knight (1966): sort by (x, y); pairs tied in x (n1) and in both (n3) are counted on the
    // runs. Then the y column, merge-sorted, needs one swap per discordant pair; pairs tied in
    // y (n2) are counted on its sorted runs.
    //   S = n0 - n1 - n2 + n3 - 2 * swaps,  tau_b = S / sqrt((n0 - n1) (n0 - n2))
    std::span<const double> x = target;
    std::span<const double> y = prediction;
    const std::size_t n = x.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return x[a] < x[b] || (x[a] == x[b] && y[a] < y[b]);
    });
    std::vector<double> xs(n), ys(n);
    for (std::size_t i = 0; i < n; ++i) {
        xs[i] = x[order[i]];
        ys[i] = y[order[i]];
    }
    const auto n0 = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(n - 1) / 2;
    const std::int64_t n1 = tied_pairs(xs);
    std::int64_t n3 = 0;
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (j < n && xs[j] == xs[i] && ys[j] == ys[i]) ++j;
        const auto t = static_cast<std::int64_t>(j - i);
        n3 += t * (t - 1) / 2;
        i = j;
    }
    const std::int64_t swaps = sort_counting_inversions(ys);
    const std::int64_t n2 = tied_pairs(ys);
    const std::int64_t s = n0 - n1 - n2 + n3 - 2 * swaps;
    // Neither column is constant, so n0 - n1 > 0 and n0 - n2 > 0.
    const double denominator =
        std::sqrt(static_cast<double>(n0 - n1)) * std::sqrt(static_cast<double>(n0 - n2));
    return {std::clamp(static_cast<double>(s) / denominator, -1.0, 1.0), {}};
}

double mean_absolute_error(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    if (target.empty()) return kUndefined;
    double sum = 0.0;
    for (std::size_t i = 0; i < target.size(); ++i) sum += std::abs(prediction[i] - target[i]);
    return sum / static_cast<double>(target.size());
}

double root_mean_square_error(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    if (target.empty()) return kUndefined;
    double sum = 0.0;
    for (std::size_t i = 0; i < target.size(); ++i) {
        const double d = prediction[i] - target[i];
        sum += d * d;
    }
    return std::sqrt(sum / static_cast<double>(target.size()));
}

Metrics evaluate(std::span<const double> prediction, std::span<const double> target)
{
    check_sizes(prediction, target);
    Metrics m;
    m.count = target.size();
    m.mae = mean_absolute_error(prediction, target);
    m.rmse = root_mean_square_error(prediction, target);
    m.pearson = pearson(prediction, target);
    m.spearman = spearman(prediction, target);
    m.kendall = kendall_tau_b(prediction, target);
    return m;
}

} // namespace gsr::train
