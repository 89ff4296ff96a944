#pragma once
// External agents (StitchCUDA's Planner and Coder roles) that propose kernel candidates.
// The protocol is JSON lines over the agent's stdin/stdout; docs/KERNEL_AGENT_PROTOCOL.md is
// its reference. This file holds the host side that does not depend on the transport:
//
//   CandidateSource       an agent: start(problem), propose(verdicts so far) -> candidates,
//                         finish(). ProcessAgent (agent_process.hpp) runs a program;
//                         ChatAgent (chat_client.hpp) asks an OpenAI-compatible endpoint.
//   problem_message()     what an agent is told: problem, entry signature, device, SOL, DSL
//   run_agent_session()   rounds of propose -> validate -> evaluate -> verdicts, all recorded
#include "sol/sol_analysis.hpp"
#include "tune/search.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gsr::tune {

inline constexpr const char* kAgentProtocol = "gsr-kernel-agent";
inline constexpr int kAgentProtocolVersion = 1;

/// One proposed kernel: a DSL config, or raw CUDA source with its entry point.
struct Candidate {
    std::string id;
    std::optional<KernelConfig> config;
    std::string cuda;
    std::string entry;
    std::string error; ///< why the candidate could not be read (then it is InvalidConfig)
};

struct AgentReply {
    std::vector<Candidate> candidates;
    std::string plan; ///< the Planner's words, if any
    bool stop = false; ///< the agent has nothing more to propose
    std::string stop_reason;
};

/// Reads a "candidates" or "stop" message. gsr::Error when it is neither.
AgentReply parse_agent_reply(const nlohmann::json& message);

class CandidateSource {
public:
    virtual ~CandidateSource() = default;
    /// The "problem" message; a source may throw gsr::Error (the session then stops).
    virtual void start(const nlohmann::json& problem_message) = 0;
    virtual AgentReply propose(const nlohmann::json& propose_message) = 0;
    virtual void finish(const nlohmann::json& done_message) = 0;
    /// Free-text lines the agent logged ("log" messages, stderr), for the report.
    virtual std::vector<std::string> log() const { return {}; }
};

struct AgentSessionOptions {
    std::size_t rounds = 4;
    std::size_t candidates_per_round = 4;
};

struct AgentTrial {
    std::size_t round = 0;
    Candidate candidate;
    Evaluation result;
    double headroom = 0;
};

struct AgentSessionResult {
    std::vector<AgentTrial> trials;
    std::vector<std::string> plans;
    std::optional<std::size_t> best; ///< index into trials of the fastest verified candidate
    std::string stop_reason; ///< "rounds", "agent stopped: ...", "agent failed: ..."
    std::vector<std::string> log;
};

nlohmann::json problem_message(const Problem& p, const sol::DeviceSpec& device,
                               const sol::SolAnalysis& sol, const AgentSessionOptions& o);
nlohmann::json verdict_json(const AgentTrial& t, double t_sol);

AgentSessionResult run_agent_session(const Problem& p, const sol::DeviceSpec& device,
                                     const sol::SolAnalysis& sol, Evaluator& evaluator,
                                     CandidateSource& agent, const AgentSessionOptions& o);

} // namespace gsr::tune
