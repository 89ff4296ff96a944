#pragma once
// The token stream shared by the LEF and DEF readers. Both formats are whitespace-separated
// words, "quoted strings" and '#' comments; statements end at a ';' that stands alone. Tokens
// are views into the source text, so lexing allocates nothing.
#include "util/source_text.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gsr::netlist {

struct LefDefToken {
    std::string_view text;  ///< without the quotes of a quoted string; empty at the end
    std::size_t offset = 0; ///< of the first byte (the opening quote of a string)
    bool quoted = false;
    bool end = false; ///< the end of the file

    /// An unquoted word equal to `kw` (keywords are never quoted).
    bool is(std::string_view kw) const { return !quoted && !end && text == kw; }
    std::size_t end_offset() const { return offset + text.size() + (quoted ? 2 : 0); }
};

class LefDefLexer {
public:
    /// `format` ("LEF", "DEF") is used in messages. Fails on binary data and HTML pages.
    LefDefLexer(const SourceText& src, std::string_view format);

    LefDefToken next();
    const LefDefToken& peek();
    /// End offset of the token returned last: where a missing ';' belongs.
    std::size_t last_end() const { return last_end_; }
    /// Bytes of the file not read yet.
    std::size_t bytes_left() const { return pos_ < text_.size() ? text_.size() - pos_ : 0; }

    [[noreturn]] void fail(std::size_t offset, const std::string& message) const
    {
        src_.fail(offset, message);
    }
    /// Fails at `t`, saying what was expected and what was found instead.
    [[noreturn]] void fail_expected(const LefDefToken& t, const std::string& expected) const;
    void warn(Diagnostics& d, std::size_t offset, std::string message);
    int line_of(std::size_t offset) { return locator_.line(offset); }

    /// The next token, which must be a word or string: `what` names it in the error.
    LefDefToken expect_word(const std::string& what);
    /// The next token, which must be the keyword `kw`.
    LefDefToken expect_keyword(std::string_view kw, const std::string& context);
    std::int64_t expect_int(const std::string& what);
    double expect_number(const std::string& what);

    /// Consumes the rest of a statement up to and including its ';'. An END keyword before the
    /// ';' means the ';' was forgotten: that fails at the end of the statement's last token.
    /// `what` names the statement ("the ROW statement"); `start` is its first byte.
    void skip_statement(const std::string& what, std::size_t start);
    /// Like skip_statement, for a '-' entry of a DEF section or LEF list: a '-' or END before
    /// the ';' fails the same way.
    void skip_entry(const std::string& what, std::size_t start);
    /// Like skip_entry, for one '+' option of a DEF entry: stops after the next '+' (returns
    /// true: another option follows) or the entry's ';' (returns false).
    bool skip_option(const std::string& what, std::size_t start);
    /// Consumes tokens up to and including END `name` (an unnamed block passes its keyword).
    /// Meeting the keyword `stop` first (one that cannot be inside the block) fails there.
    void skip_block(std::string_view name, const std::string& what, std::size_t start,
                    std::string_view stop = {});
    /// Consumes a `BEGINEXT "tag" ... ENDEXT` extension, its BEGINEXT read (`begin`): both
    /// formats close it with a bare ENDEXT.
    void skip_extension(const LefDefToken& begin);

    static std::string quote(const LefDefToken& t);
    const SourceText& source() const { return src_; }

private:
    LefDefToken scan();
    /// True when it stopped at a '+' (only with `at_plus`), false at the ';'.
    bool skip_to_semicolon(const std::string& what, std::size_t start, bool entry,
                           bool at_plus = false);

    const SourceText& src_;
    std::string_view text_;
    std::string format_;
    std::size_t pos_ = 0;
    std::size_t last_end_ = 0;
    LefDefToken peeked_;
    bool has_peeked_ = false;
    OffsetLocator locator_;
};

} // namespace gsr::netlist
