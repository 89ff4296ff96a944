// The SOL model against hand-computed values: every op's FLOPs and minimal bytes, T_SOL and
// its bound, headroom, the score, the gaming flag, calibration and the device lookup.
#include "sol/sol_analysis.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace gsr::sol;

namespace {

OpSpec op(OpKind kind, std::vector<std::uint64_t> shape, DType dtype = DType::F32)
{
    OpSpec o;
    o.kind = kind;
    o.shape = std::move(shape);
    o.dtype = dtype;
    return o;
}

const DeviceSpec& dev(const char* name) { return device_or_throw(name); }

} // namespace

TEST(SolOpModel, GemmFp32On100Sxm)
{
    // 2 * 4096^3 = 137,438,953,472 FLOP; 4 B * (3 * 4096^2) = 201,326,592 B.
    const SolAnalysis a = analyze(op(OpKind::Gemm, {4096, 4096, 4096}), dev("H100 SXM"));
    EXPECT_DOUBLE_EQ(a.cost.flops, 137438953472.0);
    EXPECT_DOUBLE_EQ(a.cost.bytes, 201326592.0);
    EXPECT_EQ(a.unit, MathUnit::Fp32Fma);
    // 1.37438953472e11 / 67e12 = 2.0513276638e-3 s; 2.01326592e8 / 3.35e12 = 6.00975e-5 s.
    EXPECT_NEAR(a.t_compute, 2.0513276638e-3, 1e-12);
    EXPECT_NEAR(a.t_memory, 6.009749e-5, 1e-10);
    EXPECT_DOUBLE_EQ(a.t_sol, a.t_compute);
    EXPECT_EQ(a.bound, Bound::Compute);
    // Intensity 137438953472 / 201326592 = 682.67 FLOP/B; ridge 67e12 / 3.35e12 = 20.
    EXPECT_NEAR(a.intensity, 682.6667, 1e-3);
    EXPECT_NEAR(a.ridge, 20.0, 1e-12);
}

TEST(SolOpModel, GemmEpilogueAddsBiasAndResidualBytes)
{
    OpSpec o = op(OpKind::Gemm, {4096, 4096, 4096});
    o.epilogue.bias = true;
    o.epilogue.scale = true; // a scalar: no bytes
    o.epilogue.activation = Activation::Gelu;
    o.epilogue.residual = true;
    // 201,326,592 + 4 * 4096 (bias) + 4 * 4096^2 (residual) = 268,451,840 B; FLOPs unchanged.
    const OpCost c = op_cost(o);
    EXPECT_DOUBLE_EQ(c.bytes, 268451840.0);
    EXPECT_DOUBLE_EQ(c.flops, 137438953472.0);
}

TEST(SolOpModel, GemmFp16UsesTensorCoresAndTf32FallsBackWithoutThem)
{
    // fp16: 2 B * 3 * 4096^2 = 100,663,296 B; 1.37438953472e11 / 989.5e12 = 1.388973e-4 s.
    const SolAnalysis h =
        analyze(op(OpKind::Gemm, {4096, 4096, 4096}, DType::F16), dev("H100 SXM"));
    EXPECT_EQ(h.unit, MathUnit::Fp16Tensor);
    EXPECT_DOUBLE_EQ(h.cost.bytes, 100663296.0);
    EXPECT_NEAR(h.t_sol, 1.388973e-4, 1e-9);
    EXPECT_EQ(h.bound, Bound::Compute);
    // TF32 on a T4 (no TF32 tensor path): the CUDA cores, 1.37438953472e11 / 8.1e12 s.
    OpSpec t = op(OpKind::Gemm, {4096, 4096, 4096});
    t.tf32 = true;
    const SolAnalysis t4 = analyze(t, dev("T4"));
    EXPECT_EQ(t4.unit, MathUnit::Fp32Fma);
    EXPECT_NEAR(t4.t_sol, 1.37438953472e11 / 8.1e12, 1e-12);
    EXPECT_EQ(analyze(t, dev("A100 SXM 40GB")).unit, MathUnit::Tf32Tensor);
}

