// The kernel lab's Apply without a GPU: which candidate of which session is chosen for each
// engine operation, how a newer choice replaces an older one, the stored JSON, and the engine
// binding of an SpMM config that the CUDA backend compiles (tests/gpu/tuned_kernels_test.cpp
// runs it).
#include "tune/applied_kernels.hpp"
#include "tune/codegen.hpp"
#include "tune/engine_problems.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

using namespace gsr::tune;

namespace {

Problem engine(OpFamily family, std::uint32_t hidden = 128)
{
    EngineShape s;
    s.model = gsr::nn::ModelKind::Rev;
    s.layers = 8;
    s.hidden = hidden;
    s.groups = 2;
    s.nodes = 5000;
    s.edges = 20000;
    for (const Problem& p : engine_problems(s))
        if (p.family == family) return p;
    throw std::logic_error("no such engine problem");
}

CandidateRecord candidate(std::size_t id, std::string label, std::string origin, double us,
                          Verdict v = Verdict::Ok)
{
    CandidateRecord c;
    c.id = id;
    c.label = std::move(label);
    c.origin = std::move(origin);
    c.seconds = us * 1e-6;
    c.verdict = v;
    return c;
}

TuneSession session(const Problem& p, std::vector<CandidateRecord> candidates)
{
    TuneSession s;
    s.problem = p.name;
    s.problem_spec = problem_json(p);
    s.family = std::string(family_name(p.family));
    s.device = "H200";
    s.t_sol = 10e-6;
    s.baseline = "cusparse";
    s.baseline_seconds = 90e-6;
    s.candidates = std::move(candidates);
    return s;
}

const char* kFast = "family=spmm block=128 tpr=16 vec=4 unroll=4";
const char* kSlow = "family=spmm block=256 tpr=32 vec=1 unroll=1";

} // namespace

TEST(AppliedKernels, EngineOperationOfAProblemName)
{
    EXPECT_EQ(engine_operation("engine_spmm_N214591_F64"), "spmm");
    EXPECT_EQ(engine_operation("engine_topk_dense_N10_F32"), "topk_dense");
    EXPECT_EQ(engine_operation("engine_loss_N5000"), "loss");
    EXPECT_EQ(engine_operation("spmm_w64"), "");
    EXPECT_EQ(engine_operation("engine_spmm"), "");
    EXPECT_EQ(engine_operation(engine(OpFamily::LayerNorm).name), "layernorm");
}

TEST(AppliedKernels, TheFastestVerifiedConfigOfEverySessionOfAProblemIsChosen)
{
    const Problem spmm = engine(OpFamily::Spmm);
    const Problem norm = engine(OpFamily::LayerNorm);
    std::vector<SessionRef> refs;
    // Session 1: a gaming time, an agent kernel and a raw file are faster but never chosen.
    refs.push_back({1, session(spmm, {candidate(0, kSlow, "grid", 60),
                                      candidate(1, kFast, "neighbour", 5, Verdict::Gaming),
                                      candidate(2, "agent_7.cu", "agent", 20),
                                      candidate(3, "mine.cu", "file", 21),
                                      candidate(4, kFast, "predicted", 50),
                                      candidate(5, kFast, "random", 30, Verdict::WrongResult)})});
    // Session 2: the same problem, faster.
    refs.push_back({2, session(spmm, {candidate(0, kFast, "refine", 42)})});
    refs.push_back({3, session(norm, {candidate(0, "family=layernorm block=256 tpr=32 vec=4",
                                                "grid", 7)})});
    TuneSession suite = session(spmm, {candidate(0, kFast, "grid", 1)});
    suite.problem = "spmm_w64"; // a suite problem: not the engine's
    refs.push_back({4, suite});
    TuneSession old = session(spmm, {candidate(0, kFast, "grid", 1)});
    old.problem_spec = nullptr;
    refs.push_back({5, old});
    TuneSession failed = session(norm, {candidate(0, kSlow, "grid", 1, Verdict::Timeout)});
    failed.problem = engine(OpFamily::LayerNorm, 64).name;
    refs.push_back({6, failed});

    const ApplyChoice c = choose_applied(refs);
    ASSERT_EQ(c.kernels.size(), 2u);
    const AppliedKernel& a = c.kernels[1].operation == "spmm" ? c.kernels[1] : c.kernels[0];
    EXPECT_EQ(a.problem, spmm.name);
    EXPECT_EQ(a.session, 2);
    EXPECT_EQ(a.candidate, 0u);
    EXPECT_DOUBLE_EQ(a.seconds, 42e-6);
    EXPECT_EQ(a.config, config_from_text(kFast));
    EXPECT_EQ(a.device, "H200");
    EXPECT_DOUBLE_EQ(a.baseline_seconds, 90e-6);
    ASSERT_EQ(c.skipped.size(), 2u);
    EXPECT_NE(c.skipped[0].find("session 5"), std::string::npos) << c.skipped[0];
    EXPECT_NE(c.skipped[0].find("tune it again"), std::string::npos) << c.skipped[0];
    EXPECT_NE(c.skipped[1].find("session 6"), std::string::npos) << c.skipped[1];
    EXPECT_NE(c.skipped[1].find("no verified configuration"), std::string::npos);
}

