// The CUDA the DSL generates: entry points, epilogues and launch shapes; and, where the CUDA
// toolkit is installed, proof that it compiles: NVRTC (what the application uses, loaded with
// dlopen) for two configs of every suite problem, nvcc -ptx for one config of each problem and
// for the planted corpus. Without the toolkit (CI) those tests skip.
#include "tune/codegen.hpp"
#include "tune/search.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>

using namespace gsr::tune;
using gsr::sol::device_or_throw;
namespace fs = std::filesystem;

namespace {

const char* kNvcc = "/usr/local/cuda/bin/nvcc";

bool contains(const std::string& s, const std::string& what)
{
    return s.find(what) != std::string::npos;
}

/// The config with the best predicted time: the most vectorised, most unrolled kind.
KernelConfig fastest_predicted(const Problem& p)
{
    const auto& d = device_or_throw("H100 SXM");
    const auto space = config_space(p, d);
    KernelConfig best = space.front();
    double t = predicted_time(p, best, d);
    for (const auto& c : space)
        if (const double x = predicted_time(p, c, d); x < t) t = x, best = c;
    return best;
}

using gsr::test::read_text;

/// nvcc -ptx on every file: two nvcc processes (the machine has two cores), each given half of
/// the files at once (one start-up per half). Empty string = that file's PTX has its entry.
std::vector<std::string> nvcc_ptx(const fs::path& dir, const std::vector<fs::path>& files,
                                  const std::string& arch)
{
    std::vector<std::future<std::string>> halves;
    for (std::size_t h = 0; h < 2; ++h)
        halves.push_back(std::async(std::launch::async, [&, h] {
            std::string cmd = "cd '" + dir.string() + "' && " + kNvcc + " -ptx -arch=" + arch;
            for (std::size_t i = h; i < files.size(); i += 2)
                cmd += " '" + files[i].filename().string() + "'";
            const fs::path log = dir / ("nvcc" + std::to_string(h) + ".log");
            cmd += " > '" + log.string() + "' 2>&1";
            return std::system(cmd.c_str()) == 0 ? std::string() : read_text(log);
        }));
    const std::string logs[2] = {halves[0].get(), halves[1].get()};
    std::vector<std::string> errors(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        const fs::path ptx = fs::path(files[i]).replace_extension(".ptx");
        if (!logs[i % 2].empty())
            errors[i] = "nvcc failed: " + logs[i % 2];
        else if (!contains(read_text(ptx), ".entry"))
            errors[i] = "no .entry in " + ptx.string();
    }
    return errors;
}

/// NVRTC through dlopen: no build dependency on the toolkit.
struct Nvrtc {
    using Create = int (*)(void**, const char*, const char*, int, const char* const*,
                           const char* const*);
    using Compile = int (*)(void*, int, const char* const*);
    using LogSize = int (*)(void*, std::size_t*);
    using Log = int (*)(void*, char*);
    using Destroy = int (*)(void**);
    void* lib = nullptr;
    Create create = nullptr;
    Compile compile = nullptr;
    LogSize log_size = nullptr;
    Log log = nullptr;
    Destroy destroy = nullptr;

