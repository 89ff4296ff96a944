// The engine's hot operations as problems, at the sizes of EPFL hyp (COUNTS.csv: 214,591
// nodes, 857,340 directed edges) with D = 128, C = 2: names, shapes, FLOPs and bytes worked
// out by hand from sol/op_models.hpp's table.
#include "tune/engine_problems.hpp"

#include "sol/sol_analysis.hpp"
#include "train/trainer.hpp"
#include "tune/search.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace gsr;
using namespace gsr::tune;

namespace {

constexpr std::uint64_t kHypNodes = 214591, kHypEdges = 857340;

EngineShape hyp(nn::ModelKind kind = nn::ModelKind::Gsr)
{
    EngineShape s;
    s.model = kind;
    s.layers = 256;
    s.hidden = 128;
    s.groups = 2;
    s.topk = 16;
    s.nodes = kHypNodes;
    s.edges = kHypEdges;
    return s;
}

const Problem& named(const std::vector<Problem>& ps, const std::string& name)
{
    for (const Problem& p : ps)
        if (p.name == name) return p;
    ADD_FAILURE() << "no problem " << name;
    return ps.front();
}

} // namespace

TEST(EngineProblems, HypGsrNamesAndShapes)
{
    const std::vector<Problem> ps = engine_problems(hyp());
    ASSERT_EQ(ps.size(), 5u);
    EXPECT_EQ(ps[0].name, "engine_layernorm_N214591_F64");
    EXPECT_EQ(ps[1].name, "engine_topk_dense_N214591_F64");
    EXPECT_EQ(ps[2].name, "engine_spmm_N214591_F64");
    EXPECT_EQ(ps[3].name, "engine_gemm_N214591_F64");
    EXPECT_EQ(ps[4].name, "engine_loss_N214591");
    for (const Problem& p : ps) EXPECT_FALSE(p.description.empty()) << p.name;

    EXPECT_EQ(ps[0].family, OpFamily::LayerNorm);
    EXPECT_EQ(ps[0].rows, 214591u);
    EXPECT_EQ(ps[0].cols, 64u);
    EXPECT_EQ(ps[1].family, OpFamily::Elementwise);
    EXPECT_EQ(epilogue_chain_text(ps[1].epilogue), "relu");
    // 214591 / 256 = 838.2..., so 839 * 256 rows.
    EXPECT_EQ(ps[3].rows, 214784u);
    EXPECT_EQ(ps[3].cols, 64u);
    EXPECT_EQ(ps[3].inner, 64u);
    EXPECT_EQ(epilogue_chain_text(ps[3].epilogue), "bias,residual");
    EXPECT_EQ(ps[4].family, OpFamily::Reduction);
    EXPECT_EQ(ps[4].rows, 1u);
    EXPECT_EQ(ps[4].cols, 214591u);
    EXPECT_FLOAT_EQ(ps[4].alpha, float(1.0 / 214591.0));

    EXPECT_EQ(ps[3].baseline, BaselineKind::Cublas);
    EXPECT_EQ(ps[2].baseline, BaselineKind::Cusparse);
    EXPECT_EQ(ps[0].baseline, BaselineKind::Straightforward);
    EXPECT_EQ(ps[4].baseline, BaselineKind::Straightforward);
}

