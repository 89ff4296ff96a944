#include "label_test_support.hpp"
#include "labels/arrival_time.hpp"
#include "labels/net_structure.hpp"
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <string>

using gsr::SourceText;
using gsr::netlist::Circuit;
using gsr::netlist::load_netlist;
using namespace gsr::labels;

using gsr::labels::testing::circuit_of;

TEST(GateDelay, TableOfDefaults)
{
    EXPECT_DOUBLE_EQ(gate_delay("NOT", 1), 1.0);
    EXPECT_DOUBLE_EQ(gate_delay("BUF", 1), 1.0);
    EXPECT_DOUBLE_EQ(gate_delay("NAND", 2), 1.2);
    EXPECT_DOUBLE_EQ(gate_delay("NAND", 4), 1.6);
    EXPECT_DOUBLE_EQ(gate_delay("NOR", 2), 1.4);
    EXPECT_DOUBLE_EQ(gate_delay("XNOR", 2), 2.0);
    EXPECT_DOUBLE_EQ(gate_delay("DFF", 1), 0.0);
    EXPECT_DOUBLE_EQ(gate_delay("SOP", 3), 1.5);
    EXPECT_DOUBLE_EQ(gate_delay("NAND2_X1", 2), 1.2);
    EXPECT_DOUBLE_EQ(gate_delay("sky130_fd_sc_hd__nor2_1", 2), 1.4);
    EXPECT_DOUBLE_EQ(gate_delay("INV_X4", 1), 1.0);
    EXPECT_DOUBLE_EQ(gate_delay("AOI21_X1", 3), 1.6);
    EXPECT_DOUBLE_EQ(gate_delay("WEIRD", 2), 1.0);
}

TEST(ArrivalTime, MaxOfInputsPlusDelayPlusLoad)
{
    // x = NOT(a) feeds y and z (load 2); y = NAND(x, b) feeds z (load 1); z is only a PO.
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(z)\nx = NOT(a)\n"
                                            "y = NAND(x, b)\nz = AND(y, x)\nq = DFF(z)\n");
    const NetStructure s = build_net_structure(c);
    const ArrivalTimes t = compute_arrival_times(c, s, DelayModel{0.1, nullptr});
    auto at = [&](const char* n) { return t.arrival[c.net_names.find(n)]; };
    EXPECT_DOUBLE_EQ(at("a"), 0.0);
    EXPECT_DOUBLE_EQ(at("x"), 1.0 + 0.2);
    EXPECT_DOUBLE_EQ(at("y"), 1.2 + 1.2 + 0.1);
    EXPECT_DOUBLE_EQ(at("z"), 2.5 + 1.6 + 0.1); // the DFF D pin is a load
    EXPECT_DOUBLE_EQ(at("q"), 0.0);             // flip-flop outputs start at 0
    EXPECT_DOUBLE_EQ(t.max_arrival, 4.2);
}

TEST(ArrivalTime, LibraryCellsUseAreaAsTheLoadOfTheirPins)
{
    const Circuit c = circuit_of("t.v", "module t(a, y);\ninput a;\noutput y;\nwire w;\n"
                                        "INV_X1 u1 (.A(a), .ZN(w));\nBUF_X4 u2 (.A(w), .Z(y));\n"
                                        "endmodule\n");
    const NetStructure s = build_net_structure(c);
    const ArrivalTimes plain = compute_arrival_times(c, s, DelayModel{0.1, nullptr});
    EXPECT_DOUBLE_EQ(plain.arrival[c.net_names.find("w")], 1.1);

    gsr::netlist::Library lib;
    auto cell = [](const char* name, double area) {
        gsr::netlist::LibraryCell lc;
        lc.name = name;
        lc.area = area;
        lc.pins = {{"A", gsr::netlist::Direction::Input, {}},
                   {"Z", gsr::netlist::Direction::Output, {}}};
        return lc;
    };
    lib.cells = {cell("INV_X1", 1.0), cell("BUF_X2", 2.0), cell("BUF_X4", 4.0)};
    lib.index();
    const ArrivalTimes t = compute_arrival_times(c, s, DelayModel{0.1, &lib});
    // The median area per input is 2: the BUF_X4 pin counts as a load of 4 / 2 = 2.
    EXPECT_DOUBLE_EQ(t.arrival[c.net_names.find("w")], 1.0 + 0.1 * 2.0);
}
