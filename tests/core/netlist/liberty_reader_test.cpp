#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"
#include "netlist_test_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <regex>
#include <string>
#include <vector>

namespace gsr::netlist {
namespace {

using namespace testdata;

Library lib_of(const std::string& text)
{
    return read_liberty(SourceText::from_string("t.lib", text));
}

/// The error a text raises, or "" when it parses.
Error lib_error(const std::string& text)
{
    try {
        lib_of(text);
    } catch (const Error& e) {
        return e;
    }
    return Error("no error");
}

const char* kLib = R"(/* a small library */
library (tiny) {
  delay_model : table_lookup ;
  capacitive_load_unit (1, ff) ;
  define (drive_strength, cell, float) ;
  lu_table_template (t2) { variable_1 : input_net_transition ; index_1 ("1, 2") ; }
  cell (INV) {
    area : 1.5 ;
    pin (A) { direction : input ; capacitance : 0.01 ; }
    pin (Y) {
      direction : output ;
      function : "!A" ;
      timing () {
        related_pin : "A" ;
        cell_rise (t2) {
          values ( "0.1, 0.2", \
                   "0.3, 0.4" ) ;
        }
      }
    }
  }
  cell (DFF) {
    ff (IQ, IQN) { next_state : "D" ; clocked_on : "CK" ; }
    pin (D) { direction : input ; }
    pin (CK) { direction : input ; clock : true ; }
    pin (Q) { direction : output ; function : "IQ" ; }
  }
}
)";

TEST(LibertyReader, ReadsLibraryName) { EXPECT_EQ(lib_of(kLib).name, "tiny"); }

TEST(LibertyReader, PinsConnectedByPositionAreNotBlamedOnAMissingLibrary)
{
    // The warning asked for a Liberty file that was given: a library orders no pins for
    // connections by position, so those are guessed and the user is told to name them.
    Library lib = lib_of(kLib);
    lib.index();
    LoadOptions o;
    o.library = &lib;
    const Circuit c = load_netlist(
        SourceText::from_string("pos.v", "module m(a, y, z); input a; output y, z;\n"
                                         "INV g1(.A(a), .Y(y));\nINV g2(a, z);\nendmodule\n"),
        o);
    std::string warnings;
    for (const auto& w : c.diagnostics.warnings()) warnings += w.message + "\n";
    EXPECT_NE(warnings.find("direction of pin 1 of INV guessed from its name as input "
                            "(connected by position, which the library does not order"),
              std::string::npos)
        << warnings;
    EXPECT_EQ(warnings.find("give a Liberty"), std::string::npos) << warnings;
    EXPECT_EQ(c.pins[c.cells[0].first_pin + 1].dir, Direction::Output); // named: the library's
}

TEST(LibertyReader, CountsCellGroups) { EXPECT_EQ(lib_of(kLib).counts.cells, 2); }

TEST(LibertyReader, ReadsPinDirections)
{
    const Library lib = lib_of(kLib);
    ASSERT_NE(lib.find_pin("INV", "A"), nullptr);
    EXPECT_EQ(lib.find_pin("INV", "A")->dir, Direction::Input);
    EXPECT_EQ(lib.find_pin("INV", "Y")->dir, Direction::Output);
}

TEST(LibertyReader, ReadsFunctionOfOutputPin)
{
    EXPECT_EQ(lib_of(kLib).find_pin("INV", "Y")->function, "!A");
}

TEST(LibertyReader, ReadsArea) { EXPECT_DOUBLE_EQ(lib_of(kLib).find("INV")->area, 1.5); }

TEST(LibertyReader, FfGroupMarksCellAsFlipFlop)
{
    const Library lib = lib_of(kLib);
    EXPECT_TRUE(lib.find("DFF")->is_ff);
    EXPECT_FALSE(lib.find("INV")->is_ff);
}

TEST(LibertyReader, TimingTablesAddNoPins)
{
    EXPECT_EQ(lib_of(kLib).find("INV")->pins.size(), 2u);
}

TEST(LibertyReader, CountsPinAndFfGroups)
{
    const Library lib = lib_of(kLib);
    EXPECT_EQ(lib.counts.extra.at("pin_groups"), 5);
    EXPECT_EQ(lib.counts.extra.at("ff_groups"), 1);
    EXPECT_EQ(lib.counts.extra.at("latch_groups"), 0);
    EXPECT_EQ(lib.counts.flip_flops, 1);
}

TEST(LibertyReader, LatchGroupMarksCellAsLatch)
{
    const Library lib =
        lib_of("library (l) { cell (LAT) { latch (IQ, IQN) { enable : \"G\" ; } } }");
    EXPECT_TRUE(lib.find("LAT")->is_latch);
    EXPECT_EQ(lib.counts.flip_flops, 1);
}

TEST(LibertyReader, PinGroupWithSeveralNamesMakesEachPin)
{
    const Library lib = lib_of("library (l) { cell (N) { pin (A, B) { direction : input ; } } }");
    EXPECT_EQ(lib.find_pin("N", "B")->dir, Direction::Input);
    EXPECT_EQ(lib.counts.extra.at("pin_groups"), 1);
}

TEST(LibertyReader, BusExpandsToBitsOfItsType)
{
    const Library lib = lib_of(R"(library (l) {
      type (bus4) {
        base_type : array ; bit_width : 4 ; bit_from : 3 ; bit_to : 0 ; downto : true ;
      }
      cell (REG) { bus (D) { bus_type : bus4 ; direction : input ; } }
    })");
    ASSERT_EQ(lib.find("REG")->pins.size(), 4u);
    EXPECT_EQ(lib.find_pin("REG", "D[0]")->dir, Direction::Input);
    EXPECT_NE(lib.find_pin("REG", "D[3]"), nullptr);
}

