#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"
#include "netlist_test_data.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace gsr::netlist {
namespace {

using namespace testdata;

Circuit def_of(const std::string& text) { return read_def(SourceText::from_string("t.def", text)); }

Error def_error(const std::string& text)
{
    try {
        def_of(text);
    } catch (const Error& e) {
        return e;
    }
    return Error("no error");
}

const CircuitCounts& counts(const Circuit& c) { return c.counts; }

const char* kDef = R"(VERSION 5.8 ;
DIVIDERCHAR "/" ;
BUSBITCHARS "[]" ;
DESIGN top ;
UNITS DISTANCE MICRONS 1000 ;
DIEAREA ( 0 0 ) ( 5000 4000 ) ;
ROW ROW_0 core 0 0 N DO 10 BY 1 STEP 190 0
 ;
TRACKS X 95 DO 20 STEP 190 LAYER metal1 ;
GCELLGRID X 0 DO 5 STEP 1000 ;
VIAS 1 ;
- via_a + VIARULE r + CUTSIZE 10 10 + LAYERS m1 v1 m2 ;
END VIAS
COMPONENTS 3 ;
- u1 INV_X1 + PLACED ( 100 200 ) N ;
- u2 NAND2_X1 + SOURCE DIST + FIXED ( 300 200 ) FS ;
- u3 DFF_X1 + UNPLACED ;
END COMPONENTS
PINS 2 ;
- a + NET a + DIRECTION INPUT + USE SIGNAL
  + LAYER metal1 ( -10 -10 ) ( 10 10 ) + PLACED ( 0 100 ) N ;
- y + NET y + DIRECTION OUTPUT ;
END PINS
SPECIALNETS 1 ;
- VDD ( * VDD ) + USE POWER + ROUTED metal1 100 ( 0 0 ) ( 5000 * ) ;
END SPECIALNETS
NETS 3 ;
- a ( PIN a ) ( u1 A ) + USE SIGNAL ;
- n1 ( u1 ZN ) ( u2 A1 + SYNTHESIZED )
  + ROUTED metal1 ( 100 200 ) ( 300 * ) NEW metal2 ( 300 200 ) via_a ;
- y ( u2 ZN ) ( PIN y ) ( u3 D ) ;
END NETS
END DESIGN
)";

TEST(DefReader, ReadsDesignName) { EXPECT_EQ(def_of(kDef).top, "top"); }

TEST(DefReader, ReadsDieArea)
{
    const Circuit c = def_of(kDef);
    ASSERT_TRUE(c.die_area.has_value());
    EXPECT_EQ(*c.die_area, (std::array<std::int64_t, 4>{0, 0, 5000, 4000}));
}

TEST(DefReader, PolygonDieAreaGivesBoundingBox)
{
    const Circuit c =
        def_of("DESIGN d ;\nDIEAREA ( 0 0 ) ( 0 50 ) ( 70 50 ) ( 70 -5 ) ;\nEND DESIGN\n");
    EXPECT_EQ(*c.die_area, (std::array<std::int64_t, 4>{0, -5, 70, 50}));
}

TEST(DefReader, EachComponentIsAnInstanceCell)
{
    const Circuit c = def_of(kDef);
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cell_name(c.cells[1]), "u2");
    EXPECT_EQ(c.cell_type(c.cells[1]), "NAND2_X1");
    EXPECT_EQ(c.cells[1].kind, CellKind::Instance);
}

TEST(DefReader, PlacementPerCell)
{
    const Circuit c = def_of(kDef);
    ASSERT_EQ(c.placement.size(), c.cells.size());
    EXPECT_EQ(c.placement[1].x, 300);
    EXPECT_EQ(c.placement[1].y, 200);
    EXPECT_EQ(c.placement[1].orient, "FS");
    EXPECT_TRUE(c.placement[1].placed);
}

TEST(DefReader, UnplacedComponentIsNotPlaced) { EXPECT_FALSE(def_of(kDef).placement[2].placed); }

TEST(DefReader, PinsBecomePortsWithDirections)
{
    const Circuit c = def_of(kDef);
    ASSERT_EQ(c.ports.size(), 2u);
    EXPECT_EQ(c.ports[0].dir, Direction::Input);
    EXPECT_EQ(c.ports[1].dir, Direction::Output);
    EXPECT_EQ(c.net_name(c.ports[1].net), "y");
    EXPECT_EQ(counts(c).inputs, 1);
    EXPECT_EQ(counts(c).outputs, 1);
}