TEST(EngineProblems, HypCostsByHand)
{
    const std::vector<Problem> ps = engine_problems(hyp());
    // LayerNorm R x C = 214591 x 64 = 13,733,824 elements: 7RC FLOP, 2eRC + 2eC bytes.
    const sol::OpCost ln = sol::op_cost(ps[0].op_spec());
    EXPECT_DOUBLE_EQ(ln.flops, 96136768.0);
    EXPECT_FALSE(ln.flops_counted);
    EXPECT_DOUBLE_EQ(ln.bytes, 109870592.0 + 512.0);
    // ReLU: one read, one write of 13,733,824 floats.
    EXPECT_DOUBLE_EQ(sol::op_cost(ps[1].op_spec()).bytes, 109870592.0);
    // GEMM 214784 x 64 x 64: 2MNK = 1,759,510,528 FLOP; 4(MK + KN + MN) = 109,985,792 bytes,
    // + 4N for the bias and 4MN = 54,984,704 for the residual.
    const sol::OpCost g = sol::op_cost(ps[3].op_spec());
    EXPECT_DOUBLE_EQ(g.flops, 1759510528.0);
    EXPECT_DOUBLE_EQ(g.bytes, 109985792.0 + 256.0 + 54984704.0);
    // The mean loss: 214591 floats read, one written.
    EXPECT_DOUBLE_EQ(sol::op_cost(ps[4].op_spec()).bytes, 4.0 * 214592.0);

    // SpMM at F = 64: 2 nnz F FLOP; 4(M + 1) + 8 nnz + 4NF + 4MF bytes.
    const Problem& m = ps[2];
    const double nnz = double(m.nnz);
    const sol::OpCost s = sol::op_cost(m.op_spec());
    EXPECT_DOUBLE_EQ(s.flops, 2.0 * nnz * 64.0);
    EXPECT_DOUBLE_EQ(s.bytes, 858368.0 + 8.0 * nnz + 109870592.0);

    // On an H100 SXM the GEMM is memory-bound at 10.67 FLOP/byte: T_SOL = bytes / bandwidth.
    const sol::DeviceSpec& h100 = sol::device_or_throw("H100 SXM");
    const sol::SolAnalysis a = sol::analyze(ps[3].op_spec(), h100);
    EXPECT_EQ(a.bound, sol::Bound::Memory);
    EXPECT_NEAR(a.intensity, 1759510528.0 / 164970752.0, 1e-9);
    EXPECT_DOUBLE_EQ(a.t_sol, 164970752.0 / h100.dram_bandwidth);
}

TEST(EngineProblems, SpmmDegreeApproximatesTheEdges)
{
    // E / N = 3.995: degrees 1..7 have mean 4 before duplicates merge.
    std::uint64_t nnz = 0;
    const std::uint32_t md = engine_spmm_max_degree(kHypNodes, kHypEdges, kEngineGraphSeed, &nnz);
    EXPECT_EQ(md, 7u);
    const std::vector<Problem> ps = engine_problems(hyp());
    const Problem& m = named(ps, "engine_spmm_N214591_F64");
    EXPECT_EQ(m.max_degree, md);
    EXPECT_EQ(m.graph_seed, kEngineGraphSeed);
    // The problem's nnz is the generated pattern's, and the neighbours' patterns are farther.
    const auto count = [](std::uint32_t d) {
        return std::int64_t(spmm_pattern(kHypNodes, d, kEngineGraphSeed).col_idx.size());
    };
    EXPECT_EQ(std::int64_t(m.nnz), count(7));
    EXPECT_EQ(m.nnz, nnz);
    const std::int64_t e = std::int64_t(kHypEdges);
    EXPECT_LT(std::llabs(count(7) - e), std::llabs(count(6) - e));
    EXPECT_LT(std::llabs(count(7) - e), std::llabs(count(8) - e));
    EXPECT_LT(std::llabs(count(7) - e), e / 50); // within 2 %
}

TEST(EngineProblems, ModelsChangeTheOperations)
{
    // rev: the dense ReLU under its own name.
    const std::vector<Problem> rev = engine_problems(hyp(nn::ModelKind::Rev));
    ASSERT_EQ(rev.size(), 5u);
    EXPECT_EQ(rev[1].name, "engine_relu_N214591_F64");
    // res: one group, so the full width D = 128.
    const std::vector<Problem> res = engine_problems(hyp(nn::ModelKind::Res));
    EXPECT_EQ(res[0].name, "engine_layernorm_N214591_F128");
    EXPECT_EQ(res[3].cols, 128u);
    // sage: no LayerNorm, the activation fused into the GEMM's epilogue.
    const std::vector<Problem> sage = engine_problems(hyp(nn::ModelKind::Sage));
    ASSERT_EQ(sage.size(), 3u);
    EXPECT_EQ(sage[0].family, OpFamily::Spmm);
    EXPECT_EQ(epilogue_chain_text(sage[1].epilogue), "bias,relu");
    EXPECT_EQ(sage[2].family, OpFamily::Reduction);

    EXPECT_EQ(engine_calls_per_forward(hyp(), engine_problems(hyp())[0]), 512u);
    EXPECT_EQ(engine_calls_per_forward(hyp(nn::ModelKind::Res), res[0]), 256u);
    EXPECT_EQ(engine_calls_per_forward(hyp(), engine_problems(hyp())[4]), 1u);
}

