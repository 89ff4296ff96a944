#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

using gsr::SourceText;
using namespace gsr::graph;
using namespace gsr::netlist;

namespace {

CircuitGraph graph_of(const std::string& name, const std::string& text)
{
    return build_graph(load_netlist(SourceText::from_string(name, text)));
}

std::string data(const std::string& rel) { return std::string(GSR_DATA_DIR) + "/netlists/" + rel; }

} // namespace

TEST(CircuitGraph, NodesArePrimaryInputsThenCells)
{
    const auto g = graph_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = AND(a, b)\n");
    EXPECT_EQ(g.node_count(), 3u);
    EXPECT_EQ(g.edge_count(), 2u);
    EXPECT_EQ(g.flags[0], kNodePrimaryInput);
    EXPECT_EQ(g.flags[2], kNodePrimaryOutput);
    EXPECT_EQ(g.type_names[g.type[2]], "AND");
}

TEST(CircuitGraph, FaninAndFanoutHoldTheSameEdges)
{
    const auto g = graph_of("t.bench", "INPUT(a)\nOUTPUT(z)\nx = NOT(a)\ny = BUF(a)\nz = OR(x, y, a)\n");
    ASSERT_EQ(g.edge_count(), 5u);
    EXPECT_EQ(g.fanout.degree(0), 3u); // a feeds x, y, z
    EXPECT_EQ(g.fanin.degree(3), 3u);  // z reads x, y, a
    std::size_t sum = 0;
    for (NodeId v = 0; v < g.node_count(); ++v) sum += g.fanin.degree(v);
    EXPECT_EQ(sum, g.edge_count());
}

TEST(CircuitGraph, LevelIsLongestPathAndReverseLevelToOutputs)
{
    const auto g = graph_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(z)\nx = NOT(a)\ny = AND(x, b)\nz = OR(y, a)\n");
    // nodes: a=0 b=1 x=2 y=3 z=4
    EXPECT_EQ(g.level[4], 3u);
    EXPECT_EQ(g.level[3], 2u);
    EXPECT_EQ(g.max_level, 3u);
    EXPECT_EQ(g.reverse_level[0], 3u); // a -> x -> y -> z
    EXPECT_EQ(g.reverse_level[1], 2u);
    EXPECT_EQ(g.reverse_level[4], 0u);
}

TEST(CircuitGraph, SequentialLoopsAreCutAtFlipFlops)
{
    const auto g = graph_of("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(d)\nd = XOR(a, q)\n");
    EXPECT_EQ(g.loop_nodes, 0u);
    EXPECT_EQ(g.level[1], 0u); // the flip-flop is a source
    EXPECT_EQ(g.level[2], 1u);
    EXPECT_TRUE(g.flags[1] & kNodeFlipFlop);
    EXPECT_EQ(g.edge_count(), 3u); // d->q is kept as an edge, only levelling ignores it
}

TEST(CircuitGraph, CombinationalLoopIsReportedNotFatal)
{
    gsr::Diagnostics d;
    const auto c = load_netlist(SourceText::from_string("t.bench", "INPUT(a)\nOUTPUT(y)\nx = AND(a, y)\ny = NOT(x)\n"));
    const auto g = build_graph(c, &d);
    EXPECT_EQ(g.loop_nodes, 2u);
    ASSERT_FALSE(d.warnings().empty());
    EXPECT_NE(d.warnings().back().message.find("combinational loops"), std::string::npos);
}

TEST(CircuitGraph, ALoopTakesOneLevelAndWhatFollowsItIsLevelledPastIt)
{
    // nodes: a=0 x=1 y=2 z=3 w=4; x and y form a loop fed by a, and z, w follow it.
    const auto g = graph_of("t.bench", "INPUT(a)\nOUTPUT(w)\nx = AND(a, y)\ny = NOT(x)\n"
                                       "z = BUF(y)\nw = NOT(z)\n");
    using Levels = std::vector<std::uint32_t>;
    EXPECT_EQ(g.loop_nodes, 2u);
    EXPECT_EQ(g.level, (Levels{0, 1, 1, 2, 3})); // z was 0 when Kahn's algorithm stopped at the loop
    EXPECT_EQ(g.max_level, 3u);
    EXPECT_EQ(g.reverse_level, (Levels{3, 2, 2, 1, 0}));

    // A cell reading its own output is a loop of one; two loops in a row take a level each.
    const auto self = graph_of("t.bench", "INPUT(a)\nOUTPUT(q)\nx = AND(a, x)\n"
                                          "p = OR(x, q)\nq = NOT(p)\n");
    EXPECT_EQ(self.loop_nodes, 3u);
    EXPECT_EQ(self.level, (Levels{0, 1, 2, 2})); // a, x, then the loop of p and q
}

