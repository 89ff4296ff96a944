#pragma once
// The kernel lab's Apply: the best verified configuration of each engine operation, chosen
// from tuning sessions, stored in the project (key kAppliedKernelsKey), and turned into the
// kernels the GPU backend runs instead of its own on the next training run.
//
//   AppliedKernel      one engine problem's chosen candidate, with its time and its origin
//   choose_applied()   per engine problem, the fastest verified DSL candidate of the sessions
//   merge_applied()    the stored list with newer choices replacing the same problem's
//   backend_support()  whether the CUDA backend can take an operation over, or why not
//   tuned_kernels()    the applied kernels the backend can run, generated for it (engine
//                      binding, codegen.hpp generate_engine_spmm)
//   applied_json / applied_from_json   the stored form (gsr::Error naming the bad key)
//
// Only configurations of the DSL apply: the backend regenerates them for its own operands.
// Agent-written or file candidates are kept out (their source binds the lab's buffers).
#include "nn/backend.hpp"
#include "tune/kernel_config.hpp"
#include "tune/tune_session.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::tune {

inline constexpr std::string_view kAppliedKernelsKey = "applied_kernels";

struct AppliedKernel {
    std::string problem;   ///< engine problem name, e.g. engine_spmm_N214591_F64
    std::string operation; ///< spmm, layernorm, relu, topk_dense, gemm, loss
    nlohmann::json problem_spec; ///< problem_json of the problem
    KernelConfig config;
    std::int64_t session = 0; ///< stored session id (0: not from a project)
    std::size_t candidate = 0;
    std::string device;   ///< the SOL device the session used
    double seconds = 0;   ///< its verified median time
    double t_sol = 0;
    std::string baseline; ///< the session's baseline and its time (0: none)
    double baseline_seconds = 0;
    std::string chosen;   ///< when it was applied (UTC ISO 8601)
};

struct SessionRef {
    std::int64_t id = 0;
    TuneSession session;
};

struct ApplyChoice {
    std::vector<AppliedKernel> kernels; ///< one per engine problem, by problem name
    std::vector<std::string> skipped;   ///< why a session gave nothing
};

/// The engine operation of an engine problem name ("engine_spmm_N10_F64" -> "spmm"); empty
/// for other problems.
std::string engine_operation(std::string_view problem);

ApplyChoice choose_applied(const std::vector<SessionRef>& sessions);

/// `stored` with every problem of `chosen` replaced by (or added as) its new choice.
std::vector<AppliedKernel> merge_applied(std::vector<AppliedKernel> stored,
                                         const std::vector<AppliedKernel>& chosen);

/// Empty when the CUDA backend runs `operation` with an applied kernel; else why not.
std::string backend_support(std::string_view operation);

/// The kernels of `applied` the backend can run, each generated (and validated) for the
/// device its session was tuned on (the SOL table's first row when the name is unknown).
/// Those it cannot run are named in *skipped.
std::vector<nn::TunedKernel> tuned_kernels(const std::vector<AppliedKernel>& applied,
                                           std::vector<std::string>* skipped = nullptr);

nlohmann::json applied_json(const std::vector<AppliedKernel>& applied);
std::vector<AppliedKernel> applied_from_json(const nlohmann::json& j);

} // namespace gsr::tune
