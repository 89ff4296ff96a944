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

Circuit deck_of(const std::string& text, const std::string& name = "t.cir")
{
    return read_spice(SourceText::from_string(name, text));
}

Error deck_error(const std::string& text)
{
    try {
        deck_of(text);
    } catch (const Error& e) {
        return e;
    }
    return Error("no error");
}

std::string net_of(const Circuit& c, const Cell& cell, std::uint32_t i)
{
    return std::string(c.net_name(c.pins_of(cell)[i].net));
}

const char* kDeck = R"(inverter chain test deck
* a comment line
.model nch nmos level=1
.model pch pmos level=1
.SUBCKT INV in out vdd
M1 out in vdd vdd pch W=1u
+ L=0.1u
M2 out in 0 0 nch W=1u L=0.1u ; inline comment
.ENDS INV
.subckt BUF a y VDD
X1 a mid vdd INV
x2 mid y vdd inv $ lower-case call
.ends
VDD vdd 0 DC 1.8
R1 in a 1k
XTOP a y vdd BUF
.control
run
M9 this is not an element
.endc
.tran 1n 10n
.end
)";

TEST(SpiceReader, CountsElementLinesEverywhere) { EXPECT_EQ(deck_of(kDeck).counts.cells, 7); }

TEST(SpiceReader, CountsSubcircuits) { EXPECT_EQ(deck_of(kDeck).counts.extra.at("subckts"), 2); }

TEST(SpiceReader, FlattensSubcircuitsWithHierarchicalNames)
{
    const Circuit c = deck_of(kDeck);
    EXPECT_NE(find_cell(c, "xtop/x1/m1"), nullptr);
    EXPECT_NE(find_cell(c, "xtop/x2/m2"), nullptr);
    EXPECT_EQ(c.cells.size(), 6u); // VDD, R1 and four transistors
}

TEST(SpiceReader, MosfetTypeComesFromModelCard)
{
    const Circuit c = deck_of(kDeck);
    EXPECT_EQ(c.cell_type(*find_cell(c, "xtop/x1/m1")), "PMOS");
    EXPECT_EQ(c.cell_type(*find_cell(c, "xtop/x1/m2")), "NMOS");
}

TEST(SpiceReader, MosfetWithoutModelCardKeepsModelName)
{
    const Circuit c = deck_of("t\nM1 d g s b mymodel\n");
    EXPECT_EQ(c.cell_type(c.cells[0]), "mymodel");
}

TEST(SpiceReader, OtherElementsAreTypedByLetter)
{
    const Circuit c = deck_of(kDeck);
    EXPECT_EQ(c.cell_type(*find_cell(c, "r1")), "R");
    EXPECT_EQ(c.cell_type(*find_cell(c, "vdd")), "V");
}

TEST(SpiceReader, PortsMapToInstanceNets)
{
    const Circuit c = deck_of(kDeck);
    const Cell& m = *find_cell(c, "xtop/x1/m1");
    EXPECT_EQ(net_of(c, m, 0), "xtop/mid"); // an internal node of BUF
    EXPECT_EQ(net_of(c, m, 1), "a");        // port a of BUF, port in of INV
    EXPECT_EQ(net_of(c, m, 2), "vdd");      // VDD and vdd are one node
}

TEST(SpiceReader, GroundIsGlobal)
{
    const Circuit c = deck_of(kDeck);
    EXPECT_EQ(net_of(c, *find_cell(c, "xtop/x2/m2"), 2), "0");
}

