// External agents with no network: a scripted agent program (a shell script) over the
// JSON-lines protocol, agents that hang, crash or babble, and the chat client against a
// scripted HTTP server of our own on 127.0.0.1.
#include "tune/agent_process.hpp"
#include "tune/chat_client.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace gsr::tune;
using gsr::sol::device_or_throw;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const fs::path& scratch()
{
    static const gsr::test::ScratchDir dir("gsr_agent");
    return dir.path;
}

std::string write_script(const std::string& name, const std::string& body)
{
    const fs::path f = scratch() / name;
    std::ofstream(f) << "#!/bin/sh\n" << body;
    fs::permissions(f, fs::perms::owner_all);
    return f.string();
}

std::string read(const fs::path& f)
{
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Softmax times: vec 4 is fastest.
FunctionEvaluator softmax_evaluator(double t_sol)
{
    return FunctionEvaluator([t_sol](const KernelConfig& c) {
        return Evaluation{Verdict::Ok, t_sol * (1.1 + 1.0 / c.vec), {}, std::nullopt};
    });
}

struct Session {
    const Problem& problem = suite_problem("softmax_1k");
    const gsr::sol::DeviceSpec& device = device_or_throw("H100 SXM");
    gsr::sol::SolAnalysis sol = gsr::sol::analyze(problem.op_spec(), device);
};

} // namespace

TEST(AgentProtocol, ScriptedAgentProposesAndReceivesVerdicts)
{
    const fs::path dir = scratch();
    // Answers hello, keeps what it is told, proposes a good config, an invalid one and raw CUDA
    // every round, logging a line first.
    const std::string agent = write_script("agent.sh", R"(
read hello
echo '{"type":"hello","name":"scripted","roles":["planner","coder"]}'
read problem
echo "$problem" > ")" + (dir / "problem.json").string() + R"("
round=0
while read line; do
  case "$line" in
    *'"type":"done"'*) echo "$line" > ")" + (dir / "done.json").string() +
                                                           R"("; exit 0;;
  esac
  round=$((round+1))
  echo "$line" > ")" + (dir / "propose").string() + R"($round.json"
  echo '{"type":"log","text":"thinking about round '$round'"}'
  a='{"type":"candidates","round":'$round',"plan":"vectorise the loads","candidates":['
  b='{"id":"v4-'$round'","config":{"family":"softmax","block":256,"tpr":32,"vec":4}},'
  c='{"id":"bad","config":{"family":"softmax","block":100}},'
  d='{"id":"raw","cuda":"extern \"C\" __global__ void gsr_softmax() {}","entry":"gsr_softmax"}]}'
  echo "$a$b$c$d"
done
)");
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    ProcessAgent proc({agent}, 5000ms);
    AgentSessionOptions o;
    o.rounds = 2;
    o.candidates_per_round = 3;
    const AgentSessionResult r = run_agent_session(s.problem, s.device, s.sol, eval, proc, o);
    EXPECT_EQ(r.stop_reason, "rounds");
    EXPECT_EQ(proc.hello()["name"], "scripted");
    ASSERT_EQ(r.trials.size(), 6u);
    EXPECT_EQ(r.trials[0].result.verdict, Verdict::Ok);
    EXPECT_NEAR(r.trials[0].headroom, 1.35, 1e-9);
    EXPECT_EQ(r.trials[1].result.verdict, Verdict::InvalidConfig);
    EXPECT_NE(r.trials[1].result.detail.find("multiple of 32"), std::string::npos);
    EXPECT_EQ(r.trials[2].result.verdict, Verdict::Unsupported); // this evaluator: configs only
    EXPECT_EQ(r.trials[2].candidate.entry, "gsr_softmax");
    ASSERT_TRUE(r.best);
    EXPECT_EQ(r.trials[*r.best].candidate.id, "v4-1");
    EXPECT_EQ(r.plans, (std::vector<std::string>{"vectorise the loads", "vectorise the loads"}));
    ASSERT_FALSE(r.log.empty());
    EXPECT_EQ(r.log[0], "thinking about round 1");

    // What the agent was told: the problem, the entry signature and the SOL analysis ...
    const nlohmann::json problem = nlohmann::json::parse(read(dir / "problem.json"));
    EXPECT_EQ(problem["type"], "problem");
    EXPECT_EQ(problem["problem"]["name"], "softmax_1k");
    EXPECT_EQ(problem["entry"]["name"], "gsr_softmax");
    EXPECT_DOUBLE_EQ(problem["sol"]["t_sol"].get<double>(), s.sol.t_sol);
    EXPECT_EQ(problem["device"]["name"], "H100 SXM");
    // ... round 2 carries round 1's verdicts, and "done" the last ones.
    const nlohmann::json p1 = nlohmann::json::parse(read(dir / "propose1.json"));
    EXPECT_TRUE(p1["verdicts"].empty());
    EXPECT_TRUE(p1["best"].is_null());
    const nlohmann::json p2 = nlohmann::json::parse(read(dir / "propose2.json"));
    ASSERT_EQ(p2["verdicts"].size(), 3u);
    EXPECT_EQ(p2["verdicts"][0]["verdict"], "ok");
    EXPECT_EQ(p2["verdicts"][1]["verdict"], "invalid_config");
    EXPECT_EQ(p2["verdicts"][2]["kind"], "cuda");
    EXPECT_EQ(p2["best"]["id"], "v4-1");
    const nlohmann::json done = nlohmann::json::parse(read(dir / "done.json"));
    EXPECT_EQ(done["verdicts"].size(), 3u);
}

