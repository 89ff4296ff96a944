#pragma once
// Small random circuit-like graphs and gradient-check arithmetic for the nn tests.
#include "nn/graph_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace gsr::nn::testing {

/// A DAG like a netlist: the first `inputs` nodes have no fan-in, every other node reads 1..3
/// earlier nodes (one duplicate edge on purpose); some nodes drive nothing.
inline GraphInput random_graph(std::size_t nodes, std::size_t features, std::uint64_t seed,
                               std::size_t inputs = 3)
{
    std::mt19937_64 rng(seed);
    GraphInput g;
    g.node_count = nodes;
    g.feature_count = features;
    g.fanin_offsets.push_back(0);
    for (std::size_t v = 0; v < nodes; ++v) {
        if (v >= inputs) {
            const std::size_t fanin = 1 + rng() % 3;
            for (std::size_t i = 0; i < fanin; ++i)
                g.fanin_targets.push_back(std::uint32_t(rng() % v));
            if (v == inputs + 1) g.fanin_targets.push_back(g.fanin_targets.back()); // duplicate
        }
        g.fanin_offsets.push_back(g.fanin_targets.size());
    }
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    g.features.resize(nodes * features);
    for (float& x : g.features) x = u(rng);
    return g;
}

inline std::vector<double> random_values(std::size_t n, std::uint64_t seed, double scale = 1.0)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-scale, scale);
    std::vector<double> v(n);
    for (double& x : v) x = u(rng);
    return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b)
{
    double s = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

/// Norm-wise relative error ||a - b|| / max(||a||, ||b||, tiny).
inline double relative_error(const std::vector<double>& a, const std::vector<double>& b)
{
    double diff = 0.0, na = 0.0, nb = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (a[i] - b[i]) * (a[i] - b[i]);
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    const double scale = std::sqrt(std::max({na, nb, 1e-300}));
    return std::sqrt(diff) / scale;
}

/// Largest |a - b| over the largest |b|: the element-wise view of the same comparison.
inline double max_relative_error(const std::vector<double>& a, const std::vector<double>& b)
{
    double diff = 0.0, scale = 1e-300;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff = std::max(diff, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return diff / scale;
}

/// Central differences of f at x: (f(x + h e_i) - f(x - h e_i)) / 2h for every i.
template <class F>
std::vector<double> central_differences(std::vector<double> x, F&& f, double h = 1e-6)
{
    std::vector<double> g(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = f(x);
        x[i] = keep - h;
        const double down = f(x);
        x[i] = keep;
        g[i] = (up - down) / (2.0 * h);
    }
    return g;
}

} // namespace gsr::nn::testing
