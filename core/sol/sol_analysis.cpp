#include "sol/sol_analysis.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace gsr::sol {

std::string_view bound_name(Bound b) { return b == Bound::Compute ? "compute" : "memory"; }

MathUnit math_unit_for(const OpSpec& op, const DeviceSpec& device)
{
    MathUnit unit = MathUnit::Fp32Fma;
    if (op.kind == OpKind::Gemm) {
        if (op.dtype == DType::F16)
            unit = MathUnit::Fp16Tensor;
        else if (op.dtype == DType::BF16)
            unit = MathUnit::Bf16Tensor;
        else if (op.tf32)
            unit = MathUnit::Tf32Tensor;
    }
    return device.rate(unit) > 0 ? unit : MathUnit::Fp32Fma;
}

namespace {

struct Times {
    double compute = 0, memory = 0, gather = 0;
};

Times times(const OpCost& c, double rate, double bandwidth)
{
    Times t;
    t.compute = c.flops_counted ? c.flops / rate : 0.0;
    t.memory = c.bytes / bandwidth;
    t.gather = c.gather_bytes > 0 ? std::max(t.compute, c.gather_bytes / bandwidth) : 0.0;
    return t;
}

std::string seconds_text(double s)
{
    char buf[48];
    if (s >= 1e5 || (s > 0 && s < 1e-12))
        std::snprintf(buf, sizeof buf, "%.3e s", s);
    else if (s >= 1)
        std::snprintf(buf, sizeof buf, "%.3f s", s);
    else if (s >= 1e-3)
        std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
    else if (s >= 1e-6 || s == 0)
        std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f ns", s * 1e9);
    return buf;
}

} // namespace

SolAnalysis analyze(const OpSpec& spec, const DeviceSpec& device, const Calibration* calibration)
{
    SolAnalysis a;
    a.op = normalized(spec);
    a.device = device.name;
    a.cost = op_cost(a.op);
    a.unit = math_unit_for(a.op, device);
    const Peaks sheet = datasheet_peaks(device);
    const Peaks peaks = calibration ? calibrated_peaks(device, *calibration) : sheet;
    a.calibrated = calibration != nullptr;
    a.peak_rate = peaks.rate(a.unit);
    a.bandwidth = peaks.bandwidth;
    if (a.peak_rate <= 0 || a.bandwidth <= 0)
        throw Error("SOL: " + device.name + " has no peak for " +
                    std::string(math_unit_name(a.unit)));
    const Times t = times(a.cost, a.peak_rate, a.bandwidth);
    a.t_compute = t.compute;
    a.t_memory = t.memory;
    a.t_gather = t.gather;
    a.t_sol = std::max(t.compute, t.memory);
    a.bound = t.compute > t.memory ? Bound::Compute : Bound::Memory;
    const Times ts = times(a.cost, sheet.rate(a.unit), sheet.bandwidth);
    a.t_sol_datasheet = std::max(ts.compute, ts.memory);
    a.intensity = a.cost.bytes > 0 ? a.cost.flops / a.cost.bytes : 0.0;
    a.ridge = a.peak_rate / a.bandwidth;
    return a;
}

double headroom(double t, double t_sol) { return t / t_sol; }

double sol_score(double t, double t_sol, double t_baseline)
{
    if (!(t_baseline > t_sol)) return std::numeric_limits<double>::quiet_NaN();
    return 1.0 / (1.0 + (t - t_sol) / (t_baseline - t_sol));
}

bool is_gaming(double t, double t_sol, double tolerance) { return t < (1.0 - tolerance) * t_sol; }

double gaming_bound(const SolAnalysis& a)
{
    return a.t_sol_datasheet > 0 ? std::min(a.t_sol, a.t_sol_datasheet) : a.t_sol;
}

Judgement judge(const SolAnalysis& a, double t, double t_baseline)
{
    Judgement j;
    j.seconds = t;
    j.headroom = headroom(t, a.t_sol);
    j.percent_of_sol = 100.0 * a.t_sol / t;
    j.gaming = is_gaming(t, gaming_bound(a));
    // "Flag it, never rank it": a time that cannot have done the work gets no score.
    j.score = t_baseline > 0 && !j.gaming ? sol_score(t, a.t_sol, t_baseline)
                                          : std::numeric_limits<double>::quiet_NaN();
    j.below_sol = !j.gaming && t < a.t_sol;
    return j;
}

namespace {

nlohmann::json number_or_null(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json analysis_json(const SolAnalysis& a)
{
    nlohmann::json shape = nlohmann::json::array();
    for (auto v : a.op.shape) shape.push_back(v);
    nlohmann::json j = {{"op", op_kind_name(a.op.kind)},
                        {"shape", shape},
                        {"dtype", dtype_name(a.op.dtype)},
                        {"device", a.device},
                        {"unit", math_unit_name(a.unit)},
                        {"flops", a.cost.flops},
                        {"flops_counted", a.cost.flops_counted},
                        {"bytes", a.cost.bytes},
                        {"peak_rate", a.peak_rate},
                        {"bandwidth", a.bandwidth},
                        {"t_compute", a.t_compute},
                        {"t_memory", a.t_memory},
                        {"t_sol", a.t_sol},
                        {"t_sol_datasheet", a.t_sol_datasheet},
                        {"bound", bound_name(a.bound)},
                        {"intensity", a.intensity},
                        {"ridge", a.ridge},
                        {"calibrated", a.calibrated}};
    if (a.cost.gather_bytes > 0) {
        j["gather_bytes"] = a.cost.gather_bytes;
        j["t_gather"] = a.t_gather;
    }
    return j;
}

nlohmann::json judgement_json(const Judgement& j)
{
    return {{"seconds", j.seconds},
            {"headroom", number_or_null(j.headroom)},
            {"percent_of_sol", number_or_null(j.percent_of_sol)},
            {"score", number_or_null(j.score)},
            {"gaming", j.gaming},
            {"below_sol", j.below_sol}};
}

std::string analysis_text(const SolAnalysis& a)
{
    std::string shape;
    for (auto v : a.op.shape) {
        if (!shape.empty()) shape += 'x';
        shape += std::to_string(v);
    }
    char buf[512];
    std::string s;
    std::snprintf(buf, sizeof buf, "%s %s %s on %s%s\n",
                  std::string(op_kind_name(a.op.kind)).c_str(), shape.c_str(),
                  std::string(dtype_name(a.op.dtype)).c_str(), a.device.c_str(),
                  a.calibrated ? " (calibrated)" : "");
    s += buf;
    std::snprintf(buf, sizeof buf,
                  "FLOP       %.6g%s\nbytes      %.6g\nintensity  %.4g FLOP/B "
                  "(ridge %.4g)\n",
                  a.cost.flops, a.cost.flops_counted ? "" : " (not counted)", a.cost.bytes,
                  a.intensity, a.ridge);
    s += buf;
    std::snprintf(buf, sizeof buf, "peak       %.6g FLOP/s (%s), %.6g B/s\n", a.peak_rate,
                  std::string(math_unit_name(a.unit)).c_str(), a.bandwidth);
    s += buf;
    s += "T_compute  " + seconds_text(a.t_compute) + "\nT_memory   " + seconds_text(a.t_memory) +
         "\n";
    if (a.cost.gather_bytes > 0) s += "T_gather   " + seconds_text(a.t_gather) + "\n";
    s += "T_SOL      " + seconds_text(a.t_sol) + " (" + std::string(bound_name(a.bound)) +
         "-bound)\n";
    return s;
}

} // namespace gsr::sol
