#pragma once
// Tokens of the structural Verilog subset read by `read_verilog`. The lexer scans the source text
// with a pointer, never copies a token, and handles the parts of the language a netlist parser
// should not see: comments, attributes `(* ... *)` and compiler directives (`define, `ifdef...).
//
// Index: Token / TokenKind / sym() · DeferredWarnings · Lexer
#include "util/source_text.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::netlist::verilog {

enum class TokenKind : std::uint8_t {
    End,        ///< end of the input
    Identifier, ///< simple identifier or keyword
    Escaped,    ///< \escaped identifier: text is the name without the backslash and the space
    System,     ///< $name
    Number,     ///< 12, 4'b10x1, 'hFF, 8 'd 255, 1.5 (the whole literal, spaces included)
    String,     ///< "..." (text without the quotes)
    Symbol,     ///< operator or punctuation, packed in Token::op
};

/// Packs an operator of up to 3 characters into one integer, for switch statements.
constexpr std::uint32_t sym(const char* s)
{
    std::uint32_t v = 0;
    for (int i = 0; i < 3 && s[i]; ++i)
        v |= static_cast<std::uint32_t>(static_cast<unsigned char>(s[i])) << (8 * i);
    return v;
}

struct Token {
    TokenKind kind = TokenKind::End;
    std::uint32_t op = 0; ///< Symbol: sym("...") of the operator
    const char* begin = nullptr;
    const char* end = nullptr;

    std::string_view text() const { return {begin, static_cast<std::size_t>(end - begin)}; }
    bool is(char c) const
    {
        return kind == TokenKind::Symbol && op == static_cast<unsigned char>(c);
    }
    bool is_op(std::uint32_t code) const { return kind == TokenKind::Symbol && op == code; }
    bool is_name() const { return kind == TokenKind::Identifier || kind == TokenKind::Escaped; }
    /// A keyword is a simple identifier with that spelling (an escaped `\module ` is a name).
    bool is_word(std::string_view w) const { return kind == TokenKind::Identifier && text() == w; }
};

/// Warnings keyed by byte offset. Line numbers are computed once, in one pass over the text, at
/// the end: SourceText::location is linear in the offset and would make many warnings quadratic.
class DeferredWarnings {
public:
    static constexpr std::size_t kNoOffset = static_cast<std::size_t>(-1);

    bool full() const { return stored_.size() >= kCap; }
    void add(std::size_t offset, std::string message);
    /// Resolves the offsets against `src` and hands everything to `out`.
    void flush(const SourceText& src, Diagnostics& out);

private:
    static constexpr std::size_t kCap = Diagnostics::kMaxStored;
    struct Pending {
        std::size_t offset;
        std::string message;
    };
    std::vector<Pending> stored_;
    std::size_t overflow_ = 0;
};

class Lexer {
public:
    /// Lexes `src` from byte `start` on (a later start re-reads a statement for a message).
    Lexer(const SourceText& src, DeferredWarnings& warnings, std::size_t start = 0);

    /// Stores the next token in `out`; comments, attributes and directives are consumed on the
    /// way. Filling the caller's token in place (rather than returning a copy) keeps the hot loop
    /// free of store-to-load stalls.
    void next(Token& out)
    {
        if (has_peek_) {
            has_peek_ = false;
            out = peek_;
            return;
        }
        lex(out);
    }
    /// The token after the one `next` returned last, without consuming it.
    const Token& peek()
    {
        if (!has_peek_) {
            lex(peek_);
            has_peek_ = true;
        }
        return peek_;
    }

    std::size_t offset(const char* p) const { return static_cast<std::size_t>(p - base_); }
    std::size_t offset(const Token& t) const { return offset(t.begin); }
    const SourceText& source() const { return src_; }
    [[noreturn]] void fail(const char* at, const std::string& message) const;

private:
    void lex(Token& t);
    void skip_block_comment(const char* start);
    void skip_attribute(const char* start);
    void lex_number(Token& t);
    void lex_based_digits(const char* literal_start);
    void directive(const char* start);
    void skip_line(bool continuation);
    void skip_inactive(const char* start, bool taken);
    bool read_directive_name(std::string_view& name);

    const SourceText& src_;
    DeferredWarnings& warnings_;
    const char* base_;
    const char* p_;
    const char* end_;
    const char* last_end_; ///< end of the last non-blank text: where "end of file" is reported

    Token peek_;
    bool has_peek_ = false;

    struct Conditional {
        const char* where;
        bool taken; ///< some branch of this `ifdef was active
    };
    std::vector<Conditional> conditionals_; ///< open `ifdef/`ifndef, all in active branches
    std::vector<std::string> defines_;      ///< names given by `define (values are not expanded)
    bool warned_include_ = false;
};

/// Describes a token for "expected X, found Y" messages.
std::string describe(const Token& t);

} // namespace gsr::netlist::verilog