TEST(SolOpModel, SpmmMinimalAndGatherBounds)
{
    // M = N = 1000, nnz = 5000, F = 64, fp32 values:
    // FLOP 2 * 5000 * 64 = 640,000; bytes 4*1001 + 5000*(4+4) + 4*1000*64 + 4*1000*64
    //   = 4,004 + 40,000 + 256,000 + 256,000 = 556,004;
    // gather 4,004 + 40,000 + 4*5000*64 + 256,000 = 1,580,004.
    const SolAnalysis a = analyze(op(OpKind::Spmm, {1000, 1000, 5000, 64}), dev("A100 SXM 40GB"));
    EXPECT_DOUBLE_EQ(a.cost.flops, 640000.0);
    EXPECT_DOUBLE_EQ(a.cost.bytes, 556004.0);
    EXPECT_DOUBLE_EQ(a.cost.gather_bytes, 1580004.0);
    // 556,004 / 1.555e12 = 3.575588e-7 s > 640,000 / 19.5e12 = 3.282e-8 s: memory-bound.
    EXPECT_NEAR(a.t_sol, 3.575588e-7, 1e-12);
    EXPECT_NEAR(a.t_compute, 3.2820513e-8, 1e-14);
    EXPECT_EQ(a.bound, Bound::Memory);
    EXPECT_NEAR(a.t_gather, 1580004.0 / 1.555e12, 1e-15);
    // Pattern only: 4,004 + 5000*4 + 512,000 = 536,004.
    OpSpec u = op(OpKind::Spmm, {1000, 1000, 5000, 64});
    u.weighted = false;
    EXPECT_DOUBLE_EQ(op_cost(u).bytes, 536004.0);
}

TEST(SolOpModel, CompressedSpmmReadsKOfDColumns)
{
    // k = 8 of F = 64 kept: a row is 8 * (4 + 1 index byte) = 40 B.
    // FLOP 2 * 5000 * 8 = 80,000; bytes 4,004 + 40,000 + 1000*40 + 4*1000*64 = 340,004;
    // gather 4,004 + 40,000 + 5000*40 + 256,000 = 500,004.
    const OpCost c = op_cost(op(OpKind::SpmmCompressed, {1000, 1000, 5000, 64, 8}));
    EXPECT_DOUBLE_EQ(c.flops, 80000.0);
    EXPECT_DOUBLE_EQ(c.bytes, 340004.0);
    EXPECT_DOUBLE_EQ(c.gather_bytes, 500004.0);
    EXPECT_TRUE(c.flops_counted);
}

TEST(SolOpModel, SpmmReadsOnlyTheRowsItsNonzerosName)
{
    // M = 1000 rows of a batch, N = 1e6 feature rows, NNZ = 1000, F = 64: at most 1000 rows of
    // X are read, 4,004 + 1000*(4+4) + 4*1000*64 + 4*1000*64 = 524,004 B, and the gather bound
    // is the same (each nonzero fetches its row once).
    const OpCost c = op_cost(op(OpKind::Spmm, {1000, 1000000, 1000, 64}));
    EXPECT_DOUBLE_EQ(c.bytes, 524004.0);
    EXPECT_DOUBLE_EQ(c.gather_bytes, 524004.0);
    // Compressed, k = 8: 4,004 + 8,000 + 1000 * 40 + 256,000 = 308,004.
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::SpmmCompressed, {1000, 1000000, 1000, 64, 8})).bytes,
                     308004.0);
    // 20 us is slow against that bound, not gaming (the bound charged all 1e6 rows before).
    const SolAnalysis a = analyze(op(OpKind::Spmm, {1000, 1000000, 1000, 64}), dev("H100 SXM"));
    EXPECT_NEAR(a.t_sol, 524004.0 / 3.35e12, 1e-15);
    EXPECT_FALSE(judge(a, 20e-6).gaming);
    // More nonzeros than the matrix has entries, even where M N overflows 64 bits.
    EXPECT_THROW(op_cost(op(OpKind::Spmm, {2, 2, 5, 4})), gsr::Error);
    EXPECT_NO_THROW(op_cost(op(OpKind::Spmm, {2, 2, 4, 4})));
    EXPECT_THROW(op_cost(op(OpKind::SpmmCompressed, {3, 1, 4, 8, 2})), gsr::Error);
    EXPECT_NO_THROW(op_cost(op(OpKind::Spmm, {1ull << 40, 1ull << 40, 1ull << 62, 4})));
}

