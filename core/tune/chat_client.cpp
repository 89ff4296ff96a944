#include "tune/chat_client.hpp"

#include "util/ascii.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace gsr::tune {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline)
{
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return left.count() < 0 ? 0 : int(left.count());
}

/// Owns a socket descriptor.
struct Socket {
    int fd = -1;
    ~Socket()
    {
        if (fd >= 0) ::close(fd);
    }
};

std::string lower(std::string s) { return ascii_lower(s); }

void connect_to(Socket& s, const std::string& host, int port, Clock::time_point deadline)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
        throw Error("chat endpoint: cannot resolve '" + host + "': " + ::gai_strerror(rc));
    std::string last = "no address";
    for (addrinfo* a = found; a; a = a->ai_next) {
        Socket trial;
        trial.fd =
            ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (trial.fd < 0) continue;
        if (::connect(trial.fd, a->ai_addr, a->ai_addrlen) != 0) {
            if (errno != EINPROGRESS) {
                last = std::strerror(errno);
                continue;
            }
            pollfd p{trial.fd, POLLOUT, 0};
            if (::poll(&p, 1, remaining_ms(deadline)) != 1) {
                last = "timed out";
                continue;
            }
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(trial.fd, SOL_SOCKET, SO_ERROR, &err, &len);
            if (err != 0) {
                last = std::strerror(err);
                continue;
            }
        }
        std::swap(s.fd, trial.fd);
        break;
    }
    ::freeaddrinfo(found);
    if (s.fd < 0)
        throw Error("chat endpoint: cannot connect to " + host + ":" + service + ": " + last);
}

std::string trim(const std::string& s)
{
    const std::size_t first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

/// An unsigned number in `base` that fills `text` up to `end_chars` (or its end); nullopt
/// for anything else, a sign or a value over size_t included.
std::optional<std::size_t> parse_size(const std::string& text, int base,
                                      std::string_view end_chars)
{
    std::size_t v = 0;
    const char* last = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), last, v, base);
    if (ec != std::errc() || (stop != last && end_chars.find(*stop) == std::string_view::npos))
        return std::nullopt;
    return v;
}

std::string dechunk(const std::string& body)
{
    std::string out;
    std::size_t at = 0;
    while (true) {
        const std::size_t eol = body.find("\r\n", at);
        if (eol == std::string::npos) throw Error("chat endpoint: truncated chunked body");
        const std::string size_text = body.substr(at, eol - at);
        // Chunk extensions follow a ';'.
        const std::optional<std::size_t> size = parse_size(trim(size_text), 16, " \t;");
        if (!size) throw Error("chat endpoint: bad chunk size '" + size_text.substr(0, 40) + "'");
        at = eol + 2;
        if (*size == 0) return out;
        if (*size > body.size() - at) // at <= body.size(): no wrap-around, unlike at + size
            throw Error("chat endpoint: truncated chunk: '" + size_text.substr(0, 40) + "' is " +
                        std::to_string(*size) + " bytes, " + std::to_string(body.size() - at) +
                        " left in the body");
        out.append(body, at, *size);
        at += *size;
        if (body.size() - at < 2) throw Error("chat endpoint: truncated chunked body");
        at += 2; // the chunk's CRLF
    }
}

} // namespace

