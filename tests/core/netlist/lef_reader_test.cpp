#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"
#include "netlist_test_data.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace gsr::netlist {
namespace {

using namespace testdata;

Library lef_of(const std::string& text) { return read_lef(SourceText::from_string("t.lef", text)); }

Error lef_error(const std::string& text)
{
    try {
        lef_of(text);
    } catch (const Error& e) {
        return e;
    }
    return Error("no error");
}

const char* kLef = R"(VERSION 5.8 ;
BUSBITCHARS "[]" ;
UNITS
  DATABASE MICRONS 2000 ;
END UNITS
PROPERTYDEFINITIONS
  LAYER LEF58_TYPE STRING ;
END PROPERTYDEFINITIONS
LAYER metal1
  TYPE ROUTING ;
  PROPERTY LEF58_TYPE "TYPE ROUTING ; END metal2 ;" ;
  SPACINGTABLE PARALLELRUNLENGTH 0.0 WIDTH 0.0 0.1 ;
END metal1
LAYER via1
  TYPE CUT ;
END via1
VIA via1_4 DEFAULT
  LAYER metal1 ;
    RECT -0.1 -0.1 0.1 0.1 ;
END via1_4
NONDEFAULTRULE double
  LAYER metal1
    WIDTH 0.2 ;
  END metal1
END double
SITE core
  SIZE 0.19 BY 1.4 ;
END core
# a comment with MACRO in it
MACRO NAND2_X1
  CLASS CORE ;
  SIZE 0.57 BY 1.4 ;
  PIN A1
    DIRECTION INPUT ;
    PORT
      LAYER metal1 ;
        RECT 0 0 1 1 ;
    END
  END A1
  PIN ZN
    DIRECTION OUTPUT TRISTATE ;
  END ZN
  PIN VDD
    USE POWER ;
  END VDD
  OBS
    LAYER metal1 ;
      RECT 0 0 1 1 ;
  END
END NAND2_X1
END LIBRARY
)";

TEST(LefReader, CountsMacros) { EXPECT_EQ(lef_of(kLef).counts.cells, 1); }

TEST(LefReader, CountsTechnologyBlocks)
{
    const Library lib = lef_of(kLef);
    EXPECT_EQ(lib.counts.extra.at("layers"), 2);
    EXPECT_EQ(lib.counts.extra.at("vias"), 1);
    EXPECT_EQ(lib.counts.extra.at("sites"), 1);
}

TEST(LefReader, ReadsMacroSize)
{
    const Library lib = lef_of(kLef);
    const LibraryCell* c = lib.find("NAND2_X1");
    ASSERT_NE(c, nullptr);
    EXPECT_DOUBLE_EQ(c->width, 0.57);
    EXPECT_DOUBLE_EQ(c->height, 1.4);
}

TEST(LefReader, ReadsPinDirections)
{
    const Library lib = lef_of(kLef);
    EXPECT_EQ(lib.find_pin("NAND2_X1", "A1")->dir, Direction::Input);
    EXPECT_EQ(lib.find_pin("NAND2_X1", "ZN")->dir, Direction::Output);
}

TEST(LefReader, PowerPinWithoutDirectionIsInOut)
{
    EXPECT_EQ(lef_of(kLef).find_pin("NAND2_X1", "VDD")->dir, Direction::InOut);
}

TEST(LefReader, ObsAndPortGeometryAddNoPins)
{
    EXPECT_EQ(lef_of(kLef).find("NAND2_X1")->pins.size(), 3u);
}

TEST(LefReader, EndLibraryIsOptional)
{
    EXPECT_EQ(lef_of("MACRO A\n SIZE 1 BY 2 ;\nEND A\n").counts.cells, 1);
}

TEST(LefReader, TextAfterEndLibraryIsIgnored)
{
    EXPECT_EQ(lef_of("MACRO A\nEND A\nEND LIBRARY\n<garbage>").counts.cells, 1);
}

TEST(LefReader, AcceptsByteOrderMarkAndCrlf)
{
    const Library lib = lef_of("\xEF\xBB\xBFMACRO A\r\n SIZE 1 BY 2 ;\r\nEND A\r\n");
    EXPECT_DOUBLE_EQ(lib.find("A")->height, 2.0);
}

