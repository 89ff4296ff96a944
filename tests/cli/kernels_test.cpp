// `gsr sol` and `gsr kernels`, run as a user would.
#include "run_gsr.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_files.hpp"

#ifdef GSR_HAVE_STORE
#include "sol/device_table.hpp"
#include "store/project_store.hpp"
#include "store/tune_store.hpp"
#include "tune/engine_problems.hpp"
#endif

#include <filesystem>
#include <fstream>
#include <utility>

using gsr::test::run_gsr;
using gsr::test::shell_quote;

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
    EXPECT_NE(r.out.find("T_SOL      357.559 ns"), std::string::npos) << r.out;
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
    // A bad value names its flag.
    r = run_gsr("sol gemm --shape 64,64,64 --dtype fp8");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--dtype: unknown dtype 'fp8'"), std::string::npos) << r.err;
    r = run_gsr("sol gemm --shape 64,64,64 --epilogue bias,foo");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--epilogue: unknown epilogue step 'foo'; expected bias, scale, "
                         "residual, relu"),
              std::string::npos)
        << r.err;
    // A shape's own mistakes name --shape too; steps a chain dropped without a word are refused.
    const std::pair<const char*, const char*> cases[] = {
        {"sol topk --shape 10,10,3,1", "--shape: topk: D must be a multiple of the group count G"},
        {"sol spmm --shape 2,2,5,4", "--shape: spmm: NNZ must not exceed M*N"},
        {"sol gemm --shape 0,4,4", "--shape: gemm: every dimension of M,N,K must be positive"},
        {"sol gemm --shape 18446744073709551616,1,1", "--shape: 18446744073709551616 is out of range"},
        {"sol gemm --shape 64,64,64 --epilogue relu,gelu", "--epilogue: two activations in 'relu,gelu'"},
        {"sol gemm --shape 64,64,64 --epilogue bias,", "--epilogue: an empty step in 'bias,'"},
        {"sol gemm --shape 64,64,64 --epilogue none,bias", "--epilogue: 'none' is only allowed as the whole epilogue"},
        {"sol topk --shape 10,10,2,1 --epilogue bias", "--epilogue applies to ops with a dense output"},
    };
    for (const auto& [command, message] : cases) {
        const auto bad = run_gsr(command);
        EXPECT_EQ(bad.exit_code, 1) << command;
        EXPECT_NE(bad.err.find(message), std::string::npos) << command << ": " << bad.err;
    }
}

TEST(SolCommand, AFlagOfAnotherOpsModelIsRefused)
{
    // Each changed one op's model and was ignored, without a word, by the others.
    const std::pair<const char*, const char*> cases[] = {
        {"sol softmax --shape 1024,1024 --tf32", "--tf32 applies to fp32 gemm only, not softmax"},
        {"sol gemm --shape 64,64,64 --dtype fp16 --tf32",
         "--tf32 applies to fp32 gemm only, not fp16 gemm"},
        {"sol gemm --shape 64,64,64 --unweighted", "--unweighted applies to spmm and spmm_k"},
        {"sol softmax --shape 1024,1024 --no-affine", "--no-affine applies to layernorm only"},
        {"sol reduction --shape 8,8 --inputs 3", "--inputs applies to elementwise only"},
    };
    for (const auto& [command, message] : cases) {
        const auto r = run_gsr(command);
        EXPECT_EQ(r.exit_code, 1) << command;
        EXPECT_NE(r.err.find(message), std::string::npos) << command << ": " << r.err;
    }
    // Where each applies, it changes the bound.
    const auto plain = run_gsr("sol layernorm --shape 1024,64 --json");
    const auto no_affine = run_gsr("sol layernorm --shape 1024,64 --no-affine --json");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    ASSERT_EQ(no_affine.exit_code, 0) << no_affine.err;
    EXPECT_GT(nlohmann::json::parse(plain.out)["bytes"].get<double>(),
              nlohmann::json::parse(no_affine.out)["bytes"].get<double>());
}

