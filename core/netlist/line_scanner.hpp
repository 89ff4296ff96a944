#pragma once
// Shared scanning helpers for the line-oriented formats (bench, BLIF): position tracking that
// is free until a message needs a line and column.
#include "util/source_text.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace gsr::netlist {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/// A byte that netlist text cannot hold: a control byte other than tab, LF, CR, FF and VT, or
/// DEL. check_text_input looks at the first kilobytes only; one further on would end up in a name.
inline bool is_control_byte(char c)
{
    const unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20) return u == 0x7f;
    return c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v';
}

/// Fails at the first control byte of text[begin, end), if any, naming the byte.
inline void refuse_control_bytes(const SourceText& src, std::size_t begin, std::size_t end,
                                 std::string_view format)
{
    const std::string_view text = src.text();
    for (std::size_t i = begin; i < end; ++i)
        if (is_control_byte(text[i]))
            src.fail(i, "unexpected byte " + hex_byte(static_cast<unsigned char>(text[i])) +
                            ": expected " + std::string(format) + " text");
}

/// Walks a text line by line, tracking the line number.
class LineScanner {
public:
    /// From the first line's first character past a byte order mark (editors on Windows).
    explicit LineScanner(const SourceText& src)
        : src_(src), text_(src.text()), pos_(bom_length(src.text()))
    {
    }

    /// Next physical line without its '\n'. False at the end.
    bool next(std::string_view& line)
    {
        if (pos_ >= text_.size()) return false;
        std::size_t end = text_.find('\n', pos_);
        if (end == std::string_view::npos) end = text_.size();
        line_start_ = pos_;
        line = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        ++line_;
        return true;
    }
    int line() const { return line_; }
    /// Offset in the file of a character of the current line.
    std::size_t offset_of(std::string_view line, const char* p) const
    {
        return line_start_ + static_cast<std::size_t>(p - line.data());
    }
    SourceLocation here(std::string_view line, const char* p) const
    {
        return {src_.name(), line_, static_cast<int>(p - line.data()) + 1};
    }
    [[noreturn]] void fail(std::string_view line, const char* p, const std::string& msg) const
    {
        throw Error(here(line, p), msg);
    }

private:
    const SourceText& src_;
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t line_start_ = 0;
    int line_ = 0;
};

} // namespace gsr::netlist
