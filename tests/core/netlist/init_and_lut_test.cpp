// Flip-flop initial values (BLIF .latch init, AIGER 1.9 reset) and bench LUT truth tables as the
// readers keep them in the circuit model.
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gsr::netlist {
namespace {

Circuit read(const std::string& name, const std::string& text)
{
    return load_netlist(SourceText::from_string(name, text));
}

/// The init values of the flip-flops, in cell order.
std::vector<InitValue> inits(const Circuit& c)
{
    std::vector<InitValue> out;
    for (const Cell& cell : c.cells)
        if (cell.kind == CellKind::FlipFlop) out.push_back(cell.init);
    return out;
}

std::string error_of(const std::string& name, const std::string& text)
{
    try {
        read(name, text);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(LatchInit, BlifInitValuesAreKept)
{
    const Circuit c = read("t.blif", ".model m\n.inputs d clk\n.outputs q0\n"
                                     ".latch d q0\n.latch d q1 0\n.latch d q2 1\n"
                                     ".latch d q3 re clk 2\n.latch d q4 fe clk 3\n"
                                     ".latch d q5 re clk\n.end\n");
    EXPECT_EQ(inits(c), (std::vector<InitValue>{InitValue::Zero, InitValue::Zero, InitValue::One,
                                                InitValue::DontCare, InitValue::Unknown,
                                                InitValue::Zero}));
}

TEST(LatchInit, BlifInitValuesSurviveSubcktFlattening)
{
    const Circuit c = read("t.blif", ".model top\n.inputs d\n.outputs q\n"
                                     ".subckt reg i=d o=q\n.end\n"
                                     ".model reg\n.inputs i\n.outputs o\n"
                                     ".latch i o 1\n.end\n");
    EXPECT_EQ(inits(c), (std::vector<InitValue>{InitValue::One}));
}

TEST(LatchInit, BadBlifInitIsAnErrorOnItsLine)
{
    const std::string e = error_of("t.blif", ".model m\n.inputs d\n.outputs q\n"
                                             ".latch d q 5\n.end\n");
    EXPECT_NE(e.find("t.blif:4:"), std::string::npos) << e;
    EXPECT_NE(e.find("init value 0, 1, 2"), std::string::npos) << e;
}

TEST(LatchInit, AigerResetValues)
{
    // Three latches: reset 0, reset 1, and the latch's own literal (uninitialised); one
    // without a reset field (AIGER 1.0: 0).
    const Circuit c = read("t.aag", "aag 4 0 4 1 0\n2 2 0\n4 4 1\n6 6 6\n8 8\n2\n");
    EXPECT_EQ(inits(c), (std::vector<InitValue>{InitValue::Zero, InitValue::One,
                                                InitValue::Unknown, InitValue::Zero}));
}

TEST(LatchInit, BenchDffStartsAtZero)
{
    const Circuit c = read("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(a)\n");
    EXPECT_EQ(inits(c), (std::vector<InitValue>{InitValue::Zero}));
}

TEST(BenchLut, TruthTableIsKeptWithTheFirstInputAsBitZero)
{
    const Circuit c = read("t.bench", "INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(y)\nOUTPUT(z)\n"
                                      "y = LUT 0xE8 (a, b, c)\nz = LUT 0x2 (a, b)\n");
    ASSERT_EQ(c.luts.size(), 2u);
    ASSERT_EQ(c.lut(0).size(), 1u);
    EXPECT_EQ(c.lut(0)[0], 0xE8u);
    EXPECT_EQ(c.lut(1)[0], 0x2u); // only row 1: a = 1, b = 0
    EXPECT_EQ(c.luts[0].inputs, 3u);
}

TEST(BenchLut, WideTablesSpanSeveralWords)
{
    // 8 inputs: 256 rows, 4 words. 0x8000...0 (64 hex digits): only row 255 (all ones).
    const std::string mask = "0x8" + std::string(63, '0');
    const Circuit c = read("t.bench", "INPUT(a)\nINPUT(b)\nINPUT(c)\nINPUT(d)\nINPUT(e)\n"
                                      "INPUT(f)\nINPUT(g)\nINPUT(h)\nOUTPUT(y)\n"
                                      "y = LUT " + mask + " (a, b, c, d, e, f, g, h)\n");
    const auto t = c.lut(0);
    ASSERT_EQ(t.size(), 4u);
    EXPECT_EQ(t[0], 0u);
    EXPECT_EQ(t[2], 0u);
    EXPECT_EQ(t[3], std::uint64_t{1} << 63);
}

TEST(BenchLut, MalformedTablesAreErrorsOnTheirLine)
{
    std::string e = error_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = LUT 0x1F (a, b)\n");
    EXPECT_NE(e.find("t.bench:4:"), std::string::npos) << e;
    EXPECT_NE(e.find("at most 4 bits for 2 inputs"), std::string::npos) << e;
    e = error_of("t.bench", "INPUT(a)\nOUTPUT(y)\ny = LUT 0xG (a)\n");
    EXPECT_NE(e.find("t.bench:3:"), std::string::npos) << e;
    EXPECT_NE(e.find("hexadecimal digit"), std::string::npos) << e;
    e = error_of("t.bench", "INPUT(a)\nOUTPUT(y)\ny = LUT 12 (a)\n");
    EXPECT_NE(e.find("such as 0xE8"), std::string::npos) << e;
    std::string many = "OUTPUT(y)\ny = LUT 0x1 (";
    for (int i = 0; i < 17; ++i) many += (i ? ", i" : "i") + std::to_string(i);
    e = error_of("t.bench", many + ")\n");
    EXPECT_NE(e.find("at most 16 inputs"), std::string::npos) << e;
}

} // namespace
} // namespace gsr::netlist
