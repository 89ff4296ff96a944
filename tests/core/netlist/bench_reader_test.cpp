#include "netlist/format.hpp"
#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"

#include "test_files.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <string>

using gsr::SourceText;
using namespace gsr::netlist;

namespace {
Circuit bench(const std::string& text) { return read_bench(SourceText::from_string("t.bench", text)); }
}

TEST(BenchReader, CountsFollowTheManifestDefinitions)
{
    const Circuit c = bench("# comment\nINPUT(1)\nINPUT(2)\nOUTPUT(5)\n3 = DFF(5)\n4 = NAND(1, 2, 3)\n5 = BUFF(4)\n");
    EXPECT_EQ(*c.counts.inputs, 2);
    EXPECT_EQ(*c.counts.outputs, 1);
    EXPECT_EQ(*c.counts.flip_flops, 1);
    EXPECT_EQ(*c.counts.cells, 2); // BUFF counts as a gate, DFF does not
    EXPECT_EQ(*c.counts.nets, 5);
    EXPECT_EQ(c.counts.extra.at("fanin_edges"), 5);
}

TEST(BenchReader, KeywordsFoldAsAsciiInATurkishLocale)
{
    // gsr-studio takes its user's LC_CTYPE (QApplication calls setlocale(LC_ALL, "")), and in
    // tr_TR toupper('i') is 'i': "input(1)" was no INPUT there, while gsr read it. The
    // locale is made here with localedef (installer/bootstrap.sh installs `locales`).
    const std::filesystem::path dir = gsr::test::scratch_file("locales");
    std::filesystem::create_directories(dir);
    const std::string make = "localedef -i tr_TR -f UTF-8 '" + (dir / "tr_TR.UTF-8").string() +
                             "' > /dev/null 2>&1";
    ASSERT_EQ(std::system(make.c_str()), 0) << "localedef could not make tr_TR.UTF-8: " << make;
    struct BackToC { // whatever happens below, the other tests run in the C locale
        ~BackToC()
        {
            std::setlocale(LC_CTYPE, "C");
            ::unsetenv("LOCPATH");
        }
    } back_to_c;
    ASSERT_EQ(::setenv("LOCPATH", dir.c_str(), 1), 0);
    ASSERT_NE(std::setlocale(LC_CTYPE, "tr_TR.UTF-8"), nullptr);
    volatile char i = 'i'; // not folded by the compiler, which assumes the C locale
    EXPECT_NE(std::toupper(i), 'I'); // the locale folds as Turkish does
    const Circuit c = bench("input(1)\ninput(2)\noutput(3)\n3 = nand(1, 2)\n");
    EXPECT_EQ(*c.counts.inputs, 2);
    EXPECT_EQ(*c.counts.outputs, 1);
    EXPECT_EQ(c.cell_type(c.cells.at(0)), "NAND");
    EXPECT_EQ(detect_format("t.txt", "input(1)\noutput(2)\n2 = not(1)\n"), Format::Bench);
}

TEST(BenchReader, AByteOrderMarkIsSkipped)
{
    // Saved by an editor on Windows: "expected INPUT, OUTPUT or an assignment" at 1:1.
    const Circuit c = bench("\xEF\xBB\xBFINPUT(a)\nOUTPUT(y)\ny = NOT(a)\n");
    EXPECT_EQ(*c.counts.inputs, 1);
    EXPECT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(detect_format("t.bench", "\xEF\xBB\xBFINPUT(a)\n"), Format::Bench);
}

TEST(BenchReader, BuffIsABuffer)
{
    const Circuit c = bench("INPUT(a)\nOUTPUT(b)\nb = BUFF(a)\n");
    EXPECT_EQ(c.cell_type(c.cells[0]), "BUF");
}

TEST(BenchReader, UnboundedFanIn)
{
    std::string t = "OUTPUT(y)\n";
    std::string args;
    for (int i = 0; i < 300; ++i) {
        t += "INPUT(x" + std::to_string(i) + ")\n";
        args += (i ? ", x" : "x") + std::to_string(i);
    }
    const Circuit c = bench(t + "y = AND(" + args + ")\n");
    EXPECT_EQ(c.cells[0].pin_count, 301u);
}

TEST(BenchReader, AbcMuxAndLutLines)
{
    const Circuit c = bench("INPUT(s)\nINPUT(a)\nINPUT(b)\nOUTPUT(y)\nOUTPUT(z)\ny = MUX(s, a, b)\nz = LUT 0x8 ( a, b )\n");
    ASSERT_EQ(c.cells.size(), 2u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "MUX");
    EXPECT_EQ(c.cells[0].pin_count, 4u);
    EXPECT_EQ(c.cell_type(c.cells[1]), "LUT");
    EXPECT_EQ(c.cells[1].pin_count, 3u);
}

