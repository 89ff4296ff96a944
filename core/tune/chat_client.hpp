#pragma once
// An optional client for an OpenAI-compatible chat endpoint that the user configures, and the
// agent that uses it. Plain HTTP/1.1 over a POSIX socket (no TLS: point it at a local server or
// a local proxy). Nothing here runs unless the user configures an endpoint.
//
//   http_post()   one request, "Connection: close"; Content-Length or chunked responses
//   ChatClient    POST {model, messages, temperature} to /v1/chat/completions and return
//                 choices[0].message.content
//   ChatAgent     a CandidateSource: the protocol's messages become chat turns; the reply's
//                 first JSON object with "candidates" (fenced or not) is the answer
#include "tune/agent_protocol.hpp"

#include <map>
#include <string>
#include <vector>

namespace gsr::tune {

struct HttpResponse {
    int status = 0;
    std::map<std::string, std::string> headers; ///< names lower-cased
    std::string body; ///< de-chunked
};

/// gsr::Error on connection failure, timeout or a malformed response.
HttpResponse http_post(const std::string& host, int port, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& headers,
                       const std::string& body, double timeout_seconds);

struct ChatEndpoint {
    std::string host = "127.0.0.1";
    int port = 8000;
    std::string path = "/v1/chat/completions";
    std::string model;
    std::string api_key; ///< sent as "Authorization: Bearer ..." when not empty
    double timeout_seconds = 120;
    double temperature = 0.2;
};

struct ChatMessage {
    std::string role; ///< "system", "user", "assistant"
    std::string content;
};

class ChatClient {
public:
    explicit ChatClient(ChatEndpoint endpoint) : endpoint_(std::move(endpoint)) {}
    /// The assistant's reply. gsr::Error for HTTP errors and unexpected JSON.
    std::string complete(const std::vector<ChatMessage>& messages);
    const ChatEndpoint& endpoint() const { return endpoint_; }

private:
    ChatEndpoint endpoint_;
};

/// The first JSON object in `text` (inside ``` fences or bare) that has a "candidates" or a
/// "type" key; a null json when there is none.
nlohmann::json extract_json_object(const std::string& text);

class ChatAgent : public CandidateSource {
public:
    explicit ChatAgent(ChatEndpoint endpoint) : client_(std::move(endpoint)) {}
    void start(const nlohmann::json& problem_message) override;
    AgentReply propose(const nlohmann::json& propose_message) override;
    void finish(const nlohmann::json&) override {}
    std::vector<std::string> log() const override { return log_; }
    const std::vector<ChatMessage>& conversation() const { return messages_; }

private:
    ChatClient client_;
    std::vector<ChatMessage> messages_;
    std::vector<std::string> log_;
};

} // namespace gsr::tune
