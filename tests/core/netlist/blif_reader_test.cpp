#include "netlist/readers.hpp"
#include "damaged_input.hpp"
#include "malformed_corpus.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

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

TEST(BlifReader, AByteOrderMarkIsSkipped)
{
    // Saved by an editor on Windows: "expected a BLIF directive ..., found '\xEF\xBB\xBF.model'",
    // the mark invisible in the quote; every other reader skipped it.
    const Circuit c = blif("\xEF\xBB\xBF.model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n");
    EXPECT_EQ(c.top, "m");
    EXPECT_EQ(*c.counts.inputs, 2);
    EXPECT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(detect_format("t.blif", "\xEF\xBB\xBF.model m\n"), Format::Blif);
    // Line 1's columns count from past the mark, as an editor shows them (they were 3 more).
    const Circuit w = blif("\xEF\xBB\xBF.foo\n.model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n");
    ASSERT_FALSE(w.diagnostics.warnings().empty());
    EXPECT_EQ(w.diagnostics.warnings()[0].where.line, 1);
    EXPECT_EQ(w.diagnostics.warnings()[0].where.column, 1);
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

TEST(BlifReader, ANetNamedLikeAFlattenedPathStaysAnotherNet)
{
    // The top's net "and2_0/w" and the net w inside instance and2_0 were one net: the gate
    // reading the top's net read the AND inside the instance instead. The later one gets a
    // prime; inside the instance, every mention of w is the one renamed net.
    const Circuit c = blif(".model top\n.inputs a b c\n.outputs y q\n.names c and2_0/w\n0 1\n"
                           ".names and2_0/w q\n1 1\n.subckt and2 x=a y=b z=y\n.end\n"
                           ".model and2\n.inputs x y\n.outputs z\n.names x y w\n11 1\n"
                           ".names w z\n1 1\n.end\n");
    const gsr::NameId outer = c.net_names.find("and2_0/w");
    const gsr::NameId inner = c.net_names.find("and2_0/w'");
    ASSERT_NE(outer, gsr::kNoName);
    ASSERT_NE(inner, gsr::kNoName);
    int outer_pins = 0, inner_pins = 0;
    for (const gsr::netlist::Pin& p : c.pins) {
        outer_pins += p.net == outer;
        inner_pins += p.net == inner;
    }
    EXPECT_EQ(outer_pins, 2); // NOT c drives it, the buffer to q reads it
    EXPECT_EQ(inner_pins, 2); // the AND drives it, the buffer to z reads it
    ASSERT_EQ(c.diagnostics.warnings().size(), 1u);
    EXPECT_NE(c.diagnostics.warnings()[0].message.find(
                  "1 net name is shared by different nets once the hierarchy is flat"),
              std::string::npos)
        << c.diagnostics.warnings()[0].message;
    EXPECT_NE(c.diagnostics.warnings()[0].message.find("'and2_0/w' (the later one is named "
                                                       "'and2_0/w'')"),
              std::string::npos);
    // A name taken by a prime already gets a number: the top names s_0/w and s_0/w', so the
    // instance's w is s_0/w'2. Three owners of one name (the top, instance m_0, and the nested
    // instance n_1 inside it whose w is also what m_0 calls "n_1/w") get w' and w'2 in turn.
    const Circuit primed = blif(".model top\n.inputs a\n.outputs y\n.names a s_0/w\n1 1\n"
                                ".names a s_0/w'\n0 1\n.subckt s x=a z=y\n.end\n"
                                ".model s\n.inputs x\n.outputs z\n.names x w\n0 1\n"
                                ".names w z\n1 1\n.end\n");
    EXPECT_NE(primed.net_names.find("s_0/w'2"), gsr::kNoName);
    const Circuit three = blif(".model top\n.inputs a\n.outputs y\n.names a m_0/n_1/w\n1 1\n"
                               ".subckt m x=a z=y\n.end\n"
                               ".model m\n.inputs x\n.outputs z\n.names x n_1/w\n0 1\n"
                               ".subckt n x=n_1/w z=z\n.end\n"
                               ".model n\n.inputs x\n.outputs z\n.names x w\n1 1\n"
                               ".names w z\n0 1\n.end\n");
    EXPECT_NE(three.net_names.find("m_0/n_1/w"), gsr::kNoName);
    EXPECT_NE(three.net_names.find("m_0/n_1/w'"), gsr::kNoName);
    EXPECT_NE(three.net_names.find("m_0/n_1/w'2"), gsr::kNoName);
    EXPECT_NE(three.diagnostics.warnings()[0].message.find("2 net names are shared"),
              std::string::npos)
        << three.diagnostics.warnings()[0].message;
    // The instance's own x' is another net than its x renamed x': it gets a prime of its own
    // (x''). They were one net, driven twice.
    const Circuit prime = blif(".model top\n.inputs i\n.outputs o\n.names i m_0/x\n1 1\n"
                               ".subckt m a=i z=o\n.end\n.model m\n.inputs a\n.outputs z\n"
                               ".names a x\n1 1\n.names x x'\n0 1\n.names x' z\n1 1\n.end\n");
    std::map<gsr::NameId, int> drivers;
    for (const gsr::netlist::Pin& p : prime.pins)
        if (p.dir == gsr::netlist::Direction::Output) ++drivers[p.net];
    for (const auto& [net, count] : drivers) EXPECT_EQ(count, 1) << prime.net_name(net);
    EXPECT_NE(prime.net_names.find("m_0/x'"), gsr::kNoName);
    EXPECT_NE(prime.net_names.find("m_0/x''"), gsr::kNoName);
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

TEST(BlifReader, AHierarchyThatDoublesAtEachLevelIsRefusedAtTheSubcktThatTakesItPastTheBudget)
{
    // Model m<i> instantiates m<i+1> twice: 2 KB describe 2^30 cells. It was flattened until
    // memory ran out; now sizes are summed per model before anything is built.
    auto doubling = [](int levels, int& refused_line) {
        std::string text = ".model top\n.inputs a\n.outputs y\n.subckt m0 a=a y=y\n.end\n";
        int line = 5;
        for (int i = 0; i < levels; ++i) {
            const std::string next = "m" + std::to_string(i + 1);
            text += ".model m" + std::to_string(i) + "\n.inputs a\n.outputs y\n.subckt " + next +
                    " a=a y=t\n.subckt " + next + " a=t y=y\n.end\n";
            // m<i> flattens to 3 * 2^(levels - i) cells and pins: of 30 levels, m9's second
            // .subckt is the first to pass 4 million and a few.
            if (i == levels - 21) refused_line = line + 5;
            line += 6;
        }
        return text + ".model m" + std::to_string(levels) +
               "\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n";
    };
    int refused_line = 0;
    try {
        (void)blif(doubling(30, refused_line));
        FAIL() << "2^30 cells were flattened";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, refused_line) << e.what();
        EXPECT_NE(e.message().find("cells and pins once flattened (a limit set by the file's "
                                   "size): this .subckt takes model m9 past that"),
                  std::string::npos)
            << e.what();
    }
    // 2^10 of them flatten.
    const Circuit c = blif(doubling(10, refused_line));
    EXPECT_EQ(c.cells.size(), 1024u);
}

TEST(BlifReader, AnUnnamedModelAfterATopNamedTopIsNamedAtItsLine)
{
    // It read the name's position past the end of the line's tokens (4:8, a stale offset).
    const std::string text = ".model top\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n"
                             ".model\n.inputs i\n.outputs o\n.names i o\n1 1\n.end\n";
    try {
        blif(text);
        ADD_FAILURE() << "read";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 7) << e.what();
        EXPECT_EQ(e.where().column, 1) << e.what();
        EXPECT_NE(e.message().find("top is defined twice (a .model without a name is 'top')"),
                  std::string::npos)
            << e.what();
    }
}