TEST(DefReader, NetConnectionsBecomeInstancePins)
{
    const Circuit c = def_of(kDef);
    const Cell* u1 = find_cell(c, "u1");
    ASSERT_EQ(u1->pin_count, 2u);
    const Pin* p = c.pins_of(*u1);
    EXPECT_EQ(c.pin_name(p[0]), "A");
    EXPECT_EQ(c.net_name(p[0].net), "a");
    EXPECT_EQ(c.pin_name(p[1]), "ZN");
    EXPECT_EQ(c.net_name(p[1].net), "n1");
    EXPECT_EQ(p[1].dir, Direction::Unknown);
}

TEST(DefReader, CellPinsAreContiguous)
{
    const Circuit c = def_of(kDef);
    std::uint32_t next = 0;
    for (const Cell& cell : c.cells) {
        EXPECT_EQ(cell.first_pin, next);
        next += cell.pin_count;
    }
    EXPECT_EQ(next, c.pins.size());
}

TEST(DefReader, RoutingParenthesesAreNotConnections)
{
    EXPECT_EQ(def_of(kDef).counts.extra.at("pin_connections"), 7);
}

TEST(DefReader, SubnetConnectionsAreConnectionsAndTheirRoutingIsNot)
{
    // `+ SUBNET s ( comp pin )`: the connection was dropped with the rest of the options.
    const std::string text =
        "DESIGN d ;\nCOMPONENTS 3 ;\n- u1 INV_X1 ;\n- u2 INV_X1 ;\n- u3 INV_X1 ;\n"
        "END COMPONENTS\nNETS 1 ;\n- n1 ( u1 ZN ) + USE SIGNAL\n"
        "  + SUBNET s1 ( u2 A ) ( VPIN v1 ) NONDEFAULTRULE r ROUTED metal1 ( 10 20 ) ( 30 * )\n"
        "  + SUBNET s2 ( u3 A ) + PROPERTY p 1 ;\nEND NETS\nEND DESIGN\n";
    const Circuit c = def_of(text);
    EXPECT_EQ(c.counts.extra.at("pin_connections"), 3);
    for (gsr::netlist::CellId id : {1u, 2u}) {
        ASSERT_EQ(c.cells[id].pin_count, 1u);
        EXPECT_EQ(std::string(c.net_name(c.pins_of(c.cells[id])[0].net)), "n1");
    }
    // A ';' forgotten after the options is still named.
    const std::string unended = text.substr(0, text.find(" ;\nEND NETS"));
    EXPECT_THROW(def_of(unended + "\n- n2 ( u1 A ) ;\nEND NETS\nEND DESIGN\n"), gsr::Error);
}

TEST(DefReader, CountsEntriesAndDeclarations)
{
    const Circuit c = def_of(kDef);
    EXPECT_EQ(counts(c).cells, 3);
    EXPECT_EQ(counts(c).nets, 3);
    EXPECT_EQ(counts(c).ports, 2);
    EXPECT_EQ(c.counts.extra.at("declared_components"), 3);
    EXPECT_EQ(c.counts.extra.at("declared_nets"), 3);
    EXPECT_EQ(c.counts.extra.at("declared_pins"), 2);
    EXPECT_TRUE(c.diagnostics.warnings().empty());
}

TEST(DefReader, DeclaredCountMismatchWarnsWithLine)
{
    const Circuit c =
        def_of("DESIGN d ;\nCOMPONENTS 2 ;\n- u1 INV ;\nEND COMPONENTS\nEND DESIGN\n");
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(c.diagnostics.warnings()[0].where.line, 2);
    EXPECT_EQ(c.counts.cells, 1);
}

TEST(DefReader, ComponentOffTheDieWarnsWithItsLine)
{
    const std::string die = "DESIGN d ;\nDIEAREA ( 0 0 ) ( 5000 4000 ) ;\n";
    const std::string comps = "COMPONENTS 3 ;\n- u1 INV + PLACED ( 5000 4000 ) N ;\n"
                              "- u2 INV + PLACED ( 2147483647 -2147483648 ) N ;\n"
                              "- u3 INV + FIXED ( 0 -1 ) S ;\nEND COMPONENTS\nEND DESIGN\n";
    const Circuit c = def_of(die + comps);
    ASSERT_EQ(c.diagnostics.warnings().size(), 2u);
    EXPECT_EQ(c.diagnostics.warnings()[0].str(), "t.def:5:1: warning: component u2 is placed at "
                                                 "( 2147483647 -2147483648 ), outside the "
                                                 "DIEAREA");
    EXPECT_EQ(c.diagnostics.warnings()[1].where.line, 6);
    EXPECT_EQ(c.counts.extra.at("components_outside_die"), 2);
    EXPECT_TRUE(c.placement[1].placed); // kept as written; the layout clamps it
    // Without a DIEAREA there is nothing to be outside of.
    EXPECT_TRUE(def_of("DESIGN d ;\n" + comps).diagnostics.warnings().empty());
}

