// The kernel DSL: text and JSON forms, and every reason validate() gives for a bad config.
#include "tune/codegen.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

using namespace gsr::tune;
using gsr::sol::device_or_throw;

namespace {

bool has_reason(const Validation& v, const std::string& what)
{
    for (const auto& r : v.reasons)
        if (r.find(what) != std::string::npos) return true;
    return false;
}

Problem small_rows(OpFamily f, std::uint64_t rows, std::uint64_t cols)
{
    Problem p;
    p.name = "test";
    p.family = f;
    p.rows = rows;
    p.cols = cols;
    return p;
}

} // namespace

TEST(KernelConfig, TextAndJsonRoundTrip)
{
    const KernelConfig g = config_from_text("family=gemm tile=128x64x32 thread=8x4 stages=3 vec=4 "
                                            "epilogue=bias,gelu");
    EXPECT_EQ(g.family, OpFamily::Gemm);
    EXPECT_EQ(g.tile_m, 128);
    EXPECT_EQ(g.tile_n, 64);
    EXPECT_EQ(g.tile_k, 32);
    EXPECT_EQ(g.thread_m, 8);
    EXPECT_EQ(g.thread_n, 4);
    EXPECT_EQ(g.stages, 3);
    EXPECT_EQ(g.block_threads(), (128 / 8) * (64 / 4)); // 256
    ASSERT_EQ(g.epilogue.size(), 2u);
    EXPECT_EQ(g.epilogue[1].activation, gsr::sol::Activation::Gelu);
    EXPECT_EQ(config_from_text(to_text(g)), g);
    EXPECT_EQ(config_from_json(to_json(g)), g);

    const KernelConfig s = config_from_json(
        nlohmann::json::parse(R"({"family":"softmax","block":512,"tpr":64,"vec":2,"unroll":4})"));
    EXPECT_EQ(s.block, 512);
    EXPECT_EQ(s.tpr, 64);
    EXPECT_EQ(s.vec, 2);
    EXPECT_EQ(s.unroll, 4);
    EXPECT_EQ(config_from_json(to_json(s)), s);
    EXPECT_EQ(config_from_text(to_text(s)), s);
    EXPECT_EQ(to_text(s), "family=softmax block=512 tpr=64 unroll=4 vec=2");
}