TEST(SolOpModel, ElementwiseIsMemoryOnly)
{
    // 1e6 fp32 in, 1e6 out: 8e6 B; 8e6 / 3.35e12 = 2.3880597e-6 s; arithmetic not counted.
    OpSpec o = op(OpKind::Elementwise, {1000000});
    o.epilogue.activation = Activation::Relu;
    const SolAnalysis a = analyze(o, dev("H100 SXM"));
    EXPECT_DOUBLE_EQ(a.cost.bytes, 8e6);
    EXPECT_DOUBLE_EQ(a.cost.flops, 1e6);
    EXPECT_FALSE(a.cost.flops_counted);
    EXPECT_EQ(a.t_compute, 0.0);
    EXPECT_NEAR(a.t_sol, 2.3880597e-6, 1e-12);
    EXPECT_EQ(a.bound, Bound::Memory);
    // 1000 x 1000 with a bias and a residual: 8e6 + 4*1000 + 4e6 = 12,004,000 B.
    OpSpec b = op(OpKind::Elementwise, {1000, 1000});
    b.epilogue.bias = true;
    b.epilogue.residual = true;
    EXPECT_DOUBLE_EQ(op_cost(b).bytes, 12004000.0);
    // a + b: two inputs, 4 * 1e6 * 3 = 12e6.
    OpSpec two = op(OpKind::Elementwise, {1000000});
    two.inputs = 2;
    EXPECT_DOUBLE_EQ(op_cost(two).bytes, 12e6);
}

TEST(SolOpModel, ReductionSoftmaxLayernorm)
{
    // Reduction 1024 x 4096: 4 * (4,194,304 + 1,024) = 16,781,312 B; fp16 half of it.
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::Reduction, {1024, 4096})).bytes, 16781312.0);
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::Reduction, {1024, 4096}, DType::F16)).bytes, 8390656.0);
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::Reduction, {4096})).bytes, 4.0 * (4096 + 1));
    // Softmax: one read, one write, 2 * 4 * 4,194,304 = 33,554,432 B; 5 FLOP/element uncounted.
    const OpCost s = op_cost(op(OpKind::Softmax, {1024, 4096}));
    EXPECT_DOUBLE_EQ(s.bytes, 33554432.0);
    EXPECT_DOUBLE_EQ(s.flops, 5.0 * 4194304);
    EXPECT_FALSE(s.flops_counted);
    // Layernorm adds gamma and beta: 33,554,432 + 2 * 4 * 4096 = 33,587,200 B.
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::LayerNorm, {1024, 4096})).bytes, 33587200.0);
    OpSpec plain = op(OpKind::LayerNorm, {1024, 4096});
    plain.affine = false;
    EXPECT_DOUBLE_EQ(op_cost(plain).bytes, 33554432.0);
    // On an H200: 33,587,200 / 4.8e12 = 6.99733e-6 s.
    EXPECT_NEAR(analyze(op(OpKind::LayerNorm, {1024, 4096}), dev("H200")).t_sol, 6.99733e-6,
                1e-11);
}

TEST(SolOpModel, GroupTopK)
{
    // N = 1000, D = 256, 2 groups of 128, k = 16: read 4*1000*256 = 1,024,000; write
    // 1000 * 2 * 16 * (4 + 1) = 160,000 -> 1,184,000 B.
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::GroupTopK, {1000, 256, 2, 16})).bytes, 1184000.0);
    // Groups of 512 need 2-byte indices: 4,096,000 + 1000 * 2 * 16 * 6 = 4,288,000 B.
    EXPECT_DOUBLE_EQ(op_cost(op(OpKind::GroupTopK, {1000, 1024, 2, 16})).bytes, 4288000.0);
    EXPECT_THROW(op_cost(op(OpKind::GroupTopK, {1000, 256, 3, 16})), gsr::Error);
    EXPECT_THROW(op_cost(op(OpKind::GroupTopK, {1000, 256, 2, 200})), gsr::Error);
}

TEST(SolOpModel, ShapeErrorsSayWhatWasExpected)
{
    try {
        op_cost(op(OpKind::Gemm, {4096, 4096}));
        FAIL() << "no error";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("M,N,K"), std::string::npos) << e.what();
    }
    EXPECT_THROW(op_cost(op(OpKind::Spmm, {10, 10, 0, 8})), gsr::Error);
    EXPECT_THROW(parse_op_kind("conv"), gsr::Error);
}