TEST(CircuitGraph, ATransistorNetIsAStarAroundItsFirstChannelNotManyDrivers)
{
    // Two CMOS inverters. Sources and drains are bidirectional: every one "drove" its net, the
    // first won, the rest read nothing (74 nets of adder_mos.cir had "more than one driver").
    gsr::Diagnostics d;
    const auto c = load_netlist(SourceText::from_string(
        "inv.sp", "* two inverters\nM1 out in vdd vdd pch\nM2 out in 0 0 nch\n"
                  "M3 y out vdd vdd pch\nM4 y out 0 0 nch\nV1 vdd 0 DC 1\n.end\n"));
    const auto g = build_graph(c, &d);
    // nodes: M1=0 M2=1 M3=2 M4=3 V1=4 (no ports)
    ASSERT_EQ(g.node_count(), 5u);
    for (const gsr::Warning& w : d.warnings())
        EXPECT_EQ(w.message.find("more than one driver"), std::string::npos) << w.message;
    EXPECT_EQ(g.fanin.degree(0), 0u); // M1 is the first channel of out and vdd
    EXPECT_EQ(g.fanin.degree(1), 1u); // M2's drain reads out; it is the first on 0
    EXPECT_EQ(g.fanin.degree(2), 3u); // M3: its gate reads out, its source and bulk vdd
    EXPECT_EQ(g.fanin.degree(3), 4u); // M4: gate (out), drain (y), source and bulk (0)
    EXPECT_EQ(g.fanin.degree(4), 2u); // V1: vdd from M1, 0 from M2
    EXPECT_EQ(g.edge_count(), 10u);
    EXPECT_EQ(g.loop_nodes, 0u);

    // An inverter driven by a source whose other end is ground, which the first channel also
    // holds: VIN -> M1 -> M2 -> (ground) -> VIN is a cycle of the star graph, but channels
    // conduct both ways: no combinational loop is reported.
    gsr::Diagnostics flat_diag;
    const auto flat = build_graph(
        load_netlist(SourceText::from_string(
            "flat.sp", "simple inverter\nM1 out in vdd vdd pch\nM2 out in 0 0 nch\n"
                       "VDD vdd 0 1.8\nVIN in 0 PULSE(0 1.8 0 1n 1n 5n 10n)\n"
                       ".model nch nmos level=1\n.model pch pmos level=1\n.end\n")),
        &flat_diag);
    EXPECT_EQ(flat.loop_nodes, 0u);
    for (const gsr::Warning& w : flat_diag.warnings())
        EXPECT_EQ(w.message.find("loops"), std::string::npos) << w.message;

    // The whole adder: no net has two drivers, and each transistor's channel is in the graph.
    gsr::Diagnostics adder;
    const auto a = build_graph(load_netlist(data("spice/adder_mos.cir")), &adder);
    for (const gsr::Warning& w : adder.warnings())
        EXPECT_EQ(w.message.find("more than one driver"), std::string::npos) << w.message;
    EXPECT_EQ(a.node_count(), 153u);
}

