#include "netlist/lefdef_lexer.hpp"

#include "util/utf8_text.hpp"

#include <charconv>
#include <cstring>

namespace gsr::netlist {

namespace {

bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_control(unsigned char c)
{
    return (c < 0x20 && !is_blank(static_cast<char>(c))) || c == 0x7f;
}


} // namespace

LefDefLexer::LefDefLexer(const SourceText& src, std::string_view format)
    : src_(src), text_(src.text()), format_(format), pos_(bom_length(src.text())), locator_(src)
{
    check_text_input(src, format);
}

LefDefToken LefDefLexer::scan()
{
    const char* const begin = text_.data();
    const char* const end = begin + text_.size();
    const char* p = begin + pos_;
    for (;;) {
        while (p < end && is_blank(*p)) ++p;
        if (p < end && *p == '#') { // a comment runs to the end of the line
            const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
            p = nl ? static_cast<const char*>(nl) : end;
            continue;
        }
        break;
    }
    LefDefToken t;
    t.offset = static_cast<std::size_t>(p - begin);
    if (p >= end) {
        t.end = true;
        pos_ = text_.size();
        return t;
    }
    if (*p == '"') {
        const char* q = p + 1;
        while (q < end && *q != '"') q += (*q == '\\' && q + 1 < end) ? 2 : 1;
        if (q >= end)
            fail(t.offset,
                 "unterminated string: expected a closing '\"' before the end of the file");
        t.text = std::string_view(p + 1, static_cast<std::size_t>(q - p - 1));
        t.quoted = true;
        pos_ = static_cast<std::size_t>(q + 1 - begin);
        return t;
    }
    const char* q = p;
    while (q < end && !is_blank(*q)) {
        if (is_control(static_cast<unsigned char>(*q)))
            fail(static_cast<std::size_t>(q - begin),
                 "unexpected byte " + hex_byte(static_cast<unsigned char>(*q)) + ": expected " +
                     format_ + " text");
        ++q;
    }
    // "N;" : writers that forget the blank before ';' still mean a separate ';'.
    if (q - p > 1 && q[-1] == ';') --q;
    t.text = std::string_view(p, static_cast<std::size_t>(q - p));
    pos_ = static_cast<std::size_t>(q - begin);
    return t;
}

LefDefToken LefDefLexer::next()
{
    LefDefToken t;
    if (has_peeked_) {
        has_peeked_ = false;
        t = peeked_;
    } else {
        t = scan();
    }
    if (!t.end) last_end_ = t.end_offset();
    return t;
}

const LefDefToken& LefDefLexer::peek()
{
    if (!has_peeked_) {
        peeked_ = scan();
        has_peeked_ = true;
    }
    return peeked_;
}

std::string LefDefLexer::quote(const LefDefToken& t)
{
    if (t.end) return "the end of the file";
    std::string_view s = t.text;
    const bool cut = s.size() > 40;
    if (cut) s = s.substr(0, utf8_cut(s, 40));
    std::string q = t.quoted ? "\"" : "'";
    return q + std::string(s) + (cut ? "..." : "") + q;
}

void LefDefLexer::fail_expected(const LefDefToken& t, const std::string& expected) const
{
    fail(t.offset, "expected " + expected + ", found " + quote(t));
}

void LefDefLexer::warn(Diagnostics& d, std::size_t offset, std::string message)
{
    d.warn(locator_.locate(offset), std::move(message));
}

LefDefToken LefDefLexer::expect_word(const std::string& what)
{
    LefDefToken t = next();
    if (t.end || (!t.quoted && t.text == ";")) fail_expected(t, what);
    return t;
}

LefDefToken LefDefLexer::expect_keyword(std::string_view kw, const std::string& context)
{
    LefDefToken t = next();
    if (!t.is(kw)) fail_expected(t, "'" + std::string(kw) + "' " + context);
    return t;
}

std::int64_t LefDefLexer::expect_int(const std::string& what)
{
    LefDefToken t = next();
    std::int64_t v = 0;
    const char* b = t.text.data();
    const char* e = b + t.text.size();
    if (!t.end && !t.quoted && !t.text.empty() && *b == '+') ++b;
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (t.end || t.quoted || t.text.empty() || ec != std::errc() || ptr != e)
        fail_expected(t, what);
    return v;
}

double LefDefLexer::expect_number(const std::string& what)
{
    LefDefToken t = next();
    double v = 0;
    const char* b = t.text.data();
    const char* e = b + t.text.size();
    if (!t.end && !t.quoted && !t.text.empty() && *b == '+') ++b;
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (t.end || t.quoted || t.text.empty() || ec != std::errc() || ptr != e)
        fail_expected(t, what);
    return v;
}

void LefDefLexer::skip_statement(const std::string& what, std::size_t start)
{
    skip_to_semicolon(what, start, false);
}

void LefDefLexer::skip_entry(const std::string& what, std::size_t start)
{
    skip_to_semicolon(what, start, true);
}

bool LefDefLexer::skip_option(const std::string& what, std::size_t start)
{
    return skip_to_semicolon(what, start, true, true);
}

bool LefDefLexer::skip_to_semicolon(const std::string& what, std::size_t start, bool entry,
                                    bool at_plus)
{
    for (;;) {
        const std::size_t before = last_end_; // where a forgotten ';' belongs
        const LefDefToken t = next();
        if (t.quoted) continue;
        if (t.end)
            fail(t.offset, "unexpected end of file: expected ';' to end " + what + " (line " +
                               std::to_string(line_of(start)) + ")");
        if (t.text.size() == 1 && t.text[0] == ';') return false;
        if (at_plus && t.text.size() == 1 && t.text[0] == '+') return true;
        if (t.text == "END" || (entry && t.text == "-"))
            fail(before, "expected ';' at the end of " + what);
    }
}

void LefDefLexer::skip_extension(const LefDefToken& begin)
{
    for (;;) {
        const LefDefToken t = next();
        if (t.end)
            fail(t.offset, "unexpected end of file: expected ENDEXT to close BEGINEXT (line " +
                               std::to_string(line_of(begin.offset)) + ")");
        if (t.is("ENDEXT")) return;
    }
}

void LefDefLexer::skip_block(std::string_view name, const std::string& what, std::size_t start,
                             std::string_view stop)
{
    for (;;) {
        LefDefToken t = next();
        if (t.end)
            fail(t.offset, "unexpected end of file: expected 'END " + std::string(name) +
                               "' to close " + what + " (line " + std::to_string(line_of(start)) +
                               ")");
        if (!stop.empty() && t.is(stop))
            fail(t.offset, "expected 'END " + std::string(name) + "' to close " + what +
                               " (line " + std::to_string(line_of(start)) + ") before " +
                               std::string(stop));
        if (t.is("END")) {
            const LefDefToken& n = peek();
            if (!n.end && n.text == name) {
                next();
                return;
            }
        }
    }
}

} // namespace gsr::netlist
