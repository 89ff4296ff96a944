#pragma once
// A tuning session as it is shown, stored and reported: one problem on one device, its SOL
// bounds, and a flat list of candidates (search trials, refine lineage, verified files,
// baselines), each with its verdict and time. The profiling panel, the project store and
// `gsr report` all read this record; search() and refine() results convert into it.
//
//   TuneSession.candidates   in the order they ran; `parent` links refine children
//   percent_of_sol()         100 * T_SOL / T of a timed candidate (0 when not timed)
//   achieved_flops()         the problem's FLOPs over the candidate's time (roofline y)
//   to_json / tune_session_from_json   the stored form (gsr::Error naming the bad key)
#include "sol/sol_analysis.hpp"
#include "tune/problem.hpp"
#include "tune/refine.hpp"
#include "tune/search.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gsr::tune {

struct CandidateRecord {
    std::size_t id = 0; ///< unique within the session (trial index or lineage node)
    std::optional<std::size_t> parent; ///< refine: the candidate it was derived from
    std::string label; ///< the config's text form, or a file name for raw CUDA
    std::string origin; ///< grid, random, predicted, neighbour, refine, agent, file, baseline
    Verdict verdict = Verdict::Ok;
    double seconds = 0; ///< median time; meaningful for ok and gaming
    std::string detail;
    std::optional<ProfileSignals> profile;
    bool best = false; ///< the session's best verified candidate
};

struct TuneSession {
    std::string problem; ///< Problem::name
    /// The problem itself (problem_json): what Apply regenerates a config for. Null in
    /// sessions stored before it was kept.
    nlohmann::json problem_spec;
    std::string family;
    std::string device; ///< the DeviceSpec name the bounds use
    std::string strategy; ///< grid, random, sol, refine, verify
    std::string created; ///< ISO 8601, UTC
    std::string stop_reason;
    std::size_t space_size = 0;
    // The problem's bounds (from sol::analyze).
    double t_sol = 0;
    double flops = 0;
    double bytes = 0;
    double peak_rate = 0; ///< FLOP/s
    double bandwidth = 0; ///< B/s
    std::string bound; ///< "memory" or "compute"
    // The baseline the score compares with (0 seconds: not measured).
    std::string baseline;
    double baseline_seconds = 0;
    std::vector<CandidateRecord> candidates;

    /// The best verified candidate, if any.
    const CandidateRecord* best_candidate() const;
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

/// The index of the fastest verified candidate (ok, timed), whatever the `best` flags say:
/// the rule a session is recorded and read back by, and the GUI's while it runs. -1: none.
int fastest_ok_index(const TuneSession& s);

double percent_of_sol(const TuneSession& s, const CandidateRecord& c);
double achieved_flops(const TuneSession& s, const CandidateRecord& c);
/// Whether the candidate has a time to place on the roofline (ok or gaming).
bool is_timed(const CandidateRecord& c);

/// Now, as ISO 8601 UTC ("2026-11-22T02:40:00Z").
std::string utc_now_iso8601();

/// A session skeleton with the bounds of `p` on the analysed device, created now.
TuneSession make_session(const Problem& p, const sol::SolAnalysis& a, std::string strategy);
/// The baseline's time (when it verified) and name, which the session's score compares with.
void set_baseline(TuneSession& s, const Evaluation& baseline);
void add_search(TuneSession& s, const SearchResult& r);
void add_refine(TuneSession& s, const RefineResult& r);

nlohmann::json to_json(const TuneSession& s);
/// gsr::Error naming the missing or mistyped key.
TuneSession tune_session_from_json(const nlohmann::json& j);

} // namespace gsr::tune
