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
/// identifier made a 2 MB line on stderr): past kMaxMessage bytes the rest is left out, saying
/// how much, cut between UTF-8 characters.
static std::string capped(std::string message)
{
    constexpr std::size_t kMaxMessage = 2000;
    if (message.size() <= kMaxMessage) return message;
    const std::size_t keep = utf8_cut(message, kMaxMessage);
    const std::size_t left_out = message.size() - keep;
    message.resize(keep);
    return message + "... (" + std::to_string(left_out) + " more bytes not shown)";
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