TEST(LefReader, FeedthruIsInOut)
{
    const Library lib = lef_of("MACRO A\n PIN X DIRECTION FEEDTHRU ; END X\nEND A\n");
    EXPECT_EQ(lib.find_pin("A", "X")->dir, Direction::InOut);
}

TEST(LefReader, MissingEndOfMacroFailsAtEof)
{
    const Error e = lef_error("MACRO A\n  SIZE 1 BY 2 ;\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected 'END A' to close MACRO A (line 1)"), std::string::npos);
}

TEST(LefReader, WrongEndNameFails)
{
    const Error e = lef_error("MACRO A\n  PIN X\n  END Y\nEND A\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected 'X' after END"), std::string::npos);
}

TEST(LefReader, MissingSemicolonFailsAtEndOfStatement)
{
    const Error e = lef_error("MACRO A\n  PIN X\n    DIRECTION INPUT\n  END X\nEND A\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 20);
    EXPECT_NE(e.message().find("expected ';'"), std::string::npos);
}

TEST(LefReader, MissingSemicolonAfterSizeFails)
{
    const Error e = lef_error("MACRO A\n  SIZE 1 BY 2\n  PIN X END X\nEND A\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected ';' after SIZE"), std::string::npos);
}

TEST(LefReader, NonNumericSizeFails)
{
    const Error e = lef_error("MACRO A\n  SIZE wide BY 2 ;\nEND A\n");
    EXPECT_NE(e.message().find("expected a width"), std::string::npos);
}

TEST(LefReader, UnterminatedLayerFails)
{
    const Error e = lef_error("LAYER metal1\n  TYPE ROUTING ;\n");
    EXPECT_NE(e.message().find("expected 'END metal1'"), std::string::npos);
}