TEST(BenchReader, UndrivenNetIsAWarningAndNotCounted)
{
    const Circuit c = bench("INPUT(a)\nOUTPUT(y)\ny = AND(a, ghost)\n");
    EXPECT_EQ(*c.counts.nets, 2);
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_NE(c.diagnostics.warnings()[0].message.find("ghost"), std::string::npos);
}

TEST(BenchReader, ErrorsNameLineAndColumn)
{
    try {
        bench("INPUT(a)\nOUTPUT(y)\ny = AND(a,\n");
        FAIL() << "no error";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 3);
        EXPECT_EQ(e.where().column, 11);
        EXPECT_EQ(std::string(e.what()).rfind("t.bench:3:11: error: expected", 0), 0u) << e.what();
    }
}

TEST(BenchReader, AConstantTakesNoInput)
{
    // `y = CONST0(a)` was read without a word: a constant with a fan-in, at level 1.
    const Circuit c = bench("INPUT(a)\nOUTPUT(y)\nOUTPUT(z)\ny = CONST0()\nz = AND(a, y)\n");
    EXPECT_EQ(c.cells.size(), 2u);
    for (const std::string type : {"CONST0", "CONST1", "VDD", "GND"}) {
        try {
            bench("INPUT(a)\nOUTPUT(y)\ny = " + type + "(a)\n");
            FAIL() << type << " with an input was read";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().line, 3);
            EXPECT_NE(e.message().find("expected no input for " + type + ", found 1"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(BenchReader, ControlBytesAreRefusedWhereverTheyAre)
{
    // Past the first 8 KB the text check does not look: `y = NOT(a\0)` made a net "a\0" that
    // nothing drives, and a warning that printed the NUL.
    std::string text = "INPUT(a)\nOUTPUT(y)\n";
    for (int i = 0; i < 1000; ++i) text += "# padding line " + std::to_string(i) + "\n";
    for (const char bad : {'\0', '\x01', '\x1b', '\x7f'}) {
        try {
            (void)bench(text + "y = NOT(a" + std::string(1, bad) + ")\n");
            FAIL() << "byte " << int(bad) << " accepted";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().line, 1003);
            EXPECT_EQ(e.where().column, 10);
            EXPECT_NE(e.message().find("unexpected byte"), std::string::npos) << e.what();
        }
    }
    // In a comment too; tab, CR, form feed and vertical tab are white space.
    EXPECT_THROW(bench(text + "# a \x02 comment\ny = NOT(a)\n"), gsr::Error);
    EXPECT_EQ(bench(text + "y\t=\fNOT(\va)\r\n").cells.size(), 1u);
}

TEST(BenchReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    const std::string full = "# c17-like\nINPUT(1)\nINPUT(2)\nINPUT(3)\nOUTPUT(22)\n10 = NAND(1, 3)\n11 = NAND(3, 2)\n22 = NAND(10, 11)\n";
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.bench", full, read_bench);
}

TEST(BenchReader, MalformedCorpusFailsWhereExpected)
{
    gsr::netlist::testdata::expect_malformed_corpus_fails_where_expected("bench", read_bench);
}

TEST(BenchReader, AFileReadByItsContentAloneSaysSo)
{
    // Notes that mention "q = DFF(d)" read as a bench netlist, and "expected '='" looked like
    // a broken one: the error says which format the content suggested. A .bench name says
    // nothing more.
    const std::string notes = "# Notes\nThe latch: q = DFF(d), see below.\n";
    try {
        (void)load_netlist(SourceText::from_string("notes.md", notes), {});
        FAIL() << "notes read as a netlist";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().file, "notes.md");
        EXPECT_EQ(e.where().line, 2);
        EXPECT_NE(e.message().find(
                      " (read as bench from its content: the file's name gives no format)"),
                  std::string::npos)
            << e.what();
    }
    try {
        (void)load_netlist(SourceText::from_string("notes.bench", notes), {});
        FAIL() << "notes read as a netlist";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.message().find("from its content"), std::string::npos) << e.what();
    }
}

TEST(BenchReader, ANameOverTheLimitNamesTheFile)
{
    // The name pool's limit ("name longer than 16 MiB") came with no file at all.
    const std::string name(std::size_t(17) << 20, 'n');
    const SourceText src = SourceText::from_string(
        "huge_name.bench", "INPUT(a)\nOUTPUT(" + name + ")\n" + name + " = NOT(a)\n");
    try {
        (void)load_netlist(src, {});
        FAIL() << "a 17 MiB name was read";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().file, "huge_name.bench");
        EXPECT_NE(std::string(e.what()).find("name longer than 16 MiB"), std::string::npos)
            << e.what();
    }
}
