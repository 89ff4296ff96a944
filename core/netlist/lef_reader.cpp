// LEF: the MACROs of a library with their SIZE and the DIRECTION of each PIN. Technology
// blocks (LAYER, VIA, VIARULE, SITE, NONDEFAULTRULE, ...) are skipped to their END name and
// only counted; OBS and PORT geometry is skipped.
#include "netlist/lefdef_lexer.hpp"
#include "netlist/readers.hpp"

#include <string>
#include <unordered_map>

namespace gsr::netlist {

namespace {

bool is_keyword_like(std::string_view s)
{
    if (s.empty()) return false;
    const char c = s[0];
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

class LefParser {
public:
    explicit LefParser(const SourceText& src) : lex_(src, "LEF") {}

    Library parse()
    {
        lib_.source = lex_.source().name();
        lib_.format = "lef";
        for (;;) {
            LefDefToken t = lex_.next();
            if (t.end) break;
            if (t.is("END")) {
                const LefDefToken n = lex_.next();
                if (n.is("LIBRARY")) break; // anything after END LIBRARY is not LEF
                lex_.fail_expected(n, "'LIBRARY' after a top-level END");
            }
            statement(t);
        }
        lib_.counts.cells = static_cast<std::int64_t>(lib_.cells.size());
        if (duplicate_macros_) lib_.counts.extra["duplicate_macros"] = duplicate_macros_;
        lib_.counts.extra["layers"] = layers_;
        lib_.counts.extra["vias"] = vias_;
        lib_.counts.extra["viarules"] = viarules_;
        lib_.counts.extra["sites"] = sites_;
        lib_.index();
        return std::move(lib_);
    }

private:
    void statement(const LefDefToken& t)
    {
        const std::string_view kw = t.text;
        if (t.quoted || !is_keyword_like(kw)) lex_.fail_expected(t, "a LEF statement keyword");
        if (kw == "MACRO") return macro(t);
        if (kw == "LAYER") return named_block(t, layers_);
        if (kw == "VIA") return named_block(t, vias_);
        if (kw == "VIARULE") return named_block(t, viarules_);
        if (kw == "SITE") return named_block(t, sites_);
        if (kw == "NONDEFAULTRULE" || kw == "ARRAY") return named_block(t, others_);
        if (kw == "UNITS" || kw == "PROPERTYDEFINITIONS" || kw == "SPACING" || kw == "IRDROP" ||
            kw == "NOISETABLE" || kw == "CORRECTIONTABLE")
            return lex_.skip_block(kw, "the " + std::string(kw) + " block", t.offset);
        if (kw == "BEGINEXT") return lex_.skip_extension(t);
        if (!known_statement(kw) && unknown_warned_++ < 20)
            lex_.warn(lib_.diagnostics, t.offset,
                      "unknown LEF statement " + std::string(kw) + " skipped");
        lex_.skip_statement("the " + std::string(kw) + " statement", t.offset);
    }

    static bool known_statement(std::string_view kw)
    {
        for (std::string_view k :
             {"VERSION", "BUSBITCHARS", "DIVIDERCHAR", "NAMESCASESENSITIVE", "MANUFACTURINGGRID",
              "USEMINSPACING", "CLEARANCEMEASURE", "NOWIREEXTENSIONATPIN", "FIXEDMASK",
              "MAXVIASTACK", "ANTENNAINPUTGATEAREA", "ANTENNAINOUTDIFFAREA",
              "ANTENNAOUTPUTDIFFAREA", "INPUTPINANTENNASIZE", "OUTPUTPINANTENNASIZE",
              "INOUTPINANTENNASIZE", "DIELECTRIC", "MINFEATURE", "PROPERTY"})
            if (kw == k) return true;
        return false;
    }

    /// LAYER, VIA, SITE ...: `KW name ... END name`.
    void named_block(const LefDefToken& kw, std::int64_t& counter)
    {
        const LefDefToken name = lex_.expect_word("a name after " + std::string(kw.text));
        ++counter;
        // No technology block contains a MACRO: meeting one means the END was forgotten.
        lex_.skip_block(name.text, std::string(kw.text) + " " + std::string(name.text), kw.offset,
                        "MACRO");
    }

    void macro(const LefDefToken& kw)
    {
        const LefDefToken name = lex_.expect_word("a macro name after MACRO");
        LibraryCell cell;
        cell.name = std::string(name.text);
        const std::string what = "MACRO " + cell.name;
        for (;;) {
            const LefDefToken t = lex_.next();
            if (t.end)
                lex_.fail(t.offset, "unexpected end of file: expected 'END " + cell.name +
                                        "' to close " + what + " (line " +
                                        std::to_string(lex_.line_of(kw.offset)) + ")");
            if (t.is("END")) {
                const LefDefToken n = lex_.next();
                if (n.end || n.quoted || n.text != name.text)
                    lex_.fail_expected(n, "'" + cell.name + "' after END to close " + what);
                break;
            }
            if (t.quoted || !is_keyword_like(t.text))
                lex_.fail_expected(t, "a statement inside " + what);
            if (t.is("PIN")) {
                pin(cell, t);
            } else if (t.is("OBS")) {
                skip_to_plain_end("OBS", t.offset, what);
            } else if (t.is("DENSITY")) {
                skip_to_plain_end("DENSITY", t.offset, what);
            } else if (t.is("SIZE")) {
                cell.width = lex_.expect_number("a width after SIZE in " + what);
                lex_.expect_keyword("BY", "between the width and height of SIZE in " + what);
                cell.height = lex_.expect_number("a height after 'SIZE w BY' in " + what);
                // LEF has no area statement; the outline is the cell's area in square microns.
                cell.area = cell.width * cell.height;
                expect_semicolon("SIZE in " + what);
            } else {
                lex_.skip_statement("the " + std::string(t.text) + " statement in " + what,
                                    t.offset);
            }
        }
        // Library::index keeps the first of two cells of one name: the second is left out
        // here, with a word, as the Liberty reader does.
        const auto [first, added] = macro_at_.emplace(cell.name, kw.offset);
        if (!added) {
            ++duplicate_macros_;
            if (dup_warned_++ < 20)
                lex_.warn(lib_.diagnostics, kw.offset,
                          what + " is defined twice (first on line " +
                              std::to_string(lex_.line_of(first->second)) +
                              "); the first is kept");
            return;
        }
        lib_.cells.push_back(std::move(cell));
    }

    void pin(LibraryCell& cell, const LefDefToken& kw)
    {
        const LefDefToken name = lex_.expect_word("a pin name after PIN in MACRO " + cell.name);
        LibraryPin p;
        p.name = std::string(name.text);
        const std::string what = "PIN " + p.name + " of MACRO " + cell.name;
        bool power = false;
        for (;;) {
            const LefDefToken t = lex_.next();
            if (t.end)
                lex_.fail(t.offset, "unexpected end of file: expected 'END " + p.name +
                                        "' to close " + what + " (line " +
                                        std::to_string(lex_.line_of(kw.offset)) + ")");
            if (t.is("END")) {
                const LefDefToken n = lex_.next();
                if (n.end || n.quoted || n.text != name.text)
                    lex_.fail_expected(n, "'" + p.name + "' after END to close " + what);
                break;
            }
            if (t.quoted || !is_keyword_like(t.text))
                lex_.fail_expected(t, "a statement inside " + what);
            if (t.is("DIRECTION")) {
                const LefDefToken d =
                    lex_.expect_word("INPUT, OUTPUT, INOUT or FEEDTHRU after DIRECTION");
                if (d.is("INPUT"))
                    p.dir = Direction::Input;
                else if (d.is("OUTPUT"))
                    p.dir = Direction::Output;
                else if (d.is("INOUT") || d.is("FEEDTHRU"))
                    p.dir = Direction::InOut;
                else
                    lex_.fail_expected(d, "INPUT, OUTPUT, INOUT or FEEDTHRU after DIRECTION in " +
                                              what);
                lex_.skip_statement("DIRECTION in " + what, t.offset); // OUTPUT TRISTATE ;
            } else if (t.is("USE")) {
                const LefDefToken u = lex_.expect_word("a use after USE in " + what);
                power = u.is("POWER") || u.is("GROUND");
                lex_.skip_statement("USE in " + what, t.offset);
            } else if (t.is("PORT")) {
                skip_to_plain_end("PORT", t.offset, what);
            } else {
                lex_.skip_statement("the " + std::string(t.text) + " statement in " + what,
                                    t.offset);
            }
        }
        // Supply pins often omit DIRECTION; they are bidirectional rails.
        if (p.dir == Direction::Unknown && power) p.dir = Direction::InOut;
        cell.pins.push_back(std::move(p));
    }

    /// PORT, OBS, DENSITY: statements closed by a bare END.
    void skip_to_plain_end(std::string_view block, std::size_t start, const std::string& where)
    {
        for (;;) {
            const LefDefToken& t = lex_.peek();
            if (t.end)
                lex_.fail(t.offset, "unexpected end of file: expected END to close " +
                                        std::string(block) + " in " + where + " (line " +
                                        std::to_string(lex_.line_of(start)) + ")");
            if (t.is("END")) {
                lex_.next();
                return;
            }
            const LefDefToken s = lex_.next();
            lex_.skip_statement(
                "the " + std::string(s.text) + " statement in " + std::string(block), s.offset);
        }
    }

    void expect_semicolon(const std::string& what)
    {
        const LefDefToken& t = lex_.peek();
        if (!t.is(";"))
            lex_.fail(lex_.last_end(),
                      "expected ';' after " + what + ", found " + LefDefLexer::quote(t));
        lex_.next();
    }

    LefDefLexer lex_;
    Library lib_;
    std::int64_t layers_ = 0, vias_ = 0, viarules_ = 0, sites_ = 0, others_ = 0;
    std::int64_t duplicate_macros_ = 0;
    std::unordered_map<std::string, std::size_t> macro_at_; ///< MACRO name -> its offset
    int unknown_warned_ = 0, dup_warned_ = 0;
};

} // namespace

Library read_lef(const SourceText& src) { return LefParser(src).parse(); }

} // namespace gsr::netlist
