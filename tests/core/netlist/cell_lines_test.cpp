// Every reader records the line of the statement that made each cell (Cell::line), so that
// messages about a cell after reading (loops, second drivers, cells the simulator does not
// know) can name it; flattened cells keep the line inside their module's definition.
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gsr::netlist {
namespace {

Circuit circuit_of(const std::string& name, const std::string& text)
{
    return load_netlist(SourceText::from_string(name, text));
}

/// Each cell's line by its instance name, or by the net of its first output where it has none.
std::map<std::string, std::uint32_t> lines_by_name(const Circuit& c)
{
    std::map<std::string, std::uint32_t> lines;
    for (const Cell& cell : c.cells) {
        std::string name(c.cell_name(cell));
        if (cell.name == kNoName)
            for (std::uint32_t i = 0; i < cell.pin_count; ++i)
                if (c.pins_of(cell)[i].dir == Direction::Output) {
                    name = c.net_name(c.pins_of(cell)[i].net);
                    break;
                }
        EXPECT_TRUE(lines.emplace(name, cell.line).second) << "two cells named " << name;
    }
    return lines;
}

TEST(CellLines, Bench)
{
    const Circuit c = circuit_of("t.bench", "# a comment\nINPUT(a)\nINPUT(b)\nOUTPUT(y)\n\n"
                                            "q = DFF(y)\ny = NAND(a, q)\nz = NOT(b)\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("q"), 6u);
    EXPECT_EQ(lines.at("y"), 7u);
    EXPECT_EQ(lines.at("z"), 8u);
}

TEST(CellLines, BlifWithASubcircuitFlattened)
{
    const Circuit c = circuit_of("t.blif", ".model top\n"
                                           ".inputs a b\n"
                                           ".outputs y\n"
                                           ".names a b \\\n"
                                           "  t\n"
                                           "11 1\n"
                                           ".latch t s 0\n"
                                           ".subckt inv x=s z=y\n"
                                           ".end\n"
                                           "\n"
                                           ".model inv\n"
                                           ".inputs x\n"
                                           ".outputs z\n"
                                           ".names x z\n"
                                           "0 1\n"
                                           ".end\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("t"), 4u); // a continued .names: the line it starts on
    EXPECT_EQ(lines.at("s"), 7u);
    ASSERT_EQ(c.cells.size(), 3u);
    EXPECT_EQ(c.cells[2].line, 14u); // the flattened inverter: its line in model inv
}

TEST(CellLines, AsciiAigerHasLinesAndBinaryHasNone)
{
    // aag M I L O A: inputs 2 4, latch 6 (next 8), output 8, AND 8 = 2 & 6.
    const Circuit ascii = circuit_of("t.aag", "aag 4 2 1 1 1\n2\n4\n6 8\n8\n8 2 6\n");
    ASSERT_EQ(ascii.cells.size(), 2u);
    EXPECT_EQ(ascii.cell_type(ascii.cells[0]), "LATCH");
    EXPECT_EQ(ascii.cells[0].line, 4u);
    EXPECT_EQ(ascii.cell_type(ascii.cells[1]), "AND");
    EXPECT_EQ(ascii.cells[1].line, 6u);

    // The same AND in binary: the latch's line is text, the AND gates are not.
    const std::string bin = std::string("aig 4 2 1 1 1\n8\n8\n") + char(8 - 6) + char(6 - 2);
    const Circuit binary = circuit_of("t.aig", bin);
    ASSERT_EQ(binary.cells.size(), 2u);
    EXPECT_EQ(binary.cells[0].line, 2u);
    EXPECT_EQ(binary.cells[1].line, 0u);
}

TEST(CellLines, AigerLatchWithAConstantNextStateKeepsItsPins)
{
    // The constant's cell is made on first use, which is the latch's next state here: it must
    // not take the latch's pins.
    const Circuit c = circuit_of("t.aag", "aag 2 1 1 1 0\n2\n4 0\n4\n");
    ASSERT_EQ(c.cells.size(), 2u);
    const Cell& constant = c.cells[0];
    const Cell& latch = c.cells[1];
    EXPECT_EQ(c.cell_type(constant), "CONST0");
    EXPECT_EQ(constant.pin_count, 1u);
    EXPECT_EQ(constant.line, 0u);
    EXPECT_EQ(c.cell_type(latch), "LATCH");
    ASSERT_EQ(latch.pin_count, 2u);
    EXPECT_EQ(c.net_name(c.pins_of(latch)[0].net), "$false");
    EXPECT_EQ(c.pins_of(latch)[0].dir, Direction::Input);
    EXPECT_EQ(c.pins_of(latch)[1].dir, Direction::Output);
    EXPECT_EQ(latch.line, 3u);
}

TEST(CellLines, VerilogGatesInstancesAssignsAndHierarchy)
{
    const Circuit c = circuit_of("t.v", "// top of the file\n"
                                        "module leaf(i, o);\n"
                                        "  input i; output o;\n"
                                        "  not n1(o, i);\n"
                                        "endmodule\n"
                                        "\n"
                                        "module top(a, b, y, z, w, v);\n"
                                        "  input a, b;\n"
                                        "  output y, z, w, v;\n"
                                        "  nand g1(y, a, b),\n"
                                        "       g2(z, b, a);\n"
                                        "  leaf u1\n"
                                        "    (.i(a),\n"
                                        "     .o(w));\n"
                                        "  assign v = a & b;\n"
                                        "endmodule\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("g1"), 10u);
    EXPECT_EQ(lines.at("g2"), 11u);
    EXPECT_EQ(lines.at("u1/n1"), 4u); // flattened: its line in module leaf
    EXPECT_EQ(lines.at("v"), 15u);
}

TEST(CellLines, VerilogAssignStyleBuffersAndConstants)
{
    const Circuit c = circuit_of("t.v", "module t(a, b, y, z, k);\n"
                                        "  input a, b;\n"
                                        "  output y, z, k;\n"
                                        "  assign y = a;\n"
                                        "  assign z = a ^ b;\n"
                                        "  assign k = 1'b1;\n"
                                        "  wire n = ~b;\n"
                                        "endmodule\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("y"), 4u);
    EXPECT_EQ(lines.at("z"), 5u);
    EXPECT_EQ(lines.at("k"), 6u);
    EXPECT_EQ(lines.at("n"), 7u); // a net declaration assignment
}

TEST(CellLines, DefComponents)
{
    const Circuit c = circuit_of("t.def", "VERSION 5.8 ;\nDESIGN d ;\nCOMPONENTS 2 ;\n"
                                          "- u1 INV_X1 + PLACED ( 0 0 ) N ;\n"
                                          "- u2 NAND2_X1\n  + PLACED ( 10 0 ) N ;\n"
                                          "END COMPONENTS\nEND DESIGN\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("u1"), 4u);
    EXPECT_EQ(lines.at("u2"), 5u);
}

TEST(CellLines, SpiceElementsAndSubcircuits)
{
    const Circuit c = circuit_of("t.cir", "title line\n"
                                          ".subckt inv in out vdd gnd\n"
                                          "mp out in vdd vdd pch\n"
                                          "mn out in gnd gnd nch\n"
                                          ".ends\n"
                                          "x1 a b vdd 0 inv\n"
                                          "r1 b\n"
                                          "+ c 1k\n");
    const auto lines = lines_by_name(c);
    EXPECT_EQ(lines.at("x1/mp"), 3u);
    EXPECT_EQ(lines.at("x1/mn"), 4u);
    EXPECT_EQ(lines.at("r1"), 7u);
}

} // namespace
} // namespace gsr::netlist
