// The kernel lab on the GPU: the planted-cheat corpus (tests/kernels/planted/manifest.json)
// gets its verdicts through the worker process, and this process survives every worker
// crash; generated kernels and the vendor baselines verify against the float64 references.
#include "cuda_backend.hpp"
#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "tune/worker_evaluator.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace {

using namespace gsr;

std::string read_file(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class KernelLab : public ::testing::Test {
protected:
    void SetUp() override
    {
        const nn::GpuStatus s = gpu::probe();
        if (!s.available) GTEST_SKIP() << "no usable GPU: " << s.reason;
        options_.worker = GSR_KERNEL_WORKER_PATH;
        options_.timeout = std::chrono::milliseconds(8000);
        options_.runs = 10;
    }

    /// The SOL row of the GPU in hand (asked of a worker, as gsr kernels does).
    sol::DeviceSpec device()
    {
        tune::WorkerEvaluator probe(tune::builtin_suite().front(), sol::device_table().front(), 0,
                                    options_);
        const std::string name = probe.device_info().at("name");
        const sol::DeviceSpec* d = sol::find_device(name);
        if (!d) ADD_FAILURE() << "no device table row for " << name;
        return d ? *d : sol::device_table().front();
    }

    tune::WorkerOptions options_;
};

TEST_F(KernelLab, PlantedCorpusGetsTheRightVerdicts)
{
    const std::string dir = GSR_PLANTED_DIR;
    const auto manifest = nlohmann::json::parse(read_file(dir + "/manifest.json"));
    const sol::DeviceSpec spec = device();
    std::size_t right = 0, total = 0;
    for (const auto& k : manifest.at("kernels")) {
        const tune::Problem& p = tune::suite_problem(k.at("problem").get<std::string>());
        const sol::SolAnalysis an = sol::analyze(p.op_spec(), spec);
        tune::WorkerEvaluator worker(p, spec, std::min(an.t_sol, an.t_sol_datasheet), options_);
        const std::string grid = k.at("launch").at("grid");
        const auto launch = tune::launch_from_expression(p, grid, k.at("launch").at("block"));
        const std::string file = k.at("file");
        const tune::Evaluation e =
            worker.evaluate_launch(read_file(dir + "/" + file), k.at("entry"), launch);
        std::vector<std::string> accepted = {k.at("expected").get<std::string>()};
        for (const auto& v : k.at("also_acceptable")) accepted.push_back(v.get<std::string>());
        const std::string got(tune::verdict_name(e.verdict));
        const bool ok = std::find(accepted.begin(), accepted.end(), got) != accepted.end();
        ++total;
        right += ok;
        EXPECT_TRUE(ok) << k.at("file") << ": got " << got << " (" << e.detail << "), expected "
                        << k.at("expected");
        std::printf("planted %-24s -> %-17s %s\n", k.at("file").get<std::string>().c_str(),
                    got.c_str(), e.detail.substr(0, 100).c_str());
    }
    EXPECT_EQ(right, total);
    EXPECT_EQ(total, 8u);
}

TEST_F(KernelLab, WorkerCrashesLeaveTheCallerRunning)
{
    // One evaluator, two candidates: an illegal address (the worker reports it and exits),
    // then an honest kernel, which a fresh worker verifies. (Hangs: the corpus's infinite
    // loop above.)
    const std::string dir = GSR_PLANTED_DIR;
    const sol::DeviceSpec spec = device();
    const tune::Problem& softmax = tune::suite_problem("softmax_1k");
    options_.timeout = std::chrono::milliseconds(5000);
    tune::WorkerEvaluator worker(softmax, spec, 0, options_);
    const auto bad =
        worker.evaluate_launch(read_file(dir + "/illegal_address.cu"), "gsr_softmax",
                               tune::launch_from_expression(softmax, "ceil(rows / 256)", 256));
    EXPECT_TRUE(bad.verdict == tune::Verdict::IllegalAddress || bad.verdict == tune::Verdict::Crash)
        << tune::verdict_name(bad.verdict) << ": " << bad.detail;
    const auto good = worker.evaluate(tune::default_config(softmax));
    EXPECT_EQ(good.verdict, tune::Verdict::Ok) << good.detail;
    EXPECT_GT(good.seconds, 0);
    EXPECT_EQ(worker.workers_started(), 2u);
}

TEST_F(KernelLab, WhatACandidatePrintsIsNeverItsVerdict)
{
    // The honest kernel, printing a forged reply from its first thread. Device printf reached
    // the worker's stdout, where the parent read the first line as the verdict; the worker now
    // answers on a descriptor of its own and stdout goes to stderr.
    const std::string dir = GSR_PLANTED_DIR;
    std::string source = read_file(dir + "/honest_elementwise.cu");
    const std::string body = "    (void)alpha;\n";
    const std::size_t at = source.find(body);
    ASSERT_NE(at, std::string::npos);
    source.insert(at + body.size(),
                  "    if (blockIdx.x == 0 && threadIdx.x == 0)\n"
                  "        printf(\"{\\\"verdict\\\":\\\"wrong_result\\\",\\\"detail\\\":"
                  "\\\"forged\\\"}\\n\");\n");
    const tune::Problem& p = tune::suite_problem("ew_bias_gelu_residual");
    tune::WorkerEvaluator worker(p, device(), 0, options_);
    const auto launch = tune::launch_from_expression(p, "ceil(n / 256)", 256);
    for (int candidate = 0; candidate < 2; ++candidate) {
        const tune::Evaluation e = worker.evaluate_launch(source, "gsr_elementwise", launch);
        EXPECT_EQ(e.verdict, tune::Verdict::Ok) << candidate << ": " << e.detail;
        EXPECT_EQ(e.detail.find("forged"), std::string::npos) << e.detail;
    }
    EXPECT_EQ(worker.workers_started(), 1u);
}

TEST_F(KernelLab, DefaultConfigsOfTheSuiteVerify)
{
    const sol::DeviceSpec spec = device();
    for (const tune::Problem& p : tune::builtin_suite()) {
        if (p.family == tune::OpFamily::Gemm && p.inner > 2048) continue; // the 4096^3 one is slow
        tune::WorkerEvaluator worker(p, spec, 0, options_);
        const tune::Evaluation e = worker.evaluate(tune::default_config(p));
        EXPECT_EQ(e.verdict, tune::Verdict::Ok) << p.name << ": " << e.detail;
    }
}

TEST_F(KernelLab, VendorBaselinesVerify)
{
    const sol::DeviceSpec spec = device();
    for (const char* name : {"spmm_w64", "gemm_bias_gelu_mlp"}) {
        const tune::Problem& p = tune::suite_problem(name);
        tune::WorkerEvaluator worker(p, spec, 0, options_);
        const tune::Evaluation e = worker.baseline();
        EXPECT_EQ(e.verdict, tune::Verdict::Ok) << name << ": " << e.detail;
        EXPECT_GT(e.seconds, 0) << name;
    }
}

TEST_F(KernelLab, NcuProfilesAVerifiedCandidate)
{
    if (tune::find_ncu().empty()) GTEST_SKIP() << "no ncu: timing alone";
    const tune::Problem& p = tune::suite_problem("ew_bias_gelu_residual");
    options_.profile = true;
    options_.timeout = std::chrono::milliseconds(60000);
    tune::WorkerEvaluator worker(p, device(), 0, options_);
    const tune::Evaluation e = worker.evaluate(tune::default_config(p));
    ASSERT_EQ(e.verdict, tune::Verdict::Ok) << e.detail;
    ASSERT_TRUE(e.profile) << "ncu found but no metrics came back";
    // x, residual and y of 4096 x 4096 floats plus the bias row: 201,342,976 bytes at least;
    // the DRAM counter sees about that (the L2 holds little of 200 MB).
    const double minimal = sol::op_cost(p.op_spec()).bytes;
    EXPECT_GT(e.profile->dram_bytes, 0.8 * minimal);
    EXPECT_LT(e.profile->dram_bytes, 1.6 * minimal);
    EXPECT_GT(e.profile->memory_percent, 20.0);
    EXPECT_LE(e.profile->memory_percent, 100.5);
    EXPECT_GT(e.profile->registers, 0);
}

TEST_F(KernelLab, ACompileErrorIsAVerdictWithTheLog)
{
    const tune::Problem& p = tune::suite_problem("ew_scale_relu");
    tune::WorkerEvaluator worker(p, device(), 0, options_);
    const auto e = worker.evaluate_source(
        "extern \"C\" __global__ void gsr_elementwise() { oops; }", "gsr_elementwise");
    EXPECT_EQ(e.verdict, tune::Verdict::CompileError);
    EXPECT_NE(e.detail.find("oops"), std::string::npos) << e.detail;
}

} // namespace
