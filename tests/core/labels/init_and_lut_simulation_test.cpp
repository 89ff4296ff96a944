// The simulator starts flip-flops from their init values and runs bench LUTs bit-parallel.
#include "label_test_support.hpp"

#include "labels/logic_simulator.hpp"
#include "labels/net_structure.hpp"

#include <gtest/gtest.h>

#include <string>

using gsr::netlist::Circuit;
using namespace gsr::labels;
using gsr::labels::testing::circuit_of;
using gsr::labels::testing::simulate;

namespace {

/// 70 runs (two words, the second partly used), none of the cycles a warm-up.
SimulationOptions sequential(std::uint32_t cycles)
{
    return gsr::labels::testing::sequential_runs(70, cycles, 0, 2);
}

std::uint64_t ones(const Circuit& c, const SimulationResult& r, const char* net)
{
    return r.ones[c.net_names.find(net)];
}

} // namespace

TEST(LatchInitSimulation, TogglingLatchesStartFromTheirInitValue)
{
    // Each q_k toggles every cycle; over 5 cycles it is 1 0 1 0 1 (3 ones) from init 1 and
    // 0 1 0 1 0 (2 ones) from 0. Don't care (2) and unknown (3) start at 0.
    std::string text = ".model t\n.inputs a\n.outputs q0 q1 q2 q3\n";
    for (int k = 0; k < 4; ++k) {
        const std::string q = "q" + std::to_string(k), n = "n" + std::to_string(k);
        text += ".latch " + n + " " + q + " " + std::to_string(k) + "\n";
        text += ".names " + q + " " + n + "\n0 1\n";
    }
    const Circuit c = circuit_of("t.blif", text + ".end\n");
    const SimulationResult r = simulate(c, sequential(5));
    EXPECT_EQ(r.total, 5u * 70u);
    EXPECT_EQ(ones(c, r, "q0"), 2u * 70u);
    EXPECT_EQ(ones(c, r, "q1"), 3u * 70u);
    EXPECT_EQ(ones(c, r, "q2"), 2u * 70u);
    EXPECT_EQ(ones(c, r, "q3"), 2u * 70u);
    EXPECT_EQ(ones(c, r, "n1"), 2u * 70u);
    EXPECT_EQ(r.toggles[c.net_names.find("q1")], 4u * 70u);
}

TEST(LatchInitSimulation, AigerResetOneHoldsOne)
{
    // Latches that hold themselves: reset 1 stays 1, reset 0 and uninitialised stay 0.
    const Circuit c = circuit_of("t.aag", "aag 3 0 3 3 0\n2 2 1\n4 4 0\n6 6 6\n2\n4\n6\n");
    const SimulationResult r = simulate(c, sequential(7));
    EXPECT_EQ(ones(c, r, "l0"), 7u * 70u);
    EXPECT_EQ(ones(c, r, "l1"), 0u);
    EXPECT_EQ(ones(c, r, "l2"), 0u);
}

TEST(LatchInitSimulation, EveryLatchOfTheReferenceDataStartsAtZero)
{
    // So the reference CSVs, made with flip-flops at 0, are still reproduced exactly.
    std::size_t sequential_netlists = 0;
    for (const auto& run : gsr::labels::testing::reference_runs()) {
        const Circuit c =
            gsr::netlist::load_netlist(gsr::labels::testing::netlists_dir() + "/" + run.netlist);
        std::size_t flops = 0;
        for (const auto& cell : c.cells) {
            if (cell.kind != gsr::netlist::CellKind::FlipFlop) continue;
            ++flops;
            EXPECT_EQ(cell.init, gsr::netlist::InitValue::Zero) << run.netlist;
        }
        sequential_netlists += flops > 0;
    }
    EXPECT_GT(sequential_netlists, 0u);
}

namespace {

/// y = LUT(table) next to its gate version g, and x = XOR(y, g): x is never 1 when they agree.
Circuit lut_and_gates(const std::string& inputs, const std::string& lut_line,
                      const std::string& gate_lines)
{
    return circuit_of("t.bench", inputs + "OUTPUT(x)\n" + lut_line + gate_lines +
                                     "x = XOR(y, g)\n");
}

} // namespace

