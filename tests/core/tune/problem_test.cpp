// The problem suite and its float64 references: hand-computed cases per family, the input
// formula the planted corpus relies on, the SpMM pattern, row subsets and tolerances.
#include "labels/splitmix64.hpp"
#include "tune/engine_problems.hpp"
#include "tune/problem.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace gsr::tune;

namespace {

Problem make(OpFamily f, std::uint64_t rows, std::uint64_t cols,
             std::initializer_list<const char*> epilogue = {})
{
    Problem p;
    p.name = "hand";
    p.family = f;
    p.rows = rows;
    p.cols = cols;
    for (const char* s : epilogue) p.epilogue.push_back(parse_epilogue_step(s));
    return p;
}

} // namespace

TEST(ProblemSuite, HasEveryFamilyAndTheSpmmWidths)
{
    const auto& suite = builtin_suite();
    EXPECT_EQ(suite.size(), 14u);
    std::set<std::string> names;
    std::set<OpFamily> families;
    std::set<std::uint64_t> widths;
    for (const Problem& p : suite) {
        names.insert(p.name);
        families.insert(p.family);
        if (p.family == OpFamily::Spmm) {
            widths.insert(p.cols);
            EXPECT_EQ(p.nnz, spmm_pattern(p.rows, p.max_degree, p.graph_seed).col_idx.size());
            EXPECT_EQ(p.baseline, BaselineKind::Cusparse);
        }
        if (p.family == OpFamily::Gemm) {
            EXPECT_EQ(p.baseline, BaselineKind::Cublas);
            EXPECT_FALSE(p.epilogue.empty()); // GEMM + bias + activation
        }
    }
    EXPECT_EQ(names.size(), suite.size());
    EXPECT_EQ(families.size(), 6u);
    EXPECT_EQ(widths, (std::set<std::uint64_t>{32, 64, 128, 256}));
    EXPECT_THROW(suite_problem("nope"), gsr::Error);
}