TEST(KernelConfig, ParseErrorsNameTheKey)
{
    auto message = [](auto f) {
        try {
            f();
        } catch (const gsr::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message([] { config_from_text("family=gemm tiles=1x2x3"); }).find("tiles"),
              std::string::npos);
    EXPECT_NE(message([] { config_from_text("block=256"); }).find("family"), std::string::npos);
    EXPECT_NE(message([] { config_from_text("family=conv"); }).find("conv"), std::string::npos);
    EXPECT_NE(message([] { config_from_text("family=gemm tile=64x64"); }).find("3 numbers"),
              std::string::npos);
    EXPECT_NE(message([] {
                  config_from_json({{"family", "softmax"}, {"block", "big"}});
              }).find("block"),
              std::string::npos);
    EXPECT_NE(message([] {
                  config_from_json({{"family", "softmax"}, {"epilogue", {"swish"}}});
              }).find("swish"),
              std::string::npos);
    // Past int's range: refused, where 4294967552 became a block of 256.
    EXPECT_NE(message([] {
                  config_from_json(nlohmann::json::parse(
                      R"({"family": "softmax", "block": 4294967552, "tpr": 32})"));
              }).find("\"block\" must be an integer from"),
              std::string::npos);
    EXPECT_NE(message([] {
                  config_from_json(nlohmann::json::parse(
                      R"({"family": "gemm", "tile": [4294967424, 128, 16]})"));
              }).find("\"tile\" must be an integer"),
              std::string::npos);
    // A key given twice, or under both of its names: the last one won before.
    EXPECT_NE(message([] { config_from_text("family=softmax block=1024 block=256"); })
                  .find("'block' is given twice"),
              std::string::npos);
    EXPECT_NE(message([] {
                  config_from_json({{"family", "softmax"}, {"tpr", 64}, {"threads_per_row", 8}});
              }).find("name the same value"),
              std::string::npos);
    // A key of another family was kept and then forgotten: to_text never printed it.
    EXPECT_NE(message([] {
                  config_from_text("family=gemm tile=128x128x16 thread=8x8 stages=3 vec=4 "
                                   "block=999");
              }).find("kernel config: 'block' does not apply to family gemm"),
              std::string::npos);
    EXPECT_NE(message([] { config_from_text("family=softmax block=256 tpr=32 vec=4 stages=9"); })
                  .find("kernel config: 'stages' does not apply to family softmax"),
              std::string::npos);
    EXPECT_NE(message([] {
                  config_from_json({{"family", "elementwise"}, {"block", 256}, {"tpr", 4}});
              }).find("kernel config: 'tpr' does not apply to family elementwise"),
              std::string::npos);
}

TEST(KernelValidation, SizesOutOfRangeAreReasonsNotArithmetic)
{
    // threads per row 2^30 x vector width 4 wrapped to 0 and was divided by: SIGFPE.
    const auto h100 = gsr::sol::device_or_throw("H100 SXM");
    const Validation spmm = validate(suite_problem("spmm_w32"),
                                     config_from_text("family=spmm tpr=1073741824 vec=4"), h100);
    EXPECT_FALSE(spmm.ok());
    EXPECT_NE(spmm.text().find("threads per row: 1073741824 is not in 1..1024"),
              std::string::npos)
        << spmm.text();
    // A GEMM tile whose thread count overflowed an int.
    const Validation gemm =
        validate(suite_problem("gemm_bias_relu"),
                 config_from_text("family=gemm tile=4194305x1024x16 thread=1x1"), h100);
    EXPECT_NE(gemm.text().find("tile M: 4194305 is not in 1..4096"), std::string::npos)
        << gemm.text();
    // Stages out of range are the one reason: the shared-memory line once computed with them
    // ("-39582418599936 bytes ... (-2147483648 stages of 0)").
    const Validation stages =
        validate(suite_problem("gemm_bias_relu"),
                 config_from_text("family=gemm tile=128x128x16 thread=8x8 stages=-2147483648 vec=4"),
                 h100);
    EXPECT_NE(stages.text().find("stages: -2147483648 is not in 1..8"), std::string::npos)
        << stages.text();
    EXPECT_EQ(stages.text().find("shared memory"), std::string::npos) << stages.text();
}

TEST(KernelValidation, SharedMemoryAgainstTheDevice)
{
    const Problem& g = suite_problem("gemm_bias_relu");
    // 4 stages of (256 x (32+4) + 32 x 256) floats = 4 * 17408 * 4 = 278,528 B > 227 KiB.
    KernelConfig big = config_from_text("family=gemm tile=256x256x32 thread=8x8 stages=4 vec=4");
    const Validation v = validate(g, big, device_or_throw("H100 SXM"));
    EXPECT_TRUE(has_reason(v, "shared memory: 278528 bytes")) << v.text();
    // 2 stages of (128 x 36 + 32 x 128) floats = 69,632 B: fits an H100, not a T4 (64 KiB).
    KernelConfig mid = config_from_text("family=gemm tile=128x128x32 thread=8x8 stages=2 vec=4");
    EXPECT_TRUE(validate(g, mid, device_or_throw("H100 SXM")).ok());
    const Validation t4 = validate(g, mid, device_or_throw("T4"));
    EXPECT_TRUE(has_reason(t4, "shared memory: 69632 bytes")) << t4.text();
    EXPECT_EQ(t4.shared_bytes, 69632u);
}

TEST(KernelValidation, RegistersPerThreadAndPerSm)
{
    const Problem& g = suite_problem("gemm_bias_relu");
    const auto& h100 = device_or_throw("H100 SXM");
    // 16x16 micro tile: 256 + 16 + 16 + 26 = 314 registers > 255.
    const Validation per_thread =
        validate(g, config_from_text("family=gemm tile=256x256x8 thread=16x16 stages=1"), h100);
    EXPECT_TRUE(has_reason(per_thread, "about 314 per thread")) << per_thread.text();
    // 8x8 on 256x256: 1024 threads x 106 registers = 108,544 > 65,536.
    const Validation per_sm =
        validate(g, config_from_text("family=gemm tile=256x256x8 thread=8x8 stages=1"), h100);
    EXPECT_TRUE(has_reason(per_sm, "108544")) << per_sm.text();
    // SpMM at width 256 with 2 threads per row: 128 floats per thread.
    const Validation spmm = validate(suite_problem("spmm_w256"),
                                     config_from_text("family=spmm block=64 tpr=2 vec=1"), h100);
    EXPECT_TRUE(has_reason(spmm, "registers")) << spmm.text();
}

TEST(KernelValidation, DivisibilityThreadsAndShapes)
{
    const auto& h100 = device_or_throw("H100 SXM");
    Problem g = suite_problem("gemm_bias_relu");
    g.rows = 1000; // not a multiple of 64
    const Validation tile =
        validate(g, config_from_text("family=gemm tile=64x64x16 thread=4x4"), h100);
    EXPECT_TRUE(has_reason(tile, "divisibility: tile 64x64x16 does not divide")) << tile.text();
    const Validation micro =
        validate(suite_problem("gemm_bias_relu"),
                 config_from_text("family=gemm tile=64x64x16 thread=3x4"), h100);
    EXPECT_TRUE(has_reason(micro, "thread tile 3x4")) << micro.text();

    const Problem odd = small_rows(OpFamily::Softmax, 64, 1022);
    EXPECT_TRUE(
        has_reason(validate(odd, config_from_text("family=softmax block=256 tpr=32 vec=4"), h100),
                   "vector width 4 does not divide the 1022 columns"));
    EXPECT_TRUE(
        validate(odd, config_from_text("family=softmax block=256 tpr=32 vec=2"), h100).ok());

    const Problem ew = small_rows(OpFamily::Elementwise, 64, 1024);
    EXPECT_TRUE(has_reason(validate(ew, config_from_text("family=elementwise block=2048"), h100),
                           "threads per block: 2048 exceeds 1024"));
    EXPECT_TRUE(has_reason(validate(ew, config_from_text("family=elementwise block=100"), h100),
                           "not a positive multiple of 32"));
    EXPECT_TRUE(has_reason(validate(ew, config_from_text("family=elementwise vec=3"), h100),
                           "vector width: 3"));

    const Problem sm = small_rows(OpFamily::Softmax, 64, 1024);
    EXPECT_TRUE(has_reason(validate(sm, config_from_text("family=softmax block=256 tpr=24"), h100),
                           "not a power of two"));
    EXPECT_TRUE(has_reason(validate(sm, config_from_text("family=softmax block=96 tpr=64"), h100),
                           "does not divide the block of 96"));
    // SpMM width 32: 32 threads x 4 floats = 128 does not divide 32.
    EXPECT_TRUE(has_reason(validate(suite_problem("spmm_w32"),
                                    config_from_text("family=spmm block=256 tpr=32 vec=4"), h100),
                           "does not divide the feature width 32"));
}

TEST(KernelValidation, FamilyAndEpilogueMustMatchTheProblem)
{
    const auto& h100 = device_or_throw("H100 SXM");
    const Problem& ew = suite_problem("ew_bias_gelu_residual");
    EXPECT_TRUE(has_reason(validate(ew, config_from_text("family=softmax"), h100), "family"));
    EXPECT_TRUE(
        has_reason(validate(ew, config_from_text("family=elementwise epilogue=bias,relu"), h100),
                   "differs from the problem's bias,gelu,residual"));
    EXPECT_TRUE(
        validate(ew, config_from_text("family=elementwise epilogue=bias,gelu,residual"), h100)
            .ok());
    Problem red = small_rows(OpFamily::Reduction, 64, 1024);
    red.epilogue = {EpilogueStep{EpilogueKind::Residual}};
    EXPECT_TRUE(has_reason(validate(red, config_from_text("family=reduction"), h100),
                           "only scale and activation"));
    EXPECT_THROW(generate_kernel(red, config_from_text("family=reduction"), h100), gsr::Error);
}

TEST(KernelValidation, DefaultConfigsAreValidForTheWholeSuite)
{
    for (const char* name : {"H100 SXM", "A100 SXM 40GB", "T4", "RTX 4090"})
        for (const Problem& p : builtin_suite()) {
            const Validation v = validate(p, default_config(p), device_or_throw(name));
            EXPECT_TRUE(v.ok()) << p.name << " on " << name << ": " << v.text();
        }
}