TEST(SolCommand, ACalibrationIsForItsOwnGpuAndItsMistakesArePlaced)
{
    const std::filesystem::path cal = gsr::test::scratch_file("h100_cal.json");
    std::ofstream(cal) << "{\"device_name\": \"NVIDIA H100 80GB HBM3\", \"date\": "
                          "\"2026-11-28T00:00:00Z\",\n \"copy_bandwidth\": 3.0e12, "
                          "\"gemm_rate\": 5.0e13, \"fp32_fma_rate\": 6.0e13}\n";
    const std::string shape = "sol gemm --shape 4096,4096,4096 --json --calibration " +
                              shell_quote(cal.string());
    auto r = run_gsr(shape + " --device 'H100 SXM'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(nlohmann::json::parse(r.out)["calibrated"].get<bool>());
    // Measured on an H100, applied to an A100: a headroom that meant nothing, without a word.
    r = run_gsr(shape + " --device A100-SXM4-40GB");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(cal.string() + ": error: the calibration was measured on NVIDIA H100 "
                                         "80GB HBM3, not on A100",
                          0),
              0u)
        << r.err;
    // Bad JSON: its line and column (it said "expected JSON" and nothing else).
    const std::filesystem::path bad = gsr::test::scratch_file("bad_cal.json");
    std::ofstream(bad) << "{\"device_name\": \"x\",\n  \"date\": [1, 2\n";
    r = run_gsr("sol gemm --shape 64,64,64 --device 'H100 SXM' --calibration " +
                shell_quote(bad.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(bad.string() + ":3:1: error: not valid JSON (expected a calibration", 0),
              0u)
        << r.err;
    // And the parser's reason for it, which said what it expected there.
    EXPECT_NE(r.err.find("): syntax error while parsing array - unexpected end of input; "
                         "expected ']'"),
              std::string::npos)
        << r.err;
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

TEST(KernelsCommand, AFlagTheSubcommandDoesNotReadIsRefused)
{
    // The subcommands share one flag list: `suite --budget 3` listed the suite and ignored it.
    auto r = run_gsr("kernels suite --budget 3");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--budget does not apply to gsr kernels suite"), std::string::npos)
        << r.err;
    r = run_gsr("kernels emit softmax_1k --config 'family=softmax' --strategy sol");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--strategy does not apply to gsr kernels emit"), std::string::npos)
        << r.err;
    r = run_gsr("kernels apply --project x.gsr --nodes 10");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--nodes does not apply to gsr kernels apply"), std::string::npos)
        << r.err;
    // --block is read with --grid only: alone it was ignored, the default launch taken.
    const auto cu = gsr::test::scratch_file("block_alone.cu");
    std::ofstream(cu) << "extern \"C\" __global__ void softmax_kernel() {}\n";
    r = run_gsr("kernels verify " + shell_quote(cu.string()) + " --problem softmax_1k --block 128");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--block needs --grid EXPR"), std::string::npos) << r.err;
    // What each one reads still passes: suite with its device, emit with an engine graph.
    EXPECT_EQ(run_gsr("kernels suite --device T4 --json").exit_code, 0);
}

TEST(KernelsCommand, EmitTakesEngineProblemsAndRefusesSizesOutOfRange)
{
    // The CUDA that `apply` hands the backend, for an engine problem at its graph.
    auto r = run_gsr("kernels emit engine_spmm_N1000_F16 --nodes 1000 --edges 5000 "
                     "--config 'family=spmm tpr=16'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("gsr_spmm_csr"), std::string::npos);
    // More edges than a graph of 1000 nodes can hold: refused, where it built the pattern.
    r = run_gsr("kernels emit engine_spmm_N1000_F16 --nodes 1000 --edges 2000000 "
                "--config 'family=spmm tpr=16'");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("has at most N^2 edges"), std::string::npos) << r.err;
    // 2^30 threads per row x 4 wrapped to 0 and was divided by (SIGFPE, exit 136).
    r = run_gsr("kernels emit spmm_w32 --config 'family=spmm tpr=1073741824 vec=4'");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("threads per row: 1073741824 is not in 1..1024"), std::string::npos)
        << r.err;
}

TEST(KernelsCommand, TuneVerifyAndCalibrateSayWhyWithoutAGpu)
{
    // Where there is no GPU (CI, the developers' machines); the GPU side has its own tests
    // (tests/gpu/kernel_lab_test.cpp) on the device, where these commands run and succeed.
    // The NVIDIA driver's control node says whether a GPU is there, apart from the CLI.
    if (std::filesystem::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "an NVIDIA driver is here (/dev/nvidiactl): the lab's GPU tests apply";
    for (const char* sub : {"tune softmax_1k --budget 2", "calibrate",
                            "verify /dev/null --problem softmax_1k"}) {
        const std::string cmd = std::string("kernels ") + sub;
        const auto r = run_gsr(cmd);
        EXPECT_EQ(r.exit_code, 2) << cmd << ": bad input's code, not a crash or a usage error";
        // A build without the CUDA backend has no worker to start, and says so first; with
        // it, the reason after the colon is the GPU probe's (no driver, no GPU, ...).
        const std::string first = std::string(sub).substr(0, std::string(sub).find(' '));
        const std::string no_gpu = "error: gsr kernels " + first +
                                   " runs candidates on a CUDA GPU, and there is none usable: ";
        const std::string no_worker = "error: the kernel lab's worker program gsr-kernel-worker "
                                      "was not found beside this program";
        const bool gpu_reason = r.err.rfind(no_gpu, 0) == 0;
        EXPECT_TRUE(gpu_reason || r.err.rfind(no_worker, 0) == 0) << cmd << ": " << r.err;
        if (gpu_reason) EXPECT_GT(r.err.size(), no_gpu.size() + 5) << cmd << ": no reason";
    }
    const auto bad = run_gsr("kernels tune no_such_problem");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("softmax_1k"), std::string::npos) << "lists the names: " << bad.err;
}

#ifdef GSR_HAVE_STORE
TEST(KernelsCommand, TuneChecksItsProjectBeforeTheSearch)
{
    // The project was first opened to save the session, after minutes of GPU work: a file
    // that is no project lost the whole session. It is refused before anything runs.
    const std::filesystem::path notes = gsr::test::scratch_file("notes.txt");
    {
        std::ofstream out(notes);
        out << "not a project\n";
    }
    const auto r = run_gsr("kernels tune softmax_1k --budget 2 --project " +
                           shell_quote(notes.string()));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(notes.string() + ": error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("GPU"), std::string::npos) << "the project first: " << r.err;
}
#endif

#ifdef GSR_HAVE_STORE
TEST(KernelsCommand, AProjectCalibrationOfTheGpuInHandCountsWhicheverRowIsNamed)
{
    // A GPU with no row of the device table (H100 NVL, L4, ...) is tuned with --device naming
    // the closest row, and its calibration names its CUDA name, which maps to no row: tune
    // --project silently used the row's datasheet (honest kernels read as gaming). Another
    // row than the GPU's own stands in for that here.
    const gsr::test::ScratchDir dir("gsr_cli_calibration_row");
    const std::string project = (dir / "p.gsr").string();
    const std::string at = " --project " + shell_quote(project);
    const auto cal = run_gsr("kernels calibrate --json" + at);
    if (cal.exit_code != 0 && (cal.err.find("there is none usable") != std::string::npos ||
                               cal.err.find("worker program") != std::string::npos))
        GTEST_SKIP() << "no GPU to calibrate: " << cal.err;
    ASSERT_EQ(cal.exit_code, 0) << cal.err;
    const std::string gpu = nlohmann::json::parse(cal.out).at("device_name");
    const gsr::sol::DeviceSpec* own = gsr::sol::find_device(gpu);
    const gsr::sol::DeviceSpec* proxy = nullptr;
    for (const gsr::sol::DeviceSpec& d : gsr::sol::device_table())
        if (!own || d.name != own->name) {
            proxy = &d;
            break;
        }
    ASSERT_TRUE(proxy);
    // Half the proxy's bandwidth (plausible for any row), nothing else measured.
    gsr::sol::Calibration c;
    c.device_name = gpu;
    c.date = "2026-11-29T10:00:00Z";
    c.copy_bandwidth = 0.5 * proxy->dram_bandwidth;
    const auto keep = [&](const gsr::sol::Calibration& k) {
        auto p = gsr::store::ProjectStore::open(project, gsr::store::OpenMode::OpenExisting);
        gsr::store::store_calibration(p, k);
    };
    keep(c);
    const std::string tune = "kernels tune softmax_1k --strategy grid --budget 1 --json --device " +
                             shell_quote(proxy->name) + at;
    const auto r = run_gsr(tune);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err; // 3: nothing verified
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("gpu"), gpu);
    EXPECT_EQ(j.at("device"), proxy->name);
    EXPECT_DOUBLE_EQ(j.at("bandwidth").get<double>(), 0.5 * proxy->dram_bandwidth);
    EXPECT_EQ(r.err.find("note: the calibration"), std::string::npos) << r.err;

    // Another GPU's calibration is not used, and a note says so once.
    c.device_name = "NVIDIA Imaginary GPU";
    keep(c);
    const auto other = run_gsr(tune);
    ASSERT_TRUE(other.exit_code == 0 || other.exit_code == 3) << other.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(other.out).at("bandwidth").get<double>(),
                     proxy->dram_bandwidth);
    const std::string note = "note: the calibration kept in " + project +
                             " is not used (it was measured on NVIDIA Imaginary GPU, not on "
                             "this GPU (" + gpu + ") or a GPU of the " + proxy->name +
                             " row); T_SOL uses the datasheet peaks of " + proxy->name + "\n";
    const std::size_t at_note = other.err.find(note);
    EXPECT_NE(at_note, std::string::npos) << other.err;
    EXPECT_EQ(other.err.find("note: the calibration", at_note + 1), std::string::npos)
        << "once: " << other.err;
}
#endif

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

