#include "tune/applied_kernels.hpp"

#include "tune/codegen.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <map>

namespace gsr::tune {

namespace {

/// Origins whose label is a DSL config (search trials and refine steps).
bool dsl_origin(std::string_view origin)
{
    return origin != "agent" && origin != "file" && origin != "baseline";
}

std::string where(const SessionRef& r)
{
    return (r.id ? "session " + std::to_string(r.id) : std::string("a session")) + " (" +
           r.session.problem + ")";
}

template <class T> T get(const nlohmann::json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key))
        throw Error(std::string("applied kernels: an entry has no '") + key + "'");
    if (std::optional<T> v = json_exact<T>(j.at(key))) return *v;
    throw Error(std::string("applied kernels: '") + key +
                "' has the wrong type or is out of range (" + json_text(j.at(key)) + ")");
}

/// get(), or `fallback` where the entry lacks the key (kept by later versions).
template <class T> T get_or(const nlohmann::json& j, const char* key, T fallback)
{
    return j.is_object() && j.contains(key) ? get<T>(j, key) : fallback;
}

} // namespace

std::string engine_operation(std::string_view problem)
{
    constexpr std::string_view prefix = "engine_";
    if (problem.substr(0, prefix.size()) != prefix) return {};
    problem.remove_prefix(prefix.size());
    // The shape tag starts at "_N<digits>".
    for (std::size_t at = problem.find("_N"); at != std::string_view::npos;
         at = problem.find("_N", at + 1))
        if (at + 2 < problem.size() && problem[at + 2] >= '0' && problem[at + 2] <= '9')
            return std::string(problem.substr(0, at));
    return {};
}

ApplyChoice choose_applied(const std::vector<SessionRef>& sessions)
{
    ApplyChoice out;
    std::map<std::string, AppliedKernel> best;
    for (const SessionRef& r : sessions) {
        const TuneSession& s = r.session;
        const std::string op = engine_operation(s.problem);
        if (op.empty()) continue; // suite problems are not the engine's
        if (s.problem_spec.is_null()) {
            out.skipped.push_back(where(r) + ": recorded without its problem's shape; tune "
                                             "it again");
            continue;
        }
        const CandidateRecord* chosen = nullptr;
        KernelConfig config;
        for (const CandidateRecord& c : s.candidates) {
            if (c.verdict != Verdict::Ok || !dsl_origin(c.origin)) continue;
            if (chosen && c.seconds >= chosen->seconds) continue;
            try {
                config = config_from_text(c.label);
            } catch (const Error&) {
                continue; // a raw kernel under a DSL-looking origin
            }
            chosen = &c;
        }
        if (!chosen) {
            out.skipped.push_back(where(r) + ": no verified configuration");
            continue;
        }
        config = config_from_text(chosen->label);
        AppliedKernel a;
        a.problem = s.problem;
        a.operation = op;
        a.problem_spec = s.problem_spec;
        a.config = config;
        a.session = r.id;
        a.candidate = chosen->id;
        a.device = s.device;
        a.seconds = chosen->seconds;
        a.t_sol = s.t_sol;
        a.baseline = s.baseline;
        a.baseline_seconds = s.baseline_seconds;
        a.chosen = utc_now_iso8601();
        auto it = best.find(a.problem);
        if (it == best.end() || a.seconds < it->second.seconds) best[a.problem] = std::move(a);
    }
    for (auto& [name, a] : best) out.kernels.push_back(std::move(a));
    return out;
}

std::vector<AppliedKernel> merge_applied(std::vector<AppliedKernel> stored,
                                         const std::vector<AppliedKernel>& chosen)
{
    for (const AppliedKernel& c : chosen) {
        auto it = std::find_if(stored.begin(), stored.end(),
                               [&](const AppliedKernel& s) { return s.problem == c.problem; });
        if (it == stored.end())
            stored.push_back(c);
        else
            *it = c;
    }
    std::sort(stored.begin(), stored.end(),
              [](const AppliedKernel& a, const AppliedKernel& b) { return a.problem < b.problem; });
    return stored;
}