TEST(AgentProtocol, HangingAgentIsKilledAtTheTimeout)
{
    const std::string agent = write_script("hang.sh", R"(
read hello
echo '{"type":"hello","name":"sleepy"}'
read problem
exec sleep 30
)");
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    ProcessAgent proc({agent}, 300ms);
    const auto t0 = std::chrono::steady_clock::now();
    const AgentSessionResult r = run_agent_session(s.problem, s.device, s.sol, eval, proc, {});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(r.stop_reason.find("no reply within 300 ms"), std::string::npos) << r.stop_reason;
    EXPECT_LT(seconds, 5.0);
    EXPECT_TRUE(r.trials.empty());
}

TEST(AgentProtocol, CrashingBabblingAndMissingAgents)
{
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    {
        ProcessAgent crash({write_script("crash.sh", "read hello\necho oops >&2\nexit 3\n")},
                           2000ms);
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, crash, {});
        EXPECT_NE(r.stop_reason.find("exited (status 3)"), std::string::npos) << r.stop_reason;
        ASSERT_FALSE(r.log.empty());
        EXPECT_NE(r.log.back().find("oops"), std::string::npos);
    }
    {
        ProcessAgent babble({write_script("babble.sh", "read hello\necho 'I am not JSON'\n")},
                            2000ms);
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, babble, {});
        EXPECT_NE(r.stop_reason.find("not a JSON line"), std::string::npos) << r.stop_reason;
    }
    {
        ProcessAgent wrong({write_script("wrong.sh", R"(
read hello
echo '{"type":"hello"}'
read problem
read propose
echo '{"type":"candidates","round":7,"candidates":[]}'
)")},
                           2000ms);
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, wrong, {});
        EXPECT_NE(r.stop_reason.find("answered round 7"), std::string::npos) << r.stop_reason;
    }
    {
        ProcessAgent missing({"/nonexistent/agent-program"}, 2000ms);
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, missing, {});
        EXPECT_NE(r.stop_reason.find("cannot run"), std::string::npos) << r.stop_reason;
    }
}

namespace {

/// Whether process `pid` is gone (or a zombie nobody reaped yet), waiting up to 1 s.
bool gone_within_a_second(pid_t pid)
{
    const auto until = std::chrono::steady_clock::now() + 1s;
    while (true) {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text;
        std::getline(stat, text);
        const std::size_t paren = text.rfind(')');
        if (!stat || paren == std::string::npos || text.compare(paren + 2, 1, "Z") == 0)
            return true;
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(10ms);
    }
}

pid_t pid_in(const fs::path& f) { return pid_t(std::stol(read(f))); }

} // namespace

TEST(AgentProtocol, LogAndBlankLinesDoNotRestartTheReplyDeadline)
{
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    // Each agent keeps writing for 1.5 s, every 50 ms, then answers: too late for 300 ms.
    for (const std::string line : {R"({"type":"log","text":"thinking"})", ""}) {
        ProcessAgent chatty({write_script("chatty.sh", R"(
read hello
i=0
while [ $i -lt 30 ]; do echo ')" + line + R"('; sleep 0.05; i=$((i+1)); done
echo '{"type":"hello"}'
read problem
read propose
echo '{"type":"stop","reason":"too late"}'
)")},
                            300ms);
        const auto t0 = std::chrono::steady_clock::now();
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, chatty, {});
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_NE(r.stop_reason.find("no reply within 300 ms"), std::string::npos)
            << "line '" << line << "': " << r.stop_reason;
        EXPECT_LT(seconds, 1.2) << "line '" << line << "'";
        if (!line.empty()) {
            ASSERT_FALSE(r.log.empty());
            EXPECT_EQ(r.log[0], "thinking");
        }
    }
}

