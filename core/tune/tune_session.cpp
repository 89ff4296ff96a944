#include "tune/tune_session.hpp"

#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <chrono>
#include <cmath>
#include <ctime>

namespace gsr::tune {
namespace {

} // namespace

std::string utc_now_iso8601()
{
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

namespace {

void mark_best(TuneSession& s)
{
    for (CandidateRecord& c : s.candidates) c.best = false;
    if (const int best = fastest_ok_index(s); best >= 0)
        s.candidates[std::size_t(best)].best = true;
}

std::size_t next_id(const TuneSession& s)
{
    std::size_t id = 0;
    for (const CandidateRecord& c : s.candidates) id = std::max(id, c.id + 1);
    return id;
}

nlohmann::json signals_json(const ProfileSignals& p)
{
    return {{"sm_percent", p.sm_percent},     {"memory_percent", p.memory_percent},
            {"registers", p.registers},       {"occupancy_percent", p.occupancy_percent},
            {"dram_bytes", p.dram_bytes}};
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const char* where)
{
    if (!j.is_object() || !j.contains(key))
        throw Error(std::string("tune session: ") + where + " has no key '" + key + "'");
    if (std::optional<T> v = json_exact<T>(j.at(key))) return *v;
    throw Error(std::string("tune session: ") + where + " key '" + key +
                "' has the wrong type or is out of range (" + json_text(j.at(key)) + ")");
}

template <typename T>
T optional_field(const nlohmann::json& j, const char* key, T fallback, const char* where)
{
    if (!j.contains(key) || j.at(key).is_null()) return fallback;
    return field<T>(j, key, where);
}

} // namespace

int fastest_ok_index(const TuneSession& s)
{
    int best = -1;
    for (std::size_t i = 0; i < s.candidates.size(); ++i) {
        const CandidateRecord& c = s.candidates[i];
        if (c.verdict == Verdict::Ok && c.seconds > 0 &&
            (best < 0 || c.seconds < s.candidates[std::size_t(best)].seconds))
            best = int(i);
    }
    return best;
}

const CandidateRecord* TuneSession::best_candidate() const
{
    for (const CandidateRecord& c : candidates)
        if (c.best) return &c;
    return nullptr;
}

bool is_timed(const CandidateRecord& c)
{
    return (c.verdict == Verdict::Ok || c.verdict == Verdict::Gaming) && c.seconds > 0;
}

double percent_of_sol(const TuneSession& s, const CandidateRecord& c)
{
    return is_timed(c) ? 100.0 * s.t_sol / c.seconds : 0.0;
}

double achieved_flops(const TuneSession& s, const CandidateRecord& c)
{
    return is_timed(c) ? s.flops / c.seconds : 0.0;
}

TuneSession make_session(const Problem& p, const sol::SolAnalysis& a, std::string strategy)
{
    TuneSession s;
    s.problem = p.name;
    s.problem_spec = problem_json(p);
    s.family = std::string(family_name(p.family));
    s.device = a.device;
    s.strategy = std::move(strategy);
    s.created = utc_now_iso8601();
    s.t_sol = a.t_sol;
    s.flops = a.cost.flops;
    s.bytes = a.cost.bytes;
    s.peak_rate = a.peak_rate;
    s.bandwidth = a.bandwidth;
    s.bound = std::string(sol::bound_name(a.bound));
    s.baseline = std::string(baseline_name(p.baseline));
    return s;
}

void set_baseline(TuneSession& s, const Evaluation& baseline)
{
    s.baseline_seconds = baseline.ok() ? baseline.seconds : 0;
    if (!baseline.detail.empty() && baseline.ok()) s.baseline = baseline.detail;
}

void add_search(TuneSession& s, const SearchResult& r)
{
    const std::size_t base = next_id(s);
    for (const Trial& t : r.trials) {
        CandidateRecord c;
        c.id = base + t.index;
        c.label = to_text(t.config);
        c.origin = t.origin;
        c.verdict = t.result.verdict;
        c.seconds = t.result.seconds;
        c.detail = t.result.detail;
        c.profile = t.result.profile;
        s.candidates.push_back(std::move(c));
    }
    if (s.stop_reason.empty()) s.stop_reason = r.stop_reason;
    s.space_size = std::max(s.space_size, r.space_size);
    mark_best(s);
}

void add_refine(TuneSession& s, const RefineResult& r)
{
    const std::size_t base = next_id(s);
    for (const RefineStep& step : r.steps) {
        CandidateRecord c;
        c.id = base + step.node;
        if (step.parent) c.parent = base + *step.parent;
        c.label = to_text(step.config);
        c.origin = step.step == 0 ? "start" : "refine";
        c.verdict = step.result.verdict;
        c.seconds = step.result.seconds;
        c.detail = step.change.empty() ? step.result.detail
                                       : step.change + (step.result.detail.empty()
                                                            ? ""
                                                            : "; " + step.result.detail);
        c.profile = step.result.profile;
        s.candidates.push_back(std::move(c));
    }
    if (s.stop_reason.empty()) s.stop_reason = r.stop_reason;
    mark_best(s);
}

nlohmann::json to_json(const TuneSession& s)
{
    nlohmann::json candidates = nlohmann::json::array();
    for (const CandidateRecord& c : s.candidates) {
        nlohmann::json j = {{"id", c.id},
                            {"parent", c.parent ? nlohmann::json(*c.parent) : nlohmann::json()},
                            {"label", c.label},
                            {"origin", c.origin},
                            {"verdict", verdict_name(c.verdict)},
                            {"seconds", c.seconds},
                            {"percent_of_sol", percent_of_sol(s, c)},
                            {"best", c.best}};
        if (!c.detail.empty()) j["detail"] = c.detail;
        if (c.profile) j["signals"] = signals_json(*c.profile);
        candidates.push_back(std::move(j));
    }
    nlohmann::json j = {{"problem", s.problem},     {"family", s.family},
                        {"device", s.device},       {"strategy", s.strategy},
                        {"created", s.created},     {"stop_reason", s.stop_reason},
                        {"space_size", s.space_size}, {"t_sol", s.t_sol},
                        {"flops", s.flops},         {"bytes", s.bytes},
                        {"peak_rate", s.peak_rate}, {"bandwidth", s.bandwidth},
                        {"bound", s.bound},         {"baseline", s.baseline},
                        {"baseline_seconds", s.baseline_seconds}, {"candidates", candidates}};
    if (!s.problem_spec.is_null()) j["problem_spec"] = s.problem_spec;
    return j;
}

TuneSession tune_session_from_json(const nlohmann::json& j)
{
    const char* top = "the session";
    TuneSession s;
    s.problem = field<std::string>(j, "problem", top);
    s.family = optional_field<std::string>(j, "family", "", top);
    if (j.contains("problem_spec")) s.problem_spec = j.at("problem_spec");
    s.device = field<std::string>(j, "device", top);
    s.strategy = optional_field<std::string>(j, "strategy", "", top);
    s.created = optional_field<std::string>(j, "created", "", top);
    s.stop_reason = optional_field<std::string>(j, "stop_reason", "", top);
    s.space_size = optional_field<std::size_t>(j, "space_size", 0, top);
    s.t_sol = field<double>(j, "t_sol", top);
    s.flops = optional_field<double>(j, "flops", 0.0, top);
    s.bytes = optional_field<double>(j, "bytes", 0.0, top);
    s.peak_rate = optional_field<double>(j, "peak_rate", 0.0, top);
    s.bandwidth = optional_field<double>(j, "bandwidth", 0.0, top);
    s.bound = optional_field<std::string>(j, "bound", "", top);
    s.baseline = optional_field<std::string>(j, "baseline", "", top);
    s.baseline_seconds = optional_field<double>(j, "baseline_seconds", 0.0, top);
    // Times and rates a session can hold: a negative or zero T_SOL reported "-20 % of SOL".
    const auto require = [](double v, bool positive, const std::string& what) {
        if (!std::isfinite(v) || v < 0 || (positive && v == 0))
            throw Error("tune session: " + what + " must be " +
                        (positive ? "a positive" : "a non-negative") + " number, got " +
                        std::to_string(v));
    };
    require(s.t_sol, true, "'t_sol'");
    require(s.flops, false, "'flops'");
    require(s.bytes, false, "'bytes'");
    require(s.peak_rate, false, "'peak_rate'");
    require(s.bandwidth, false, "'bandwidth'");
    require(s.baseline_seconds, false, "'baseline_seconds'");
    const auto& list = field<nlohmann::json>(j, "candidates", top);
    if (!list.is_array()) throw Error("tune session: 'candidates' must be an array");
    for (const nlohmann::json& cj : list) {
        // Which one, counted from 1 in the file's list: "a candidate" named none of 200.
        const std::string which = "candidate " + std::to_string(s.candidates.size() + 1) +
                                  " of " + std::to_string(list.size());
        const char* where = which.c_str();
        CandidateRecord c;
        c.id = field<std::size_t>(cj, "id", where);
        if (cj.contains("parent") && !cj.at("parent").is_null())
            c.parent = field<std::size_t>(cj, "parent", where);
        c.label = field<std::string>(cj, "label", where);
        c.origin = optional_field<std::string>(cj, "origin", "", where);
        const std::string verdict = field<std::string>(cj, "verdict", where);
        try {
            c.verdict = parse_verdict(verdict);
        } catch (const Error& e) {
            throw Error("tune session: " + which + " has the " + e.message());
        }
        c.seconds = optional_field<double>(cj, "seconds", 0.0, where);
        require(c.seconds, false, which + "'s 'seconds'");
        c.detail = optional_field<std::string>(cj, "detail", "", where);
        c.best = optional_field<bool>(cj, "best", false, where);
        if (cj.contains("signals")) {
            const auto& sj = cj.at("signals");
            if (!sj.is_object())
                throw Error("tune session: " + which + "'s 'signals' must be an object");
            ProfileSignals p;
            p.sm_percent = optional_field<double>(sj, "sm_percent", 0.0, "signals");
            p.memory_percent = optional_field<double>(sj, "memory_percent", 0.0, "signals");
            p.registers = optional_field<int>(sj, "registers", 0, "signals");
            p.occupancy_percent = optional_field<double>(sj, "occupancy_percent", 0.0, "signals");
            p.dram_bytes = optional_field<double>(sj, "dram_bytes", 0.0, "signals");
            c.profile = p;
        }
        s.candidates.push_back(std::move(c));
    }
    // The best is what the verdicts and times say, as when it was recorded: a file whose "best"
    // was edited onto a gaming or failed candidate (or onto several) is not believed, and the
    // report agrees with the GUI, which derives it the same way.
    mark_best(s);
    return s;
}

} // namespace gsr::tune