TEST(SpiceReader, ContinuationLineJoins)
{
    const Circuit c = deck_of("t\nR1 a\n+ b 1k\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(net_of(c, c.cells[0], 1), "b");
}

TEST(SpiceReader, MosfetGateIsInput)
{
    const Circuit c = deck_of(kDeck);
    const Cell& m = *find_cell(c, "xtop/x1/m1");
    EXPECT_EQ(c.pin_name(c.pins_of(m)[1]), "G");
    EXPECT_EQ(c.pins_of(m)[1].dir, Direction::Input);
    EXPECT_EQ(c.pins_of(m)[0].dir, Direction::InOut);
}

TEST(SpiceReader, UndefinedSubcircuitIsBlackBox)
{
    const Circuit c = deck_of("t\nX1 a b y NAND2_X1\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "NAND2_X1");
    EXPECT_EQ(c.cells[0].kind, CellKind::Instance);
    EXPECT_TRUE(c.cells[0].flags & kCellBlackBox);
    EXPECT_EQ(c.cells[0].pin_count, 3u);
}

TEST(SpiceReader, AnUndefinedSubcircuitsNamelessPinsAreNamedAsSuchWhenGuessed)
{
    // The warning read "direction of pin  of INV guessed from its name as input".
    const Circuit c = load_netlist(SourceText::from_string("t.cir", "t\nX1 a y INV\nX2 y z INV\n"));
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u); // one for INV, not one a pin
    EXPECT_EQ(c.diagnostics.warnings()[0].message,
              "the pins of INV have no names (positional, and the subcircuit is not defined): "
              "taken as inputs (define it in the deck for their directions)");
    for (const Pin& p : c.pins) EXPECT_EQ(p.dir, Direction::Input);
}

TEST(SpiceReader, ParamsAreNotNodes)
{
    const Circuit c = deck_of("t\n.subckt R2 a b params: r=1\nR1 a b {r}\n.ends\nX1 p q R2 r=5\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(net_of(c, c.cells[0], 1), "q");
}

TEST(SpiceReader, ControlBlockIsSkipped) { EXPECT_EQ(find_cell(deck_of(kDeck), "m9"), nullptr); }

TEST(SpiceReader, CdlWithoutTopLevelUsesTheUninstantiatedSubcircuit)
{
    const Circuit c = deck_of(
        ".SUBCKT INV A Y\nM1 Y A 0 0 N\n.ENDS\n.SUBCKT TOP I O\nX1 I O INV\n.ENDS\n", "t.cdl");
    EXPECT_EQ(c.top, "TOP");
    EXPECT_EQ(c.ports.size(), 2u);
    EXPECT_EQ(c.cells.size(), 1u);
}

TEST(SpiceReader, CdlSlashBeforeTheSubcircuitNameIsNoNode)
{
    // `XI1 a b / INV` (Calibre, auCdl) failed: "expected 2 nodes for subcircuit INV, found 3".
    for (const char* inst : {"XI1 I O / INV\n", "XI1 I O /INV\n"}) {
        const Circuit c = deck_of(std::string(".SUBCKT INV A Y\nM1 Y A 0 0 N\n.ENDS\n"
                                              ".SUBCKT TOP I O\n") +
                                      inst + ".ENDS\n",
                                  "t.cdl");
        EXPECT_EQ(c.top, "TOP") << inst;
        ASSERT_EQ(c.cells.size(), 1u) << inst;
        const Pin* p = c.pins_of(c.cells[0]);
        // SPICE names are case-blind (kept lower case); drain Y is the instance's second node.
        EXPECT_EQ(std::string(c.net_name(p[0].net)), "o") << inst;
        EXPECT_EQ(std::string(c.net_name(p[1].net)), "i") << inst;
    }
}

TEST(SpiceReader, ADeckWithoutElementsIsRefusedAndSaysWhy)
{
    // Accepted as an empty circuit without a word; a file with lone CR line ends became one
    // title line.
    for (const auto& [text, expected] :
         {std::pair<std::string, std::string>{"just a title\n.end\n", "the deck has none"},
          {"* inverter\rM1 y a 0 0 nch\r.end\r", "end in a lone CR"}}) {
        try {
            (void)deck_of(text);
            FAIL() << "accepted: " << text;
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().line, 1);
            EXPECT_NE(e.message().find(expected), std::string::npos) << e.message();
        }
    }
}

TEST(SpiceReader, TheFlatteningLimitGrowsWithTheFileSize)
{
    // 21 doubling levels are 2 million resistors (6 million cells and pins) from 900 bytes:
    // under the fixed cap of 50 million cells, this took 5 s and 330 MB; 25 levels, minutes.
    auto doubling = [](int levels, const std::string& padding = "") {
        std::string deck = "doubling\n" + padding + ".subckt s0 a b\nr1 a b 1k\n.ends\n";
        for (int level = 1; level <= levels; ++level)
            deck += ".subckt s" + std::to_string(level) + " a b\nxa a b s" +
                    std::to_string(level - 1) + "\nxb a b s" + std::to_string(level - 1) +
                    "\n.ends\n";
        return deck + "x0 in out s" + std::to_string(levels) + "\n.end\n";
    };
    const std::string deck = doubling(21);
    try {
        (void)deck_of(deck);
        FAIL() << "2^21 cells were flattened";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().line, 3 + 4 * 21 + 2);
        EXPECT_NE(e.message().find("x0 takes it past"), std::string::npos) << e.message();
    }
    // The limit is 8 per byte of the file plus 4 million: a bigger file may flatten to more.
    const std::string padded = doubling(21, std::string(100000, '*') + "\n");
    try {
        (void)deck_of(padded);
        FAIL() << "2^21 cells were flattened";
    } catch (const Error& e) {
        EXPECT_NE(e.message().find("at most " + std::to_string(8 * padded.size() + (1 << 22))),
                  std::string::npos)
            << e.message();
    }
}

