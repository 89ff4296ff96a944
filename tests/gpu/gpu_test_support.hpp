#pragma once
// Twin backends for the gpu tests: every tensor lives in the CUDA float32 backend and in the CPU
// float64 backend (the reference), filled with the same fresh random values. Outputs are
// poisoned (NaN) before an op runs, so an element the GPU forgot to write shows up.
#include "cuda_backend.hpp"
#include "nn/cpu_backend.hpp"
#include "nn/graph_operators.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace gsr::gpu::testing {

using namespace gsr::nn;

/// A seed per test run (printed), so every run checks fresh inputs and a failure can be replayed
/// with GSR_TEST_SEED.
inline std::uint64_t fresh_seed()
{
    static const std::uint64_t seed = [] {
        if (const char* s = std::getenv("GSR_TEST_SEED")) return std::uint64_t(std::stoull(s));
        std::random_device rd;
        const std::uint64_t v = (std::uint64_t(rd()) << 32) ^ rd();
        std::printf("[gpu-test] fresh seed %llu (replay: GSR_TEST_SEED=%llu)\n",
                    static_cast<unsigned long long>(v), static_cast<unsigned long long>(v));
        return v;
    }();
    return seed;
}

struct Twin {
    DeviceMatrix gpu, cpu;
    std::uint32_t rows() const { return cpu.rows; }
    std::uint32_t cols() const { return cpu.cols; }
    Twin columns(std::uint32_t first, std::uint32_t count) const
    {
        return {gpu.columns(first, count), cpu.columns(first, count)};
    }
};

struct TwinBytes {
    DeviceBytes gpu, cpu;
};

struct TwinCompressed {
    CompressedRows gpu, cpu;
};