    Nvrtc()
    {
        for (const char* name : {"libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"})
            if ((lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) return;
        create = reinterpret_cast<Create>(::dlsym(lib, "nvrtcCreateProgram"));
        compile = reinterpret_cast<Compile>(::dlsym(lib, "nvrtcCompileProgram"));
        log_size = reinterpret_cast<LogSize>(::dlsym(lib, "nvrtcGetProgramLogSize"));
        log = reinterpret_cast<Log>(::dlsym(lib, "nvrtcGetProgramLog"));
        destroy = reinterpret_cast<Destroy>(::dlsym(lib, "nvrtcDestroyProgram"));
    }
    bool ok() const { return lib && create && compile && log_size && log && destroy; }

    /// Empty when it compiles; the log otherwise.
    std::string build(const std::string& source, const std::string& arch)
    {
        void* prog = nullptr;
        if (create(&prog, source.c_str(), "kernel.cu", 0, nullptr, nullptr) != 0)
            return "nvrtcCreateProgram failed";
        const std::string opt = "--gpu-architecture=" + arch;
        const char* opts[] = {opt.c_str()};
        const int rc = compile(prog, 1, opts);
        std::size_t n = 0;
        log_size(prog, &n);
        std::string text(n, '\0');
        log(prog, text.data());
        destroy(&prog);
        return rc == 0 ? std::string() : "NVRTC error " + std::to_string(rc) + ":\n" + text;
    }
};

} // namespace

TEST(Codegen, EntryPointsEpiloguesAndLaunchShapes)
{
    const auto& h100 = device_or_throw("H100 SXM");
    for (const Problem& p : builtin_suite()) {
        const GeneratedKernel k = generate_kernel(p, default_config(p), h100);
        EXPECT_EQ(k.entry, entry_point(p.family));
        EXPECT_TRUE(contains(k.source, "extern \"C\" __global__")) << p.name;
        EXPECT_TRUE(contains(k.source, std::string(entry_point(p.family)) + "(")) << p.name;
        EXPECT_FALSE(contains(k.source, "#include")) << p.name; // NVRTC: no host headers
        EXPECT_FALSE(contains(k.source, "@")) << p.name; // every placeholder filled
        EXPECT_EQ(k.config.epilogue, p.epilogue);
    }
    const GeneratedKernel ew =
        generate_kernel(suite_problem("ew_bias_gelu_residual"),
                        config_from_text("family=elementwise block=256 vec=4 unroll=2"), h100);
    EXPECT_TRUE(contains(ew.source, "v = v + bias[col];"));
    EXPECT_TRUE(contains(ew.source, "erff("));
    EXPECT_TRUE(contains(ew.source, "v = v + residual[idx];"));
    EXPECT_TRUE(contains(ew.source, "typedef float4 vec_t;"));
    // The chain is applied in order: bias before gelu before residual.
    EXPECT_LT(ew.source.find("bias[col]"), ew.source.find("erff("));
    EXPECT_LT(ew.source.find("erff("), ew.source.find("residual[idx]"));
    // 4096 * 4096 / 4 vectors, 256 threads x 2 per block: 8192 blocks.
    EXPECT_EQ(ew.launch.grid[0], 8192u);
    EXPECT_EQ(ew.launch.block[0], 256u);

    // Softmax 16384 rows, 256 threads, 64 per row: 4 rows per block, 4096 blocks; two warps
    // per row need the shared-memory combine.
    const GeneratedKernel sm =
        generate_kernel(suite_problem("softmax_1k"),
                        config_from_text("family=softmax block=256 tpr=64 vec=4"), h100);
    EXPECT_EQ(sm.launch.grid[0], 4096u);
    EXPECT_TRUE(contains(sm.source, "scratch[warp] = v;"));
    EXPECT_TRUE(contains(sm.source, "__shfl_xor_sync"));

    // GEMM 4096^2 with 128x128 tiles: a 32 x 32 grid, (128/8)*(128/8) = 256 threads,
    // 3 * (128 * 20 + 16 * 128) * 4 = 55,296 B of dynamic shared memory; cp.async pipeline.
    const GeneratedKernel g = generate_kernel(
        suite_problem("gemm_bias_relu"),
        config_from_text("family=gemm tile=128x128x16 thread=8x8 stages=3 vec=4"), h100);
    EXPECT_EQ(g.launch.grid[0], 32u);
    EXPECT_EQ(g.launch.grid[1], 32u);
    EXPECT_EQ(g.launch.block[0], 256u);
    EXPECT_EQ(g.launch.dynamic_shared_bytes, 55296u);
    EXPECT_TRUE(contains(g.source, "cp.async.ca.shared.global"));
    EXPECT_TRUE(contains(g.source, "gsr_wait<STAGES - 2>()"));
    EXPECT_TRUE(contains(g.source, "v = fmaxf(v, 0.0f);"));

    // SpMM width 128, 32 threads x 4 floats: one vector per thread, 8 rows per block.
    const GeneratedKernel s =
        generate_kernel(suite_problem("spmm_w128"),
                        config_from_text("family=spmm block=256 tpr=32 vec=4 unroll=2"), h100);
    EXPECT_EQ(s.launch.grid[0], (131072u + 7) / 8);
    EXPECT_TRUE(contains(s.source, "#define GSR_F 128"));
    EXPECT_THROW(generate_kernel(suite_problem("spmm_w128"),
                                 config_from_text("family=spmm block=256 tpr=32 vec=8"), h100),
                 gsr::Error);
}

TEST(Codegen, AProblemsNameCannotReachPastItsComment)
{
    // The name comes from a project file on the Apply path; a newline or a line splice in it
    // ended the comment and put the rest into the kernel.
    Problem p = suite_problem("spmm_w64");
    p.name = "evil\n__device__ int injected;\\";
    const GeneratedKernel k = generate_kernel(p, default_config(p), device_or_throw("H100 SXM"));
    EXPECT_TRUE(contains(k.source, "for problem evil?__device__ int injected;?.\n")) << k.source;
    EXPECT_FALSE(contains(k.source, "\n__device__ int injected;"));
}

TEST(Codegen, NvrtcCompilesTheSuite)
{
    Nvrtc nvrtc;
    if (!nvrtc.ok()) GTEST_SKIP() << "libnvrtc.so not found (no CUDA toolkit)";
    const auto& h100 = device_or_throw("H100 SXM");
    const auto t0 = std::chrono::steady_clock::now();
    int compiled = 0;
    for (const Problem& p : builtin_suite())
        for (const KernelConfig& c : {default_config(p), fastest_predicted(p)}) {
            const GeneratedKernel k = generate_kernel(p, c, h100);
            EXPECT_EQ(nvrtc.build(k.source, "compute_90"), "") << p.name << ": " << to_text(c);
            ++compiled;
        }
    // The GEMM's pre-sm_80 path (plain copies instead of cp.async) compiles too.
    const GeneratedKernel g = generate_kernel(
        suite_problem("gemm_bias_gelu_mlp"),
        config_from_text("family=gemm tile=64x64x16 thread=4x4 stages=3 vec=4"), h100);
    EXPECT_EQ(nvrtc.build(g.source, "compute_75"), "");
    std::printf("[codegen] NVRTC compiled %d suite kernels in %.1f s\n", compiled + 1,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST(Codegen, NvccCompilesTheSuiteAndThePlantedCorpus)
{
    if (!fs::exists(kNvcc)) GTEST_SKIP() << kNvcc << " not found (no CUDA toolkit)";
    const auto& h100 = device_or_throw("H100 SXM");
    const gsr::test::ScratchDir scratch("gsr_codegen");
    const fs::path& dir = scratch.path;
    std::vector<fs::path> files;
    for (const Problem& p : builtin_suite()) {
        files.push_back(dir / (p.name + ".cu"));
        std::ofstream(files.back()) << generate_kernel(p, fastest_predicted(p), h100).source;
    }
    const fs::path planted = fs::path(GSR_SOURCE_DIR) / "tests/kernels/planted";
    const nlohmann::json manifest =
        nlohmann::json::parse(std::ifstream(planted / "manifest.json"));
    ASSERT_EQ(manifest["kernels"].size(), 8u);
    for (const auto& k : manifest["kernels"]) {
        const fs::path src = planted / k["file"].get<std::string>();
        ASSERT_TRUE(fs::exists(src)) << src;
        const std::string text = read_text(src);
        EXPECT_TRUE(contains(text, k["entry"].get<std::string>() + "(")) << src;
        // The entry point must be the one of the problem's family.
        EXPECT_EQ(std::string(entry_point(suite_problem(k["problem"].get<std::string>()).family)),
                  k["entry"].get<std::string>());
        EXPECT_NO_THROW(parse_verdict(k["expected"].get<std::string>()));
        files.push_back(dir / k["file"].get<std::string>());
        fs::copy_file(src, files.back(), fs::copy_options::overwrite_existing);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto errors = nvcc_ptx(dir, files, "sm_90");
    for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(errors[i], "") << files[i];
    std::printf("[codegen] nvcc -ptx compiled %zu files in %.1f s\n", files.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}