TEST(SolJudgement, HeadroomScoreAndGaming)
{
    // h = 3 / 2 = 1.5; S = 1 / (1 + (3 - 2) / (6 - 2)) = 0.8.
    EXPECT_DOUBLE_EQ(headroom(3e-6, 2e-6), 1.5);
    EXPECT_NEAR(sol_score(3e-6, 2e-6, 6e-6), 0.8, 1e-12);
    EXPECT_NEAR(sol_score(6e-6, 2e-6, 6e-6), 0.5, 1e-12); // at the baseline
    EXPECT_NEAR(sol_score(2e-6, 2e-6, 6e-6), 1.0, 1e-12); // at SOL
    EXPECT_TRUE(std::isnan(sol_score(3e-6, 2e-6, 2e-6))); // baseline not above SOL
    // Gaming: more than 5% under T_SOL.
    EXPECT_TRUE(is_gaming(0.94, 1.0));
    EXPECT_FALSE(is_gaming(0.96, 1.0));
    EXPECT_FALSE(is_gaming(0.95, 1.0));
    const SolAnalysis a = analyze(op(OpKind::Elementwise, {1000000}), dev("H100 SXM"));
    const Judgement j = judge(a, 2 * a.t_sol, 4 * a.t_sol);
    EXPECT_DOUBLE_EQ(j.headroom, 2.0);
    EXPECT_DOUBLE_EQ(j.percent_of_sol, 50.0);
    EXPECT_NEAR(j.score, 1.0 / (1.0 + 1.0 / 3.0), 1e-12);
    EXPECT_FALSE(j.gaming);
    EXPECT_FALSE(j.below_sol);
    // Flagged, never ranked: a gaming time got a score of 2.17 and ranked above SOL.
    const Judgement cheat = judge(a, 0.5 * a.t_sol, 4 * a.t_sol);
    EXPECT_TRUE(cheat.gaming);
    EXPECT_TRUE(std::isnan(cheat.score));
    EXPECT_FALSE(cheat.below_sol);
    EXPECT_EQ(judgement_json(cheat)["score"], nullptr);
    // Within the tolerance under T_SOL: scored, and said to be below SOL.
    const Judgement close = judge(a, 0.97 * a.t_sol, 4 * a.t_sol);
    EXPECT_FALSE(close.gaming);
    EXPECT_TRUE(close.below_sol);
    EXPECT_GT(close.score, 1.0);
    EXPECT_EQ(judgement_json(close)["below_sol"], true);
}