TEST(LefReader, UnterminatedStringFails)
{
    const Error e = lef_error("LAYER m\n PROPERTY P \"abc ;\nEND m\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("closing '\"'"), std::string::npos);
}

TEST(LefReader, HtmlPageFails)
{
    EXPECT_NE(lef_error("\n<html><body>Not Found</body></html>").message().find("HTML"),
              std::string::npos);
}

TEST(LefReader, BinaryDataFails)
{
    EXPECT_NE(lef_error(std::string("MACRO\0\x01\x02", 8)).message().find("binary"),
              std::string::npos);
}

TEST(LefReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.lef", kLef, read_lef);
}

class LefRealFile : public ::testing::TestWithParam<const char*> {};

TEST_P(LefRealFile, MacroCountMatchesCountsCsv)
{
    const auto row = counts_row(GetParam());
    ASSERT_FALSE(row.empty());
    const Library lib = read_lef(SourceText::read_file(kNetlists + GetParam()));
    EXPECT_EQ(lib.counts.cells, std::stoll(row.at("cells_or_gates")));
}

TEST_P(LefRealFile, BlockCountsMatchManifest)
{
    const Library lib = read_lef(SourceText::read_file(kNetlists + GetParam()));
    EXPECT_EQ(lib.counts.extra.at("layers"),
              manifest_number(GetParam(), R"(LAYER definitions (\d+))"));
    EXPECT_EQ(lib.counts.extra.at("vias"),
              manifest_number(GetParam(), R"(VIA definitions (\d+))"));
    EXPECT_EQ(lib.counts.extra.at("sites"), manifest_number(GetParam(), R"(SITE (\d+))"));
}

INSTANTIATE_TEST_SUITE_P(LefData, LefRealFile,
                         ::testing::Values("openroad_nangate45/Nangate45.lef",
                                           "iwls05_gsclib180/lib/GSCLib_3.0.lef",
                                           "ispd18_sample/ispd18_sample.input.lef"));

TEST(LefReader, NangateAnd2Facts)
{
    const Library lib =
        read_lef(SourceText::read_file(kNetlists + "openroad_nangate45/Nangate45.lef"));
    const LibraryCell* c = lib.find("AND2_X1");
    ASSERT_NE(c, nullptr);
    EXPECT_DOUBLE_EQ(c->width, 0.76);
    EXPECT_DOUBLE_EQ(c->height, 1.4);
    EXPECT_EQ(lib.find_pin("AND2_X1", "ZN")->dir, Direction::Output);
    EXPECT_EQ(lib.find_pin("AND2_X1", "A1")->dir, Direction::Input);
}

TEST(LefReader, ANetlistOnALefKnowsItsFlipFlopsByName)
{
    // A LEF says nothing of storage: the cells' names do (DFFSRX1), as without a library. The
    // LEF's cells were all taken as combinational before, and s27 failed as a loop.
    const std::string netlist = kNetlists + "iwls05_gsclib180/netlist/s27.v";
    const std::string lef = kNetlists + "iwls05_gsclib180/lib/GSCLib_3.0.lef";
    const std::string lib = kNetlists + "iwls05_gsclib180/lib/GSCLib_3.0.lib";
    const auto row = counts_row("iwls05_gsclib180/netlist/s27.v");
    ASSERT_FALSE(row.empty());
    for (const std::vector<std::string>& order :
         {std::vector<std::string>{lef}, {lef, lib}, {lib, lef}}) {
        const Library l = load_libraries(order);
        LoadOptions load;
        load.library = &l;
        const Circuit c = load_netlist(netlist, load);
        EXPECT_EQ(c.counts.flip_flops, std::stoll(row.at("FF_or_latch"))) << order.front();
        // Liberty's word holds in either order: a DFF cell stores.
        if (order.size() == 2) EXPECT_TRUE(l.find("DFFSRX1")->is_ff) << order.front();
    }
}

TEST(LefReader, AGuessedPinSaysWhyTheGivenLibraryDidNotTell)
{
    // A library without the netlist's cells: the guesses said "give a Liberty or LEF file",
    // which the user had given.
    const std::string netlist = kNetlists + "iwls05_gsclib180/netlist/s27.v";
    const Library other = read_lef(SourceText::from_string("other.lef", kLef));
    LoadOptions load;
    load.library = &other;
    const Circuit c = load_netlist(netlist, load);
    bool guessed = false;
    for (const gsr::Warning& w : c.diagnostics.warnings()) {
        const std::string text = w.str();
        EXPECT_EQ(text.find("give a Liberty or LEF file"), std::string::npos) << text;
        guessed |= text.find("guessed from its name as input (the given libraries have no "
                             "such cell)") != std::string::npos;
    }
    EXPECT_TRUE(guessed);
    // A pin the library's cell has without a direction, and one it does not have.
    const Library nodir = read_lef(SourceText::from_string("nodir.lef", R"(MACRO INVX2
  PIN A
  END A
END INVX2
END LIBRARY
)"));
    load.library = &nodir;
    const Circuit partly = load_netlist(netlist, load);
    std::string all;
    for (const gsr::Warning& w : partly.diagnostics.warnings()) all += w.str() + "\n";
    EXPECT_NE(all.find("pin A of INVX2 guessed from its name as input (the library gives it no "
                       "direction)"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("pin Y of INVX2 guessed from its name as output (the library's cell has "
                       "no such pin)"),
              std::string::npos)
        << all;
    // Without a library the guess still says what to give.
    const Circuit bare = load_netlist(netlist);
    ASSERT_FALSE(bare.diagnostics.warnings().empty());
    EXPECT_NE(bare.diagnostics.warnings().back().str().find("give a Liberty or LEF file"),
              std::string::npos);
}

TEST(LefReader, MalformedCorpusFailsWhereExpected)
{
    testdata::expect_malformed_corpus_fails_where_expected("lef", read_lef);
}

TEST(LefReader, AMacroDefinedTwiceWarnsAndTheFirstIsKept)
{
    // Both were kept and counted (cells: 2), and Library::index took the first without a word.
    const Library lib = lef_of("MACRO A\n  PIN X DIRECTION INPUT ; END X\nEND A\n"
                               "MACRO A\n  PIN X DIRECTION OUTPUT ; END X\nEND A\n"
                               "MACRO B\nEND B\nEND LIBRARY\n");
    EXPECT_EQ(lib.counts.cells, 2);
    EXPECT_EQ(lib.cells.size(), 2u);
    EXPECT_EQ(lib.counts.extra.at("duplicate_macros"), 1);
    EXPECT_EQ(lib.find_pin("A", "X")->dir, Direction::Input);
    ASSERT_EQ(lib.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(lib.diagnostics.warnings()[0].str(),
              "t.lef:4:1: warning: MACRO A is defined twice (first on line 1); the first is kept");
}

} // namespace
} // namespace gsr::netlist