TEST(SpiceReader, TwoSubcircuitInstancesOfOneNameInOneScopeAreRefused)
{
    // Their internal nodes were both named x1/n: two independent chains became one.
    try {
        (void)deck_of("title\n.subckt buf2 a y\nr1 a n 1k\nr2 n y 1k\n.ends\nx1 in1 out1 buf2\n"
                      "X1 in2 out2 buf2\n.end\n");
        FAIL() << "x1 twice";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().line, 7);
        EXPECT_NE(e.message().find("X1 is already used on line 6"), std::string::npos) << e.what();
    }
    // Inside a subcircuit too.
    try {
        (void)deck_of("title\n.subckt buf a y\nr1 a y 1k\n.ends\n.subckt two a y\nxu a n buf\n"
                      "xu n y buf\n.ends\nx1 in out two\n.end\n");
        FAIL() << "xu twice in two";
    } catch (const Error& e) {
        EXPECT_EQ(e.where().line, 7);
    }
    // One name in two scopes is two instances.
    const Circuit c = deck_of("title\n.subckt buf a y\nr1 a y 1k\n.ends\n.subckt two a y\n"
                              "x1 a n buf\nx2 n y buf\n.ends\nx1 in out two\n.end\n");
    EXPECT_EQ(c.cells.size(), 2u);
}

TEST(SpiceReader, AHierarchyTooLargeToFlattenIsRefusedBeforeItIsBuilt)
{
    // Each level instantiates the one below twice: 2^30 resistors from about 1.3 KB. It was
    // flattened until 50 million cells existed (gigabytes, or "out of memory" with no file).
    // The limit is the file's budget of cells and pins now, as in Verilog (was 50 million).
    std::string deck = "doubling\n.subckt s0 a b\nr1 a b 1k\n.ends\n";
    for (int level = 1; level <= 30; ++level)
        deck += ".subckt s" + std::to_string(level) + " a b\nxa a b s" +
                std::to_string(level - 1) + "\nxb a b s" + std::to_string(level - 1) +
                "\n.ends\n";
    deck += "x0 in out s30\n.end\n";
    const int top_line = 3 + 4 * 30 + 2;
    try {
        (void)deck_of(deck);
        FAIL() << "2^30 cells were flattened";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, top_line);
        EXPECT_NE(e.message().find("at most " + std::to_string(8 * deck.size() + (1 << 22)) +
                                   " cells and pins once flattened (a limit set by the file's "
                                   "size): x0 takes it past"),
                  std::string::npos)
            << e.message();
    }
    // 2^10 of them flatten, with their hierarchical names.
    std::string small = deck.substr(0, deck.find("x0 in out s30"));
    small += "x0 in out s10\n.end\n";
    const Circuit c = deck_of(small);
    EXPECT_EQ(c.cells.size(), 1024u);
    EXPECT_NE(find_cell(c, "x0/xa/xa/xa/xa/xa/xa/xa/xa/xa/xa/r1"), nullptr);
}

TEST(SpiceReader, AcceptsByteOrderMarkAndCrlf)
{
    const Circuit c = deck_of("\xEF\xBB\xBF.SUBCKT INV a y\r\nR1 a y 1\r\n.ENDS\r\n", "t.cdl");
    EXPECT_EQ(c.top, "INV");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.net_name(c.pins_of(c.cells[0])[1].net), "y");
}

TEST(SpiceReader, WrongNodeCountForSubcircuitFails)
{
    const Error e = deck_error("t\n.subckt INV a y\nR1 a y 1\n.ends\nX1 a INV\n");
    EXPECT_EQ(e.where().line, 5);
    EXPECT_NE(e.message().find("expected 2 nodes for subcircuit INV"), std::string::npos);
}

TEST(SpiceReader, RecursiveSubcircuitFails)
{
    const Error e = deck_error("t\n.subckt A p\nX1 p A\n.ends\nX0 n A\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("instantiates itself"), std::string::npos);
}

TEST(SpiceReader, MissingEndsFails)
{
    const Error e = deck_error("t\n.subckt A p\nR1 p 0 1\n");
    EXPECT_NE(e.message().find("expected .ENDS to close .SUBCKT A opened on line 2"),
              std::string::npos);
}

TEST(SpiceReader, EndsWithoutSubcktFails)
{
    const Error e = deck_error("t\nR1 a 0 1\n.ends\n");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_NE(e.message().find("expected .SUBCKT before .ENDS"), std::string::npos);
}

TEST(SpiceReader, TooFewMosfetNodesFails)
{
    const Error e = deck_error("t\nM1 d g s\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected 4 nodes"), std::string::npos);
}