TEST(LibertyReader, BusMemberPinRangeInheritsBusDirection)
{
    const Library lib = lib_of(R"(library (l) {
      type (b2) { bit_width : 2 ; bit_from : 0 ; bit_to : 1 ; }
      cell (R) {
        bus (Q) { bus_type : b2 ; direction : output ; pin (Q[0:1]) { function : "x" ; } }
      }
    })");
    EXPECT_EQ(lib.find_pin("R", "Q[1]")->dir, Direction::Output);
    EXPECT_EQ(lib.find_pin("R", "Q[1]")->function, "x");
    EXPECT_EQ(lib.find("R")->pins.size(), 2u);
}

TEST(LibertyReader, BundleMembersBecomePins)
{
    const Library lib = lib_of(R"(library (l) {
      cell (B) {
        bundle (Z) { members (Z0, Z1) ; direction : output ; pin (Z0) { direction : inout ; } }
      }
    })");
    EXPECT_EQ(lib.find_pin("B", "Z0")->dir, Direction::InOut);
    EXPECT_EQ(lib.find_pin("B", "Z1")->dir, Direction::Output);
}

TEST(LibertyReader, InternalPinHasUnknownDirection)
{
    const Library lib = lib_of("library (l) { cell (C) { pin (I) { direction : internal ; } } }");
    EXPECT_EQ(lib.find_pin("C", "I")->dir, Direction::Unknown);
}

TEST(LibertyReader, SemicolonIsOptionalAtEndOfLine)
{
    const Library lib =
        lib_of("library (l) {\n cell (C) {\n  area : 2\n  pin (A) { direction : input }\n }\n}\n");
    EXPECT_DOUBLE_EQ(lib.find("C")->area, 2.0);
    EXPECT_EQ(lib.find_pin("C", "A")->dir, Direction::Input);
}

TEST(LibertyReader, SkipsBothCommentStyles)
{
    const Library lib =
        lib_of("// line comment\nlibrary (l) { /* block\n comment */ cell (C) { } // x\n}\n");
    EXPECT_EQ(lib.counts.cells, 1);
}

TEST(LibertyReader, LineContinuationJoinsLines)
{
    const Library lib = lib_of("library (l) { cell (C) { pin (A) { direction \\\n : input ; } } }");
    EXPECT_EQ(lib.find_pin("C", "A")->dir, Direction::Input);
}

TEST(LibertyReader, AcceptsByteOrderMarkAndCrlf)
{
    const Library lib =
        lib_of("\xEF\xBB\xBFlibrary (l) {\r\n cell (C) {\r\n  area : 2 \\\r\n ;\r\n }\r\n}\r\n");
    EXPECT_DOUBLE_EQ(lib.find("C")->area, 2.0);
}