TEST(AgentProtocol, TheLogKeepsOneMebibyteAndCountsTheRest)
{
    // 1100 log lines of 1 KiB: 1024 fit in 1 MiB, 76 are dropped and counted.
    const std::string text(1024, 'x');
    ProcessAgent verbose({write_script("verbose.sh", R"(
read hello
i=0
while [ $i -lt 1100 ]; do echo '{"type":"log","text":")" + text + R"("}'; i=$((i+1)); done
echo '{"type":"hello"}'
read problem
read propose
echo '{"type":"stop","reason":"enough"}'
)")},
                         1000ms);
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    const AgentSessionResult r = run_agent_session(s.problem, s.device, s.sol, eval, verbose, {});
    EXPECT_EQ(r.stop_reason, "agent stopped: enough");
    ASSERT_EQ(r.log.size(), 1025u);
    EXPECT_EQ(r.log[1023], text);
    EXPECT_EQ(r.log[1024], "(76 later log lines dropped: over 1 MiB of log text)");
}

TEST(AgentProtocol, AnAgentThatClosesItsOutputIsKilledAtTheDeadline)
{
    // It sends its stdout elsewhere and lives on: the host waited for its exit, unbounded.
    ProcessAgent quiet({write_script("quiet.sh", "read hello\nexec >/dev/null\nexec sleep 5\n")},
                       300ms);
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    const auto t0 = std::chrono::steady_clock::now();
    const AgentSessionResult r = run_agent_session(s.problem, s.device, s.sol, eval, quiet, {});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NE(r.stop_reason.find("closed its output without answering and was still running "
                                 "after 300 ms"),
              std::string::npos)
        << r.stop_reason;
    EXPECT_GE(seconds, 0.3);
    EXPECT_LT(seconds, 1.5);
}

TEST(AgentProtocol, AnAgentThatExitsEarlyOrBabblesTakesItsChildrenAlong)
{
    const fs::path dir = scratch();
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    // Each leaves a background child in its process group, then fails the session.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"exit 0", "exited (status 0) without answering"},
        {"echo 'I am not JSON'\nwait", "not a JSON line"}};
    for (const auto& [ending, reason] : cases) {
        const fs::path pid_file = dir / "child.pid";
        fs::remove(pid_file);
        ProcessAgent parent({write_script("parent.sh", "read hello\nsleep 5 >/dev/null 2>&1 &\n"
                                                       "echo $! > '" + pid_file.string() +
                                                           "'\n" + ending + "\n")},
                            1000ms);
        const AgentSessionResult r =
            run_agent_session(s.problem, s.device, s.sol, eval, parent, {});
        EXPECT_NE(r.stop_reason.find(reason), std::string::npos) << r.stop_reason;
        // The session has ended but `parent` still exists: the group must be gone already.
        const pid_t child = pid_in(pid_file);
        EXPECT_TRUE(gone_within_a_second(child)) << ending;
        ::kill(child, SIGKILL); // no-op when the fix works; the test's own child otherwise
    }
}

TEST(AgentProtocol, RepliesAreParsedStrictly)
{
    const AgentReply r = parse_agent_reply(nlohmann::json::parse(R"({"type":"candidates",
        "candidates":[{"config":{"family":"gemm","tile":[64,64]}}, 5, {"id":"x"}]})"));
    ASSERT_EQ(r.candidates.size(), 3u);
    EXPECT_EQ(r.candidates[0].id, "candidate-0");
    EXPECT_NE(r.candidates[0].error.find("tile"), std::string::npos);
    EXPECT_NE(r.candidates[1].error.find("object"), std::string::npos);
    EXPECT_NE(r.candidates[2].error.find("\"config\" or \"cuda\""), std::string::npos);
    EXPECT_TRUE(parse_agent_reply({{"type", "stop"}, {"reason", "done"}}).stop);
    EXPECT_THROW(parse_agent_reply({{"type", "hello"}}), gsr::Error);
    // Fields of another type were nlohmann's exceptions, past the session's handler.
    AgentReply stop;
    EXPECT_NO_THROW(stop = parse_agent_reply({{"type", "stop"}, {"reason", 7}}));
    EXPECT_TRUE(stop.stop);
    EXPECT_EQ(stop.stop_reason, "");
    const AgentReply odd = parse_agent_reply(nlohmann::json::parse(
        R"({"type":"candidates","candidates":[{"config":{"family":7}}]})"));
    ASSERT_EQ(odd.candidates.size(), 1u);
    EXPECT_FALSE(odd.candidates[0].error.empty());
}

