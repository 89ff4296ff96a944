#include "netlist/verilog_lexer.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace gsr::netlist::verilog {

namespace {

enum CharClass : std::uint8_t {
    kSpace = 1,      // blank, tab, newline, CR, FF, VT
    kIdentStart = 2, // a-z A-Z _
    kIdentChar = 4,  // a-z A-Z 0-9 _ $
    kDigit = 8,      // 0-9
    kBasedDigit = 16 // digits of a based literal: hex digits, x z ? _
};

constexpr std::array<std::uint8_t, 256> make_classes()
{
    std::array<std::uint8_t, 256> t{};
    for (int c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[c] |= kSpace;
    for (int c = 'a'; c <= 'z'; ++c) t[c] |= kIdentStart | kIdentChar;
    for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kIdentStart | kIdentChar;
    t['_'] |= kIdentStart | kIdentChar | kBasedDigit;
    t['$'] |= kIdentChar;
    for (int c = '0'; c <= '9'; ++c) t[c] |= kIdentChar | kDigit | kBasedDigit;
    for (int c :
         {'a', 'b', 'c', 'd', 'e', 'f', 'A', 'B', 'C', 'D', 'E', 'F', 'x', 'X', 'z', 'Z', '?'})
        t[c] |= kBasedDigit;
    return t;
}

constexpr std::array<std::uint8_t, 256> kClass = make_classes();

inline bool is(char c, std::uint8_t cls) { return kClass[static_cast<unsigned char>(c)] & cls; }

bool is_base_char(char c)
{
    switch (c) {
    case 'b': case 'B': case 'o': case 'O': case 'd': case 'D': case 'h': case 'H': return true;
    default: return false;
    }
}

/// Directives that change nothing a netlist reader keeps: their line is skipped silently.
bool is_harmless_directive(std::string_view n)
{
    static constexpr std::string_view kNames[] = {
        "timescale", "celldefine", "endcelldefine", "resetall", "default_nettype",
        "nounconnected_drive", "unconnected_drive", "default_decay_time",
        "default_trireg_strength", "delay_mode_distributed", "delay_mode_path", "delay_mode_unit",
        "delay_mode_zero", "line", "pragma", "begin_keywords", "end_keywords", "suppress_faults",
        "nosuppress_faults", "enable_portfaults", "disable_portfaults", "accelerate",
        "noaccelerate", "protect", "endprotect"};
    return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

std::string printable(std::string_view s)
{
    std::string out;
    for (char c : s.substr(0, 40)) {
        unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f) {
            out += c;
        } else {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        }
    }
    if (s.size() > 40) out += "...";
    return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// DeferredWarnings

void DeferredWarnings::add(std::size_t offset, std::string message)
{
    if (full()) {
        ++overflow_;
        return;
    }
    stored_.push_back({offset, std::move(message)});
}

void DeferredWarnings::flush(const SourceText& src, Diagnostics& out)
{
    std::stable_sort(stored_.begin(), stored_.end(),
                     [](const Pending& a, const Pending& b) { return a.offset < b.offset; });
    const std::string_view text = src.text();
    std::size_t pos = 0, line_start = 0;
    int line = 1;
    for (Pending& w : stored_) {
        if (w.offset == kNoOffset) {
            out.warn(SourceLocation{src.name()}, std::move(w.message));
            continue;
        }
        const std::size_t target = std::min(w.offset, text.size());
        for (; pos < target; ++pos) {
            if (text[pos] == '\n') {
                ++line;
                line_start = pos + 1;
            }
        }
        out.warn({src.name(), line, static_cast<int>(target - line_start) + 1},
                 std::move(w.message));
    }
    // Past the cap only the number of warnings is kept, the way Diagnostics itself does it.
    for (std::size_t i = 0; i < overflow_; ++i) out.warn(SourceLocation{src.name()}, std::string());
    stored_.clear();
    overflow_ = 0;
}

// ---------------------------------------------------------------------------------------------
// Lexer

Lexer::Lexer(const SourceText& src, DeferredWarnings& warnings, std::size_t start)
    : src_(src), warnings_(warnings), base_(src.text().data()),
      p_(base_ + std::min(start, src.text().size())),
      end_(base_ + src.text().size()), last_end_(end_)
{
    while (last_end_ > base_ && is(last_end_[-1], kSpace)) --last_end_;
    // A UTF-8 byte-order mark, as some Windows editors write it.
    if (p_ == base_ && end_ - p_ >= 3 && std::memcmp(p_, "\xEF\xBB\xBF", 3) == 0) p_ += 3;
}

void Lexer::fail(const char* at, const std::string& message) const
{
    src_.fail(offset(at), message);
}

std::string describe(const Token& t)
{
    switch (t.kind) {
    case TokenKind::End: return "the end of the file";
    case TokenKind::Escaped: return "'\\" + printable(t.text()) + "'";
    case TokenKind::Number: return "the number '" + printable(t.text()) + "'";
    case TokenKind::String: return "a string";
    case TokenKind::System: return "'" + printable(t.text()) + "'";
    default: return "'" + printable(t.text()) + "'";
    }
}

void Lexer::lex(Token& t)
{
    for (;;) {
        const char* p = p_;
        while (p < end_ && is(*p, kSpace)) ++p;
        if (p >= end_) {
            p_ = end_;
            if (!conditionals_.empty())
                fail(conditionals_.back().where, "expected `endif to close this conditional "
                                                 "before the end of the file");
            t.kind = TokenKind::End;
            t.op = 0;
            t.begin = t.end = last_end_;
            return;
        }
        const char c = *p;
        if (is(c, kIdentStart)) {
            const char* q = p + 1;
            while (q < end_ && is(*q, kIdentChar)) ++q;
            t.kind = TokenKind::Identifier;
            t.begin = p;
            t.end = q;
            p_ = q;
            return;
        }
        switch (c) {
        case '/':
            if (p + 1 < end_ && p[1] == '/') {
                const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end_ - p));
                p_ = nl ? static_cast<const char*>(nl) + 1 : end_;
                continue;
            }
            if (p + 1 < end_ && p[1] == '*') {
                skip_block_comment(p);
                continue;
            }
            break;
        case '(':
            // `(*` opens an attribute, except in `@(*)`.
            if (p + 1 < end_ && p[1] == '*' && (p + 2 >= end_ || p[2] != ')')) {
                skip_attribute(p);
                continue;
            }
            break;
        case '`':
            directive(p);
            continue;
        case '\\': {
            const char* q = p + 1;
            while (q < end_ && !is(*q, kSpace)) {
                if (static_cast<unsigned char>(*q) < 0x20 || *q == 0x7f)
                    fail(q, "unexpected control byte in the escaped identifier; expected a space "
                            "to end it");
                ++q;
            }
            if (q == p + 1) fail(p, "expected an escaped identifier after '\\'");
            if (q >= end_)
                fail(p, "unterminated escaped identifier: expected a space after it before the "
                        "end of the file");
            t.kind = TokenKind::Escaped;
            t.begin = p + 1;
            t.end = q;
            p_ = q + 1; // the terminating white space belongs to the identifier
            return;
        }
        case '$': {
            const char* q = p + 1;
            while (q < end_ && is(*q, kIdentChar)) ++q;
            t.kind = TokenKind::System;
            t.begin = p;
            t.end = q;
            p_ = q;
            return;
        }
        case '"': {
            const char* q = p + 1;
            while (q < end_ && *q != '"' && *q != '\n') q += (*q == '\\' && q + 1 < end_) ? 2 : 1;
            if (q >= end_ || *q != '"')
                fail(p, "unterminated string: expected '\"' before the end of the line");
            t.kind = TokenKind::String;
            t.begin = p + 1;
            t.end = q;
            p_ = q + 1;
            return;
        }
        case '\'':
            t.kind = TokenKind::Number;
            t.begin = p;
            p_ = p;
            lex_based_digits(p);
            t.end = p_;
            return;
        default:
            if (is(c, kDigit)) {
                t.kind = TokenKind::Number;
                t.begin = p;
                p_ = p;
                lex_number(t);
                return;
            }
            break;
        }

        // Operators and punctuation: the longest match of up to three characters.
        const auto at = [&](std::ptrdiff_t i) { return p + i < end_ ? p[i] : '\0'; };
        int len = 1;
        switch (c) {
        case '(': case ')': case '[': case ']': case '{': case '}': case ',': case ';': case '.':
        case ':': case '#': case '@': case '?': case '/': case '%':
            break;
        case '=':
        case '!':
            if (at(1) == '=') len = at(2) == '=' ? 3 : 2;
            break;
        case '<':
            if (at(1) == '=') len = 2;
            else if (at(1) == '<') len = at(2) == '<' ? 3 : 2;
            break;
        case '>':
            if (at(1) == '=') len = 2;
            else if (at(1) == '>') len = at(2) == '>' ? 3 : 2;
            break;
        case '&':
            if (at(1) == '&') len = at(2) == '&' ? 3 : 2;
            break;
        case '|':
            if (at(1) == '|') len = 2;
            break;
        case '~':
            if (at(1) == '&' || at(1) == '|' || at(1) == '^') len = 2;
            break;
        case '^':
            if (at(1) == '~') len = 2;
            break;
        case '+':
            if (at(1) == ':') len = 2;
            break;
        case '-':
            if (at(1) == ':' || at(1) == '>') len = 2;
            break;
        case '*':
            if (at(1) == '*') len = 2;
            break;
        default: {
            const unsigned char u = static_cast<unsigned char>(c);
            if (u < 0x20 || u >= 0x7f)
                fail(p, "unexpected byte " + hex_byte(u) + "; expected Verilog text");
            fail(p, std::string("unexpected character '") + c + "'");
        }
        }
        t.kind = TokenKind::Symbol;
        t.begin = p;
        t.end = p + len;
        t.op = 0;
        for (int i = 0; i < len; ++i)
            t.op |= static_cast<std::uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
        p_ = p + len;
        return;
    }
}

void Lexer::skip_block_comment(const char* start)
{
    const char* p = start + 2;
    for (;;) {
        const void* star = std::memchr(p, '*', static_cast<std::size_t>(end_ - p));
        if (!star || static_cast<const char*>(star) + 1 >= end_)
            fail(start, "unterminated comment: expected '*/' to close this '/*' before the end "
                        "of the file");
        p = static_cast<const char*>(star) + 1;
        if (*p == '/') {
            p_ = p + 1;
            return;
        }
    }
}

void Lexer::skip_attribute(const char* start)
{
    const char* p = start + 2;
    while (p + 1 < end_) {
        if (p[0] == '*' && p[1] == ')') {
            p_ = p + 2;
            return;
        }
        if (p[0] == '"') { // a string value may hold "*)"
            ++p;
            while (p < end_ && *p != '"' && *p != '\n') p += (*p == '\\') ? 2 : 1;
        }
        ++p;
    }
    fail(start, "unterminated attribute: expected '*)' to close this '(*' before the end of the "
                "file");
}

void Lexer::lex_number(Token& t)
{
    const char* p = p_;
    while (p < end_ && (is(*p, kDigit) || *p == '_')) ++p;
    if (p + 1 < end_ && *p == '.' && is(p[1], kDigit)) { // real number, e.g. a delay #1.5
        p += 2;
        while (p < end_ && (is(*p, kDigit) || *p == '_')) ++p;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
        const char* q = p + 1;
        if (q < end_ && (*q == '+' || *q == '-')) ++q;
        if (q < end_ && is(*q, kDigit)) {
            p = q;
            while (p < end_ && is(*p, kDigit)) ++p;
        }
    }
    // A size may be separated from its base by white space: `4 'b1010`.
    const char* q = p;
    while (q < end_ && is(*q, kSpace)) ++q;
    if (q < end_ && *q == '\'') {
        p_ = q;
        lex_based_digits(t.begin);
        t.end = p_;
        return;
    }
    p_ = p;
    t.end = p;
}

void Lexer::lex_based_digits(const char* literal_start)
{
    const char* p = p_ + 1; // past the quote
    if (p < end_ && (*p == 's' || *p == 'S')) ++p;
    if (p >= end_ || !is_base_char(*p)) {
        // SystemVerilog fill literals: '0 '1 'x 'z
        if (p_ == literal_start && p < end_ &&
            (*p == '0' || *p == '1' || *p == 'x' || *p == 'X' || *p == 'z' || *p == 'Z') &&
            (p + 1 >= end_ || !is(p[1], kIdentChar))) {
            p_ = p + 1;
            return;
        }
        fail(p_, "expected a base letter (b, o, d or h) after the quote of the number");
    }
    ++p;
    while (p < end_ && (*p == ' ' || *p == '\t')) ++p;
    const char* digits = p;
    while (p < end_ && is(*p, kBasedDigit)) ++p;
    if (p == digits) fail(digits, "expected digits after the base of the number");
    p_ = p;
}

bool Lexer::read_directive_name(std::string_view& name)
{
    const char* p = p_;
    while (p < end_ && (*p == ' ' || *p == '\t')) ++p;
    const char* s = p;
    if (p < end_ && *p == '\\') { // an escaped macro name
        ++p;
        while (p < end_ && !is(*p, kSpace)) ++p;
    } else {
        while (p < end_ && is(*p, kIdentChar)) ++p;
    }
    name = std::string_view(s, static_cast<std::size_t>(p - s));
    p_ = p;
    return !name.empty();
}

void Lexer::skip_line(bool continuation)
{
    const char* p = p_;
    while (p < end_) {
        if (*p == '\n') {
            const bool escaped = (p > p_ && p[-1] == '\\') ||
                                 (p - 1 > p_ && p[-1] == '\r' && p[-2] == '\\');
            if (!continuation || !escaped) break;
        }
        ++p;
    }
    p_ = p;
}

void Lexer::directive(const char* start)
{
    const char* p = start + 1;
    while (p < end_ && is(*p, kIdentChar)) ++p;
    const std::string_view name(start + 1, static_cast<std::size_t>(p - start - 1));
    if (name.empty()) fail(start, "expected a compiler directive name after '`'");
    p_ = p;

    if (name == "define") {
        std::string_view macro;
        if (!read_directive_name(macro)) fail(p_, "expected a macro name after `define");
        if (std::find(defines_.begin(), defines_.end(), macro) == defines_.end())
            defines_.emplace_back(macro);
        skip_line(true);
    } else if (name == "undef") {
        std::string_view macro;
        if (!read_directive_name(macro)) fail(p_, "expected a macro name after `undef");
        auto it = std::find(defines_.begin(), defines_.end(), macro);
        if (it != defines_.end()) defines_.erase(it);
        skip_line(false);
    } else if (name == "ifdef" || name == "ifndef") {
        std::string_view macro;
        if (!read_directive_name(macro))
            fail(p_, "expected a macro name after `" + std::string(name));
        const bool defined = std::find(defines_.begin(), defines_.end(), macro) != defines_.end();
        if (defined == (name == "ifdef")) {
            conditionals_.push_back({start, true});
        } else {
            skip_inactive(start, false);
        }
    } else if (name == "else" || name == "elsif") {
        if (conditionals_.empty()) fail(start, "`" + std::string(name) + " without `ifdef");
        // The active branch ends here: skip everything up to the matching `endif.
        const char* where = conditionals_.back().where;
        conditionals_.pop_back();
        skip_inactive(where, true); // an earlier branch was taken, so no later one is
    } else if (name == "endif") {
        if (conditionals_.empty()) fail(start, "`endif without `ifdef");
        conditionals_.pop_back();
    } else if (name == "include") {
        if (!warned_include_)
            warnings_.add(offset(start), "`include is not followed: the included file is not read");
        warned_include_ = true;
        skip_line(false);
    } else if (is_harmless_directive(name)) {
        skip_line(false);
    } else if (std::find(defines_.begin(), defines_.end(), name) != defines_.end()) {
        fail(start,
             "macro `" + std::string(name) + " is used here; macro expansion is not supported");
    } else {
        if (!warnings_.full())
            warnings_.add(offset(start), "unknown compiler directive `" + std::string(name) +
                                             "; the rest of its line is skipped");
        else
            warnings_.add(offset(start), {});
        skip_line(false);
    }
}

void Lexer::skip_inactive(const char* start, bool taken)
{
    // Skips a branch of the conditional opened at `start` up to the matching `else, `elsif or
    // `endif; comments are skipped so that a directive in a comment does not count. When an
    // earlier branch was `taken`, only `endif ends the skipping.
    int depth = 0;
    const char* p = p_;
    while (p < end_) {
        const char c = *p;
        if (c == '/' && p + 1 < end_ && p[1] == '/') {
            while (p < end_ && *p != '\n') ++p;
            continue;
        }
        if (c == '/' && p + 1 < end_ && p[1] == '*') {
            p_ = p;
            skip_block_comment(p);
            p = p_;
            continue;
        }
        if (c != '`') {
            ++p;
            continue;
        }
        const char* d = p + 1;
        while (d < end_ && is(*d, kIdentChar)) ++d;
        const std::string_view name(p + 1, static_cast<std::size_t>(d - p - 1));
        p_ = d;
        if (name == "ifdef" || name == "ifndef") {
            ++depth;
        } else if (name == "endif") {
            if (depth == 0) return;
            --depth;
        } else if (depth == 0 && !taken && name == "else") {
            conditionals_.push_back({start, true});
            return;
        } else if (depth == 0 && !taken && name == "elsif") {
            std::string_view macro;
            if (!read_directive_name(macro)) fail(p_, "expected a macro name after `elsif");
            if (std::find(defines_.begin(), defines_.end(), macro) != defines_.end()) {
                conditionals_.push_back({start, true});
                return;
            }
        }
        p = p_;
    }
    fail(start, "expected `endif to close this conditional before the end of the file");
}

} // namespace gsr::netlist::verilog