TEST(LutSimulation, MajorityTableEqualsTheGates)
{
    // 0xE8 = rows 3, 5, 6, 7: at least two of (a, b, c) are 1, whatever the bit order.
    const Circuit c = lut_and_gates("INPUT(a)\nINPUT(b)\nINPUT(c)\n", "y = LUT 0xE8 (a, b, c)\n",
                                    "ab = AND(a, b)\nac = AND(a, c)\nbc = AND(b, c)\n"
                                    "g = OR(ab, ac, bc)\n");
    SimulationOptions ex;
    ex.mode = SimulationMode::Exhaustive;
    const SimulationResult all = simulate(c, ex);
    EXPECT_EQ(all.total, 8u);
    EXPECT_EQ(ones(c, all, "y"), 4u);
    EXPECT_EQ(ones(c, all, "x"), 0u);
    SimulationOptions rnd;
    rnd.vectors = 10000;
    rnd.seed = 7;
    rnd.threads = 2;
    const SimulationResult r = simulate(c, rnd);
    EXPECT_EQ(ones(c, r, "x"), 0u);
    EXPECT_EQ(ones(c, r, "y"), ones(c, r, "g"));
    EXPECT_EQ(r.toggles[c.net_names.find("y")], r.toggles[c.net_names.find("g")]);
    EXPECT_GT(ones(c, r, "y"), 4000u); // a fair coin per input: P(majority) = 1/2
}

TEST(LutSimulation, TheFirstInputIsTheLeastSignificantBit)
{
    // 0x2: only row 1, i.e. a = 1 and b = 0; 0x4 would be a = 0 and b = 1.
    const Circuit c = lut_and_gates("INPUT(a)\nINPUT(b)\n", "y = LUT 0x2 (a, b)\n",
                                    "nb = NOT(b)\ng = AND(a, nb)\n");
    SimulationOptions ex;
    ex.mode = SimulationMode::Exhaustive;
    const SimulationResult r = simulate(c, ex);
    EXPECT_EQ(ones(c, r, "y"), 1u);
    EXPECT_EQ(ones(c, r, "x"), 0u);
}

TEST(LutSimulation, SevenInputParityAcrossTwoTableWords)
{
    // Row i is the parity of i: 128 rows, two words, written most significant digit first.
    std::string hex;
    for (int d = 31; d >= 0; --d) {
        int digit = 0;
        for (int b = 0; b < 4; ++b)
            digit |= (__builtin_popcount(static_cast<unsigned>(4 * d + b)) & 1) << b;
        hex += "0123456789ABCDEF"[digit];
    }
    std::string inputs, names;
    for (char v = 'm'; v <= 's'; ++v) { // seven inputs, named apart from g, x, y
        inputs += std::string("INPUT(") + v + ")\n";
        names += std::string(names.empty() ? "" : ", ") + v;
    }
    const Circuit c = lut_and_gates(inputs, "y = LUT 0x" + hex + " (" + names + ")\n",
                                    "g = XOR(" + names + ")\n");
    SimulationOptions ex;
    ex.mode = SimulationMode::Exhaustive;
    const SimulationResult r = simulate(c, ex);
    EXPECT_EQ(r.total, 128u);
    EXPECT_EQ(ones(c, r, "y"), 64u);
    EXPECT_EQ(ones(c, r, "x"), 0u);
}

TEST(LutSimulation, ConstantAndOffSetTables)
{
    // 0xFE is OR (7 of 8 rows: simulated through its off-set); LUT 0x1 () is a constant 1.
    const Circuit c = lut_and_gates("INPUT(a)\nINPUT(b)\nINPUT(c)\n", "y = LUT 0xFE (a, b, c)\n",
                                    "g = OR(a, b, c)\nk = LUT 0x1 ()\nOUTPUT(k)\n");
    SimulationOptions ex;
    ex.mode = SimulationMode::Exhaustive;
    const SimulationResult r = simulate(c, ex);
    EXPECT_EQ(ones(c, r, "y"), 7u);
    EXPECT_EQ(ones(c, r, "x"), 0u);
    EXPECT_EQ(ones(c, r, "k"), 8u);
}
