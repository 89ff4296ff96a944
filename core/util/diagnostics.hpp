#pragma once
// User-facing failures and warnings: one error type for the whole project.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gsr {

/// Where something sits in an input file. Line and column are 1-based; 0 means unknown.
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;

    /// "FILE:LINE:COL" (parts that are unknown are left out).
    std::string str() const;
};

/// The one error type for user-facing failures. what() is "FILE:LINE:COL: error: MESSAGE".
/// A message (and a warning's) past 2,000 bytes keeps its start and says how much it left out.
class Error : public std::runtime_error {
public:
    Error(SourceLocation where, std::string message);
    explicit Error(std::string message) : Error(SourceLocation{}, std::move(message)) {}

    const SourceLocation& where() const { return where_; }
    const std::string& message() const { return message_; }

private:
    SourceLocation where_;
    std::string message_;
};

/// A recoverable oddity found while reading input.
struct Warning {
    SourceLocation where;
    std::string message;

    /// "FILE:LINE:COL: warning: MESSAGE"
    std::string str() const;
};

/// Collects warnings. Identical messages past a cap are counted, not stored, so a file with a
/// million undriven nets does not produce a million strings.
class Diagnostics {
public:
    void warn(SourceLocation where, std::string message);
    const std::vector<Warning>& warnings() const { return warnings_; }
    std::size_t suppressed() const { return suppressed_; }
    void merge(const Diagnostics& other);

    static constexpr std::size_t kMaxStored = 200;

private:
    std::vector<Warning> warnings_;
    std::size_t suppressed_ = 0;
};

} // namespace gsr
