#include "tune/agent_protocol.hpp"
#include "util/json_text.hpp"

#include "tune/codegen.hpp"
#include "util/diagnostics.hpp"

namespace gsr::tune {

namespace {

nlohmann::json dsl_description(OpFamily f)
{
    nlohmann::json keys = {{"family", "elementwise|reduction|softmax|layernorm|gemm|spmm"},
                           {"vec", "1, 2 or 4: floats per vector load"},
                           {"epilogue", "optional; must equal the problem's chain"}};
    if (f == OpFamily::Gemm) {
        keys["tile"] = "[M, N, K] block tile; must divide the problem's M, N, K";
        keys["thread"] =
            "[M, N] per-thread micro tile; threads = (tile M/thread M)*(tile N/thread N)";
        keys["stages"] = "1..8 shared-memory pipeline stages";
    } else {
        keys["block"] = "threads per block, a multiple of 32, at most 1024";
        keys["unroll"] = "1..16 items per thread per iteration";
        if (f != OpFamily::Elementwise)
            keys["tpr"] = "threads per row, a power of two dividing block";
    }
    return {{"keys", keys}};
}

} // namespace

AgentReply parse_agent_reply(const nlohmann::json& m)
{
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string())
        throw Error("agent: a reply must be an object with a \"type\"");
    const std::string type = m["type"].get<std::string>();
    AgentReply r;
    if (type == "stop") {
        r.stop = true;
        if (m.contains("reason") && m["reason"].is_string())
            r.stop_reason = m["reason"].get<std::string>();
        return r;
    }
    if (type != "candidates")
        throw Error("agent: expected a \"candidates\" or \"stop\" message, got \"" + type + "\"");
    if (m.contains("plan") && m["plan"].is_string()) r.plan = m["plan"].get<std::string>();
    if (!m.contains("candidates") || !m["candidates"].is_array())
        throw Error("agent: \"candidates\" must be an array");
    std::size_t k = 0;
    for (const auto& c : m["candidates"]) {
        Candidate cand;
        cand.id = c.is_object() && c.contains("id") && c["id"].is_string()
                      ? c["id"].get<std::string>()
                      : "candidate-" + std::to_string(k);
        ++k;
        try {
            if (!c.is_object()) throw Error("a candidate must be an object");
            if (c.contains("config")) {
                cand.config = config_from_json(c["config"]);
            } else if (c.contains("cuda")) {
                if (!c["cuda"].is_string() || !c.contains("entry") || !c["entry"].is_string())
                    throw Error("a CUDA candidate needs \"cuda\" and \"entry\" strings");
                cand.cuda = c["cuda"].get<std::string>();
                cand.entry = c["entry"].get<std::string>();
            } else {
                throw Error("a candidate needs \"config\" or \"cuda\"");
            }
        } catch (const Error& e) {
            cand.error = e.message();
        } catch (const nlohmann::json::exception& e) { // a field of another type
            cand.error = json_error_text(e);
        }
        r.candidates.push_back(std::move(cand));
    }
    return r;
}

nlohmann::json problem_message(const Problem& p, const sol::DeviceSpec& device,
                               const sol::SolAnalysis& sol, const AgentSessionOptions& o)
{
    nlohmann::json problem = {{"name", p.name},
                              {"description", p.description},
                              {"family", family_name(p.family)},
                              {"rows", p.rows},
                              {"cols", p.cols},
                              {"epilogue", epilogue_chain_text(p.epilogue)},
                              {"alpha", p.alpha},
                              {"dtype", "fp32"}};
    if (p.family == OpFamily::Gemm) problem["inner"] = p.inner;
    if (p.family == OpFamily::Spmm) problem["nnz"] = p.nnz;
    if (p.family == OpFamily::LayerNorm) problem["eps"] = p.eps;
    nlohmann::json dsl = dsl_description(p.family);
    dsl["example"] = to_json(default_config(p));
    return {
        {"type", "problem"},
        {"problem", problem},
        {"entry", {{"name", entry_point(p.family)}, {"parameters", entry_parameters(p.family)}}},
        {"device", sol::device_json(device)},
        {"sol", sol::analysis_json(sol)},
        {"dsl", dsl},
        {"budget", {{"rounds", o.rounds}, {"candidates_per_round", o.candidates_per_round}}}};
}

