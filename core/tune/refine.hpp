#pragma once
// The CuTeGen-style refine loop: one evolving kernel, generate -> test -> refine, repairs of a
// failed child up to N times per step, and profiler signals shown to the proposer only after
// the first optimisation step ("delayed profiling"). Every parent -> child step is recorded.
//
//   classify()          memory-bound (mem >= 70%, SM <= 50%), compute-bound (the converse),
//                       latency-bound (both <= 40%), register pressure (>= 96 registers and
//                       occupancy <= 40%)
//   RefineProposer      proposes the next child of the current kernel (a program, an agent, or
//                       HeuristicProposer, which mutates along what the signals say)
//   refine()            the loop; a child replaces its parent only when it is faster
#include "sol/device_table.hpp"
#include "tune/search.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gsr::tune {

enum class Bottleneck { MemoryBound, ComputeBound, LatencyBound, RegisterPressure };
std::string_view bottleneck_name(Bottleneck b);
std::vector<Bottleneck> classify(const ProfileSignals& s);

struct RefineStep {
    std::size_t step = 0; ///< 0 is the starting kernel, 1.. the refinement rounds
    std::size_t node = 0; ///< this candidate's id in the lineage
    std::optional<std::size_t> parent; ///< the node it was derived from (none for the start)
    KernelConfig config;
    Evaluation result;
    std::string change; ///< what the proposer changed, in words
    std::size_t repair = 0; ///< 0 for the first attempt of a step, 1.. for repairs
    bool signals_shown = false; ///< whether the proposer saw profiler signals for this child
    bool accepted = false; ///< became the current kernel
};

struct RefineContext {
    const Problem& problem;
    const sol::DeviceSpec& device;
    const KernelConfig& current;
    const Evaluation& current_result;
    std::size_t step = 0;
    /// Signals of the current kernel; null in the first step (delayed profiling) and when the
    /// evaluator has no profiler.
    const ProfileSignals* profile = nullptr;
    /// The failure of the previous attempt of this step, when this is a repair.
    std::string repair_reason;
    const std::vector<RefineStep>& history;
};

struct Proposal {
    KernelConfig config;
    std::string change;
};

class RefineProposer {
public:
    virtual ~RefineProposer() = default;
    /// The next child of ctx.current, or nullopt when it has nothing more to try.
    virtual std::optional<Proposal> propose(const RefineContext& ctx) = 0;
};

/// Mutations of one axis at a time, chosen by the bottleneck when signals are shown, in a
/// fixed rotation otherwise. Never proposes a config already tried.
class HeuristicProposer : public RefineProposer {
public:
    std::optional<Proposal> propose(const RefineContext& ctx) override;
};

struct RefineOptions {
    std::size_t max_steps = 8;
    std::size_t max_repairs = 3;
};

struct RefineResult {
    std::vector<RefineStep> steps;
    std::size_t best_node = 0;
    double best_seconds = 0; ///< 0 when even the start failed
    std::string stop_reason; ///< "steps", "no proposal", "start failed"
};

RefineResult refine(const Problem& p, const sol::DeviceSpec& device, const KernelConfig& start,
                    Evaluator& evaluator, RefineProposer& proposer, const RefineOptions& options,
                    double t_sol);

nlohmann::json refine_result_json(const RefineResult& r);

} // namespace gsr::tune
