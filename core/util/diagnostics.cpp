#include "util/diagnostics.hpp"

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

static std::string format_error(const SourceLocation& where, const std::string& message)
{
    std::string loc = where.str();
    return loc.empty() ? "error: " + message : loc + ": error: " + message;
}

Error::Error(SourceLocation where, std::string message)
    : std::runtime_error(format_error(where, message)), where_(std::move(where)),
      message_(std::move(message))
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
    warnings_.push_back({std::move(where), std::move(message)});
}

void Diagnostics::merge(const Diagnostics& other)
{
    for (const Warning& w : other.warnings_) warn(w.where, w.message);
    suppressed_ += other.suppressed_;
}

} // namespace gsr