TEST(ProblemInputs, CounterBasedFormula)
{
    // u = mix(seed*G + tensor*H + i + G); value = (u >> 40) * 2^-23 - 1.
    const std::uint64_t G = 0x9E3779B97F4A7C15ull, H = 0xD1B54A32D192ED03ull;
    const std::uint64_t u = gsr::labels::SplitMix64::mix(7 * G + 4 * H + 123 + G);
    EXPECT_EQ(input_value(7, InputTensor::Residual, 123),
              float(double(u >> 40) / 8388608.0 - 1.0));
    double sum = 0, lo = 1, hi = -1;
    for (std::uint64_t i = 0; i < 100000; ++i) {
        const double v = input_value(1, InputTensor::X, i);
        sum += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    EXPECT_GE(lo, -1.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_NEAR(sum / 100000, 0.0, 0.01); // uniform: mean 0, sd of the mean 0.0018
    EXPECT_NE(input_value(1, InputTensor::X, 5), input_value(2, InputTensor::X, 5));
}

TEST(ProblemReference, ElementwiseChain)
{
    // y = relu(0.5 * (x + bias[col])) + residual.
    Problem p = make(OpFamily::Elementwise, 1, 3, {"bias", "scale", "relu", "residual"});
    p.alpha = 0.5f;
    ProblemInputs in;
    in.x = {1.0f, -4.0f, 3.0f};
    in.bias = {1.0f, 1.0f, -1.0f};
    in.residual = {0.25f, 0.5f, 1.0f};
    const auto y = reference(p, in);
    // (1+1)*0.5 = 1 -> 1.25; (-4+1)*0.5 = -1.5 -> 0 + 0.5; (3-1)*0.5 = 1 -> 2.
    ASSERT_EQ(y.size(), 3u);
    EXPECT_DOUBLE_EQ(y[0], 1.25);
    EXPECT_DOUBLE_EQ(y[1], 0.5);
    EXPECT_DOUBLE_EQ(y[2], 2.0);
    // Activations at 1: gelu = 0.5 (1 + erf(1/sqrt 2)) = 0.8413447461, silu = 1/(1+e^-1) =
    // 0.7310585786, sigmoid the same, tanh 0.7615941560.
    for (auto [name, want] : std::vector<std::pair<const char*, double>>{{"gelu", 0.8413447461},
                                                                         {"silu", 0.7310585786},
                                                                         {"sigmoid", 0.7310585786},
                                                                         {"tanh", 0.7615941560}}) {
        Problem a = make(OpFamily::Elementwise, 1, 1, {name});
        ProblemInputs one;
        one.x = {1.0f};
        EXPECT_NEAR(reference(a, one)[0], want, 1e-9) << name;
    }
}

TEST(ProblemReference, ReductionSoftmaxLayernorm)
{
    Problem r = make(OpFamily::Reduction, 2, 4, {"scale"});
    r.alpha = 0.25f;
    ProblemInputs in;
    in.x = {1, 2, 3, 4, -1, -1, -1, -1};
    const auto mean = reference(r, in); // row means: 2.5 and -1
    ASSERT_EQ(mean.size(), 2u);
    EXPECT_DOUBLE_EQ(mean[0], 2.5);
    EXPECT_DOUBLE_EQ(mean[1], -1.0);

    // softmax([0, ln 3]) = [1/4, 3/4].
    Problem s = make(OpFamily::Softmax, 1, 2);
    ProblemInputs sx;
    sx.x = {0.0f, float(std::log(3.0))};
    const auto sm = reference(s, sx);
    EXPECT_NEAR(sm[0], 0.25, 1e-7);
    EXPECT_NEAR(sm[1], 0.75, 1e-7);

    // layernorm([1,2,3,4]), eps 0: mean 2.5, variance 1.25, (x - 2.5) / 1.1180340 =
    // [-1.3416408, -0.4472136, 0.4472136, 1.3416408]; then * gamma + beta.
    Problem l = make(OpFamily::LayerNorm, 1, 4);
    l.eps = 0.0f;
    ProblemInputs lx;
    lx.x = {1, 2, 3, 4};
    lx.gamma = {1, 1, 2, 1};
    lx.beta = {0, 0, 0, 10};
    const auto ln = reference(l, lx);
    EXPECT_NEAR(ln[0], -1.3416408, 1e-6);
    EXPECT_NEAR(ln[1], -0.4472136, 1e-6);
    EXPECT_NEAR(ln[2], 0.8944272, 1e-6);
    EXPECT_NEAR(ln[3], 11.3416408, 1e-6);
}

TEST(ProblemReference, GemmAndSpmm)
{
    // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]; + bias [1,-100]; relu.
    Problem g = make(OpFamily::Gemm, 2, 2, {"bias", "relu"});
    g.inner = 2;
    ProblemInputs gi;
    gi.x = {1, 2, 3, 4};
    gi.b = {5, 6, 7, 8};
    gi.bias = {1, -100};
    EXPECT_EQ(reference(g, gi), (std::vector<double>{20, 0, 44, 0}));

    // Row 0 has edges to 1 (weight 2) and 2 (weight -1): 2*[3,4] - [5,6] = [1,2].
    Problem s = make(OpFamily::Spmm, 3, 2);
    ProblemInputs si;
    si.row_ptr = {0, 2, 3, 3};
    si.col_idx = {1, 2, 0};
    si.values = {2, -1, 0.5f};
    si.x = {1, 2, 3, 4, 5, 6};
    EXPECT_EQ(reference(s, si), (std::vector<double>{1, 2, 0.5, 1, 0, 0}));
}

TEST(ProblemReference, RowSubsetsMatchTheFullResult)
{
    for (const char* name : {"softmax_1k", "spmm_w64", "layernorm_1k"}) {
        Problem p = suite_problem(name);
        p.rows = std::min<std::uint64_t>(p.rows, 512);
        if (p.family == OpFamily::Spmm) p.nnz = 0; // the pattern is regenerated for 512 rows
        const ProblemInputs in = make_inputs(p, 3);
        const auto full = reference(p, in);
        const auto some = reference(p, in, {5, 300});
        ASSERT_EQ(some.size(), 2 * p.cols);
        for (std::uint64_t c = 0; c < p.cols; ++c) {
            EXPECT_EQ(some[c], full[5 * p.cols + c]) << name;
            EXPECT_EQ(some[p.cols + c], full[300 * p.cols + c]) << name;
        }
    }
}

TEST(ProblemInputs, SpmmPatternIsAValidCsr)
{
    const CsrPattern p = spmm_pattern(4096, 15, 99);
    ASSERT_EQ(p.row_ptr.size(), 4097u);
    for (std::size_t r = 0; r < 4096; ++r) {
        const int deg = p.row_ptr[r + 1] - p.row_ptr[r];
        EXPECT_GE(deg, 1);
        EXPECT_LE(deg, 15);
        for (int e = p.row_ptr[r] + 1; e < p.row_ptr[r + 1]; ++e)
            EXPECT_LT(p.col_idx[std::size_t(e - 1)], p.col_idx[std::size_t(e)]); // sorted, unique
    }
    for (int c : p.col_idx) {
        EXPECT_GE(c, 0);
        EXPECT_LT(c, 4096);
    }
    // Fixed by the seed: the structure is the problem, only the values change with the seed.
    EXPECT_EQ(spmm_pattern(4096, 15, 99).col_idx, p.col_idx);
    EXPECT_NE(spmm_pattern(4096, 15, 100).col_idx, p.col_idx);
}

TEST(ProblemTolerance, OutputsThatShrinkWithTheLengthKeepAnAllowanceAsSmall)
{
    // softmax_4k's outputs are about 1/4096 and the loss is a mean of 214,591 terms: widened
    // as sums of that length, half the right answer passed both checks.
    EngineShape hyp;
    hyp.nodes = 214591;
    hyp.edges = 857340;
    const Problem loss = engine_problems(hyp).back();
    ASSERT_EQ(loss.name, "engine_loss_N214591");
    for (const Problem& p : {suite_problem("softmax_4k"), suite_problem("softmax_1k"), loss}) {
        const ProblemInputs in = make_inputs(p, 12345);
        const std::vector<std::uint64_t> rows = {0};
        const std::vector<double> want = reference(p, in, rows);
        std::vector<float> right, half;
        for (double w : want) {
            right.push_back(float(w));
            half.push_back(float(0.5 * w));
        }
        const Tolerance t = tolerance_for(p);
        EXPECT_EQ(first_mismatch(right, want, t), -1) << p.name;
        EXPECT_GE(first_mismatch(half, want, t), 0) << p.name << ": half passed, atol " << t.atol;
    }
    // softmax: 1e-4 over the columns, the relative part widened as before.
    EXPECT_NEAR(tolerance_for(suite_problem("softmax_4k")).atol, 1e-4 / 4096, 1e-18);
    EXPECT_NEAR(tolerance_for(suite_problem("softmax_4k")).rtol, 8e-4, 1e-15);
}

TEST(ProblemJson, CountsOutOfRangeAreRefusedNotWrapped)
{
    // -1 rows became 18446744073709551615, 4294967297 as a degree 1, 1.9 rows 1.
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, nlohmann::json>>{
             {"rows", -1}, {"max_degree", 4294967297ull}, {"rows", 1.9}}) {
        nlohmann::json j = problem_json(suite_problem("spmm_w32"));
        j[key] = value;
        try {
            problem_from_json(j);
            ADD_FAILURE() << key << " " << value.dump() << " was read";
        } catch (const gsr::Error& e) {
            EXPECT_NE(e.message().find("'" + key + "' has the wrong type or is out of range (" +
                                       value.dump() + ")"),
                      std::string::npos)
                << e.message();
        }
    }
    EXPECT_EQ(problem_from_json(problem_json(suite_problem("spmm_w32"))).rows,
              suite_problem("spmm_w32").rows);
}

TEST(ProblemTolerance, MismatchesAndWidening)
{
    const Tolerance t{1e-4, 1e-4};
    EXPECT_EQ(first_mismatch({1.0f, 2.0f}, {1.0, 2.00005}, t), -1);
    EXPECT_EQ(first_mismatch({1.0f, 2.0f}, {1.0, 2.001}, t), 1);
    EXPECT_EQ(first_mismatch({NAN, 2.0f}, {1.0, 2.0}, t), 0);
    EXPECT_EQ(first_mismatch({1.0f}, {1.0, 2.0}, t), 0); // wrong size
    // K = 4096: sqrt(4096 / 64) = 8 -> 8e-4; K = 1024 -> 4e-4; elementwise stays 1e-4.
    EXPECT_NEAR(tolerance_for(suite_problem("gemm_bias_relu")).atol, 8e-4, 1e-15);
    EXPECT_NEAR(tolerance_for(suite_problem("gemm_bias_gelu_mlp")).atol, 4e-4, 1e-15);
    // A scale step scales the allowance with the outputs: relu(0.5 x) 5e-5.
    EXPECT_NEAR(tolerance_for(suite_problem("ew_scale_relu")).atol, 5e-5, 1e-15);
    EXPECT_EQ(tolerance_for(gsr::sol::DType::F16).atol, 1e-2);
    EXPECT_EQ(parse_verdict(verdict_name(Verdict::IllegalAddress)), Verdict::IllegalAddress);
}