TEST(DefReader, UnknownComponentInNetWarns)
{
    const Circuit c = def_of("DESIGN d ;\nNETS 1 ;\n- n ( ghost A ) ;\nEND NETS\nEND DESIGN\n");
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(c.diagnostics.warnings()[0].where.line, 3);
}

TEST(DefReader, AcceptsByteOrderMarkAndCrlf)
{
    const Circuit c = def_of("\xEF\xBB\xBF"
                            "DESIGN d ;\r\nCOMPONENTS 1 ;\r\n- u1 INV ;\r\n"
                            "END COMPONENTS\r\nEND DESIGN\r\n");
    EXPECT_EQ(c.top, "d");
    EXPECT_EQ(c.counts.cells, 1);
}

TEST(DefReader, MissingSemicolonInComponentFails)
{
    const Error e = def_error(
        "DESIGN d ;\nCOMPONENTS 2 ;\n- u1 INV + PLACED ( 0 0 ) N\n- u2 INV ;\nEND COMPONENTS\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected ';' at the end of component u1"), std::string::npos);
}

TEST(DefReader, BadOrientationFails)
{
    const Error e = def_error("DESIGN d ;\nCOMPONENTS 1 ;\n- u1 INV + PLACED ( 0 0 ) NORTH ;\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected an orientation"), std::string::npos);
}

TEST(DefReader, NonIntegerCoordinateFails)
{
    const Error e = def_error("DESIGN d ;\nCOMPONENTS 1 ;\n- u1 INV + PLACED ( 0.5 0 ) N ;\n");
    EXPECT_NE(e.message().find("expected an x coordinate"), std::string::npos);
}

TEST(DefReader, UnclosedConnectionFails)
{
    const Error e = def_error("DESIGN d ;\nNETS 1 ;\n- n ( u1 A ;\nEND NETS\nEND DESIGN\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected ')'"), std::string::npos);
}

TEST(DefReader, EofInsideSectionFails)
{
    const Error e = def_error("DESIGN d ;\nNETS 1 ;\n- n ( u1 A ) ;\n");
    EXPECT_NE(e.message().find("expected 'END NETS'"), std::string::npos);
}

TEST(DefReader, MissingEndDesignFails)
{
    EXPECT_NE(def_error("DESIGN d ;\n").message().find("expected 'END DESIGN'"),
              std::string::npos);
}

TEST(DefReader, HtmlPageFails)
{
    EXPECT_NE(def_error("<html>DESIGN</html>").message().find("HTML"), std::string::npos);
}

TEST(DefReader, BinaryDataFails)
{
    EXPECT_NE(def_error(std::string("DESIGN \0\0\x01", 10)).message().find("binary"),
              std::string::npos);
}

TEST(DefReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.def", kDef, read_def);
}

class DefRealFile : public ::testing::TestWithParam<const char*> {};

TEST_P(DefRealFile, CountsMatchCountsCsv)
{
    const auto row = counts_row(GetParam());
    ASSERT_FALSE(row.empty());
    const Circuit c = read_def(SourceText::read_file(kNetlists + GetParam()));
    EXPECT_EQ(c.counts.ports, std::stoll(row.at("PI")));
    EXPECT_EQ(c.counts.cells, std::stoll(row.at("cells_or_gates")));
    EXPECT_EQ(c.counts.nets, std::stoll(row.at("nets")));
    EXPECT_EQ(c.counts.extra.at("pin_connections"),
              extra_number(row, R"(net pin connections (\d+))"));
    EXPECT_EQ(c.counts.extra.at("declared_components"), extra_number(row, R"(declared (\d+))"));
}

TEST_P(DefRealFile, OnePlacementPerCell)
{
    const Circuit c = read_def(SourceText::read_file(kNetlists + GetParam()));
    EXPECT_EQ(c.placement.size(), c.cells.size());
}

TEST_P(DefRealFile, NoWarnings)
{
    const Circuit c = read_def(SourceText::read_file(kNetlists + GetParam()));
    EXPECT_TRUE(c.diagnostics.warnings().empty()) << c.diagnostics.warnings()[0].str();
}

/// The placement of the first DFF_X1 (or else first) component, found by a plain line scan.
TEST_P(DefRealFile, PlacementMatchesIndependentScan)
{
    std::ifstream in(kNetlists + GetParam());
    std::string line, name, macro, orient;
    std::int64_t x = 0, y = 0;
    bool in_components = false;
    while (std::getline(in, line)) {
        if (line.rfind("COMPONENTS", 0) == 0) in_components = true;
        if (line.rfind("END COMPONENTS", 0) == 0) break;
        if (!in_components || line.find(" PLACED ") == std::string::npos) continue;
        std::istringstream ss(line);
        std::string dash, word;
        ss >> dash >> name >> macro;
        while (ss >> word && word != "PLACED") {}
        ss >> word >> x >> y >> word >> orient;
        if (macro == "DFF_X1") break;
    }
    ASSERT_FALSE(name.empty());
    const Circuit c = read_def(SourceText::read_file(kNetlists + GetParam()));
    const Cell* cell = find_cell(c, name);
    ASSERT_NE(cell, nullptr) << name;
    EXPECT_EQ(c.cell_type(*cell), macro);
    const Placement& p = c.placement[static_cast<std::size_t>(cell - c.cells.data())];
    EXPECT_EQ(p.x, x);
    EXPECT_EQ(p.y, y);
    EXPECT_EQ(p.orient, orient);
    EXPECT_TRUE(p.placed);
}