std::string backend_support(std::string_view operation)
{
    if (operation == "spmm") return {};
    if (operation == "layernorm")
        return "the backend's LayerNorm also keeps each row's mean and 1/sigma for the backward "
               "pass, which the DSL kernel does not write";
    if (operation == "relu" || operation == "topk_dense")
        return "the backend fuses the ReLU with the dropout mask and the group top-k with the "
               "LayerNorm; the DSL kernel is the unfused stand-in";
    if (operation == "gemm")
        return "the backend's linear map is one kernel over [S z | z] and [W; W_root] with "
               "the bias, the rounded residual and the compressed root term in its epilogue, "
               "which the DSL GEMM does not have";
    if (operation == "loss")
        return "the backend fuses the per-node loss terms with their mean";
    return "no engine operation '" + std::string(operation) + "'";
}

std::vector<nn::TunedKernel> tuned_kernels(const std::vector<AppliedKernel>& applied,
                                           std::vector<std::string>* skipped)
{
    std::vector<nn::TunedKernel> out;
    for (const AppliedKernel& a : applied) {
        const std::string origin = a.problem + " (session " + std::to_string(a.session) +
                                   ", candidate " + std::to_string(a.candidate) + ")";
        if (const std::string why = backend_support(a.operation); !why.empty()) {
            if (skipped) skipped->push_back(origin + ": not used: " + why);
            continue;
        }
        const sol::DeviceSpec* found = sol::find_device(a.device);
        const sol::DeviceSpec& device = found ? *found : sol::device_table().front();
        try {
            const Problem p = problem_from_json(a.problem_spec);
            const GeneratedKernel g = generate_engine_spmm(p, a.config, device);
            nn::TunedKernel k;
            k.op = a.operation;
            k.width = std::uint32_t(p.cols);
            k.source = g.source;
            k.entry = g.entry;
            k.block = g.launch.block[0];
            k.rows_per_block = std::uint32_t(g.config.block / g.config.tpr);
            k.vec = std::uint32_t(g.config.vec);
            k.origin = origin;
            out.push_back(std::move(k));
        } catch (const Error& e) {
            if (skipped) skipped->push_back(origin + ": not used: " + e.message());
        }
    }
    return out;
}

nlohmann::json applied_json(const std::vector<AppliedKernel>& applied)
{
    nlohmann::json list = nlohmann::json::array();
    for (const AppliedKernel& a : applied) {
        nlohmann::json j = {{"problem", a.problem},
                            {"operation", a.operation},
                            {"problem_spec", a.problem_spec},
                            {"config", to_json(a.config)},
                            {"config_text", to_text(a.config)},
                            {"session", a.session},
                            {"candidate", a.candidate},
                            {"device", a.device},
                            {"seconds", a.seconds},
                            {"t_sol", a.t_sol},
                            {"baseline", a.baseline},
                            {"baseline_seconds", a.baseline_seconds},
                            {"chosen", a.chosen}};
        const std::string why = backend_support(a.operation);
        j["backend"] = why.empty() ? "used" : "not used: " + why;
        list.push_back(std::move(j));
    }
    return list;
}

std::vector<AppliedKernel> applied_from_json(const nlohmann::json& j)
{
    if (!j.is_array()) throw Error("applied kernels: expected a JSON array");
    std::vector<AppliedKernel> out;
    for (const nlohmann::json& e : j) {
        AppliedKernel a;
        a.problem = get<std::string>(e, "problem");
        a.operation = get<std::string>(e, "operation");
        a.problem_spec = get<nlohmann::json>(e, "problem_spec");
        a.config = config_from_json(get<nlohmann::json>(e, "config"));
        a.session = get<std::int64_t>(e, "session");
        a.candidate = get<std::size_t>(e, "candidate");
        a.device = get<std::string>(e, "device");
        a.seconds = get<double>(e, "seconds");
        a.t_sol = get_or(e, "t_sol", 0.0);
        a.baseline = get_or(e, "baseline", std::string());
        a.baseline_seconds = get_or(e, "baseline_seconds", 0.0);
        a.chosen = get_or(e, "chosen", std::string());
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace gsr::tune