HttpResponse http_post(const std::string& host, int port, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& headers,
                       const std::string& body, double timeout_seconds)
{
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(std::int64_t(timeout_seconds * 1000));
    Socket s;
    connect_to(s, host, port, deadline);
    std::string request = "POST " + path + " HTTP/1.1\r\nHost: " + host + ":" +
                          std::to_string(port) + "\r\nConnection: close\r\n" +
                          "Content-Length: " + std::to_string(body.size()) + "\r\n";
    for (const auto& [k, v] : headers) request += k + ": " + v + "\r\n";
    request += "\r\n" + body;
    std::size_t sent = 0;
    while (sent < request.size()) {
        const ssize_t n = ::send(s.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += std::size_t(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            throw Error(std::string("chat endpoint: send: ") + std::strerror(errno));
        pollfd p{s.fd, POLLOUT, 0};
        if (remaining_ms(deadline) == 0 || ::poll(&p, 1, remaining_ms(deadline)) == 0)
            throw Error("chat endpoint: timed out sending the request");
    }
    std::string raw;
    char buf[65536];
    while (true) {
        const ssize_t n = ::recv(s.fd, buf, sizeof buf, 0);
        if (n > 0) {
            raw.append(buf, std::size_t(n));
            if (raw.size() > (64u << 20)) throw Error("chat endpoint: response over 64 MiB");
            continue;
        }
        if (n == 0) break;
        if (errno != EAGAIN && errno != EINTR)
            throw Error(std::string("chat endpoint: recv: ") + std::strerror(errno));
        pollfd p{s.fd, POLLIN, 0};
        if (remaining_ms(deadline) == 0 || ::poll(&p, 1, remaining_ms(deadline)) == 0)
            throw Error("chat endpoint: no complete response within " +
                        std::to_string(timeout_seconds) + " s");
    }
    const std::size_t head_end = raw.find("\r\n\r\n");
    if (head_end == std::string::npos) throw Error("chat endpoint: response without headers");
    HttpResponse r;
    std::size_t line_end = raw.find("\r\n");
    const std::string status_line = raw.substr(0, line_end);
    if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12)
        throw Error("chat endpoint: bad status line '" + status_line + "'");
    r.status = std::atoi(status_line.c_str() + 9);
    for (std::size_t at = line_end + 2; at < head_end;) {
        const std::size_t e = raw.find("\r\n", at);
        const std::string line = raw.substr(at, e - at);
        at = e + 2;
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        r.headers[lower(line.substr(0, colon))] = value;
    }
    std::string payload = raw.substr(head_end + 4);
    if (lower(r.headers["transfer-encoding"]).find("chunked") != std::string::npos) {
        r.body = dechunk(payload);
    } else if (r.headers.count("content-length")) {
        const std::string& text = r.headers["content-length"];
        const std::optional<std::size_t> parsed = parse_size(trim(text), 10, "");
        if (!parsed)
            throw Error("chat endpoint: bad Content-Length '" + text.substr(0, 40) +
                        "', expected a byte count");
        const std::size_t length = *parsed;
        if (payload.size() < length)
            throw Error("chat endpoint: body shorter than Content-Length");
        r.body = payload.substr(0, length);
    } else {
        r.body = std::move(payload);
    }
    return r;
}

std::string ChatClient::complete(const std::vector<ChatMessage>& messages)
{
    nlohmann::json msgs = nlohmann::json::array();
    for (const ChatMessage& m : messages)
        msgs.push_back({{"role", m.role}, {"content", m.content}});
    nlohmann::json request = {{"messages", msgs}, {"temperature", endpoint_.temperature}};
    if (!endpoint_.model.empty()) request["model"] = endpoint_.model;
    std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "application/json"}, {"Accept", "application/json"}};
    if (!endpoint_.api_key.empty())
        headers.push_back({"Authorization", "Bearer " + endpoint_.api_key});
    const HttpResponse r = http_post(endpoint_.host, endpoint_.port, endpoint_.path, headers,
                                     json_text(request), endpoint_.timeout_seconds);
    if (r.status != 200)
        throw Error("chat endpoint: HTTP " + std::to_string(r.status) + ": " +
                    r.body.substr(0, 200));
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    if (j.is_discarded() || !j.contains("choices") || !j["choices"].is_array() ||
        j["choices"].empty() || !j["choices"][0].contains("message") ||
        !j["choices"][0]["message"].contains("content") ||
        !j["choices"][0]["message"]["content"].is_string())
        throw Error("chat endpoint: expected {\"choices\":[{\"message\":{\"content\":...}}]}");
    return j["choices"][0]["message"]["content"].get<std::string>();
}

nlohmann::json extract_json_object(const std::string& text)
{
    // Try every '{' as the start of a balanced object (strings and escapes respected).
    for (std::size_t start = text.find('{'); start != std::string::npos;
         start = text.find('{', start + 1)) {
        int depth = 0;
        bool in_string = false, escape = false;
        for (std::size_t i = start; i < text.size(); ++i) {
            const char c = text[i];
            if (in_string) {
                if (escape)
                    escape = false;
                else if (c == '\\')
                    escape = true;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"')
                in_string = true;
            else if (c == '{')
                ++depth;
            else if (c == '}' && --depth == 0) {
                nlohmann::json j =
                    nlohmann::json::parse(text.substr(start, i - start + 1), nullptr, false);
                if (!j.is_discarded() && j.is_object() &&
                    (j.contains("candidates") || j.contains("type")))
                    return j;
                break;
            }
        }
    }
    return nullptr;
}

void ChatAgent::start(const nlohmann::json& problem_message)
{
    messages_.clear();
    messages_.push_back(
        {"system",
         "You are a CUDA kernel engineer working as Planner and Coder. You receive a kernel "
         "problem, its speed-of-light (SOL) analysis, a kernel DSL and the verdicts of earlier "
         "candidates. Answer every request with one JSON object and nothing else: "
         "{\"type\":\"candidates\",\"round\":R,\"plan\":\"what to try and why\","
         "\"candidates\":[{\"id\":\"c1\",\"config\":{...DSL keys...}} or "
         "{\"id\":\"c2\",\"cuda\":\"extern \\\"C\\\" __global__ void ENTRY(...){...}\","
         "\"entry\":\"ENTRY\"}]}. CUDA must compile with NVRTC (no #include) and use the "
         "entry signature given. Or {\"type\":\"stop\",\"reason\":\"...\"} when done. A "
         "candidate faster than SOL by more than 5% is flagged as gaming and never ranked."});
    messages_.push_back({"user", "Problem:\n" + json_text(problem_message)});
}

AgentReply ChatAgent::propose(const nlohmann::json& propose_message)
{
    messages_.push_back({"user", "Propose the candidates of round " +
                                     json_text(propose_message.value("round", nlohmann::json(0))) +
                                     ". Verdicts so far:\n" + json_text(propose_message)});
    const std::string answer = client_.complete(messages_);
    messages_.push_back({"assistant", answer});
    nlohmann::json j = extract_json_object(answer);
    if (j.is_null()) {
        log_.push_back(answer.substr(0, 2000));
        throw Error("chat agent: the reply holds no JSON object with \"candidates\"");
    }
    if (!j.contains("type")) j["type"] = "candidates";
    return parse_agent_reply(j);
}

} // namespace gsr::tune
