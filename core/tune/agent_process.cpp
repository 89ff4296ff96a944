#include "tune/agent_process.hpp"

#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gsr::tune {

namespace {

using Clock = std::chrono::steady_clock;

/// Rounded up: a deadline 0.4 ms away is not yet passed (callers tell a timeout by elapsed
/// time, which must then have reached the limit).
int remaining_ms(Clock::time_point deadline)
{
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() < 0 ? 0 : int(left.count());
}

void close_fd(int& fd)
{
    if (fd >= 0) ::close(fd);
    fd = -1;
}

std::string errno_text(const char* what)
{
    return std::string(what) + ": " + std::strerror(errno);
}

/// Writes to a pipe whose reader may be gone without dying of SIGPIPE: the signal is blocked
/// in this thread for the write and a pending one is consumed.
ssize_t write_no_sigpipe(int fd, const char* data, std::size_t size)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    const ssize_t n = ::write(fd, data, size);
    const int saved = errno;
    if (n < 0 && saved == EPIPE) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    errno = saved;
    return n;
}

} // namespace

AgentProcess::AgentProcess(const std::vector<std::string>& argv)
{
    if (argv.empty()) throw Error("agent: no program given");
    int in[2], out[2], err[2], exec_report[2];
    if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC) ||
        ::pipe2(exec_report, O_CLOEXEC))
        throw Error(errno_text("agent: pipe"));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) throw Error(errno_text("agent: fork"));
    if (pid_ == 0) {
        // The child: its own process group, the pipes as 0/1/2, then exec. Only
        // async-signal-safe calls here.
        ::setpgid(0, 0);
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::execvp(args[0], args.data());
        const int e = errno;
        (void)!::write(exec_report[1], &e, sizeof e);
        ::_exit(127);
    }
    ::setpgid(pid_, pid_); // also here, so a kill before the child ran setpgid still works
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    ::close(exec_report[1]);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
    // The report pipe closes on a successful exec (CLOEXEC) and carries errno otherwise.
    int e = 0;
    ssize_t got;
    do got = ::read(exec_report[0], &e, sizeof e);
    while (got < 0 && errno == EINTR);
    ::close(exec_report[0]);
    if (got == ssize_t(sizeof e)) {
        reap(true);
        close_fd(in_);
        close_fd(out_);
        close_fd(err_);
        throw Error("agent: cannot run '" + argv[0] + "': " + std::strerror(e));
    }
    for (int fd : {in_, out_, err_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

AgentProcess::~AgentProcess()
{
    if (!reaped_) {
        kill();
        reap(true);
    }
    close_fd(in_);
    close_fd(out_);
    close_fd(err_);
}

void AgentProcess::close_input() { close_fd(in_); }

void AgentProcess::kill()
{
    if (pid_ > 0 && !reaped_) ::kill(-pid_, SIGKILL);
}

bool AgentProcess::exited()
{
    if (reaped_) return true;
    siginfo_t info{};
    int r;
    // WNOWAIT leaves the zombie: its pid, and so its group id, stay reserved for kill().
    do r = ::waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    while (r < 0 && errno == EINTR);
    if (r < 0) return errno == ECHILD; // no such child to wait for
    return info.si_pid == pid_;
}

int AgentProcess::reap(bool block)
{
    if (reaped_) return status_;
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    return status_;
}

void AgentProcess::drain_stderr()
{
    char buf[4096];
    while (err_ >= 0) {
        const ssize_t n = ::read(err_, buf, sizeof buf);
        if (n > 0) {
            if (stderr_.size() < (1u << 20)) stderr_.append(buf, std::size_t(n));
            continue;
        }
        if (n == 0) close_fd(err_);
        break;
    }
}

void AgentProcess::send_line(const std::string& line, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    const std::string data = line + '\n';
    std::size_t done = 0;
    while (done < data.size()) {
        if (in_ < 0) throw Error("agent: its input is closed");
        const ssize_t n = write_no_sigpipe(in_, data.data() + done, data.size() - done);
        if (n > 0) {
            done += std::size_t(n);
            continue;
        }
        if (n < 0 && errno == EPIPE) throw Error("agent: exited before reading its input");
        if (n < 0 && errno != EAGAIN && errno != EINTR) throw Error(errno_text("agent: write"));
        pollfd fds[2] = {{in_, POLLOUT, 0}, {err_, POLLIN, 0}};
        const int left = remaining_ms(deadline);
        if (left == 0) {
            kill();
            throw Error("agent: did not read its input within " + std::to_string(timeout.count()) +
                        " ms");
        }
        ::poll(fds, err_ >= 0 ? 2 : 1, left);
        drain_stderr();
    }
}

std::string AgentProcess::receive_line(std::chrono::milliseconds timeout, std::size_t max_line)
{
    return receive_line(Clock::now() + timeout, timeout, max_line);
}

std::string AgentProcess::receive_line(std::chrono::steady_clock::time_point deadline,
                                       std::chrono::milliseconds timeout, std::size_t max_line)
{
    while (true) {
        if (const std::size_t nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            return line;
        }
        if (buffer_.size() > max_line) {
            kill();
            throw Error("agent: a line longer than " + std::to_string(max_line) + " bytes");
        }
        if (out_ < 0) {
            // stdout is closed: wait for the exit until the deadline, then kill the group
            // either way (children it left behind included) before reaping.
            while (!exited()) {
                const int left = remaining_ms(deadline);
                if (left == 0) {
                    kill();
                    reap(true);
                    drain_stderr();
                    throw Error("agent: closed its output without answering and was still "
                                "running after " +
                                std::to_string(timeout.count()) + " ms");
                }
                pollfd fd{err_, POLLIN, 0};
                ::poll(&fd, err_ >= 0 ? 1 : 0, std::min(left, 10));
                drain_stderr();
            }
            kill();
            const int status = reap(true);
            drain_stderr();
            throw Error("agent: exited (status " + std::to_string(status) + ") without answering");
        }
        const int left = remaining_ms(deadline);
        if (left == 0) {
            kill();
            throw Error("agent: no reply within " + std::to_string(timeout.count()) + " ms");
        }
        pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
        const int ready = ::poll(fds, err_ >= 0 ? 2 : 1, left);
        if (ready < 0 && errno != EINTR) throw Error(errno_text("agent: poll"));
        drain_stderr();
        char buf[65536];
        while (out_ >= 0) {
            const ssize_t n = ::read(out_, buf, sizeof buf);
            if (n > 0) {
                buffer_.append(buf, std::size_t(n));
                continue;
            }
            if (n == 0)
                close_fd(out_);
            else if (errno != EAGAIN && errno != EINTR)
                throw Error(errno_text("agent: read"));
            break;
        }
    }
}

int AgentProcess::finish(std::chrono::milliseconds timeout)
{
    close_fd(in_);
    const auto deadline = Clock::now() + timeout;
    while (!reaped_) {
        drain_stderr();
        if (reap(false) >= 0 && reaped_) break;
        if (remaining_ms(deadline) == 0) {
            kill();
            reap(true);
            break;
        }
        ::usleep(2000);
    }
    drain_stderr();
    return status_;
}

ProcessAgent::ProcessAgent(std::vector<std::string> argv, std::chrono::milliseconds reply_timeout)
    : argv_(std::move(argv)), timeout_(reply_timeout)
{
}

nlohmann::json ProcessAgent::receive()
{
    // One deadline for the reply: blank and log lines do not restart it.
    const auto deadline = Clock::now() + timeout_;
    while (true) {
        const std::string line = process_->receive_line(deadline, timeout_);
        if (line.empty()) continue;
        nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
        if (m.is_discarded()) throw Error("agent: not a JSON line: '" + line.substr(0, 120) + "'");
        // A field of another type is no exception of nlohmann's: the session's own error.
        const auto text = [&](const char* key) {
            return m.is_object() && m.contains(key) && m[key].is_string() ? m[key].get<std::string>()
                                                                          : std::string();
        };
        if (text("type") == "log") {
            keep_log(text("text"));
            continue;
        }
        return m;
    }
}

void ProcessAgent::keep_log(std::string text)
{
    if (log_bytes_ + text.size() > kMaxLogBytes) {
        ++log_dropped_;
        return;
    }
    log_bytes_ += text.size();
    log_.push_back(std::move(text));
}

void ProcessAgent::end_session()
{
    if (process_) process_->kill();
}

void ProcessAgent::start(const nlohmann::json& problem_message)
{
    process_ = std::make_unique<AgentProcess>(argv_);
    try {
        process_->send_line(json_text({{"type", "hello"},
                                       {"protocol", kAgentProtocol},
                                       {"version", kAgentProtocolVersion}}),
                            timeout_);
        hello_ = receive();
        if (!hello_.is_object() || hello_.value("type", std::string()) != "hello")
            throw Error("agent: expected a \"hello\" reply first");
        process_->send_line(json_text(problem_message), timeout_);
    } catch (...) {
        end_session();
        throw;
    }
}

AgentReply ProcessAgent::propose(const nlohmann::json& propose_message)
{
    try {
        process_->send_line(json_text(propose_message), timeout_);
        const nlohmann::json reply = receive();
        const std::size_t round = propose_message.value("round", std::size_t(0));
        if (reply.is_object() && reply.contains("round") && reply["round"] != round)
            throw Error("agent: answered round " + json_text(reply["round"]) +
                        " when asked for " + std::to_string(round));
        return parse_agent_reply(reply);
    } catch (...) {
        end_session(); // a failed reply ends the session: the whole group goes now
        throw;
    }
}

void ProcessAgent::finish(const nlohmann::json& done_message)
{
    try {
        process_->send_line(json_text(done_message), timeout_);
    } catch (const Error&) {
        // An agent that already left has nothing more to hear.
    }
    process_->finish(timeout_);
}

std::vector<std::string> ProcessAgent::log() const
{
    std::vector<std::string> out = log_;
    if (log_dropped_ > 0)
        out.push_back("(" + std::to_string(log_dropped_) + " later log lines dropped: over " +
                      std::to_string(kMaxLogBytes >> 20) + " MiB of log text)");
    if (process_ && !process_->stderr_text().empty()) out.push_back(process_->stderr_text());
    return out;
}

} // namespace gsr::tune
