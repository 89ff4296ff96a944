#pragma once
// The verifier's process boundary: an Evaluator that runs every candidate in the worker
// process `gsr-kernel-worker` (gpu/kernel_runner.hpp) and turns what happens to that process
// into verdicts. A crash, a hang or an illegal address ends the worker, never the caller:
//
//   no reply within the timeout   -> timeout (the worker's process group is killed)
//   the worker dies (a signal, an exit) before replying -> crash, with its status and stderr
//   a reply marked "fatal"        -> its verdict (illegal_address, crash); the worker exits
//                                    and the next candidate starts a fresh one
//
// One worker serves many candidates (its CUDA context and the float64 references of the
// session's seeds are reused). The seeds are drawn fresh for each evaluator (from
// std::random_device unless given), never the problem's test seed 1, so a kernel that
// hard-codes the test's output fails.
//
//   find_worker()              GSR_KERNEL_WORKER, else beside the running program, else
//                              ../libexec/gsr-studio/ from it; empty when none exists
//   launch_from_expression()   "ceil(rows * cols / 256)"-style grids of hand-written kernels
#include "sol/sol_analysis.hpp"
#include "tune/codegen.hpp"
#include "tune/search.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::tune {

class AgentProcess;

struct WorkerOptions {
    std::string worker; ///< the program; empty: find_worker()
    std::chrono::milliseconds timeout{20000}; ///< per candidate: compile, check and time
    std::size_t seeds = 3; ///< fresh input sets checked per candidate (at least 3)
    std::size_t runs = 20; ///< timed launches (the median is the time; at least 10)
    std::size_t warmup = 3;
    std::size_t check_rows = 16; ///< GEMM rows checked against float64 (all rows elsewhere)
    std::uint64_t seed = 0; ///< 0: draw the seeds from std::random_device
    /// Profile every verified candidate with ncu (when found): its SM and memory throughput,
    /// DRAM bytes, registers and occupancy become Evaluation::profile. Seconds per candidate.
    bool profile = false;
    std::string ncu; ///< the profiler; empty: find_ncu()
};

class WorkerEvaluator : public Evaluator {
public:
    /// `device` is the GPU in hand (configs are validated and generated for it); `t_sol`
    /// (seconds) marks a faster candidate as gaming, 0 turns the flag off.
    WorkerEvaluator(Problem problem, sol::DeviceSpec device, double t_sol,
                    WorkerOptions options = {});
    ~WorkerEvaluator() override;

    /// Another GPU spec and T_SOL for the next candidates (once device_info() said which GPU
    /// this is).
    void retarget(sol::DeviceSpec device, double t_sol);

    Evaluation evaluate(const KernelConfig& config) override;
    /// Raw CUDA with the default launch of its family (default_launch()).
    Evaluation evaluate_source(const std::string& cuda, const std::string& entry) override;
    Evaluation evaluate_launch(const std::string& cuda, const std::string& entry,
                               const LaunchShape& launch);
    /// The vendor baseline (cuBLAS, cuSPARSE: the fastest algorithm) or, for a
    /// straightforward baseline, the family's default config. `detail` names the algorithm.
    Evaluation baseline() override;
    /// The worker's "device" and "calibrate" jobs (gsr::Error when the worker fails).
    nlohmann::json device_info();
    nlohmann::json calibrate();

    const std::vector<std::uint64_t>& seeds() const { return seeds_; }
    /// Worker processes started so far (each crash, hang or fatal fault costs one).
    std::size_t workers_started() const { return started_; }
    /// The last reply as the worker sent it (null when none).
    const nlohmann::json& last_reply() const { return last_reply_; }

private:
    nlohmann::json job(const char* type) const;
    std::optional<ProfileSignals> profile_with_ncu(const nlohmann::json& evaluate_job);
    Evaluation run(const nlohmann::json& job);

    Problem problem_;
    sol::DeviceSpec device_;
    double t_sol_;
    WorkerOptions options_;
    std::vector<std::uint64_t> seeds_;
    std::unique_ptr<AgentProcess> process_;
    std::size_t started_ = 0;
    std::uint64_t jobs_sent_ = 0; ///< each job's "id", which its reply must carry back
    nlohmann::json last_reply_;
};

std::string find_worker();
/// `ncu` on PATH, else /usr/local/cuda/bin/ncu; empty when neither exists.
std::string find_ncu();

/// The metrics of `ncu --csv --page raw --print-units base` output (the first kernel row);
/// nullopt when the output has no such row.
std::optional<ProfileSignals> parse_ncu_csv(const std::string& text);

/// grid = ceil(W / 256), block = 256, with W the output elements (rows for a reduction): the
/// launch a raw CUDA candidate gets unless it says otherwise. Kernels should grid-stride.
LaunchShape default_launch(const Problem& p);

/// A 1-D launch from an expression over the problem: integers, `rows`, `cols`, `n` (output
/// elements), `inner`, `nnz`, + - * /, parentheses and ceil(a / b). gsr::Error naming the
/// position of a syntax error.
LaunchShape launch_from_expression(const Problem& p, std::string_view grid, unsigned block);

/// Fills Evaluation from a worker reply.
Evaluation evaluation_from_reply(const nlohmann::json& reply);

} // namespace gsr::tune