TEST(LibertyReader, DeepNestingNeedsNoRecursion)
{
    std::string text = "library (l) {";
    for (int i = 0; i < 100000; ++i) text += " g () {";
    for (int i = 0; i < 100000; ++i) text += " }";
    text += " }";
    EXPECT_EQ(lib_of(text).counts.cells, 0);
}

TEST(LibertyReader, DuplicateCellWarns)
{
    const Library lib = lib_of("library (l) { cell (C) { } cell (C) { } }");
    EXPECT_EQ(lib.diagnostics.warnings().size(), 1u);
}

TEST(LibertyReader, EofInsideGroupFailsNamingTheGroup)
{
    const Error e = lib_error("library (l) {\n  cell (C) {\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected '}' to close the group 'cell (C)' opened on line 2"),
              std::string::npos);
}

TEST(LibertyReader, AStrayControlByteIsNamedAtItsColumn)
{
    // Text enough around it that one byte is not taken for binary data.
    const Error e = lib_error("library (l) {\n cell (N\x01" "AND) { }\n" +
                              std::string(200, ' ') + "\n}");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 9);
    EXPECT_NE(e.message().find("unexpected byte 0x01: expected Liberty text"),
              std::string::npos);
}

TEST(LibertyReader, NanAndInfinityAreNotNumbers)
{
    // from_chars reads them; a NaN delay became 0 in the arrival times without a word.
    for (const char* v : {"nan", "inf", "-inf", "NaN"}) {
        const Error e = lib_error(std::string("library (l) {\n cell (C) {\n  pin (A) {\n"
                                              "   capacitance : ") +
                                  v + " ;\n  }\n }\n}");
        EXPECT_EQ(e.where().line, 4) << v;
        EXPECT_NE(e.message().find("number"), std::string::npos) << v << ": " << e.message();
    }
}

TEST(LibertyReader, UnterminatedCommentFailsAtItsStart)
{
    const Error e = lib_error("library (l) {\n /* never closed\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected '*/'"), std::string::npos);
}