#ifdef GSR_HAVE_STORE
TEST(KernelsCommand, ApplyKeepsTheBestEngineConfigsOfAProject)
{
    const gsr::test::ScratchDir dir("gsr_cli_apply");
    const std::string project = (dir / "p.gsr").string();
    gsr::tune::EngineShape shape;
    shape.model = gsr::nn::ModelKind::Rev;
    shape.hidden = 128;
    shape.groups = 2;
    shape.nodes = 3000;
    shape.edges = 9000;
    {
        auto store =
            gsr::store::TuneStore::open(project, gsr::store::OpenMode::CreateOrOpen);
        for (const gsr::tune::Problem& p : gsr::tune::engine_problems(shape)) {
            if (p.family != gsr::tune::OpFamily::Spmm && p.family != gsr::tune::OpFamily::LayerNorm)
                continue;
            gsr::tune::TuneSession s;
            s.problem = p.name;
            s.problem_spec = gsr::tune::problem_json(p);
            s.device = "H200";
            s.t_sol = 10e-6;
            gsr::tune::CandidateRecord c;
            c.label = p.family == gsr::tune::OpFamily::Spmm
                          ? "family=spmm block=128 tpr=16 vec=4 unroll=2"
                          : "family=layernorm block=256 tpr=32 vec=4";
            c.origin = "grid";
            c.seconds = 20e-6;
            s.candidates.push_back(c);
            store.save(s);
        }
    }
    const std::string at = " --project " + shell_quote(project);
    const auto none = run_gsr("kernels apply --list" + at);
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_NE(none.out.find("no applied kernels"), std::string::npos) << none.out;

    const auto r = run_gsr("kernels apply" + at);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("engine_spmm_N3000_F64"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("used"), std::string::npos) << r.out;
    // The LayerNorm is kept but the backend cannot run it, and says why.
    EXPECT_NE(r.err.find("engine_layernorm_N3000_F64"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not used"), std::string::npos) << r.err;

    const auto j = run_gsr("kernels apply --list --json" + at);
    ASSERT_EQ(j.exit_code, 0) << j.err;
    const auto list = nlohmann::json::parse(j.out)["applied"];
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[1]["problem"], "engine_spmm_N3000_F64");
    EXPECT_EQ(list[1]["backend"], "used");
    EXPECT_DOUBLE_EQ(list[1]["seconds"].get<double>(), 20e-6);

    EXPECT_EQ(run_gsr("kernels apply --clear" + at).exit_code, 0);
    EXPECT_NE(run_gsr("kernels apply --list" + at).out.find("no applied kernels"),
              std::string::npos);

    const auto bad = run_gsr("kernels apply --session x3" + at);
    EXPECT_EQ(bad.exit_code, 1) << bad.err;
    EXPECT_NE(bad.err.find("--session"), std::string::npos) << bad.err;
    const auto missing = run_gsr("kernels apply --session 99" + at);
    EXPECT_NE(missing.exit_code, 0);
    EXPECT_NE(missing.err.find("99"), std::string::npos) << missing.err;
    EXPECT_EQ(run_gsr("kernels apply").exit_code, 1);
}
#endif