TEST(SolCalibration, MeasuredPeaksReplaceDatasheetAndGamingStaysPermissive)
{
    Calibration c;
    c.device_name = "NVIDIA H100 80GB HBM3";
    c.date = "2026-11-21T10:00:00Z";
    c.copy_bandwidth = 2.9e12;
    c.gemm_rate = 51e12;
    c.gemm_unit = MathUnit::Fp32Fma;
    c.fp32_fma_rate = 60e12;
    const DeviceSpec& h100 = device_or_throw(c.device_name);
    const Peaks p = calibrated_peaks(h100, c);
    EXPECT_DOUBLE_EQ(p.bandwidth, 2.9e12);
    EXPECT_DOUBLE_EQ(p.fp32, 60e12); // the faster of FMA 60 and SGEMM 51
    EXPECT_DOUBLE_EQ(p.fp16, 989.5e12); // not measured: datasheet
    // 8e6 B / 2.9e12 = 2.758621e-6 s, datasheet 8e6 / 3.35e12 = 2.388060e-6 s.
    const SolAnalysis a = analyze(op(OpKind::Elementwise, {1000000}), h100, &c);
    EXPECT_TRUE(a.calibrated);
    EXPECT_NEAR(a.t_sol, 2.758621e-6, 1e-11);
    EXPECT_NEAR(a.t_sol_datasheet, 2.388060e-6, 1e-11);
    // 2.3e-6 s is 17% under the calibrated bound but within 5% of the datasheet one: honest.
    EXPECT_FALSE(judge(a, 2.3e-6).gaming);
    EXPECT_TRUE(judge(a, 2.2e-6).gaming); // < 0.95 * 2.388060e-6 = 2.268657e-6
    // A peak far past the datasheet (a unit slip) is refused: its tiny bound made every cheat
    // pass (gaming takes the smaller bound) and every honest kernel look slow.
    Calibration slip = c;
    slip.copy_bandwidth = 3.0e15;
    try {
        calibrated_peaks(h100, slip);
        ADD_FAILURE() << "a bandwidth of 3e15 B/s on an H100 was accepted";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("\"copy_bandwidth\" is 896x the datasheet's 3.35e+12 for "
                                   "H100 SXM"),
                  std::string::npos)
            << e.what();
    }
    slip = c;
    slip.gemm_unit = MathUnit::Fp16Tensor;
    slip.gemm_rate = 2.0e15; // 2x the fp16 tensor datasheet
    EXPECT_THROW(calibrated_peaks(h100, slip), gsr::Error);
    slip.gemm_rate = 1.2e15; // boost clocks: within half again
    EXPECT_DOUBLE_EQ(calibrated_peaks(h100, slip).fp16, 1.2e15);
    // JSON round trip, and a missing key is named.
    const Calibration back = calibration_from_json(calibration_json(c));
    EXPECT_EQ(back.device_name, c.device_name);
    EXPECT_EQ(back.date, c.date);
    EXPECT_DOUBLE_EQ(back.copy_bandwidth, c.copy_bandwidth);
    EXPECT_DOUBLE_EQ(back.gemm_rate, c.gemm_rate);
    EXPECT_EQ(back.gemm_unit, MathUnit::Fp32Fma);
    // A peak is 0 (not measured) or at least one a second: a denormal one made T_SOL infinite.
    for (const double bad : {-1.0, 1e-320, 0.5}) {
        nlohmann::json tiny = calibration_json(c);
        tiny["copy_bandwidth"] = bad;
        EXPECT_THROW(calibration_from_json(tiny), gsr::Error) << bad;
    }
    nlohmann::json none = calibration_json(c);
    none["gemm_rate"] = 0;
    EXPECT_DOUBLE_EQ(calibration_from_json(none).gemm_rate, 0.0);
    nlohmann::json broken = calibration_json(c);
    broken.erase("copy_bandwidth");
    try {
        calibration_from_json(broken);
        FAIL() << "no error";
    } catch (const gsr::Error& e) {
        // Missing, not "must be 0 or a rate", which read as a bad value.
        EXPECT_NE(std::string(e.what()).find("\"copy_bandwidth\" is missing"), std::string::npos)
            << e.what();
    }
    broken = calibration_json(c);
    broken.erase("device_name");
    try {
        calibration_from_json(broken);
        FAIL() << "no error";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("\"device_name\" (a string) is missing"),
                  std::string::npos)
            << e.what();
    }
}

TEST(SolDevices, CudaNamesFindTheirRows)
{
    const std::vector<std::pair<const char*, const char*>> cases = {
        {"NVIDIA H100 80GB HBM3", "H100 SXM"},
        {"NVIDIA H100 PCIe", "H100 PCIe"},
        {"NVIDIA H200", "H200"},
        {"NVIDIA A100-SXM4-40GB", "A100 SXM 40GB"},
        {"NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"},
        {"NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"},
        {"NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB"},
        {"NVIDIA L40S", "L40S"},
        {"NVIDIA GeForce RTX 4090", "RTX 4090"},
        {"NVIDIA GeForce RTX 3090", "RTX 3090"},
        {"NVIDIA A10", "A10"},
        {"Tesla T4", "T4"},
        {"Tesla V100-SXM2-16GB", "V100 SXM2"},
        {"Tesla V100-PCIE-32GB", "V100 PCIe"},
        {"h100-sxm", "H100 SXM"},
        {"a100 sxm 40", "A100 SXM 40GB"}};
    for (const auto& [name, row] : cases) {
        const DeviceSpec* d = find_device(name);
        ASSERT_NE(d, nullptr) << name;
        EXPECT_EQ(d->name, row) << name;
    }
    EXPECT_EQ(find_device("NVIDIA H200 141GB HBM3e")->name, "H200");
    EXPECT_EQ(find_device("NVIDIA L40"), nullptr); // not the L40S
    // Other parts than a row's, most of them faster: no row, rather than the slower one's
    // peaks (an honest kernel would look like gaming against them).
    for (const char* other :
         {"NVIDIA H100 NVL", "Tesla V100S-PCIE-32GB", "NVIDIA GeForce RTX 3090 Ti",
          "NVIDIA T400 4GB", "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA A10G"})
        EXPECT_EQ(find_device(other), nullptr) << other;
    EXPECT_EQ(find_device("AMD Instinct MI300X"), nullptr);
    EXPECT_EQ(find_device(""), nullptr);
    EXPECT_THROW(device_or_throw("Radeon"), gsr::Error);
}