TEST(SpiceReader, UnterminatedControlFails)
{
    EXPECT_NE(deck_error("t\n.control\nrun\n").message().find("expected .endc"),
              std::string::npos);
}

TEST(SpiceReader, ContinuationWithoutLineFails)
{
    EXPECT_NE(deck_error("title\n+ a b\n").message().find("continuation"), std::string::npos);
}

TEST(SpiceReader, NonElementLineFails)
{
    const Error e = deck_error("title\n<p>oops</p>\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_NE(e.message().find("expected an element line"), std::string::npos);
}

TEST(SpiceReader, HtmlPageFails)
{
    EXPECT_NE(deck_error("<!DOCTYPE html>\n<html></html>\n").message().find("HTML"),
              std::string::npos);
}

TEST(SpiceReader, BinaryDataFails)
{
    EXPECT_NE(deck_error(std::string("\0\0\x01\x02 R1", 7)).message().find("binary"),
              std::string::npos);
}

TEST(SpiceReader, AStrayControlByteIsNamedAtItsColumn)
{
    const Error e = deck_error("t\nR1 a b\x7f 1k\n.end\n");
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 7);
    EXPECT_NE(e.message().find("unexpected byte 0x7f: expected SPICE text"), std::string::npos);
}

TEST(SpiceReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.cir", kDeck, read_spice);
}

TEST(SpiceReader, AdderMatchesCounts)
{
    const std::string file = "spice/adder_mos.cir";
    const auto row = counts_row(file);
    ASSERT_FALSE(row.empty());
    const Circuit c = read_spice(SourceText::read_file(kNetlists + file));
    EXPECT_EQ(c.counts.cells, std::stoll(row.at("cells_or_gates")));
    std::smatch m;
    const std::string extra = row.at("extra");
    ASSERT_TRUE(std::regex_search(extra, m, std::regex(R"(subckts=(\d+))")));
    EXPECT_EQ(c.counts.extra.at("subckts"), std::stoll(m[1].str()));
}

TEST(SpiceReader, AdderFlattensToTransistors)
{
    const Circuit c = read_spice(SourceText::read_file(kNetlists + "spice/adder_mos.cir"));
    const Cell* m = find_cell(c, "x1/x2/x2/x9/m4");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(c.cell_type(*m), "NMOS");
    EXPECT_TRUE(c.diagnostics.warnings().empty());
}

TEST(SpiceReader, MalformedCorpusFailsWhereExpected)
{
    testdata::expect_malformed_corpus_fails_where_expected("spice", read_spice);
}

TEST(SpiceReader, BjtModelDefinedLaterOrFollowedByOffIsNoSubstrateNode)
{
    // The model was taken for a substrate node when its .model came later in the deck, or
    // when OFF followed it: 4 nodes (c b e qmod) for 3.
    const auto q1 = [](const std::string& deck) {
        const Circuit c = deck_of("bjt deck\n" + deck + ".end\n");
        const Cell* q = find_cell(c, "q1");
        EXPECT_NE(q, nullptr) << deck;
        return q ? std::make_pair(q->pin_count, net_of(c, *q, q->pin_count - 1))
                 : std::make_pair(0u, std::string());
    };
    using P = std::pair<std::uint32_t, std::string>;
    EXPECT_EQ(q1("Q1 c b e qmod\n.model qmod npn\n"), P(3, "e"));
    EXPECT_EQ(q1("Q1 c b e qmod 2\n.model qmod npn\n"), P(3, "e"));
    EXPECT_EQ(q1("Q1 c b e qmod off\n.model qmod npn\n"), P(3, "e"));
    EXPECT_EQ(q1("Q1 c b e qmod OFF\n"), P(3, "e")); // no .model at all
    EXPECT_EQ(q1("Q1 c b e sub qmod\n.model qmod npn\n"), P(4, "sub"));
    EXPECT_EQ(q1("Q1 c b e sub qmod off\n.model qmod npn\n"), P(4, "sub"));
    EXPECT_EQ(q1("Q1 c b e sub qmod\n"), P(4, "sub"));
    // Inside a subcircuit, flattened: the same.
    EXPECT_EQ(deck_of("t\n.subckt S a\nQ1 a b e qmod off\n.ends\nX1 n S\n"
                      ".model qmod npn\n.end\n")
                  .cells[0]
                  .pin_count,
              3u);
}

} // namespace
} // namespace gsr::netlist
