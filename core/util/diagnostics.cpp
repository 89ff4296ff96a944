#include "util/diagnostics.hpp"

#include "util/utf8_text.hpp"

namespace gsr {

std::string SourceLocation::str() const
{
    std::string s = file;
    if (line > 0) {
        s += ':' + std::to_string(line);
        if (column > 0) s += ':' + std::to_string(column);
    }
    return s;
}

/// Messages quote what they found, and a token of an input can be megabytes long (a 2 MB
/// identifier made a 2 MB line on stderr): past kMaxMessage bytes the middle is left out,
/// saying how much, cut between UTF-8 characters. The end stays: a message may say what was
/// expected after what it quotes.
static std::string capped(std::string message)
{
    constexpr std::size_t kMaxMessage = 2000, kTail = 500;
    if (message.size() <= kMaxMessage) return message;
    const std::size_t head = utf8_cut(message, kMaxMessage - kTail);
    std::size_t tail = message.size() - kTail; // moved forward to a character's first byte
    while (tail < message.size() && (static_cast<unsigned char>(message[tail]) & 0xC0) == 0x80)
        ++tail;
    return message.substr(0, head) + " ... (" + std::to_string(tail - head) +
           " bytes not shown) ... " + message.substr(tail);
}

static std::string format_error(const SourceLocation& where, const std::string& message)
{
    std::string loc = where.str();
    return loc.empty() ? "error: " + message : loc + ": error: " + message;
}

Error::Error(SourceLocation where, std::string message)
    : std::runtime_error(format_error(where, capped(message))), where_(std::move(where)),
      message_(capped(std::move(message)))
{
}

std::string Warning::str() const
{
    std::string loc = where.str();
    return loc.empty() ? "warning: " + message : loc + ": warning: " + message;
}

void Diagnostics::warn(SourceLocation where, std::string message)
{
    if (warnings_.size() >= kMaxStored) {
        ++suppressed_;
        return;
    }
    warnings_.push_back({std::move(where), capped(std::move(message))});
}

void Diagnostics::merge(const Diagnostics& other)
{
    for (const Warning& w : other.warnings_) warn(w.where, w.message);
    suppressed_ += other.suppressed_;
}

} // namespace gsr