INSTANTIATE_TEST_SUITE_P(DefData, DefRealFile,
                         ::testing::Values("openroad_nangate45/gcd_nangate45.def",
                                           "ispd18_sample/ispd18_sample.input.def"));

TEST(DefReader, GcdDieAreaAndDesign)
{
    const Circuit c =
        read_def(SourceText::read_file(kNetlists + "openroad_nangate45/gcd_nangate45.def"));
    EXPECT_EQ(c.top, "gcd");
    EXPECT_EQ(*c.die_area, (std::array<std::int64_t, 4>{0, 0, 65480, 65480}));
}

TEST(DefReader, MalformedCorpusFailsWhereExpected)
{
    testdata::expect_malformed_corpus_fails_where_expected("def", read_def);
}

TEST(DefReader, ExtensionBlockEndsAtABareEndext)
{
    // DEF closes BEGINEXT with ENDEXT, not END ENDEXT: the reader ran to the end of the file.
    const Circuit c = def_of("VERSION 5.8 ;\nDESIGN d ;\nBEGINEXT \"tag\"\n"
                             "  CREATOR \"someone\" ;\n  DATE \"today\" ;\nENDEXT\n"
                             "COMPONENTS 1 ;\n- u1 INV_X1 ;\n"
                             "END COMPONENTS\nNETS 1 ;\n- a ( u1 A ) ;\nEND NETS\nEND DESIGN\n");
    EXPECT_EQ(counts(c).cells, 1);
    EXPECT_EQ(counts(c).nets, 1);
    EXPECT_TRUE(c.diagnostics.warnings().empty());
    const Error e = def_error("DESIGN d ;\nBEGINEXT \"tag\"\n  CREATOR \"x\" ;\nEND DESIGN\n");
    EXPECT_EQ(e.where().line, 5);
    EXPECT_NE(e.message().find("expected ENDEXT to close BEGINEXT (line 2)"), std::string::npos)
        << e.message();
}

TEST(DefReader, ANetListedTwiceWarnsAndCountsOnce)
{
    // The second entry was merged without a word, and counted: 3 nets for 2.
    const Circuit c = def_of("DESIGN d ;\nCOMPONENTS 2 ;\n- u1 INV ;\n- u2 INV ;\n"
                             "END COMPONENTS\nNETS 3 ;\n- a ( u1 A ) ;\n- b ( u1 ZN ) ( u2 A ) ;\n"
                             "- a ( u2 ZN ) ;\nEND NETS\nEND DESIGN\n");
    EXPECT_EQ(counts(c).nets, 2);
    EXPECT_EQ(c.counts.extra.at("duplicate_nets"), 1);
    EXPECT_EQ(c.counts.extra.at("declared_nets"), 3);
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(c.diagnostics.warnings()[0].str(),
              "t.def:9:3: warning: net a is listed twice (first on line 7); its connections are "
              "merged");
    // Merged: u1's A and u2's ZN are on one net.
    EXPECT_EQ(c.pins_of(c.cells[0])[0].net, c.pins_of(c.cells[1])[1].net);
}

TEST(DefReader, APinListedTwiceWarnsAndTheFirstIsKept)
{
    const Circuit c = def_of("DESIGN d ;\nPINS 3 ;\n- a + NET a + DIRECTION INPUT ;\n"
                             "- y + NET y + DIRECTION OUTPUT ;\n- a + NET b + DIRECTION OUTPUT ;\n"
                             "END PINS\nEND DESIGN\n");
    EXPECT_EQ(counts(c).ports, 2);
    EXPECT_EQ(counts(c).inputs, 1);
    EXPECT_EQ(counts(c).outputs, 1);
    EXPECT_EQ(c.ports.size(), 2u);
    EXPECT_EQ(c.ports[0].dir, Direction::Input);
    EXPECT_EQ(c.counts.extra.at("duplicate_pins"), 1);
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(c.diagnostics.warnings()[0].str(),
              "t.def:5:3: warning: pin a is listed twice (first on line 3); the first is kept");
}

} // namespace
} // namespace gsr::netlist