namespace {

/// A scripted HTTP server on 127.0.0.1: one canned response per connection, in order; it
/// records each request. A response of "" accepts and then says nothing (a hung endpoint).
class LoopbackServer {
public:
    explicit LoopbackServer(std::vector<std::string> responses) : responses_(std::move(responses))
    {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(fd_, 8);
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~LoopbackServer()
    {
        thread_.join();
        ::close(fd_);
    }
    int port() const { return port_; }
    const std::vector<std::string>& requests() const { return requests_; }

private:
    void serve()
    {
        for (const std::string& response : responses_) {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) return;
            std::string req;
            char buf[4096];
            // Read the headers, then Content-Length bytes of body.
            while (req.find("\r\n\r\n") == std::string::npos) {
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) break;
                req.append(buf, std::size_t(n));
            }
            std::size_t length = 0;
            if (auto at = req.find("Content-Length: "); at != std::string::npos)
                length = std::stoul(req.substr(at + 16));
            while (req.size() < req.find("\r\n\r\n") + 4 + length) {
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) break;
                req.append(buf, std::size_t(n));
            }
            requests_.push_back(req);
            if (response.empty())
                std::this_thread::sleep_for(600ms);
            else
                ::send(c, response.data(), response.size(), MSG_NOSIGNAL);
            ::close(c);
        }
    }

    int fd_ = -1;
    int port_ = 0;
    std::vector<std::string> responses_;
    std::vector<std::string> requests_;
    std::thread thread_;
};

std::string json_response(const std::string& content)
{
    const std::string body =
        nlohmann::json{{"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}}}}}
            .dump();
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string chunked(const std::string& response)
{
    // The same response with its body sent in 3 chunks.
    const std::size_t split = response.find("\r\n\r\n");
    const std::string body = response.substr(split + 4);
    std::string out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::size_t third = body.size() / 3;
    for (const std::string& part :
         {body.substr(0, third), body.substr(third, third), body.substr(2 * third)}) {
        char size[16];
        std::snprintf(size, sizeof size, "%zx", part.size());
        out += std::string(size) + "\r\n" + part + "\r\n";
    }
    return out + "0\r\n\r\n";
}

} // namespace

TEST(ChatClient, TalksToAnOpenAiCompatibleEndpointOnLoopback)
{
    LoopbackServer server({json_response("hello there"), chunked(json_response("in chunks")),
                           "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom"});
    ChatEndpoint e;
    e.port = server.port();
    e.model = "test-model";
    e.api_key = "sk-local";
    e.timeout_seconds = 5;
    ChatClient client(e);
    EXPECT_EQ(client.complete({{"system", "be brief"}, {"user", "hi"}}), "hello there");
    EXPECT_EQ(client.complete({{"user", "again"}}), "in chunks");
    try {
        client.complete({{"user", "fail"}});
        FAIL() << "no error";
    } catch (const gsr::Error& err) {
        EXPECT_NE(std::string(err.what()).find("HTTP 500"), std::string::npos) << err.what();
    }
    ASSERT_EQ(server.requests().size(), 3u);
    const std::string& req = server.requests()[0];
    EXPECT_EQ(req.rfind("POST /v1/chat/completions HTTP/1.1\r\n", 0), 0u);
    EXPECT_NE(req.find("Authorization: Bearer sk-local"), std::string::npos);
    const nlohmann::json body = nlohmann::json::parse(req.substr(req.find("\r\n\r\n") + 4));
    EXPECT_EQ(body["model"], "test-model");
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(body["messages"][1]["content"], "hi");
}

TEST(ChatClient, TimeoutsAndRefusedConnections)
{
    {
        LoopbackServer server({""}); // accepts, never answers
        ChatEndpoint e;
        e.port = server.port();
        e.timeout_seconds = 0.2;
        try {
            ChatClient(e).complete({{"user", "hi"}});
            FAIL() << "no error";
        } catch (const gsr::Error& err) {
            EXPECT_NE(std::string(err.what()).find("no complete response"), std::string::npos)
                << err.what();
        }
    }
    // A port nobody listens on: bind one, close it, connect to it.
    int port = 0;
    {
        LoopbackServer probe({json_response("x")});
        port = probe.port();
        ChatEndpoint e;
        e.port = port;
        ChatClient(e).complete({{"user", "x"}});
    }
    ChatEndpoint e;
    e.port = port;
    e.timeout_seconds = 2;
    EXPECT_THROW(ChatClient(e).complete({{"user", "hi"}}), gsr::Error);
}

TEST(ChatClient, ABadContentLengthIsAnErrorNamingIt)
{
    const auto with_length = [](const std::string& value) {
        return "HTTP/1.1 200 OK\r\nContent-Length: " + value + "\r\n\r\n{}xyz";
    };
    const std::vector<std::string> bad = {"abc", "", "-1", "99999999999999999999999", "2x"};
    std::vector<std::string> responses;
    for (const std::string& v : bad) responses.push_back(with_length(v));
    responses.push_back(with_length("2 ")); // trailing blanks are fine
    LoopbackServer server(responses);
    for (const std::string& v : bad) {
        try {
            http_post("127.0.0.1", server.port(), "/", {}, "{}", 5);
            ADD_FAILURE() << "accepted Content-Length '" << v << "'";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.message(),
                      "chat endpoint: bad Content-Length '" + v + "', expected a byte count");
        } catch (const std::exception& e) { // caught so the server's connections are all used
            ADD_FAILURE() << "Content-Length '" << v << "': not a gsr::Error: " << e.what();
        }
    }
    EXPECT_EQ(http_post("127.0.0.1", server.port(), "/", {}, "{}", 5).body, "{}");
}

TEST(ChatClient, AChunkSizePastTheBodyIsRefusedWithoutWrapAround)
{
    const std::string head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    // 2^64 - 2: `at + size` wrapped around to pass the bounds check and returned "0\r\n\r\n".
    LoopbackServer server({head + "fffffffffffffffe\r\n0\r\n\r\n", head + "-1\r\nab\r\n0\r\n\r\n",
                           head + "4;name=v\r\nabcd\r\n0\r\n\r\n"});
    try {
        const HttpResponse r = http_post("127.0.0.1", server.port(), "/", {}, "{}", 5);
        ADD_FAILURE() << "accepted, body '" << r.body << "'";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.message(), "chat endpoint: truncated chunk: 'fffffffffffffffe' is "
                               "18446744073709551614 bytes, 5 left in the body");
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a gsr::Error: " << e.what();
    }
    try {
        http_post("127.0.0.1", server.port(), "/", {}, "{}", 5);
        ADD_FAILURE() << "accepted a chunk size of -1";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.message(), "chat endpoint: bad chunk size '-1'");
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a gsr::Error: " << e.what();
    }
    EXPECT_EQ(http_post("127.0.0.1", server.port(), "/", {}, "{}", 5).body, "abcd");
}