TEST(BlifReader, AModelThatInstantiatesTheTopIsRecursive)
{
    // The first model was not among the models by name: `.subckt top` became a black box "top".
    try {
        (void)blif(".model top\n.inputs a\n.outputs y\n.subckt top a=a y=y\n.end\n");
        FAIL() << "top instantiates itself";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 4);
        EXPECT_NE(e.message().find("recursive instantiation 'top' -> 'top'"), std::string::npos)
            << e.what();
    }
    try {
        (void)blif(".model top\n.inputs a\n.outputs y\n.subckt sub a=a y=y\n.end\n"
                   ".model sub\n.inputs a\n.outputs y\n.subckt top a=a y=y\n.end\n");
        FAIL() << "top and sub instantiate each other";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 9);
        EXPECT_NE(e.message().find("recursive instantiation 'top' -> 'sub' -> 'top'"),
                  std::string::npos)
            << e.what();
    }
    try {
        (void)blif(".model top\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n.model top\n.end\n");
        FAIL() << "top is defined twice";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 7);
        EXPECT_NE(e.message().find("top is defined twice"), std::string::npos) << e.what();
    }
    // A file without .model calls its model "top": a model of that name is another one.
    const Circuit c = blif(".inputs a\n.outputs y\n.subckt top a=a y=y\n.end\n"
                           ".model top\n.inputs a\n.outputs y\n.names a y\n0 1\n.end\n");
    EXPECT_EQ(c.cells.size(), 1u);
}

