// `gsr sol OP --shape ...`: the speed-of-light bound of one operation on a GPU of the device
// table, and (with --time) how far a measured time is from it.
#include "cli_commands.hpp"

#include "sol/sol_analysis.hpp"
#include "tune/kernel_config.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

namespace gsr::cli {

namespace {

std::vector<std::uint64_t> parse_shape(const std::string& text)
{
    std::vector<std::uint64_t> shape;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string part = text.substr(start, comma - start);
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (ec == std::errc::result_out_of_range)
            throw UsageError("--shape: " + part + " is out of range (at most " +
                             std::to_string(~std::uint64_t{0}) + ")");
        if (ec != std::errc{} || end != part.data() + part.size() || part.empty())
            throw UsageError("--shape expects comma-separated integers, got '" + text + "'");
        shape.push_back(v);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return shape;
}

/// The kernel lab's epilogue steps (tune::parse_epilogue_step), joined by commas, "none" alone;
/// the SOL model counts one activation, so a second is refused rather than dropped.
sol::Epilogue parse_epilogue(const std::string& text)
{
    tune::EpilogueChain chain;
    if (text == "none") return {};
    bool activation = false;
    std::size_t start = 0;
    while (!text.empty()) {
        const std::size_t comma = text.find(',', start);
        const std::string step = text.substr(start, comma - start);
        if (step.empty())
            throw Error("an empty step in '" + text + "'; expected steps joined by commas");
        chain.push_back(tune::parse_epilogue_step(step));
        if (chain.back().kind == tune::EpilogueKind::Activation) {
            if (activation) // relu,gelu kept gelu without a word
                throw Error("two activations in '" + text + "'; an epilogue has one");
            activation = true;
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return tune::epilogue_summary(chain);
}

void print_devices()
{
    std::printf("%-16s %-8s %4s %10s %10s %10s %10s %8s\n", "device", "arch", "SMs", "DRAM GB/s",
                "FP32 TF", "TF32 TF", "FP16 TF", "L2 MiB");
    for (const sol::DeviceSpec& d : sol::device_table())
        std::printf("%-16s %-8s %4d %10.0f %10.1f %10.1f %10.1f %8zu\n", d.name.c_str(),
                    d.architecture.c_str(), d.sm_count, d.dram_bandwidth / 1e9,
                    d.fp32_fma_rate / 1e12, d.tf32_tensor_rate / 1e12, d.fp16_tensor_rate / 1e12,
                    d.l2_bytes >> 20);
}

} // namespace

int cmd_sol(const std::vector<std::string>& args)
{
    const Args a(args,
                 {"--shape", "--device", "--dtype", "--epilogue", "--inputs", "--time",
                  "--baseline", "--calibration"},
                 {"--json", "--tf32", "--unweighted", "--no-affine", "--devices", "--help"});
    if (a.has("--help")) {
        std::cout
            << "usage: gsr sol OP --shape DIMS [--device NAME] [--dtype fp32|fp16|bf16] [--tf32]\n"
               "       [--epilogue bias,scale,relu|gelu|silu|sigmoid|tanh,residual] [--inputs N]\n"
               "       [--unweighted] [--no-affine] [--time S [--baseline S]]\n"
               "       [--calibration FILE.json] [--json]\n"
               "       gsr sol --devices\n"
               "OP and DIMS: gemm M,N,K | spmm M,N,NNZ,F | spmm_k M,N,NNZ,F,K | elementwise N\n"
               "or R,C | reduction R,C | softmax R,C | layernorm R,C | topk N,D,G,K\n"
               "Speed-of-light time, bound type and (with --time) headroom, score and gaming.\n";
        return 0;
    }
    if (a.has("--devices")) {
        // The table of every device: an OP, a shape or --json would be ignored.
        a.refuse_flags_except({"--devices"}, "sol --devices");
        if (!a.positionals().empty()) throw UsageError("sol --devices takes no OP");
        print_devices();
        return 0;
    }
    if (a.positionals().size() != 1) throw UsageError("sol takes one OP (gemm, spmm, ...)");
    if (!a.has("--shape")) throw UsageError("sol needs --shape");
    sol::OpSpec op;
    const sol::DeviceSpec* device = nullptr;
    // A core error about a value names the flag it came from.
    const auto from_flag = [](const char* flag, auto&& parse) {
        try {
            return parse();
        } catch (const Error& e) {
            throw UsageError(flag ? std::string(flag) + ": " + e.message() : e.message());
        }
    };
    op.kind = from_flag(nullptr, [&] { return sol::parse_op_kind(a.positionals()[0]); });
    op.dtype = from_flag("--dtype", [&] { return sol::parse_dtype(a.value("--dtype", "fp32")); });
    op.epilogue = from_flag("--epilogue", [&] { return parse_epilogue(a.value("--epilogue")); });
    device = from_flag("--device",
                       [&] { return &sol::device_or_throw(a.value("--device", "H100 SXM")); });
    op.shape = from_flag("--shape", [&] { return parse_shape(a.value("--shape")); });
    op = from_flag("--shape", [&] { return sol::normalized(op); }); // what the shape breaks
    // Each of these changes one op's model only: elsewhere it would be ignored without a word.
    const auto only_for = [&](const char* flag, bool applies, const char* ops) {
        if (a.has(flag) && !applies)
            throw UsageError(std::string(flag) + " applies to " + ops + " only, not " +
                             (op.kind == sol::OpKind::Gemm
                                  ? std::string(sol::dtype_name(op.dtype)) + " "
                                  : std::string()) +
                             a.positionals()[0]);
    };
    only_for("--tf32", op.kind == sol::OpKind::Gemm && op.dtype == sol::DType::F32,
             "fp32 gemm");
    only_for("--unweighted",
             op.kind == sol::OpKind::Spmm || op.kind == sol::OpKind::SpmmCompressed,
             "spmm and spmm_k");
    only_for("--no-affine", op.kind == sol::OpKind::LayerNorm, "layernorm");
    // The top-k's output is compressed: an epilogue there changed no figure.
    only_for("--epilogue", op.kind != sol::OpKind::GroupTopK,
             "ops with a dense output (every op but topk)");
    only_for("--inputs", op.kind == sol::OpKind::Elementwise, "elementwise");
    op.tf32 = a.has("--tf32");
    op.weighted = !a.has("--unweighted");
    op.affine = !a.has("--no-affine");
    op.inputs = unsigned(a.integer("--inputs", 1, 1, 64));
    std::optional<sol::Calibration> calibration;
    if (a.has("--calibration")) {
        calibration = sol::read_calibration_file(a.value("--calibration"));
        sol::refuse_calibration_of_another_gpu(*calibration, a.value("--calibration"),
                                               device->name);
    }
    const sol::SolAnalysis an = sol::analyze(op, *device, calibration ? &*calibration : nullptr);
    const double t = a.number("--time", 0.0, 0.0, true);
    const double tb = a.number("--baseline", 0.0, 0.0, true);
    if (a.has("--baseline") && !a.has("--time")) throw UsageError("--baseline needs --time");
    if (a.has("--json")) {
        nlohmann::json j = sol::analysis_json(an);
        if (a.has("--time")) j["measured"] = sol::judgement_json(sol::judge(an, t, tb));
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    std::cout << sol::analysis_text(an);
    if (a.has("--time")) {
        const sol::Judgement jd = sol::judge(an, t, tb);
        std::printf("measured   %.6g s: headroom %.3f, %.1f%% of SOL", t, jd.headroom,
                    jd.percent_of_sol);
        if (a.has("--baseline")) {
            if (std::isfinite(jd.score))
                std::printf(", score %.3f", jd.score);
            else if (jd.gaming)
                std::printf(", not scored (gaming)");
            else
                std::printf(", no score (the baseline is not slower than SOL)");
        }
        std::printf("%s\n", jd.gaming ? "\nGAMING: faster than SOL by more than 5%, it cannot "
                                        "have done the work"
                    : jd.below_sol
                        ? "\nbelow SOL: faster than the bound, within its tolerance (noise, or a "
                          "calibration below this machine)"
                        : "");
    }
    return 0;
}

} // namespace gsr::cli
