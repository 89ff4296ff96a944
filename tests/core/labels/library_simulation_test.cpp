// Library cells simulated by their Liberty functions (GSCLib, read in place), against the same
// logic written as bench gates: every net's counts must be equal, vector for vector.
#include "label_test_support.hpp"

#include "netlist/library.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gsr::labels;
using gsr::labels::testing::circuit_of;
using gsr::labels::testing::netlists_dir;
using gsr::labels::testing::sequential_runs;
using gsr::netlist::Circuit;
using gsr::netlist::Library;

namespace {

const Library& gsc_library()
{
    static const Library lib = gsr::netlist::load_libraries(
        {netlists_dir() + "/iwls05_gsclib180/lib/GSCLib_3.0.lib"});
    return lib;
}

Circuit with_gsclib(const std::string& name, const std::string& verilog)
{
    gsr::netlist::LoadOptions load;
    load.library = &gsc_library();
    return gsr::netlist::load_netlist(gsr::SourceText::from_string(name, verilog), load);
}

SimulationResult simulate_with(const Circuit& c, const SimulationOptions& o, const Library* lib)
{
    return LogicSimulator(c, build_net_structure(c), lib).run(o);
}

/// Each named net's ones (and toggles) in both circuits.
void expect_same_counts(const Circuit& cells, const SimulationResult& a, const Circuit& gates,
                        const SimulationResult& b, const std::vector<std::string>& nets)
{
    ASSERT_EQ(a.total, b.total);
    for (const std::string& n : nets) {
        const auto na = cells.net_names.find(n), nb = gates.net_names.find(n);
        ASSERT_NE(na, gsr::kNoName) << n;
        ASSERT_NE(nb, gsr::kNoName) << n;
        EXPECT_EQ(a.ones[na], b.ones[nb]) << n;
        EXPECT_GT(a.ones[na], 0u) << n << " never 1: the comparison would see little";
        EXPECT_LT(a.ones[na], a.total) << n;
        if (a.has_toggles) EXPECT_EQ(a.toggles[na], b.toggles[nb]) << n;
    }
}

} // namespace

TEST(LibrarySimulation, CombinationalCellsByTheirFunctions)
{
    // A full adder (two outputs), AOI21, a mux and OAI22, all their input rows (exhaustive).
    const Circuit cells = with_gsclib("cells.v", R"(module m(a, b, c, d, s, co, y, z);
  input a, b, c, d; output s, co, y, z;
  wire n1;
  ADDFX1 fa(.A(a), .B(b), .CI(c), .S(s), .CO(co));
  AOI21X1 g1(.A0(a), .A1(d), .B0(co), .Y(n1));
  MX2X1 g2(.A(n1), .B(b), .S0(c), .Y(y));
  OAI22X1 g3(.A0(a), .A1(b), .B0(c), .B1(n1), .Y(z));
endmodule
)");
    const Circuit gates = circuit_of("gates.bench", R"(INPUT(a)
INPUT(b)
INPUT(c)
INPUT(d)
OUTPUT(s)
OUTPUT(co)
OUTPUT(y)
OUTPUT(z)
s = XOR(a, b, c)
t1 = AND(a, b)
t2 = AND(b, c)
t3 = AND(c, a)
co = OR(t1, t2, t3)
t4 = AND(a, d)
n1 = NOR(t4, co)
y = MUX(c, b, n1)
t5 = OR(a, b)
t6 = OR(c, n1)
z = NAND(t5, t6)
)");
    SimulationOptions o;
    o.mode = SimulationMode::Exhaustive;
    expect_same_counts(cells, simulate_with(cells, o, &gsc_library()), gates, simulate_with(gates, o, nullptr),
                       {"s", "co", "n1", "y", "z"});
    o.mode = SimulationMode::Random;
    o.vectors = 10000;
    expect_same_counts(cells, simulate_with(cells, o, &gsc_library()), gates, simulate_with(gates, o, nullptr),
                       {"s", "co", "n1", "y", "z"});
}

