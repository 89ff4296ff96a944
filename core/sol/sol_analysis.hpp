#pragma once
// Speed-of-light analysis of one operation on one GPU, and the judgement of a measured time.
//
//   T_SOL     = max(FLOPs / peak(unit), bytes / bandwidth)   (FLOPs only when counted)
//   bound     = compute when the FLOP term is the larger, else memory
//   headroom  h = T / T_SOL                                  (1 = at SOL)
//   score     S = 1 / (1 + (T - T_SOL) / (T_b - T_SOL))      (0.5 at the baseline, 1 at SOL)
//   gaming    T < (1 - 5%) * T_SOL: the kernel cannot have done the work; never ranked
//
// With a calibration the peaks are the measured ones; the datasheet T_SOL is kept beside it,
// and the gaming flag uses the smaller (more permissive) of the two, so an honest kernel that
// beats a conservative calibration is not flagged.
#include "sol/device_table.hpp"
#include "sol/op_models.hpp"

#include <nlohmann/json.hpp>

namespace gsr::sol {

enum class Bound { Memory, Compute };
std::string_view bound_name(Bound b);

struct SolAnalysis {
    OpSpec op;
    std::string device;
    OpCost cost;
    MathUnit unit = MathUnit::Fp32Fma;
    double peak_rate = 0; ///< FLOP/s of `unit` used for the compute term
    double bandwidth = 0; ///< B/s
    double t_compute = 0; ///< s; 0 when the FLOPs are not counted
    double t_memory = 0; ///< s
    double t_sol = 0; ///< s
    double t_gather = 0; ///< s, SpMM's gather bound (max with t_compute); else 0
    double t_sol_datasheet = 0; ///< s, with the datasheet peaks
    Bound bound = Bound::Memory;
    double intensity = 0; ///< FLOP per minimal byte
    double ridge = 0; ///< FLOP per byte where the roofline bends
    bool calibrated = false;
};

/// The math unit an op runs on at its dtype: tensor cores for GEMMs of fp16/bf16 (and fp32
/// with tf32), CUDA cores otherwise, and CUDA cores when the GPU lacks that tensor path.
MathUnit math_unit_for(const OpSpec& op, const DeviceSpec& device);

SolAnalysis analyze(const OpSpec& op, const DeviceSpec& device,
                    const Calibration* calibration = nullptr);

double headroom(double t, double t_sol);
/// NaN when the baseline is not slower than SOL (the score is then undefined).
double sol_score(double t, double t_sol, double t_baseline);
/// True when t is below T_SOL by more than `tolerance` (a fraction): the timer cannot be that
/// far off, so the kernel skipped work.
bool is_gaming(double t, double t_sol, double tolerance = 0.05);
/// The T_SOL that flags gaming: the more permissive of the calibrated and datasheet bounds, so
/// that an honest kernel beating a conservative calibration is never called a cheat.
double gaming_bound(const SolAnalysis& a);

struct Judgement {
    double seconds = 0;
    double headroom = 0;
    double percent_of_sol = 0; ///< 100 * T_SOL / T
    double score = 0; ///< NaN without a usable baseline, and for a gaming time (never ranked)
    bool gaming = false;
    /// Faster than T_SOL, yet not gaming (within the tolerance, or between the calibrated
    /// bound and the datasheet's): noise, or a calibration below the machine.
    bool below_sol = false;
};

/// A measured time against an analysis (t_baseline <= 0: no baseline, score NaN).
Judgement judge(const SolAnalysis& a, double t, double t_baseline = 0);

nlohmann::json analysis_json(const SolAnalysis& a);
nlohmann::json judgement_json(const Judgement& j);
/// The text `gsr sol` prints.
std::string analysis_text(const SolAnalysis& a);

} // namespace gsr::sol
