#include "label_test_support.hpp"
#include "labels/net_levels.hpp"
#include "labels/net_structure.hpp"
#include "netlist/readers.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>

using gsr::SourceText;
using gsr::netlist::Circuit;
using gsr::netlist::load_netlist;
using namespace gsr::labels;

using gsr::labels::testing::circuit_of;

TEST(NetStructure, RowsArePrimaryInputsThenNetsInCellOrder)
{
    const Circuit c =
        circuit_of("t.bench", "INPUT(b)\nINPUT(a)\nOUTPUT(z)\nz = OR(y, a)\ny = AND(a, b)\n");
    const NetStructure s = build_net_structure(c);
    std::vector<std::string> names;
    for (NetId n : s.rows) names.emplace_back(c.net_name(n));
    EXPECT_EQ(names, (std::vector<std::string>{"b", "a", "z", "y"}));
    // Levelized: y (level 1) before z (level 2), although z comes first in the file.
    ASSERT_EQ(s.order.size(), 2u);
    EXPECT_EQ(c.net_name(s.outputs(s.order[0])[0]), "y");
}

TEST(NetLevels, LevelIsLongestPathAndRevLevelCountsCombinationalReaders)
{
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(z)\nx = NOT(a)\n"
                                            "y = AND(x, b)\nz = OR(y, a)\n");
    const NetStructure s = build_net_structure(c);
    const NetLevels l = compute_net_levels(s);
    auto n = [&](const char* name) { return c.net_names.find(name); };
    EXPECT_EQ(l.level[n("a")], 0u);
    EXPECT_EQ(l.level[n("x")], 1u);
    EXPECT_EQ(l.level[n("y")], 2u);
    EXPECT_EQ(l.level[n("z")], 3u);
    EXPECT_EQ(l.max_level, 3u);
    EXPECT_EQ(l.rev_level[n("z")], 0u); // only a primary output
    EXPECT_EQ(l.rev_level[n("y")], 1u);
    EXPECT_EQ(l.rev_level[n("x")], 2u);
    EXPECT_EQ(l.rev_level[n("a")], 3u); // a -> x -> y -> z
    EXPECT_EQ(l.rev_level[n("b")], 2u);
}

TEST(NetLevels, FlipFlopsCutTheGraphAndConstantsAreLevelZero)
{
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(d)\nd = XOR(a, q)\n"
                                            "k = VDD\ne = AND(k, d)\nOUTPUT(e)\n");
    const NetStructure s = build_net_structure(c);
    const NetLevels l = compute_net_levels(s);
    auto n = [&](const char* name) { return c.net_names.find(name); };
    EXPECT_EQ(l.level[n("q")], 0u);
    EXPECT_EQ(l.level[n("k")], 0u);
    EXPECT_EQ(l.level[n("d")], 1u);
    EXPECT_EQ(l.level[n("e")], 2u);
    EXPECT_EQ(l.rev_level[n("d")], 1u); // feeds e; the DFF D-pin does not count
    EXPECT_EQ(l.rev_level[n("q")], 2u);
    EXPECT_EQ(s.is_state[n("q")], 1u);
    EXPECT_EQ(s.sinks(n("d")).size(), 2u); // fanout counts the D pin
}

TEST(NetLevels, DeepChainsNeedNoRecursion)
{
    std::string text = "INPUT(n0)\nOUTPUT(n200000)\n";
    for (int i = 1; i <= 200000; ++i)
        text += "n" + std::to_string(i) + " = NOT(n" + std::to_string(i - 1) + ")\n";
    const Circuit c = circuit_of("t.bench", text);
    const NetLevels l = compute_net_levels(build_net_structure(c));
    EXPECT_EQ(l.max_level, 200000u);
    EXPECT_EQ(l.rev_level[c.net_names.find("n0")], 200000u);
}

TEST(NetStructure, ACombinationalLoopIsAnErrorNamingANetOnItAndItsDriversLine)
{
    // The walk back from z (not on the loop) meets y, x, then y again: y's net and line.
    const Circuit c =
        circuit_of("t.bench", "INPUT(a)\nOUTPUT(z)\nz = BUF(y)\ny = AND(a, x)\nx = NOT(y)\n");
    try {
        build_net_structure(c);
        FAIL() << "expected gsr::Error";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "t.bench:4: error: combinational loop through net 'y' (driven by cell 'y' of "
                  "type 'AND'): the labels need an acyclic circuit (cut loops with flip-flops)");
    }
}