TEST(EngineProblems, ShapeFromATrainingConfig)
{
    train::TrainConfig c;
    c.model.kind = nn::ModelKind::Rev;
    c.model.layers = 32;
    c.model.hidden = 96;
    c.model.groups = 3;
    c.model.topk = 4;
    const EngineShape s = engine_shape(c, 1000, 4100);
    EXPECT_EQ(s.model, nn::ModelKind::Rev);
    EXPECT_EQ(s.layers, 32u);
    EXPECT_EQ(engine_width(s), 32u);
    EXPECT_EQ(s.nodes, 1000u);
    EXPECT_EQ(s.edges, 4100u);
    EXPECT_EQ(engine_problems(s)[0].name, "engine_layernorm_N1000_F32");
}

TEST(EngineProblems, TunableAndComputable)
{
    // A small circuit: every problem has configs on an H100 and a reference to verify with.
    EngineShape s = hyp();
    s.nodes = 3000;
    s.edges = 12000;
    const sol::DeviceSpec& h100 = sol::device_or_throw("H100 SXM");
    for (const Problem& p : engine_problems(s)) {
        EXPECT_FALSE(config_space(p, h100).empty()) << p.name;
        const ProblemInputs in = make_inputs(p, 7);
        const std::vector<double> ref = reference(p, in, {0});
        EXPECT_EQ(ref.size(), p.output_cols()) << p.name;
    }
    // At the default model (hidden 64 in 4 groups: blocks 16 wide) and at blocks 8 wide the
    // GEMM had no config at all (every tile 32 or more wide) and its default was invalid.
    for (std::uint32_t groups : {4u, 8u}) {
        EngineShape narrow = s;
        narrow.hidden = 64;
        narrow.groups = groups;
        narrow.topk = 4;
        int gemms = 0;
        for (const Problem& p : engine_problems(narrow)) {
            if (p.family != OpFamily::Gemm) continue;
            ++gemms;
            EXPECT_EQ(p.cols, 64u / groups) << p.name;
            EXPECT_FALSE(config_space(p, h100).empty()) << p.name;
            EXPECT_TRUE(validate(p, default_config(p), h100).ok())
                << p.name << ": " << validate(p, default_config(p), h100).text();
        }
        EXPECT_GT(gemms, 0) << groups << " groups";
    }
    // The loss reference is the mean of its inputs (the factor is the float 1/N).
    const Problem loss = engine_problems(s).back();
    const ProblemInputs in = make_inputs(loss, 3);
    ASSERT_EQ(in.x.size(), 3000u);
    double sum = 0;
    for (float v : in.x) sum += v;
    EXPECT_NEAR(reference(loss, in)[0], sum * double(float(1.0 / 3000.0)), 1e-12);
}

TEST(EngineProblems, ImpossibleShapesAreRefused)
{
    EngineShape s = hyp();
    s.nodes = 0;
    EXPECT_THROW(engine_problems(s), Error);
    s = hyp();
    s.hidden = 100;
    s.groups = 3;
    EXPECT_THROW(engine_problems(s), Error);
    s = hyp();
    s.edges = 1ull << 32;
    EXPECT_THROW(engine_problems(s), Error);
    // A top-k wider than the group ("writes 100 x 100 values" of a 16-wide group).
    s = hyp();
    s.topk = s.hidden / s.groups + 1;
    try {
        (void)engine_problems(s);
        FAIL() << "a top-k wider than its group";
    } catch (const Error& e) {
        EXPECT_NE(e.message().find("must be from 1 to the group width"), std::string::npos)
            << e.what();
    }
    s.topk = s.hidden / s.groups;
    EXPECT_FALSE(engine_problems(s).empty());
}
