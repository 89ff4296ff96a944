#pragma once
// Searching the config space of a problem: grid, random and SOL-guided, every trial recorded,
// behind an Evaluator that the GPU side implements (compile, verify, time in a worker).
//
//   Evaluator          config -> Evaluation (a time, or a failure verdict); raw CUDA optional
//   config_space()     every valid config of a problem on a device (the DSL's axes crossed)
//   predicted_time()   a config-level roofline: the SOL of the config's own traffic and
//                      arithmetic, derated by occupancy, vector width, waves and pipelining
//   search()           grid: the space in order; random: a seeded sample; sol: predicted order
//                      plus the neighbourhood of the best so far (climbing while it
//                      improves), stopping when h <= 1.2, when the budget for log h is spent,
//                      or after `patience` stagnant trials once the best has no untried
//                      neighbour
//   allocate_budget()  trials across problems in proportion to log headroom (muCUTLASS)
#include "sol/device_table.hpp"
#include "tune/kernel_config.hpp"
#include "tune/problem.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gsr::tune {

/// What a profiler (ncu) adds to a timing; absent without ncu.
struct ProfileSignals {
    double sm_percent = 0; ///< SM throughput, % of peak
    double memory_percent = 0; ///< memory throughput, % of peak
    int registers = 0; ///< per thread
    double occupancy_percent = 0;
    double dram_bytes = 0;
};

struct Evaluation {
    Verdict verdict = Verdict::Ok;
    double seconds = 0; ///< median time; meaningful when verdict is Ok or Gaming
    std::string detail; ///< compiler log excerpt, first mismatch, ...
    std::optional<ProfileSignals> profile;

    bool ok() const { return verdict == Verdict::Ok; }
};

/// The GPU side implements this: compile (NVRTC), verify and time in a worker process.
class Evaluator {
public:
    virtual ~Evaluator() = default;
    virtual Evaluation evaluate(const KernelConfig& config) = 0;
    /// A raw CUDA candidate (from an agent). The default says it is unsupported.
    virtual Evaluation evaluate_source(const std::string& cuda, const std::string& entry);
    /// What a search is compared with (the vendor library's fastest, or the family's default
    /// config); `detail` names it. The default has none: an Unsupported verdict.
    virtual Evaluation baseline();
};

/// An Evaluator from a function (tests, synthetic landscapes).
class FunctionEvaluator : public Evaluator {
public:
    explicit FunctionEvaluator(std::function<Evaluation(const KernelConfig&)> f) : f_(std::move(f))
    {
    }
    Evaluation evaluate(const KernelConfig& config) override { return f_(config); }

private:
    std::function<Evaluation(const KernelConfig&)> f_;
};

/// Every valid config of the DSL's axes for the problem's family on `device`, in a fixed
/// order; `rejected` (optional) counts the invalid combinations.
std::vector<KernelConfig> config_space(const Problem& p, const sol::DeviceSpec& device,
                                       std::size_t* rejected = nullptr);

/// Seconds the config would take by its own roofline (>= T_SOL of the problem).
double predicted_time(const Problem& p, const KernelConfig& c, const sol::DeviceSpec& device);

/// Configs that differ from `c` in one axis by one step (the neighbourhood of local search).
bool are_neighbours(const KernelConfig& a, const KernelConfig& b);

enum class Strategy { Grid, Random, Sol };
std::string_view strategy_name(Strategy s);
Strategy parse_strategy(std::string_view name);

/// The stop headroom of `gsr kernels tune` and the Profiling panel's Tune alike: 91 % of SOL
/// rather than SearchOptions' 83 %, for the kernel suite's 85 % target.
inline constexpr double kInteractiveStopHeadroom = 1.1;

struct SearchOptions {
    Strategy strategy = Strategy::Sol;
    std::size_t budget = 64; ///< most trials
    std::uint64_t seed = 1; ///< random order
    double stop_headroom = 1.2; ///< SOL: stop this close to SOL (kInteractiveStopHeadroom)
    double full_headroom = 4.0; ///< SOL: at or above this headroom the whole budget is used
    /// SOL: stop after this many trials without improvement (once the best config's
    /// neighbours are all tried)
    std::size_t patience = 12;
    std::size_t min_trials = 8; ///< SOL: the log-h budget never stops it before these
    double min_improvement = 0.01; ///< a trial improves when 1% faster than the best
};

struct Trial {
    std::size_t index = 0;
    KernelConfig config;
    Evaluation result;
    double headroom = 0; ///< T / T_SOL; 0 when not timed
    bool improved = false;
    double best_seconds = 0; ///< the best verified time after this trial (0: none yet)
    std::string origin; ///< "grid", "random", "predicted", "neighbour"
};

struct SearchResult {
    std::vector<Trial> trials;
    std::optional<std::size_t> best; ///< index into trials
    std::string stop_reason; ///< "exhausted", "budget", "near SOL", "stagnant"
    std::size_t space_size = 0;
    double t_sol = 0;

    double best_seconds() const; ///< 0 when nothing verified
};

/// Runs `options.strategy` over `space`. `t_sol` (the calibrated T_SOL where there is a
/// calibration) is each trial's headroom reference and steers SOL: its stop and its budget.
/// A time more than 5% under `gaming_t_sol` (sol::gaming_bound) is gaming, never ranked.
SearchResult search(const Problem& p, const sol::DeviceSpec& device,
                    const std::vector<KernelConfig>& space, Evaluator& evaluator,
                    const SearchOptions& options, double t_sol, double gaming_t_sol);
/// The same with one bound for both (no calibration: the gaming bound is T_SOL).
inline SearchResult search(const Problem& p, const sol::DeviceSpec& device,
                           const std::vector<KernelConfig>& space, Evaluator& evaluator,
                           const SearchOptions& options, double t_sol)
{
    return search(p, device, space, evaluator, options, t_sol, t_sol);
}

/// The SOL trial budget at headroom h: the whole `max_budget` at h >= full, none at h <=
/// stop, and in proportion to log(h / stop) between.
std::size_t budget_for_headroom(double h, std::size_t max_budget, double stop_headroom,
                                double full_headroom);

/// Splits `total` trials across problems in proportion to log(h_i) (problems already at
/// h <= stop get none); the shares sum to total when any problem has headroom.
std::vector<std::size_t> allocate_budget(const std::vector<double>& headrooms, std::size_t total,
                                         double stop_headroom = 1.2);

nlohmann::json trial_json(const Trial& t);
nlohmann::json search_result_json(const SearchResult& r);

} // namespace gsr::tune
