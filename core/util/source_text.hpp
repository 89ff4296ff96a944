#pragma once
// The bytes of one input file, and the mapping from a byte offset back to line and column.
#include "util/diagnostics.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace gsr {

class SourceText {
public:
    /// Reads a whole file; a gzip file (by magic bytes) is inflated. Throws Error when the file
    /// cannot be read.
    static SourceText read_file(const std::string& path);
    /// Wraps text already in memory (tests, generated input). `name` is used in messages.
    static SourceText from_string(std::string name, std::string text);

    const std::string& name() const { return name_; }
    std::string_view text() const { return text_; }
    std::size_t size() const { return text_.size(); }

    /// Line and column (1-based) of a byte offset. Linear in the offset: call it for messages only.
    SourceLocation location(std::size_t offset) const;
    /// Location of the first byte of line `line`.
    SourceLocation line_location(int line) const { return {name_, line, 1}; }

    /// Throws Error(location(offset), message).
    [[noreturn]] void fail(std::size_t offset, const std::string& message) const;

private:
    std::string name_;
    std::string text_;
};

/// True when the bytes look like text a netlist could be written in: no NUL bytes and few
/// control characters in the first kilobytes. Used to reject binary garbage early.
bool looks_like_text(std::string_view head);

} // namespace gsr