TEST(LibrarySimulation, FlipFlopsByTheirFfGroups)
{
    // DFFSRX1 with its clear (RN) driven and its preset tied off, Q and QN both read; DFFX1
    // with QN alone (the state row holds the complement); the scan flip-flop's mux as its next
    // state. Clear and preset act at the clock edge, as the gates' AND does.
    const Circuit cells = with_gsclib("flops.v", R"(module f(clk, rst, a, b, q, qn, r);
  input clk, rst, a, b; output q, qn, r;
  wire d, n2;
  XOR2X1 x(.A(a), .B(q), .Y(d));
  DFFSRX1 f1(.D(d), .CK(clk), .RN(rst), .SN(1'b1), .Q(q), .QN(qn));
  DFFX1 f2(.D(b), .CK(clk), .QN(n2));
  SDFFSRX1 f3(.D(a), .SI(b), .SE(n2), .CK(clk), .RN(1'b1), .SN(1'b1), .Q(r));
endmodule
)");
    const Circuit gates = circuit_of("flops.bench", R"(INPUT(clk)
INPUT(rst)
INPUT(a)
INPUT(b)
OUTPUT(q)
OUTPUT(qn)
OUTPUT(r)
d = XOR(a, q)
dm = AND(d, rst)
q = DFF(dm)
qn = NOT(q)
nb = NOT(b)
n2 = DFF(nb)
sel = MUX(n2, b, a)
r = DFF(sel)
)");
    // From the first sampled cycle on the two agree (before it, DFFX1's QN starts at 1 and the
    // bench's n2 at 0).
    const SimulationOptions o = sequential_runs(300, 40, 2);
    expect_same_counts(cells, simulate_with(cells, o, &gsc_library()), gates, simulate_with(gates, o, nullptr),
                       {"q", "qn", "d", "n2", "r"});
}

TEST(LibrarySimulation, ClearAndPresetTogetherFollowClearPresetVar1)
{
    // Where clear and preset both hold at the edge, IQ is the group's clear_preset_var1:
    // L in DFFSRX1 (0), H in SDFFSRX1 (1); it was 0 for both.
    const Circuit cells = with_gsclib("both.v", R"(module b(clk, rn, sn, d, se, si, q1, q2);
  input clk, rn, sn, d, se, si; output q1, q2;
  DFFSRX1 f1(.D(d), .CK(clk), .RN(rn), .SN(sn), .Q(q1));
  SDFFSRX1 f2(.D(d), .SI(si), .SE(se), .CK(clk), .RN(rn), .SN(sn), .Q(q2));
endmodule
)");
    const Circuit gates = circuit_of("both.bench", R"(INPUT(clk)
INPUT(rn)
INPUT(sn)
INPUT(d)
INPUT(se)
INPUT(si)
OUTPUT(q1)
OUTPUT(q2)
nsn = NOT(sn)
p1 = OR(nsn, d)
n1 = AND(rn, p1)
q1 = DFF(n1)
m = MUX(se, si, d)
k2 = AND(rn, m)
n2 = OR(nsn, k2)
q2 = DFF(n2)
)");
    const SimulationOptions o = sequential_runs(256, 30, 1);
    expect_same_counts(cells, simulate_with(cells, o, &gsc_library()), gates,
                       simulate_with(gates, o, nullptr), {"q1", "q2"});
}

TEST(LibrarySimulation, ALefBeforeItsLibertyKeepsTheFunctions)
{
    // LEF then .lib, the usual pairing: the merge kept the LEF's cells and dropped the
    // Liberty's functions and ff groups ("INVX1 has no function for output pin Y").
    const std::string dir = netlists_dir() + "/iwls05_gsclib180/";
    const Library both =
        gsr::netlist::load_libraries({dir + "lib/GSCLib_3.0.lef", dir + "lib/GSCLib_3.0.lib"});
    gsr::netlist::LoadOptions load;
    load.library = &both;
    const Circuit c = gsr::netlist::load_netlist(dir + "netlist/s27.v", load);
    load.library = &gsc_library();
    const Circuit alone = gsr::netlist::load_netlist(dir + "netlist/s27.v", load);
    const SimulationOptions o = sequential_runs(128);
    const SimulationResult a = simulate_with(c, o, &both);
    const SimulationResult b = simulate_with(alone, o, &gsc_library());
    EXPECT_EQ(a.ones, b.ones);
    EXPECT_EQ(a.toggles, b.toggles);
}

TEST(LibrarySimulation, AnEnableFlipFlopReadsItsOwnState)
{
    // next_state "(D EN) + (IQ !EN)" (sky130's edfxtp and most libraries' enable flops) was
    // refused as "'IQ' is not one of its pins (an input left unconnected?)".
    const Library lib = gsr::netlist::read_liberty(gsr::SourceText::from_string("en.lib", R"lib(
library (en) {
  cell (EDFF) {
    ff (IQ, IQN) { next_state : "(D EN) + (IQ !EN)"; clocked_on : "CK"; }
    pin (D) { direction : input; }
    pin (EN) { direction : input; }
    pin (CK) { direction : input; }
    pin (QN) { direction : output; function : "IQN"; }
  }
}
)lib"));
    gsr::netlist::LoadOptions load;
    load.library = &lib;
    const Circuit cells = gsr::netlist::load_netlist(
        gsr::SourceText::from_string("en.v", "module m(clk, d, en, qn);\n input clk, d, en;\n"
                                             " output qn;\n EDFF f(.D(d), .EN(en), .CK(clk), "
                                             ".QN(qn));\nendmodule\n"),
        load);
    const Circuit gates = circuit_of("en.bench", R"(INPUT(clk)
INPUT(d)
INPUT(en)
OUTPUT(qn)
n = MUX(en, d, q)
q = DFF(n)
qn = NOT(q)
)");
    const SimulationOptions o = sequential_runs(256, 30, 1);
    expect_same_counts(cells, simulate_with(cells, o, &lib), gates, simulate_with(gates, o, nullptr),
                       {"qn"});
}

TEST(LibrarySimulation, ClearAndPresetTogetherGiveEachOutputItsVariable)
{
    // Where clear and preset both hold, Q is clear_preset_var1 and QN clear_preset_var2: a
    // DFFSR's L and L make both 0 (QN was taken as Q's complement, 1). Against the same logic
    // as bench gates: Q and QN, QN alone; QN written "!IQ", which stays Q's complement; a
    // next_state that reads IQN with only QN connected (IQ then a state on a net of the
    // program's own); QN connected before Q; and N, which keeps IQN IQ's complement.
    struct Case {
        char var1, var2;
        const char* next; ///< next_state
        const char* qn;   ///< QN's function
        const char* pins; ///< the instance's output connections
        std::vector<std::string> nets;
    };
    const std::vector<Case> cases = {
        {'L', 'L', "D", "IQN", ".Q(q), .QN(qn)", {"q", "qn"}},
        {'L', 'L', "D", "IQN", ".QN(qn)", {"qn"}},
        {'H', 'H', "D", "IQN", ".Q(q), .QN(qn)", {"q", "qn"}},
        {'H', 'H', "D", "IQN", ".QN(qn)", {"qn"}},
        {'L', 'H', "D", "IQN", ".Q(q), .QN(qn)", {"q", "qn"}},
        {'L', 'L', "D", "!IQ", ".QN(qn)", {"qn"}},
        {'H', 'H', "D", "!IQ", ".Q(q), .QN(qn)", {"q", "qn"}},
        {'L', 'L', "(D & !IQN)", "IQN", ".QN(qn)", {"qn"}},
        {'H', 'H', "(D & !IQN)", "IQN", ".QN(qn), .Q(q)", {"q", "qn"}},
        {'L', 'L', "(D & !IQN)", "IQN", ".Q(q)", {"q"}},
        {'N', 'N', "D", "IQN", ".QN(qn), .Q(q)", {"q", "qn"}},
    };
    for (const Case& k : cases) {
        const std::string var1(1, k.var1), var2(1, k.var2);
        const Library lib = gsr::netlist::read_liberty(gsr::SourceText::from_string(
            "sr.lib", "library (sr) { cell (DFFSR) { ff (IQ, IQN) { next_state : \"" +
                          std::string(k.next) + "\"; clocked_on : \"CK\"; clear : \"(!RN)\"; "
                          "preset : \"(!SN)\"; clear_preset_var1 : " + var1 +
                          "; clear_preset_var2 : " + var2 + "; }\n"
                          " pin (D) { direction : input; } pin (CK) { direction : input; }\n"
                          " pin (RN) { direction : input; } pin (SN) { direction : input; }\n"
                          " pin (Q) { direction : output; function : \"IQ\"; }\n"
                          " pin (QN) { direction : output; function : \"" + k.qn + "\"; } } }\n"));
        gsr::netlist::LoadOptions load;
        load.library = &lib;
        const Circuit cells = gsr::netlist::load_netlist(
            gsr::SourceText::from_string(
                "sr.v", std::string("module m(clk, d, rn, sn, q, qn);\n input clk, d, rn, sn;\n"
                                    " output q, qn;\n DFFSR f(.D(d), .CK(clk), .RN(rn), "
                                    ".SN(sn), ") + k.pins + ");\nendmodule\n"),
            load);
        // The gates: IQ in q, IQN stored inverted in qnb (so that it starts at 1).
        const bool apart = k.var1 == k.var2 && (k.var1 == 'L' || k.var1 == 'H');
        std::string bench = "INPUT(clk)\nINPUT(d)\nINPUT(rn)\nINPUT(sn)\nOUTPUT(q)\nOUTPUT(qn)\n"
                            "pr = NOT(sn)\nboth = AND(rn_n, pr)\nrn_n = NOT(rn)\nnb = NOT(both)\n"
                            "iqn = NOT(qnb)\n";
        bench += std::string(k.next) == "D" ? "f = BUFF(d)\n" : "niqn = NOT(iqn)\nf = AND(d, niqn)\n";
        bench += "dq = OR(f, pr)\nloaded = AND(dq, rn)\n";
        bench += k.var1 == 'H' ? "nq = OR(loaded, both)\n" : "nq = BUFF(loaded)\n";
        if (apart)
            bench += std::string("nloaded = NOT(loaded)\nkept = AND(nloaded, nb)\n") +
                     (k.var2 == 'H' ? "nqn = OR(kept, both)\n" : "nqn = BUFF(kept)\n");
        else
            bench += "nqn = NOT(nq)\n";
        bench += "q = DFF(nq)\ninqn = NOT(nqn)\nqnb = DFF(inqn)\n";
        bench += std::string(k.qn) == "IQN" ? "qn = BUFF(iqn)\n" : "qn = NOT(q)\n";
        const Circuit gates = circuit_of("sr.bench", bench);
        const SimulationOptions o = sequential_runs(256, 40, 0);
        SCOPED_TRACE(var1 + var2 + " " + k.next + " QN " + k.qn + " " + k.pins);
        expect_same_counts(cells, simulate_with(cells, o, &lib), gates,
                           simulate_with(gates, o, nullptr), k.nets);
    }
}

TEST(LibrarySimulation, WithoutItsLibraryACellIsNamedWithTheWayOut)
{
    // The refusal of a one-cell module ("module m(...); CELL ...; endmodule"), line 3.
    const auto refusal = [](const std::string& inputs, const std::string& cell,
                            const Library* lib) -> gsr::Error {
        const Circuit c = with_gsclib("one.v", "module m(" + inputs + ", y);\n input " + inputs +
                                                   "; output y;\n " + cell + "\nendmodule\n");
        try {
            (void)LogicSimulator(c, build_net_structure(c), lib);
        } catch (const gsr::Error& e) {
            return e;
        }
        ADD_FAILURE() << "simulated " << cell;
        return gsr::Error("(no error)");
    };
    const gsr::Error inv = refusal("a", "INVX1 g(.A(a), .Y(y));", nullptr);
    EXPECT_EQ(inv.where().line, 3);
    EXPECT_NE(inv.message().find("simulating it needs its Liberty library"), std::string::npos)
        << inv.what();
    // A latch has no clock edge: named as not simulated.
    const gsr::Error latch = refusal("d, g", "TLATX1 l(.D(d), .G(g), .Q(y));", &gsc_library());
    EXPECT_NE(latch.message().find("is a latch (library cell TLATX1)"), std::string::npos)
        << latch.what();
    // A tri-state buffer's function holds only while enabled: refused, not run as a buffer.
    const gsr::Error tbuf = refusal("a, e", "TBUFX1 t(.A(a), .OE(e), .Y(y));", &gsc_library());
    EXPECT_NE(tbuf.message().find("is tri-state (three_state \"(!OE)\")"), std::string::npos)
        << tbuf.what();
    // An input left out of the instance is named as such.
    const gsr::Error open = refusal("a", "NAND2X1 n(.A(a), .Y(y));", &gsc_library());
    EXPECT_NE(open.message().find("(its input pin B is not connected)"), std::string::npos)
        << open.what();
}

TEST(LibrarySimulation, ALefAloneIsNamedAsGivingPinsOnly)
{
    // With GSCLib's LEF alone (offered beside the Liberty wherever libraries are chosen), a
    // DFFSRX1 was refused as "a latch", and a gate's missing function said nothing of why.
    const std::string dir = netlists_dir() + "/iwls05_gsclib180/";
    const Library lef = gsr::netlist::load_libraries({dir + "lib/GSCLib_3.0.lef"});
    gsr::netlist::LoadOptions load;
    load.library = &lef;
    const Circuit c = gsr::netlist::load_netlist(dir + "netlist/s27.v", load);
    try {
        (void)LogicSimulator(c, build_net_structure(c), &lef);
        FAIL() << "simulated s27 by a LEF";
    } catch (const gsr::Error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.find("latch"), std::string::npos) << what;
        EXPECT_NE(what.find("(a LEF gives its pins only: give its Liberty library too)"),
                  std::string::npos)
            << what;
    }
    // Its pin directions are the LEF's: nothing guessed.
    EXPECT_TRUE(c.diagnostics.warnings().empty());
}

TEST(LibrarySimulation, IwlsNetlistsSimulateOnGscLib)
{
    // The synthesized ISCAS-89 circuits: every net of s1196 gets a count, its flip-flops
    // (DFFSRX1) included, and the runs are the same for any thread count.
    gsr::netlist::LoadOptions load;
    load.library = &gsc_library();
    const Circuit c =
        gsr::netlist::load_netlist(netlists_dir() + "/iwls05_gsclib180/netlist/s1196.v", load);
    const NetStructure s = build_net_structure(c);
    SimulationOptions o = sequential_runs(512);
    o.threads = 1;
    const LogicSimulator sim(c, s, &gsc_library());
    const SimulationResult one = sim.run(o);
    o.threads = 2;
    const SimulationResult two = sim.run(o);
    EXPECT_EQ(one.ones, two.ones);
    EXPECT_EQ(one.toggles, two.toggles);
    std::size_t state = 0, varying = 0;
    for (gsr::netlist::NetId n : s.rows) {
        state += s.is_state[n];
        varying += one.ones[n] > 0 && one.ones[n] < one.total;
    }
    EXPECT_EQ(state, 18u); // s1196's 18 flip-flops (COUNTS.csv)
    EXPECT_GT(varying, s.rows.size() * 9 / 10);
}