TEST(ChatAgent, ProposesThroughTheEndpoint)
{
    const std::string reply =
        "Plan: wider loads.\n```json\n{\"type\":\"candidates\",\"round\":1,\"plan\":\"vec 4\","
        "\"candidates\":[{\"id\":\"c1\",\"config\":{\"family\":\"softmax\",\"block\":128,"
        "\"tpr\":32,\"vec\":4}}]}\n```\n";
    LoopbackServer server(
        {json_response(reply), json_response("{\"type\":\"stop\",\"reason\":\"at SOL\"}")});
    ChatEndpoint e;
    e.port = server.port();
    e.timeout_seconds = 5;
    ChatAgent agent(e);
    Session s;
    FunctionEvaluator eval = softmax_evaluator(s.sol.t_sol);
    AgentSessionOptions o;
    o.rounds = 3;
    const AgentSessionResult r = run_agent_session(s.problem, s.device, s.sol, eval, agent, o);
    EXPECT_EQ(r.stop_reason, "agent stopped: at SOL");
    ASSERT_EQ(r.trials.size(), 1u);
    EXPECT_EQ(r.trials[0].candidate.id, "c1");
    EXPECT_EQ(r.trials[0].result.verdict, Verdict::Ok);
    EXPECT_EQ(r.plans, std::vector<std::string>{"vec 4"});
    // The second request carries the conversation: the first answer and round 1's verdicts.
    ASSERT_EQ(server.requests().size(), 2u);
    const std::string& second = server.requests()[1];
    EXPECT_NE(second.find("\\\"verdict\\\":\\\"ok\\\""), std::string::npos);
    EXPECT_EQ(agent.conversation().size(), 6u); // system, problem, then ask + answer twice
    EXPECT_TRUE(extract_json_object("no json here").is_null());
    EXPECT_EQ(extract_json_object("x {\"a\":1} {\"type\":\"stop\"}")["type"], "stop");
}
