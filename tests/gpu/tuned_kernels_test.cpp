// The kernel lab's Apply on the GPU: DSL SpMM configs regenerated for the backend's operator
// (tune::tuned_kernels -> gsr_spmm_engine) and handed to the CUDA backend, which then runs them
// instead of its own SpMM. Against the CPU backend in float64 on fresh random graphs, outputs
// poisoned first: every operator kind (mean union and directed, GCN with self loops), both
// orientations, beta 0 and an accumulating beta, rows with a leading dimension wider than the
// width; misaligned slices fall back to the built-in kernel (no tuned launch). A whole rev model
// trains to the same losses with and without the tuned kernel.
#include "gpu_test_support.hpp"

#include "nn/model.hpp"
#include "tune/applied_kernels.hpp"
#include "tune/engine_problems.hpp"

#include <cmath>

using namespace gsr::gpu::testing;

namespace {

constexpr double kReduction = 2e-5;

/// An applied SpMM config for an engine problem of width `width` on `nodes` nodes.
gsr::tune::AppliedKernel applied_spmm(std::uint32_t nodes, std::uint32_t width,
                                      const std::string& config)
{
    gsr::tune::EngineShape s;
    s.model = ModelKind::Rev;
    s.layers = 2;
    s.hidden = 2 * width;
    s.groups = 2;
    s.nodes = nodes;
    s.edges = 3 * std::uint64_t(nodes);
    for (const gsr::tune::Problem& p : gsr::tune::engine_problems(s))
        if (p.family == gsr::tune::OpFamily::Spmm) {
            gsr::tune::AppliedKernel a;
            a.problem = p.name;
            a.operation = gsr::tune::engine_operation(p.name);
            a.problem_spec = gsr::tune::problem_json(p);
            a.config = gsr::tune::config_from_text(config);
            a.device = "H100 SXM";
            a.session = 1;
            return a;
        }
    throw std::logic_error("no engine SpMM problem");
}

std::vector<TunedKernel> tuned(const std::vector<gsr::tune::AppliedKernel>& applied)
{
    std::vector<std::string> skipped;
    std::vector<TunedKernel> k = gsr::tune::tuned_kernels(applied, &skipped);
    EXPECT_TRUE(skipped.empty()) << skipped.front();
    return k;
}

class TunedKernels : public TwinBackends {};

const Transpose kBoth[] = {Transpose::No, Transpose::Yes};

} // namespace

TEST_F(TunedKernels, AppliedSpmmMatchesTheCpuOnEveryOperator)
{
    const std::uint32_t n = 2500;
    const GraphInput g = random_dag(n, fresh_seed());
    struct Config {
        std::uint32_t width;
        const char* text;
    } configs[] = {{64, "family=spmm block=128 tpr=16 vec=4 unroll=4"},
                   {64, "family=spmm block=256 tpr=32 vec=2 unroll=1"},
                   {32, "family=spmm block=64 tpr=8 vec=1 unroll=2"},
                   {128, "family=spmm block=256 tpr=32 vec=4 unroll=8"}};
    for (const Config& cf : configs) {
        const std::vector<std::string> notes =
            gpu_->use_tuned_kernels(tuned({applied_spmm(n, cf.width, cf.text)}));
        ASSERT_EQ(notes.size(), 1u);
        ASSERT_NE(notes[0].find("used for the SpMM at width " + std::to_string(cf.width)),
                  std::string::npos)
            << notes[0];
        for (const OperatorCase& c : kOperatorCases) {
            ArenaScope gs(gpu_->arena()), cs(cpu_->arena());
            const AggregationOperators og = upload_aggregation(*gpu_, g, c.norm, c.directed);
            const AggregationOperators oc = upload_aggregation(*cpu_, g, c.norm, c.directed);
            for (std::uint32_t t = 0; t < oc.terms; ++t)
                for (Transpose tr : kBoth) {
                    ArenaScope gi(gpu_->arena()), ci(cpu_->arena());
                    const std::string what = std::string(cf.text) + ", " + c.name +
                                             (tr == Transpose::No ? " N" : " T");
                    const Twin x = matrix(n, cf.width);
                    const std::uint64_t before = gpu_->tuned_launches();
                    const Twin z = poisoned(n, cf.width);
                    gpu_->spmm(og.op[t], tr, 1.0, x.gpu, 0.0, z.gpu);
                    cpu_->spmm(oc.op[t], tr, 1.0, x.cpu, 0.0, z.cpu);
                    expect_close(z, kReduction, "tuned spmm beta 0: " + what);
                    EXPECT_EQ(gpu_->tuned_launches(), before + 1) << what;

                    // Rows of a wider matrix (ld = width + 4: still vector-aligned).
                    const Twin wide = matrix(n, cf.width + 4);
                    const Twin y = wide.columns(4, cf.width);
                    gpu_->spmm(og.op[t], tr, 0.5, x.gpu, 2.0, y.gpu);
                    cpu_->spmm(oc.op[t], tr, 0.5, x.cpu, 2.0, y.cpu);
                    expect_close(y, kReduction, "tuned spmm accumulating: " + what);
                    EXPECT_EQ(gpu_->tuned_launches(), before + 2) << what;
                }
        }
    }
}