TEST(AppliedKernels, ANewerChoiceReplacesTheSameProblemsOnly)
{
    const Problem spmm = engine(OpFamily::Spmm), spmm32 = engine(OpFamily::Spmm, 64);
    const Problem norm = engine(OpFamily::LayerNorm);
    const auto first = choose_applied(
        {{1, session(spmm, {candidate(0, kSlow, "grid", 80)})},
         {2, session(norm, {candidate(0, "family=layernorm vec=4", "grid", 7)})}});
    const auto second = choose_applied({{3, session(spmm, {candidate(2, kFast, "grid", 40)})},
                                        {4, session(spmm32, {candidate(0, kSlow, "grid", 9)})}});
    const auto merged = merge_applied(first.kernels, second.kernels);
    ASSERT_EQ(merged.size(), 3u);
    for (std::size_t i = 1; i < merged.size(); ++i)
        EXPECT_LT(merged[i - 1].problem, merged[i].problem);
    for (const AppliedKernel& k : merged) {
        if (k.problem == spmm.name) EXPECT_EQ(k.session, 3);
        if (k.problem == spmm32.name) EXPECT_EQ(k.session, 4);
        if (k.problem == norm.name) EXPECT_EQ(k.session, 2);
    }
}

TEST(AppliedKernels, JsonRoundTripAndErrorsNameTheKey)
{
    const auto chosen =
        choose_applied({{7, session(engine(OpFamily::Spmm), {candidate(3, kFast, "grid", 40)})}})
            .kernels;
    const nlohmann::json j = applied_json(chosen);
    EXPECT_EQ(j[0]["backend"], "used");
    EXPECT_EQ(j[0]["config_text"], to_text(config_from_text(kFast)));
    const auto back = applied_from_json(nlohmann::json::parse(j.dump()));
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(back[0].problem, chosen[0].problem);
    EXPECT_EQ(back[0].config, chosen[0].config);
    EXPECT_EQ(back[0].session, 7);
    EXPECT_EQ(back[0].candidate, 3u);
    EXPECT_DOUBLE_EQ(back[0].seconds, 40e-6);
    EXPECT_EQ(back[0].problem_spec, chosen[0].problem_spec);
    EXPECT_EQ(applied_json(back), j);

    nlohmann::json broken = j;
    broken[0].erase("config");
    try {
        applied_from_json(broken);
        FAIL() << "a missing key must be an error";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("'config'"), std::string::npos) << e.message();
    }
    EXPECT_THROW(applied_from_json(nlohmann::json::object()), gsr::Error);
    // The keys later versions added are optional, but not of any type.
    for (const char* key : {"t_sol", "baseline", "baseline_seconds", "chosen"}) {
        broken = j;
        broken[0][key] = nlohmann::json::array();
        try {
            applied_from_json(broken);
            ADD_FAILURE() << key << " of the wrong type was read";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.message(), std::string("applied kernels: '") + key +
                                       "' has the wrong type or is out of range ([])");
        }
        broken[0].erase(key);
        EXPECT_EQ(applied_from_json(broken).size(), 1u) << key;
    }
}

TEST(AppliedKernels, OnlyTheSpmmBecomesABackendKernelTheOthersSayWhyNot)
{
    const Problem spmm = engine(OpFamily::Spmm);
    const auto chosen =
        choose_applied(
            {{1, session(spmm, {candidate(0, kFast, "grid", 40)})},
             {2, session(engine(OpFamily::LayerNorm),
                         {candidate(0, "family=layernorm block=256 tpr=32 vec=4", "grid", 7)})},
             {3, session(engine(OpFamily::Gemm), {candidate(0, "family=gemm", "grid", 7)})}})
            .kernels;
    std::vector<std::string> skipped;
    const std::vector<gsr::nn::TunedKernel> k = tuned_kernels(chosen, &skipped);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].op, "spmm");
    EXPECT_EQ(k[0].width, 64u); // D / C = 128 / 2
    EXPECT_EQ(k[0].entry, "gsr_spmm_engine");
    EXPECT_EQ(k[0].block, 128u);
    EXPECT_EQ(k[0].rows_per_block, 8u); // 128 threads / 16 per row
    EXPECT_EQ(k[0].vec, 4u);
    EXPECT_NE(k[0].source.find("#define GSR_F 64"), std::string::npos);
    EXPECT_NE(k[0].source.find("gsr_spmm_engine(const unsigned long long*"), std::string::npos);
    EXPECT_NE(k[0].source.find("typedef float4 vec_t"), std::string::npos);
    EXPECT_NE(k[0].origin.find(spmm.name), std::string::npos);
    ASSERT_EQ(skipped.size(), 2u);
    for (const std::string& s : skipped)
        EXPECT_NE(s.find(": not used: "), std::string::npos) << s;
}

TEST(AppliedKernels, TheEngineBindingIsOnlyForSpmmAndValidConfigs)
{
    const gsr::sol::DeviceSpec& d = gsr::sol::device_table().front();
    EXPECT_THROW(generate_engine_spmm(engine(OpFamily::LayerNorm),
                                      config_from_text("family=layernorm"), d),
                 gsr::Error);
    // 64 columns cannot be split over 32 threads of float4.
    EXPECT_THROW(generate_engine_spmm(engine(OpFamily::Spmm),
                                      config_from_text("family=spmm tpr=32 vec=4"), d),
                 gsr::Error);
    const GeneratedKernel g = generate_engine_spmm(engine(OpFamily::Spmm),
                                                   config_from_text(kSlow), d);
    EXPECT_EQ(g.entry, "gsr_spmm_engine");
    // The same thread layout as the lab's kernel of the config.
    const GeneratedKernel lab = generate_kernel(engine(OpFamily::Spmm), config_from_text(kSlow), d);
    EXPECT_EQ(g.launch.block, lab.launch.block);
    EXPECT_EQ(g.launch.grid, lab.launch.grid);
}
