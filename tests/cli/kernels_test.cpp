// `gsr sol` and `gsr kernels`, run as a user would.
#include "run_gsr.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using gsr::test::run_gsr;

TEST(SolCommand, GemmOnH100Json)
{
    const auto r =
        run_gsr("sol gemm --shape 4096,4096,4096 --dtype fp32 --device 'H100 SXM' --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    // 2 * 4096^3 FLOP at 67 TFLOP/s: 2.0513 ms, compute-bound.
    EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 137438953472.0);
    EXPECT_DOUBLE_EQ(j["bytes"].get<double>(), 201326592.0);
    EXPECT_NEAR(j["t_sol"].get<double>(), 2.0513276638e-3, 1e-12);
    EXPECT_EQ(j["bound"], "compute");
    EXPECT_EQ(j["device"], "H100 SXM");
}

TEST(SolCommand, SpmmTextWithMeasuredTime)
{
    // M = N = 1000, nnz 5000, F 64: 556,004 B at 1.555 TB/s = 357.6 ns; 715.2 ns is h = 2.
    const auto r = run_gsr("sol spmm --shape 1000,1000,5000,64 --device 'NVIDIA A100-SXM4-40GB' "
                           "--time 7.151762e-7 --baseline 1.0727643e-6");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("T_SOL      0.358 us"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("memory-bound"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("T_gather"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("headroom 2.000"), std::string::npos) << r.out;
    // S = 1 / (1 + 357.6 / 715.2) = 0.667.
    EXPECT_NE(r.out.find("score 0.667"), std::string::npos) << r.out;
    const auto gaming = run_gsr("sol spmm --shape 1000,1000,5000,64 --device A100-SXM4-40GB "
                                "--time 1e-7 --json");
    ASSERT_EQ(gaming.exit_code, 0) << gaming.err;
    EXPECT_TRUE(nlohmann::json::parse(gaming.out)["measured"]["gaming"].get<bool>());
}

TEST(SolCommand, MistakesAreUsageErrors)
{
    auto r = run_gsr("sol gemm --shape 4096,4096 --device 'H100 SXM'");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("M,N,K"), std::string::npos) << r.err;
    r = run_gsr("sol gemm --shape 64,64,64 --device 'Voodoo 2'");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("known: H100 SXM"), std::string::npos) << r.err;
    r = run_gsr("sol conv --shape 1,2");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown operation 'conv'"), std::string::npos) << r.err;
    r = run_gsr("sol --devices");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("RTX 4090"), std::string::npos);
}

TEST(KernelsCommand, SuiteListsEveryProblemWithItsSol)
{
    const auto r = run_gsr("kernels suite --device H200 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["device"], "H200");
    ASSERT_EQ(j["problems"].size(), 14u);
    for (const auto& p : j["problems"]) {
        EXPECT_GT(p["sol"]["t_sol"].get<double>(), 0) << p["name"];
        EXPECT_GT(p["config_space"].get<int>(), 0) << p["name"];
    }
    // softmax_1k: 2 * 4 * 16384 * 1024 B / 4.8e12 B/s = 27.96 us.
    for (const auto& p : j["problems"])
        if (p["name"] == "softmax_1k")
            EXPECT_NEAR(p["sol"]["t_sol"].get<double>(), 134217728.0 / 4.8e12, 1e-12);
    const auto text = run_gsr("kernels suite");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("spmm_w256"), std::string::npos);
}

TEST(KernelsCommand, EmitPrintsCudaOrTheReasons)
{
    auto r = run_gsr("kernels emit layernorm_1k --config "
                     "'{\"family\":\"layernorm\",\"block\":128,\"tpr\":128,\"vec\":4}'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("extern \"C\" __global__"), std::string::npos);
    EXPECT_NE(r.out.find("gsr_layernorm("), std::string::npos);
    EXPECT_NE(r.err.find("grid 16384x1x1, block 128"), std::string::npos) << r.err;
    r = run_gsr("kernels emit gemm_bias_relu --config 'family=gemm tile=256x256x32 thread=8x8 "
                "stages=4 vec=4' --device T4");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("shared memory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("registers"), std::string::npos) << r.err;
    r = run_gsr("kernels emit no_such --config 'family=gemm'");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unknown problem"), std::string::npos) << r.err;
}

TEST(KernelsCommand, TuneVerifyAndCalibrateSayWhyWithoutAGpu)
{
    // The CLI tests run where there is no GPU (CI, this machine); the GPU side has its own
    // tests (tests/gpu/kernel_lab_test.cpp) on the device.
    for (const char* cmd : {"kernels tune softmax_1k --budget 2", "kernels calibrate",
                            "kernels verify /dev/null --problem softmax_1k"}) {
        const auto r = run_gsr(cmd);
        EXPECT_NE(r.exit_code, 0) << cmd;
        EXPECT_LT(r.exit_code, 128) << cmd << ": a signal, not an error";
        const bool says_why = r.err.find("GPU") != std::string::npos ||
                              r.err.find("gsr-kernel-worker") != std::string::npos;
        EXPECT_TRUE(says_why) << cmd << ": " << r.err;
    }
    const auto bad = run_gsr("kernels tune no_such_problem");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("softmax_1k"), std::string::npos) << "lists the names: " << bad.err;
}

TEST(KernelsCommand, EngineProblemsNeedTheirGraphAndListTheNamesAtIt)
{
    // What the Profiling panel logs for an engine problem names the model and graph; without
    // them the CLI says what it needs, with a wrong name it lists the names at that shape.
    const auto bare = run_gsr("kernels tune engine_spmm_N214591_F64");
    EXPECT_NE(bare.exit_code, 0);
    EXPECT_NE(bare.err.find("--nodes N --edges E"), std::string::npos) << bare.err;
    const auto wrong = run_gsr("kernels tune engine_spmm_N1_F1 --model gsr --hidden 128 "
                               "--groups 2 --topk 16 --nodes 214591 --edges 857340");
    EXPECT_NE(wrong.exit_code, 0);
    EXPECT_NE(wrong.err.find("engine_spmm_N214591_F64"), std::string::npos) << wrong.err;
    EXPECT_NE(wrong.err.find("engine_layernorm_N214591_F64"), std::string::npos) << wrong.err;
}