TEST(CircuitGraph, ASecondDriverIsAWarningAtItsLineNamingBoth)
{
    gsr::Diagnostics d;
    const auto c = load_netlist(SourceText::from_string(
        "t.blif", ".model m\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.names a y\n0 1\n.end\n"));
    const auto g = build_graph(c, &d);
    ASSERT_FALSE(d.warnings().empty());
    const gsr::Warning& w = d.warnings().front();
    EXPECT_EQ(w.where.line, 6);
    EXPECT_EQ(w.message, "1 net(s) have more than one driver; the first one is used (net 'y': "
                         "cell 'y' of type 'BUF' after cell 'y' of type 'AND' on line 4)");
    EXPECT_EQ(g.fanin.targets.size(), 3u); // both cells' inputs: a, b into the AND, a into the BUF

    // Four drivers of one net are one net with more than one driver (it said "3 net(s)").
    gsr::Diagnostics four;
    build_graph(load_netlist(SourceText::from_string(
                    "t.blif", ".model m\n.inputs a\n.outputs y\n.names a y\n0 1\n.names a y\n1 1\n"
                              ".names a y\n0 1\n.names a y\n1 1\n.end\n")),
                &four);
    ASSERT_FALSE(four.warnings().empty());
    EXPECT_EQ(four.warnings().front().message.rfind("1 net(s) have more than one driver", 0), 0u)
        << four.warnings().front().message;
}

TEST(CircuitGraph, DeepChainNeedsNoRecursion)
{
    // 200,000 inverters in a row: any recursive traversal would overflow the stack.
    const int n = 200000;
    std::string text = "INPUT(n0)\nOUTPUT(n" + std::to_string(n) + ")\n";
    for (int i = 1; i <= n; ++i) text += "n" + std::to_string(i) + " = NOT(n" + std::to_string(i - 1) + ")\n";
    const auto g = graph_of("chain.bench", text);
    EXPECT_EQ(g.max_level, static_cast<std::uint32_t>(n));
    EXPECT_EQ(g.reverse_level[0], static_cast<std::uint32_t>(n));

    // The same chain closed into one loop: the strongly connected components walk it too.
    std::string loop = "INPUT(a)\nOUTPUT(n" + std::to_string(n) + ")\nn1 = AND(a, n" + std::to_string(n) + ")\n";
    loop += text.substr(text.find("n2 = "));
    const auto closed = graph_of("loop.bench", loop);
    EXPECT_EQ(closed.loop_nodes, static_cast<std::size_t>(n));
    EXPECT_EQ(closed.max_level, 1u);
    EXPECT_EQ(closed.reverse_level[0], 1u);
}

TEST(CircuitGraph, FeaturesAreOneHotTypeDegreesAndFlags)
{
    const auto g = graph_of("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(x)\nx = NOT(a)\n");
    const auto x = g.features();
    const std::size_t f = g.feature_count();
    ASSERT_EQ(x.size(), g.node_count() * f);
    const std::size_t t = g.type_names.size();
    for (NodeId v = 0; v < g.node_count(); ++v) {
        const float* row = x.data() + v * f;
        EXPECT_FLOAT_EQ(std::accumulate(row, row + t, 0.0f), 1.0f);
        EXPECT_FLOAT_EQ(row[g.type[v]], 1.0f);
        EXPECT_FLOAT_EQ(row[t], static_cast<float>(g.fanin.degree(v)));
        EXPECT_FLOAT_EQ(row[t + 1], static_cast<float>(g.fanout.degree(v)));
    }
    EXPECT_FLOAT_EQ(x[1 * f + t + 4], 1.0f); // q is a flip-flop
    EXPECT_FLOAT_EQ(x[1 * f + t + 3], 1.0f); // and drives the output
    EXPECT_FLOAT_EQ(x[0 * f + t + 2], 1.0f); // a is a primary input
}

TEST(CircuitGraph, AigerInversionsAreEdgeAttributes)
{
    const auto g = graph_of("t.aag", "aag 3 2 0 1 1\n2\n4\n7\n6 3 4\n");
    EXPECT_EQ(g.node_count(), 3u);
    ASSERT_EQ(g.edge_count(), 2u);
    EXPECT_EQ(g.fanin.inverted[g.fanin.offsets[2]] + g.fanin.inverted[g.fanin.offsets[2] + 1], 1);
}

TEST(CircuitGraph, HypIs24801LevelsDeep)
{
    const auto c = load_netlist(data("epfl/arithmetic/hyp.aig"));
    const auto g = build_graph(c);
    EXPECT_EQ(g.node_count(), static_cast<std::size_t>(*c.counts.inputs + *c.counts.cells));
    EXPECT_EQ(g.edge_count(), 2u * static_cast<std::size_t>(*c.counts.cells));
    EXPECT_EQ(g.max_level, 24801u);
}