TEST_F(TunedKernels, MisalignedRowsAndOtherWidthsUseTheBackendsOwnKernel)
{
    const std::uint32_t n = 1500;
    const GraphInput g = random_dag(n, fresh_seed());
    gpu_->use_tuned_kernels(tuned({applied_spmm(n, 64, "family=spmm block=128 tpr=16 vec=4")}));
    const AggregationOperators og = upload_aggregation(*gpu_, g, Normalisation::Mean, false);
    const AggregationOperators oc = upload_aggregation(*cpu_, g, Normalisation::Mean, false);
    const Twin x = matrix(n, 64);
    const Twin wide = matrix(n, 66);
    const Twin y = wide.columns(1, 64); // float4 loads cannot start at column 1
    gpu_->spmm(og.op[0], Transpose::No, 1.0, x.gpu, 0.0, y.gpu);
    cpu_->spmm(oc.op[0], Transpose::No, 1.0, x.cpu, 0.0, y.cpu);
    expect_close(y, kReduction, "misaligned rows");
    const Twin x32 = matrix(n, 32), y32 = poisoned(n, 32);
    gpu_->spmm(og.op[0], Transpose::No, 1.0, x32.gpu, 0.0, y32.gpu);
    cpu_->spmm(oc.op[0], Transpose::No, 1.0, x32.cpu, 0.0, y32.cpu);
    expect_close(y32, kReduction, "width without a tuned kernel");
    EXPECT_EQ(gpu_->tuned_launches(), 0u);
}

TEST_F(TunedKernels, KernelsThatCannotRunAreRefusedWithTheirReason)
{
    TunedKernel bad = tuned({applied_spmm(1000, 64, "family=spmm block=128 tpr=16 vec=4")})[0];
    bad.source += "\nthis is not CUDA;\n";
    TunedKernel other = bad;
    other.op = "layernorm";
    const std::vector<std::string> notes = gpu_->use_tuned_kernels({bad, other});
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("does not compile"), std::string::npos) << notes[0];
    EXPECT_NE(notes[1].find("no operation 'layernorm'"), std::string::npos) << notes[1];
    auto f64 = gsr::gpu::make_cuda_backend(Precision::Float64);
    const std::vector<std::string> n64 = f64->use_tuned_kernels({bad});
    ASSERT_EQ(n64.size(), 1u);
    EXPECT_NE(n64[0].find("float64"), std::string::npos) << n64[0];
}

TEST(TunedKernelsModel, RevTrainsToTheSameLossesWithTheAppliedSpmm)
{
    if (!gsr::gpu::probe().available) GTEST_SKIP() << "no usable GPU";
    const std::uint32_t n = 3000;
    const GraphInput g = random_dag(n, fresh_seed());
    std::vector<float> targets(n);
    for (std::uint32_t v = 0; v < n; ++v) targets[v] = float(std::sin(0.01 * v));
    std::vector<std::uint32_t> train(n);
    for (std::uint32_t v = 0; v < n; ++v) train[v] = v;
    ModelConfig c;
    c.kind = ModelKind::Rev;
    c.layers = 4;
    c.hidden = 128;
    c.groups = 2;
    c.seed = 5;
    auto plain_backend = gsr::gpu::make_cuda_backend(Precision::Float32);
    auto tuned_backend = gsr::gpu::make_cuda_backend(Precision::Float32);
    tuned_backend->use_tuned_kernels(
        tuned({applied_spmm(n, 64, "family=spmm block=256 tpr=16 vec=4 unroll=2")}));
    Model plain(c, g.feature_count, {}, std::move(plain_backend));
    Model fast(c, g.feature_count, {}, std::move(tuned_backend));
    plain.bind_graph(g);
    fast.bind_graph(g);
    for (int step = 0; step < 5; ++step) {
        const double a = plain.train_step(train, targets, LossKind::MeanSquaredError);
        const double b = fast.train_step(train, targets, LossKind::MeanSquaredError);
        std::printf("[tuned] rev step %d loss built-in %.8f tuned %.8f\n", step + 1, a, b);
        // Only the summation order of the SpMM differs: float rounding, amplified by Adam.
        EXPECT_LE(std::abs(a - b), (step == 0 ? 1e-5 : 1e-3) * std::abs(a)) << step + 1;
    }
    // Forward, backward and the inverse of each block aggregate at width D / C = 64.
    EXPECT_GE(fast.backend().tuned_launches(), 5u * c.layers * c.groups);
    EXPECT_EQ(plain.backend().tuned_launches(), 0u);
}