TEST(LibertyReader, UnterminatedStringFails)
{
    const Error e =
        lib_error("library (l) {\n cell (C) { pin (Y) { function : \"A & B ; } } }\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("closing '\"'"), std::string::npos);
}

TEST(LibertyReader, TwoAttributesOnOneLineNeedSemicolon)
{
    const Error e = lib_error("library (l) {\n cell (C) { area : 1 pin (A) { } }\n}");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected ';' after the value of 'area'"), std::string::npos);
}

TEST(LibertyReader, UnclosedParenthesisFails)
{
    const Error e = lib_error("library (l) {\n cell (C {\n }\n}");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected ')'"), std::string::npos);
}

TEST(LibertyReader, ExtraClosingBraceFails)
{
    const Error e = lib_error("library (l) {\n}\n}\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("unexpected '}'"), std::string::npos);
}

TEST(LibertyReader, TopLevelMustBeLibrary)
{
    EXPECT_NE(lib_error("cell (C) { }").message().find("'library (NAME) {'"), std::string::npos);
}

TEST(LibertyReader, EmptyFileFails)
{
    EXPECT_NE(lib_error("").message().find("library"), std::string::npos);
}

TEST(LibertyReader, HtmlPageFails)
{
    EXPECT_NE(
        lib_error("<!DOCTYPE html>\n<html><body>404</body></html>\n").message().find("HTML"),
        std::string::npos);
}

TEST(LibertyReader, BinaryDataFails)
{
    EXPECT_NE(lib_error(std::string("\x1f\x8b\x08\0\0\0", 6)).message().find("binary"),
              std::string::npos);
}

TEST(LibertyReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.lib", kLib, read_liberty);
}

TEST(LibertyReader, NangateMatchesCounts)
{
    const std::string file = "openroad_nangate45/nangate45_typ.lib.gz";
    const auto row = counts_row(file);
    ASSERT_FALSE(row.empty());
    const Library lib = read_liberty(SourceText::read_file(kNetlists + file));
    EXPECT_EQ(lib.counts.cells, std::stoll(row.at("cells_or_gates")));
    EXPECT_EQ(lib.counts.flip_flops, std::stoll(row.at("FF_or_latch")));
    EXPECT_EQ(static_cast<std::int64_t>(lib.cells.size()), std::stoll(row.at("cells_or_gates")));
}

TEST(LibertyReader, NangateMatchesManifestGroupCounts)
{
    const std::string file = "openroad_nangate45/nangate45_typ.lib.gz";
    const Library lib = read_liberty(SourceText::read_file(kNetlists + file));
    EXPECT_EQ(lib.counts.extra.at("pin_groups"), manifest_number(file, R"(pin groups (\d+))"));
    EXPECT_EQ(lib.counts.extra.at("ff_groups"), manifest_number(file, R"(ff groups (\d+))"));
    EXPECT_EQ(lib.counts.extra.at("latch_groups"), manifest_number(file, R"(latch groups (\d+))"));
}

TEST(LibertyReader, NangateNand2PinDirections)
{
    const Library lib =
        read_liberty(SourceText::read_file(kNetlists + "openroad_nangate45/nangate45_typ.lib.gz"));
    ASSERT_NE(lib.find_pin("NAND2_X1", "ZN"), nullptr);
    EXPECT_EQ(lib.find_pin("NAND2_X1", "ZN")->dir, Direction::Output);
    EXPECT_EQ(lib.find_pin("NAND2_X1", "A1")->dir, Direction::Input);
    EXPECT_EQ(lib.find_pin("NAND2_X1", "ZN")->function, "!(A1 & A2)");
}

TEST(LibertyReader, NangateStorageCells)
{
    const Library lib =
        read_liberty(SourceText::read_file(kNetlists + "openroad_nangate45/nangate45_typ.lib.gz"));
    EXPECT_TRUE(lib.find("DFF_X1")->is_ff);
    EXPECT_TRUE(lib.find("DLH_X1")->is_latch);
    EXPECT_FALSE(lib.find("NAND2_X1")->is_ff);
    EXPECT_EQ(lib.name, "NangateOpenCellLibrary");
}

TEST(LibertyReader, GsclibMatchesCounts)
{
    const std::string file = "iwls05_gsclib180/lib/GSCLib_3.0.lib";
    const auto row = counts_row(file);
    ASSERT_FALSE(row.empty());
    const Library lib = read_liberty(SourceText::read_file(kNetlists + file));
    EXPECT_EQ(lib.counts.cells, std::stoll(row.at("cells_or_gates")));
    EXPECT_EQ(lib.counts.flip_flops, std::stoll(row.at("FF_or_latch")));
    EXPECT_EQ(lib.counts.extra.at("pin_groups"), manifest_number(file, R"(pin groups (\d+))"));
}

TEST(LibertyReader, FlipFlopGroupsKeepWhatTheSimulatorLoads)
{
    // The ff group's state names (which the output pins' functions read), next state, clear
    // and preset, as GSCLib writes them; and a tri-state output's enable.
    const Library lib = read_liberty(
        SourceText::read_file(kNetlists + "iwls05_gsclib180/lib/GSCLib_3.0.lib"));
    const LibraryCell* scan = lib.find("SDFFSRX1");
    ASSERT_NE(scan, nullptr);
    EXPECT_EQ(scan->ff.state, "P0002");
    EXPECT_EQ(scan->ff.state_inverse, "P0000");
    EXPECT_EQ(scan->ff.next_state, "((SE SI) + (!SE D))");
    EXPECT_EQ(scan->ff.clear, "(!RN)");
    EXPECT_EQ(scan->ff.preset, "(!SN)");
    EXPECT_EQ(scan->ff.clear_preset_var1, "H");
    const LibraryCell* plain = lib.find("DFFX1");
    ASSERT_NE(plain, nullptr);
    EXPECT_EQ(plain->ff.next_state, "D");
    EXPECT_EQ(plain->ff.clear, "");
    const LibraryCell* tbuf = lib.find("TBUFX1");
    ASSERT_NE(tbuf, nullptr);
    const auto y = std::find_if(tbuf->pins.begin(), tbuf->pins.end(),
                                [](const LibraryPin& p) { return p.name == "Y"; });
    ASSERT_NE(y, tbuf->pins.end());
    EXPECT_EQ(y->three_state, "(!OE)");
}

TEST(LibertyReader, MalformedCorpusFailsWhereExpected)
{
    testdata::expect_malformed_corpus_fails_where_expected("liberty", read_liberty);
}

TEST(LibertyReader, PinRangeAtTheEndsOfLongLongFailsAtItsLine)
{
    // a - b overflowed: both range tests passed, and 2^64 pins were made until memory ran out.
    const Error e = lib_error("library (l) {\n cell (C) {\n  pin (A[-9223372036854775808:"
                              "9223372036854775807]) { direction : input ; }\n }\n}\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 8);
    EXPECT_NE(e.message().find("expected a bus range of at most 1048576 bits, found "
                               "A[-9223372036854775808:9223372036854775807]"),
              std::string::npos)
        << e.message();
}

TEST(LibertyReader, PinRangesUpTo2To20BitsExpandAndWiderOnesFail)
{
    // Ranges of 65536 bits and more became one pin named "A[0:65535]", without a word.
    const Library lib =
        lib_of("library (l) { cell (M) { pin (A[0:99999]) { direction : input ; } } }");
    EXPECT_EQ(lib.find("M")->pins.size(), 100000u);
    ASSERT_NE(lib.find_pin("M", "A[99999]"), nullptr);
    EXPECT_EQ(lib.find_pin("M", "A[99999]")->dir, Direction::Input);
    const Error e =
        lib_error("library (l) {\n cell (M) { pin (A[1048576:0]) { direction : input ; } } }");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("at most 1048576 bits, found A[1048576:0] (1048577 bits)"),
              std::string::npos)
        << e.message();
}

TEST(LibertyReader, TypeBitsPastInt32FailAtTheirLine)
{
    // A cast of -1e30 to long long is undefined; it gave LLONG_MIN and an endless bus.
    const Error e = lib_error("library (l) {\n type (T) {\n  bit_width : 4 ;\n"
                              "  bit_from : -1e30 ;\n  bit_to : 0 ;\n }\n"
                              " cell (C) { bus (D) { bus_type : T ; } }\n}\n");
    EXPECT_EQ(e.where().line, 4);
    EXPECT_NE(e.message().find("expected bit_from to be a whole number between -2147483647 and "
                               "2147483647, found '-1e30'"),
              std::string::npos)
        << e.message();
    EXPECT_NE(lib_error("library (l) { type (T) { bit_width : 2.5 ; } }").message().find(
                  "expected bit_width to be a whole number"),
              std::string::npos);
}

TEST(LibertyReader, BusWiderThan2To20BitsFailsAtTheBus)
{
    // A type of 2,000,000 bits gave the bus no pins at all, without a word.
    const Error e = lib_error("library (l) {\n type (T) { bit_width : 2000000 ; }\n"
                              " cell (C) {\n  bus (D) { bus_type : T ; direction : input ; }\n"
                              " }\n}\n");
    EXPECT_EQ(e.where().line, 4);
    EXPECT_NE(e.message().find("expected a bus of at most 1048576 bits, found bus D (bus_type T: "
                               "bits 0 to 1999999)"),
              std::string::npos)
        << e.message();
}

TEST(LibertyReader, PinsPastTheFileSizeBudgetFailAtTheRangeThatGoesOver)
{
    // 65 ranges of 65536 bits in 1 KB: each is charged (repeats too, which cost the time of
    // their lookups), and the 65th passes 8 a byte + 2^22.
    std::string text = "library (l) {\n cell (C) {\n  pin (";
    for (int i = 0; i < 65; ++i) text += i ? ", A[0:65535]" : "A[0:65535]";
    text += ") { direction : input ; }\n }\n}\n";
    const Error e = lib_error(text);
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 8 + 64 * 12);
    EXPECT_NE(e.message().find("expected at most " + std::to_string(8 * text.size() + (1 << 22)) +
                               " pins in a library of " + std::to_string(text.size()) + " bytes"),
              std::string::npos)
        << e.message();
}

} // namespace
} // namespace gsr::netlist
