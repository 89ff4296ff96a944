#pragma once
// An agent program run as a child process (POSIX fork/exec), spoken to in JSON lines over
// its stdin and stdout, with a timeout on every reply. The child gets its own process group,
// so a timeout kills the agent and anything it started. stderr is collected for the log.
#include "tune/agent_protocol.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gsr::tune {

/// A child process with pipes to its stdin, stdout and stderr.
class AgentProcess {
public:
    /// Starts argv[0] (searched in PATH) with the arguments. gsr::Error when it cannot.
    explicit AgentProcess(const std::vector<std::string>& argv);
    ~AgentProcess();
    AgentProcess(const AgentProcess&) = delete;
    AgentProcess& operator=(const AgentProcess&) = delete;

    /// Writes one line. gsr::Error when the agent does not read within `timeout` or is gone.
    void send_line(const std::string& line, std::chrono::milliseconds timeout);
    /// The next line of stdout (without '\n'). gsr::Error on timeout, EOF or a line over
    /// `max_line` bytes; the process group is killed first. After EOF the exit is awaited
    /// until the deadline too.
    std::string receive_line(std::chrono::milliseconds timeout, std::size_t max_line = 16u << 20);
    /// The same with a deadline fixed by the caller; `timeout` is the limit it stands for,
    /// named in the errors.
    std::string receive_line(std::chrono::steady_clock::time_point deadline,
                             std::chrono::milliseconds timeout, std::size_t max_line = 16u << 20);
    /// Closes stdin (a program that reads to the end then finishes).
    void close_input();
    /// Closes stdin and waits up to `timeout` for the exit, then kills. The exit status.
    int finish(std::chrono::milliseconds timeout);
    /// Kills the whole process group now.
    void kill();
    const std::string& stderr_text() const { return stderr_; }
    pid_t pid() const { return pid_; }

private:
    void drain_stderr();
    /// Whether the child has exited, without reaping it.
    bool exited();
    int reap(bool block);

    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string buffer_; ///< stdout bytes past the last line returned
    std::string stderr_;
    int status_ = -1;
    bool reaped_ = false;
};

/// A CandidateSource that is an agent program speaking the JSON-lines protocol.
class ProcessAgent : public CandidateSource {
public:
    ProcessAgent(std::vector<std::string> argv, std::chrono::milliseconds reply_timeout);
    void start(const nlohmann::json& problem_message) override;
    AgentReply propose(const nlohmann::json& propose_message) override;
    void finish(const nlohmann::json& done_message) override;
    std::vector<std::string> log() const override;
    /// The agent's "hello": its name and roles.
    const nlohmann::json& hello() const { return hello_; }

private:
    /// The next message that is not a "log" (logs are kept), within one reply deadline.
    /// gsr::Error on bad JSON.
    nlohmann::json receive();
    /// Keeps a log line while the log holds under kMaxLogBytes of text; counts it otherwise.
    void keep_log(std::string text);
    /// Kills the agent's process group (a failed reply ends the session).
    void end_session();

    static constexpr std::size_t kMaxLogBytes = 1u << 20;
    std::vector<std::string> argv_;
    std::chrono::milliseconds timeout_;
    std::unique_ptr<AgentProcess> process_;
    std::vector<std::string> log_;
    std::size_t log_bytes_ = 0;    ///< text in log_
    std::size_t log_dropped_ = 0;  ///< log lines over kMaxLogBytes, not kept
    nlohmann::json hello_;
};

} // namespace gsr::tune
