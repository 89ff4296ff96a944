#pragma once
// The bytes of one input file, and the mapping from a byte offset back to line and column.
#include "util/diagnostics.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gsr {

class SourceText {
public:
    /// Reads a whole file; a gzip file (by magic bytes) is inflated, to at most
    /// gzip_inflate_limit(its size) bytes. Throws Error, naming the file, when the file cannot
    /// be read, its gzip data are corrupt, inflate past the limit or are not text.
    static SourceText read_file(const std::string& path);
    /// The same with the limit on the inflated size given.
    static SourceText read_file(const std::string& path, std::uint64_t max_inflated);
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

/// The most bytes a gzip file of `packed` bytes may inflate to: 100 x its size, at least
/// 256 MiB and at most 16 GiB. Netlists and libraries inflate 5-20 x; deflate can reach
/// 1000 x, so a 5 MB file of zeros was 1.2 GB in memory before any reader saw a byte.
std::uint64_t gzip_inflate_limit(std::uint64_t packed);

/// True when the bytes look like text a netlist could be written in: no NUL bytes and few
/// control characters in the first kilobytes. Used to reject binary garbage early.
bool looks_like_text(std::string_view head);

/// Length of a UTF-8 byte order mark at the start of `text` (editors on Windows add one).
inline std::size_t bom_length(std::string_view text)
{
    return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

/// Maps offsets to line and column quickly when they are asked for in increasing order, as
/// warnings are; SourceText::location rescans from the start each time.
class OffsetLocator {
public:
    explicit OffsetLocator(const SourceText& src)
        : src_(src), line_start_(bom_length(src.text())) // line 1's columns: past a BOM
    {
    }
    SourceLocation locate(std::size_t offset);
    /// The line alone (no copy of the file name).
    int line(std::size_t offset);

private:
    const SourceText& src_;
    std::size_t offset_ = 0;
    std::size_t line_start_ = 0;
    int line_ = 1;
};

/// "0x3f": a byte as messages about binary input show it.
std::string hex_byte(unsigned char c);

/// Fails at the first byte that cannot be in a text file, or at a leading HTML/XML tag: input
/// that is not `format` at all, said so instead of a puzzling syntax error further on.
void check_text_input(const SourceText& src, std::string_view format);

} // namespace gsr
