#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"

#include <gtest/gtest.h>

using gsr::SourceText;
using namespace gsr::netlist;

namespace {
Circuit blif(const std::string& text) { return read_blif(SourceText::from_string("t.blif", text)); }
}

TEST(BlifReader, OnSetAndOffSetCoversAreNamedByFunction)
{
    const Circuit c = blif(".model m\n.inputs a b\n.outputs x y z\n.names a b x\n11 1\n.names a b y\n00 0\n"
                           ".names a b z\n1- 1\n-1 1\n.end\n");
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "AND");
    EXPECT_EQ(c.cell_type(c.cells[1]), "NAND"); // OFF-set of "both 0": a | b, written as NAND of inverted inputs
    EXPECT_TRUE(c.pins[c.cells[1].first_pin].inverted);
    EXPECT_EQ(c.cell_type(c.cells[2]), "OR");
    EXPECT_EQ(c.cover(2), ""); // an OR needs no cover: its type says it all
    EXPECT_EQ(c.cell_name(c.cells[2]), "z");
}

TEST(BlifReader, CoversAreKeptForGeneralSumsOfProducts)
{
    const Circuit c = blif(".model m\n.inputs a b c\n.outputs y\n.names a b c y\n11- 1\n-01 1\n.end\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "SOP");
    EXPECT_EQ(c.cover(0), "11- 1\n-01 1");
}

TEST(BlifReader, ConstantNodesAreCountedCells)
{
    const Circuit c = blif(".model m\n.outputs one zero\n.names one\n1\n.names zero\n.end\n");
    EXPECT_EQ(*c.counts.cells, 2);
    EXPECT_EQ(c.counts.extra.at("const_nodes"), 2);
    EXPECT_EQ(c.cells[0].kind, CellKind::Constant);
    EXPECT_EQ(c.cell_type(c.cells[1]), "CONST0");
}

TEST(BlifReader, LineContinuationAndComments)
{
    const Circuit c = blif("# header\n.model m\n.inputs a \\\n b # trailing\n.outputs y\n.names a \\\n  b y\n11 1\n.end\n");
    EXPECT_EQ(*c.counts.inputs, 2);
    EXPECT_EQ(c.cells[0].pin_count, 3u);
}

TEST(BlifReader, LatchIsAFlipFlop)
{
    const Circuit c = blif(".model m\n.inputs d clk\n.outputs q\n.latch d q re clk 0\n.end\n");
    EXPECT_EQ(*c.counts.flip_flops, 1);
    EXPECT_EQ(c.cells[0].kind, CellKind::FlipFlop);
    EXPECT_EQ(c.cells[0].pin_count, 3u);
}

TEST(BlifReader, SubcktHierarchyIsFlattenedWithHierarchicalNames)
{
    const Circuit c = blif(".model top\n.inputs a b\n.outputs y\n.subckt and2 x=a y=b z=t\n.subckt and2 x=t y=b z=y\n.end\n"
                           ".model and2\n.inputs x y\n.outputs z\n.names x y w\n11 1\n.names w z\n1 1\n.end\n");
    EXPECT_EQ(c.cells.size(), 4u);
    EXPECT_NE(c.net_names.find("and2_0/w"), gsr::kNoName);
    EXPECT_NE(c.net_names.find("and2_1/w"), gsr::kNoName);
    ASSERT_EQ(c.modules.size(), 1u);
    EXPECT_TRUE(c.modules[0].defined);
    EXPECT_EQ(c.modules[0].instances, 2u);
}

TEST(BlifReader, SubcktOutputsDriveTheirActualsAndOnlyUndrivenNetsAreWarnedAbout)
{
    // t and y are driven through the models' contents: they were "never driven in model top",
    // because that was said before the hierarchy was flattened. u really is undriven.
    const Circuit c = blif(".model top\n.inputs a b\n.outputs y u\n.subckt and2 x=a y=b z=t\n"
                           ".subckt and2 x=t y=b z=y\n.end\n.model and2\n.inputs x y\n"
                           ".outputs z\n.names x y z\n11 1\n.end\n");
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_EQ(c.diagnostics.warnings()[0].message, "signal u is never driven in model top");
    EXPECT_EQ(c.counts.extra.at("undriven_nets"), 1);
    // An undefined model's pins may drive: its actuals are not called undriven either.
    const Circuit box = blif(".model top\n.inputs a\n.outputs y\n.subckt mystery i=a o=y\n.end\n");
    EXPECT_TRUE(box.diagnostics.warnings().empty());
}

TEST(BlifReader, UndefinedSubcktIsABlackBox)
{
    const Circuit c = blif(".model top\n.inputs a\n.outputs y\n.subckt mystery i=a o=y\n.end\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cells[0].kind, CellKind::Instance);
    EXPECT_TRUE(c.cells[0].flags & kCellBlackBox);
}

TEST(BlifReader, GateLinesAreLibraryCells)
{
    const Circuit c = blif(".model top\n.inputs a b\n.outputs y\n.gate NAND2_X1 A1=a A2=b ZN=y\n.end\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "NAND2_X1");
    EXPECT_EQ(c.pin_name(c.pins[2]), "ZN");
}

TEST(BlifReader, UnknownDirectiveIsSkippedWithAWarning)
{
    const Circuit c = blif(".model m\n.inputs a\n.outputs y\n.frobnicate 3\n.names a y\n1 1\n.end\n");
    ASSERT_FALSE(c.diagnostics.warnings().empty());
    EXPECT_EQ(c.diagnostics.warnings()[0].where.line, 4);
}

TEST(BlifReader, CubeWidthMismatchIsAnError)
{
    EXPECT_THROW(blif(".model m\n.inputs a b\n.outputs y\n.names a b y\n111 1\n.end\n"), gsr::Error);
}

TEST(BlifReader, EveryTruncationAndCorruptedByteReadsOrNamesItsLine)
{
    const std::string full = ".model m\n.inputs a b \\\n c\n.outputs y\n.latch y q 0\n.names a b c q y\n1-01 1\n-11- 1\n.end\n";
    gsr::netlist::testdata::expect_damage_reads_or_names_its_line("t.blif", full, read_blif);
}

TEST(BlifReader, MalformedCorpusFailsWhereExpected)
{
    gsr::netlist::testdata::expect_malformed_corpus_fails_where_expected("blif", read_blif);
}