nlohmann::json verdict_json(const AgentTrial& t, double t_sol)
{
    nlohmann::json j = {{"id", t.candidate.id},
                        {"round", t.round},
                        {"kind", t.candidate.config ? "config" : "cuda"},
                        {"verdict", verdict_name(t.result.verdict)},
                        {"detail", t.result.detail}};
    if (t.result.verdict == Verdict::Ok || t.result.verdict == Verdict::Gaming) {
        j["seconds"] = t.result.seconds;
        j["headroom"] = t.headroom;
        j["percent_of_sol"] = t.result.seconds > 0 ? 100.0 * t_sol / t.result.seconds : 0.0;
    }
    if (t.candidate.config) j["config"] = to_json(*t.candidate.config);
    return j;
}

AgentSessionResult run_agent_session(const Problem& p, const sol::DeviceSpec& device,
                                     const sol::SolAnalysis& sol, Evaluator& evaluator,
                                     CandidateSource& agent, const AgentSessionOptions& o)
{
    AgentSessionResult r;
    r.stop_reason = "rounds";
    nlohmann::json fresh = nlohmann::json::array(); // verdicts the agent has not seen yet
    auto best_json = [&]() -> nlohmann::json {
        if (!r.best) return nullptr;
        return verdict_json(r.trials[*r.best], sol.t_sol);
    };
    try {
        agent.start(problem_message(p, device, sol, o));
        for (std::size_t round = 1; round <= o.rounds; ++round) {
            const AgentReply reply = agent.propose({{"type", "propose"},
                                                    {"round", round},
                                                    {"verdicts", fresh},
                                                    {"best", best_json()}});
            fresh = nlohmann::json::array();
            if (!reply.plan.empty()) r.plans.push_back(reply.plan);
            if (reply.stop) {
                r.stop_reason = "agent stopped: " + reply.stop_reason;
                break;
            }
            std::size_t taken = 0;
            for (const Candidate& c : reply.candidates) {
                if (taken++ == o.candidates_per_round) break; // over budget: ignored
                AgentTrial t;
                t.round = round;
                t.candidate = c;
                if (!c.error.empty()) {
                    t.result = {Verdict::InvalidConfig, 0, c.error, std::nullopt};
                } else if (c.config) {
                    const Validation v = validate(p, *c.config, device);
                    t.result = v.ok()
                                   ? evaluator.evaluate(*c.config)
                                   : Evaluation{Verdict::InvalidConfig, 0, v.text(), std::nullopt};
                } else {
                    t.result = evaluator.evaluate_source(c.cuda, c.entry);
                }
                if (t.result.ok() && sol::is_gaming(t.result.seconds, sol::gaming_bound(sol))) {
                    t.result.verdict = Verdict::Gaming;
                    t.result.detail = "faster than T_SOL by more than 5%: never ranked";
                }
                if (t.result.ok() || t.result.verdict == Verdict::Gaming)
                    t.headroom = t.result.seconds / sol.t_sol;
                r.trials.push_back(t);
                if (t.result.ok() &&
                    (!r.best || t.result.seconds < r.trials[*r.best].result.seconds))
                    r.best = r.trials.size() - 1;
                fresh.push_back(verdict_json(t, sol.t_sol));
            }
        }
        agent.finish({{"type", "done"}, {"verdicts", fresh}, {"best", best_json()}});
    } catch (const Error& e) {
        r.stop_reason = "agent failed: " + e.message();
    } catch (const nlohmann::json::exception& e) { // an agent's message of the wrong shape
        r.stop_reason = "agent failed: " + json_error_text(e);
    }
    r.log = agent.log();
    return r;
}

} // namespace gsr::tune