TEST(BlifReader, AnExdcSectionIsSkippedWithTheCubesOfItsNames)
{
    // "expected a BLIF directive such as .names, .latch or .end, found '01'": the .names of the
    // external don't-care network were skipped, their cube lines were not. ABC reads this.
    const Circuit c = blif(".model top\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.exdc\n"
                           ".inputs a b\n.outputs y\n.names a b y\n01 1\n10 1\n.end\n"
                           ".model other\n.inputs p\n.outputs q\n.names p q\n1 1\n.end\n");
    ASSERT_EQ(c.cells.size(), 1u);
    EXPECT_EQ(c.cell_type(c.cells[0]), "AND");
    EXPECT_EQ(*c.counts.inputs, 2);
}

TEST(BlifReader, ManyDistinctUnknownDirectivesTakeLinearTime)
{
    // Each warning's line was counted from the start of the file: 100,000 directives took 23 s.
    std::string text = ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n";
    constexpr int kDirectives = 100000;
    for (int i = 0; i < kDirectives; ++i) text += ".x" + std::to_string(i) + "\n";
    text += ".end\n";
    const auto start = std::chrono::steady_clock::now();
    const Circuit c = blif(text);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 3.0);
    const auto& warnings = c.diagnostics.warnings();
    EXPECT_EQ(warnings.size() + c.diagnostics.suppressed(), std::size_t{kDirectives});
    ASSERT_FALSE(warnings.empty());
    EXPECT_EQ(warnings.back().where.line, 5 + static_cast<int>(warnings.size()));
    EXPECT_EQ(warnings.back().message,
              "directive .x" + std::to_string(warnings.size() - 1) + " is not used; skipped");
}

TEST(BlifReader, ControlBytesAreRefusedWhereverTheyAre)
{
    // Past the first 8 KB the text check does not look: a NUL became part of a name ("expected
    // 1 input columns ... found 2" further on).
    std::string text = ".model m\n.inputs a\n.outputs y\n";
    for (int i = 0; i < 1000; ++i) text += "# padding line " + std::to_string(i) + "\n";
    const int line = 3 + 1000 + 1;
    for (const char bad : {'\0', '\x01', '\x1b', '\x7f'}) {
        std::string damaged = text + ".names a" + std::string(1, bad) + " y\n1 1\n.end\n";
        try {
            (void)blif(damaged);
            FAIL() << "byte " << int(bad) << " accepted";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().line, line);
            EXPECT_EQ(e.where().column, 9);
            EXPECT_NE(e.message().find("unexpected byte"), std::string::npos) << e.what();
        }
    }
    // In a comment too; tab, CR, form feed and vertical tab are white space.
    EXPECT_THROW(blif(text + "# a \x02 comment\n.end\n"), gsr::Error);
    EXPECT_EQ(blif(text + ".names\ta\f\vy\r\n1 1\n.end\n").cells.size(), 1u);
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