class TwinBackends : public ::testing::Test {
protected:
    void SetUp() override
    {
        const GpuStatus s = probe();
        if (!s.available) GTEST_SKIP() << "no usable GPU: " << s.reason;
        gpu_ = make_cuda_backend(gpu_precision());
        cpu_ = make_cpu_backend(Precision::Float64, 2);
        // The float64 twin needs twice the float32 one's bytes: 70,001 rows of a convolution's
        // operands, dy and gradients take about 240 MB of it.
        gpu_->reserve(std::size_t(256) << 20);
        cpu_->reserve(std::size_t(512) << 20);
        rng_.seed(fresh_seed() ^ std::hash<std::string>{}(
                                      ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    }

    /// The GPU backend's scalar; the CPU twin is float64 always.
    virtual Precision gpu_precision() const { return Precision::Float32; }

    std::vector<double> random(std::size_t n, double scale = 1.0)
    {
        std::uniform_real_distribution<double> u(-scale, scale);
        std::vector<double> v(n);
        for (double& x : v) x = double(float(u(rng_))); // the same value on both sides
        return v;
    }
    Twin alloc(std::uint32_t rows, std::uint32_t cols)
    {
        return {gpu_->alloc_matrix(rows, cols), cpu_->alloc_matrix(rows, cols)};
    }
    void write(const Twin& t, const std::vector<double>& v)
    {
        gpu_->upload(t.gpu, std::span<const double>(v));
        cpu_->upload(t.cpu, std::span<const double>(v));
    }
    Twin matrix(std::uint32_t rows, std::uint32_t cols, double scale = 1.0)
    {
        Twin t = alloc(rows, cols);
        write(t, random(t.cpu.size(), scale));
        return t;
    }
    /// An output: NaN on both sides until an op writes it.
    Twin poisoned(std::uint32_t rows, std::uint32_t cols)
    {
        Twin t = alloc(rows, cols);
        poison(t);
        return t;
    }
    void poison(const Twin& t)
    {
        gpu_->fill(t.gpu, std::numeric_limits<double>::quiet_NaN());
        cpu_->fill(t.cpu, std::numeric_limits<double>::quiet_NaN());
    }
    std::vector<double> gpu_values(const Twin& t)
    {
        std::vector<double> v(t.gpu.size());
        gpu_->download(t.gpu, std::span<double>(v));
        return v;
    }
    std::vector<double> cpu_values(const Twin& t)
    {
        std::vector<double> v(t.cpu.size());
        cpu_->download(t.cpu, std::span<double>(v));
        return v;
    }
    TwinBytes bytes(const void* data, std::size_t n)
    {
        TwinBytes b{gpu_->alloc_bytes(n), cpu_->alloc_bytes(n)};
        gpu_->upload_bytes(b.gpu, data, n);
        cpu_->upload_bytes(b.cpu, data, n);
        return b;
    }
    /// Compressed rows with k distinct ascending columns of `width` per row, random values.
    TwinCompressed compressed(std::uint32_t rows, std::uint32_t width, std::uint32_t k)
    {
        TwinCompressed z;
        const Twin values = matrix(rows, k);
        const std::uint32_t ib = CompressedRows::index_bytes_for(width);
        std::vector<std::uint8_t> raw(std::size_t(rows) * k * ib);
        std::vector<std::uint32_t> cols(width);
        for (std::uint32_t r = 0; r < rows; ++r) {
            for (std::uint32_t c = 0; c < width; ++c) cols[c] = c;
            std::shuffle(cols.begin(), cols.end(), rng_);
            std::sort(cols.begin(), cols.begin() + k);
            for (std::uint32_t q = 0; q < k; ++q) {
                const std::size_t at = (std::size_t(r) * k + q) * ib;
                raw[at] = std::uint8_t(cols[q]);
                if (ib == 2) raw[at + 1] = std::uint8_t(cols[q] >> 8);
            }
        }
        const TwinBytes idx = bytes(raw.data(), raw.size());
        z.gpu = {values.gpu, idx.gpu, width, ib};
        z.cpu = {values.cpu, idx.cpu, width, ib};
        return z;
    }

    /// Every GPU element written (finite) and within tol * max(1, max |reference|).
    void expect_close(const Twin& t, double tol, const std::string& what)
    {
        const std::vector<double> g = gpu_values(t), c = cpu_values(t);
        double scale = 1.0, worst = 0.0;
        std::size_t unwritten = 0, reference_unwritten = 0;
        for (double x : c) scale = std::max(scale, std::abs(x));
        for (std::size_t i = 0; i < g.size(); ++i) {
            // A NaN would drop out of std::max unseen: each side's is counted instead.
            if (!std::isfinite(c[i])) ++reference_unwritten;
            if (!std::isfinite(g[i])) ++unwritten;
            if (std::isfinite(c[i]) && std::isfinite(g[i]))
                worst = std::max(worst, std::abs(g[i] - c[i]));
        }
        std::printf("[gpu-vs-f64] %-48s max err %.2e (scale %.2e)\n", what.c_str(), worst, scale);
        EXPECT_EQ(unwritten, 0u) << what << ": elements left poisoned";
        EXPECT_EQ(reference_unwritten, 0u) << what << ": the float64 reference left elements "
                                                      "poisoned or not finite";
        EXPECT_LE(worst, tol * scale) << what;
    }

    std::unique_ptr<Backend> gpu_, cpu_;
    std::mt19937_64 rng_;
};

/// A netlist-like random DAG (1..3 drivers per node, one duplicate edge).
inline GraphInput random_dag(std::size_t nodes, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    GraphInput g;
    g.node_count = nodes;
    g.feature_count = 2;
    g.fanin_offsets.push_back(0);
    for (std::size_t v = 0; v < nodes; ++v) {
        if (v >= 3) {
            const std::size_t fanin = 1 + rng() % 3;
            for (std::size_t i = 0; i < fanin; ++i)
                g.fanin_targets.push_back(std::uint32_t(rng() % v));
            if (v == 5) g.fanin_targets.push_back(g.fanin_targets.back());
        }
        g.fanin_offsets.push_back(g.fanin_targets.size());
    }
    g.features.assign(nodes * 2, 0.5f);
    return g;
}

/// random_dag with hubs: every node from `hubs` on also takes a driver among the first `hubs`
/// nodes, so those have about nodes / hubs neighbours each where the rest have a few (as a
/// circuit's primary inputs do).
inline GraphInput hub_dag(std::size_t nodes, std::size_t hubs, std::uint64_t seed)
{
    GraphInput g = random_dag(nodes, seed);
    std::mt19937_64 rng(seed + 1);
    GraphInput h = g;
    h.fanin_targets.clear();
    h.fanin_offsets.assign(1, 0);
    for (std::size_t v = 0; v < nodes; ++v) {
        for (std::uint64_t e = g.fanin_offsets[v]; e < g.fanin_offsets[v + 1]; ++e)
            h.fanin_targets.push_back(g.fanin_targets[e]);
        if (v >= hubs) h.fanin_targets.push_back(std::uint32_t(rng() % hubs));
        h.fanin_offsets.push_back(h.fanin_targets.size());
    }
    return h;
}

/// The operator kinds every SpMM test covers: mean over the union of fan-in and fan-out, mean
/// over each direction, and GCN's symmetric normalisation with self loops.
struct OperatorCase {
    const char* name;
    Normalisation norm;
    bool directed;
};
inline constexpr OperatorCase kOperatorCases[] = {{"mean union", Normalisation::Mean, false},
                                                  {"mean directed", Normalisation::Mean, true},
                                                  {"gcn union", Normalisation::Symmetric, false}};

} // namespace gsr::gpu::testing