TEST(SolDevices, ACalibrationIsOfTheRowItsGpuNameFinds)
{
    Calibration c;
    c.device_name = "NVIDIA H100 80GB HBM3";
    EXPECT_TRUE(calibration_is_of(c, device_or_throw("H100 SXM")));
    EXPECT_FALSE(calibration_is_of(c, device_or_throw("H100 PCIe")));
    EXPECT_FALSE(calibration_is_of(c, device_or_throw("H200")));
    c.device_name = "H200"; // a row's own name
    EXPECT_TRUE(calibration_is_of(c, device_or_throw("H200")));
    c.device_name = "NVIDIA H100 NVL"; // a part without a row is of none
    for (const DeviceSpec& d : device_table()) EXPECT_FALSE(calibration_is_of(c, d)) << d.name;
    // ... unless it is the GPU in hand, for which any row stands in.
    EXPECT_TRUE(calibration_is_of(c, device_or_throw("H100 SXM"), "NVIDIA H100 NVL"));
    EXPECT_FALSE(calibration_is_of(c, device_or_throw("H100 SXM"), "NVIDIA L4"));
}

TEST(SolDevices, DatasheetFigures)
{
    const DeviceSpec& h = device_or_throw("H100 SXM");
    EXPECT_DOUBLE_EQ(h.dram_bandwidth, 3.35e12);
    EXPECT_DOUBLE_EQ(h.fp32_fma_rate, 67e12);
    EXPECT_DOUBLE_EQ(h.bf16_tensor_rate, 989.5e12); // 1,979 with sparsity / 2
    EXPECT_EQ(h.sm_count, 132);
    EXPECT_EQ(h.shared_per_block, 227u * 1024);
    EXPECT_DOUBLE_EQ(device_or_throw("H200").dram_bandwidth, 4.8e12);
    EXPECT_DOUBLE_EQ(device_or_throw("A100 SXM 80GB").dram_bandwidth, 2.039e12);
    EXPECT_DOUBLE_EQ(device_or_throw("L40S").fp32_fma_rate, 91.6e12);
    EXPECT_DOUBLE_EQ(device_or_throw("RTX 4090").dram_bandwidth, 1.008e12);
    EXPECT_EQ(device_or_throw("T4").tf32_tensor_rate, 0.0);
    for (const DeviceSpec& d : device_table()) {
        EXPECT_GT(d.dram_bandwidth, 0) << d.name;
        EXPECT_GT(d.fp32_fma_rate, 0) << d.name;
        EXPECT_GT(d.sm_count, 0) << d.name;
        EXPECT_GE(d.shared_per_sm, d.shared_per_block) << d.name;
        EXPECT_FALSE(d.source.empty()) << d.name;
        EXPECT_EQ(find_device(d.name), &d) << d.name; // the canonical name finds itself
    }
}

TEST(SolText, TimesKeepTheirUnitAtEveryScale)
{
    // gemm 2x3x4 fp32: 104 B / 3.35e12 B/s = 0.031 ns (it printed "0.000 us").
    const std::string tiny = analysis_text(analyze(op(OpKind::Gemm, {2, 3, 4}), dev("H100 SXM")));
    EXPECT_NE(tiny.find("T_SOL      0.031 ns (memory-bound)"), std::string::npos) << tiny;
    // 2 (2^40)^3 FLOP / 67e12 FLOP/s = 3.968e22 s: scientific, with its unit (it lost the unit).
    const std::uint64_t big = 1ull << 40;
    const std::string huge =
        analysis_text(analyze(op(OpKind::Gemm, {big, big, big}), dev("H100 SXM")));
    EXPECT_NE(huge.find("T_SOL      3.968e+22 s (compute-bound)"), std::string::npos) << huge;
}
