// The PDF's text layout: lines and table cells of long unbroken text (a settings path, a JSON
// object written without spaces, a long error) are cut between characters to fit, lose nothing,
// and take time in proportion to their length (each cut was found one character at a time,
// re-measuring the whole start: a 16,000-character paragraph took about ten minutes).
#include "report/document.hpp"
#include "report/pdf_report.hpp"
#include "util/atomic_file.hpp"

#include "core/report/report_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace report = gsr::report;

namespace {

/// 16,000 characters without a space, of one, two and three bytes ("0é1漢2é..."), so that a
/// cut inside a character or a lost or repeated piece shows.
std::string long_unbroken_text()
{
    std::string s;
    for (std::size_t chars = 0; chars < 16000; ++chars)
        s += chars % 3 == 0 ? std::string(1, char('0' + chars / 3 % 10))
             : chars % 3 == 1 ? std::string("é")
                              : std::string("漢");
    return s;
}

/// The first character of `s` (its UTF-8 bytes).
std::string first_character(const std::string& s)
{
    std::size_t n = 1;
    while (n < s.size() && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) ++n;
    return s.substr(0, n);
}

double seconds_since(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

TEST(PdfLayout, ALongUnbrokenParagraphIsCutIntoFullLinesThatFitAndLoseNothing)
{
    if (!report::pdf_available()) GTEST_SKIP() << "this build has no cairo";
    const std::string text = long_unbroken_text();
    const double size = 9.5, width = 511;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> lines = report::pdf_wrap(text, size, width);
    EXPECT_LT(seconds_since(start), 5.0); // 0.04 s; minutes before
    ASSERT_GT(lines.size(), 50u);
    std::string joined;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        EXPECT_LE(report::pdf_text_width(lines[i], size), width) << "line " << i;
        EXPECT_TRUE(gsr::test::valid_utf8(lines[i])) << "line " << i;
        // Each line but the last is as long as fits: one more character is too wide.
        if (i + 1 < lines.size())
            EXPECT_GT(report::pdf_text_width(lines[i] + first_character(lines[i + 1]), size),
                      width)
                << "line " << i;
        joined += lines[i];
    }
    EXPECT_EQ(joined, text);
}

TEST(PdfLayout, NormalTextIsWrappedAtSpacesAsBefore)
{
    if (!report::pdf_available()) GTEST_SKIP() << "this build has no cairo";
    EXPECT_EQ(report::pdf_wrap("one two\nthree", 9.5, 511),
              (std::vector<std::string>{"one two", "three"}));
    // "aaaa bbbb cccc" at a width that holds two words a line.
    const double two_words = report::pdf_text_width("aaaa bbbb", 10) + 0.5;
    EXPECT_EQ(report::pdf_wrap("aaaa bbbb cccc", 10, two_words),
              (std::vector<std::string>{"aaaa bbbb", "cccc"}));
    // A word wider than the line starts a line of its own and is cut to full lines.
    const double w = report::pdf_text_width("xxxxx", 10);
    EXPECT_EQ(report::pdf_wrap("ab xxxxxxxxxxxx", 10, w),
              (std::vector<std::string>{"ab", "xxxxx", "xxxxx", "xx"}));
    // A single character wider than the line is kept whole, not dropped.
    EXPECT_EQ(report::pdf_wrap("漢漢", 10, 1), (std::vector<std::string>{"漢", "漢"}));
    EXPECT_EQ(report::pdf_wrap("", 10, 100), (std::vector<std::string>{""}));
}

TEST(PdfLayout, ALongUnbrokenCellKeepsTheLongestStartThatFitsWithAnEllipsis)
{
    if (!report::pdf_available()) GTEST_SKIP() << "this build has no cairo";
    const std::string text = long_unbroken_text();
    const double size = 6, width = 200;
    const auto start = std::chrono::steady_clock::now();
    const std::string cell = report::pdf_fit(text, size, width);
    EXPECT_LT(seconds_since(start), 1.0); // 1 ms; 4 s before
    ASSERT_GT(cell.size(), 3u + 10u);
    ASSERT_EQ(cell.substr(cell.size() - 3), "...");
    const std::string kept = cell.substr(0, cell.size() - 3);
    EXPECT_EQ(text.rfind(kept, 0), 0u); // a start of the text, cut between characters
    EXPECT_TRUE(gsr::test::valid_utf8(kept));
    EXPECT_LE(report::pdf_text_width(cell, size), width);
    EXPECT_GT(report::pdf_text_width(kept + first_character(text.substr(kept.size())) + "...",
                                     size),
              width);
    EXPECT_EQ(report::pdf_fit("short", size, width), "short"); // what fits stays whole
    EXPECT_EQ(report::pdf_fit("abcdef", size, 0), "...");
}

TEST(PdfLayout, ADocumentOfLongUnbrokenTextIsWrittenQuicklyAndWhole)
{
    if (!report::pdf_available()) GTEST_SKIP() << "this build has no cairo";
    const std::string text = long_unbroken_text();
    report::Document doc;
    doc.title = "Long text";
    doc.add(report::Paragraph{text});
    report::KeyValues kv;
    kv.rows = {{"settings", text}};
    doc.add(kv);
    report::Table table;
    table.columns = {"label", "seconds"};
    table.numeric = {false, true};
    table.rows = {{text, "1"}};
    doc.add(table);
    const auto start = std::chrono::steady_clock::now();
    const std::string pdf = report::to_pdf(doc);
    EXPECT_LT(seconds_since(start), 10.0); // 0.1 s; over ten minutes before
    ASSERT_EQ(pdf.rfind("%PDF-", 0), 0u);

    if (!gsr::test::on_path("pdftotext")) GTEST_SKIP() << "pdftotext (poppler-utils) not on PATH";
    gsr::test::ScratchDir dir("gsr_long_text_pdf");
    const auto file = dir.path / "long.pdf";
    gsr::write_file_atomically(file.string(), pdf);
    // The lines of text without the title and the page footers ("Long text - page 2").
    std::string words;
    std::istringstream lines(gsr::test::pdf_text(file));
    for (std::string line; std::getline(lines, line);)
        if (line.find("Long text") == std::string::npos)
            for (char c : line)
                if (c != '\f' && c != ' ') words += c;
    // The paragraph and the value, each whole across its lines and pages.
    const std::size_t first = words.find(text);
    ASSERT_NE(first, std::string::npos) << words.substr(0, 2000);
    EXPECT_NE(words.find(text, first + text.size()), std::string::npos);
}
