#pragma once
// Shared by the reader tests: bad input never crashes a reader, and its error says where.
#include "util/diagnostics.hpp"
#include "util/source_text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <string>

namespace gsr::netlist::testdata {

/// Reads every truncation of `text`, then `text` with each byte in turn replaced by characters
/// that change the syntax of one format or another. Each must read, or throw a gsr::Error that
/// names `file` and a line of the damaged text (the line after a final line break counts:
/// "unexpected end of file" is reported there).
template <class Read>
void expect_damage_reads_or_names_its_line(const std::string& file, const std::string& text,
                                           Read read)
{
    std::size_t refused = 0;
    auto check = [&](const std::string& damaged, const std::string& what) {
        const int lines = 1 + static_cast<int>(std::count(damaged.begin(), damaged.end(), '\n'));
        try {
            (void)read(SourceText::from_string(file, damaged));
        } catch (const gsr::Error& e) {
            ++refused;
            if (e.where().file != file || e.where().line < 1 || e.where().line > lines)
                ADD_FAILURE() << what << ": the error does not name a line of " << file << ": "
                              << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": not a gsr::Error: " << e.what();
        }
    };
    for (std::size_t n = 0; n <= text.size(); ++n)
        check(text.substr(0, n), "cut after " + std::to_string(n) + " bytes");
    static constexpr char kReplacements[] = {'(', ')', '{', '}', '[', ']',  ';', ',',
                                             ':', '=', '\\', '`', '\'', '"', '*', '/',
                                             '#', '-', '.', '9', ' ', '\n', '\0'};
    for (std::size_t i = 0; i < text.size(); ++i)
        for (const char r : kReplacements) {
            if (text[i] == r) continue;
            std::string damaged = text;
            damaged[i] = r;
            check(damaged, "byte " + std::to_string(i) + " made " + std::to_string(int(r)));
        }
    // Most damage breaks the syntax: a reader that refused none would not be reading it.
    EXPECT_GT(refused, text.size()) << file << ": too little of the damage was refused";
}

} // namespace gsr::netlist::testdata
