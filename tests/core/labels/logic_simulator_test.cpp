#include "label_test_support.hpp"

#include "labels/logic_simulator.hpp"
#include "labels/net_structure.hpp"
#include "labels/splitmix64.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>

using gsr::SourceText;
using gsr::netlist::Circuit;
using gsr::netlist::load_netlist;
using namespace gsr::labels;
using namespace gsr::labels::testing;

namespace {

using gsr::labels::testing::circuit_of;

SimulationOptions exhaustive(unsigned threads = 1)
{
    SimulationOptions o;
    o.mode = SimulationMode::Exhaustive;
    o.threads = threads;
    return o;
}

/// ones and toggles of every net by the scalar evaluator, one vector at a time, with the
/// README's stimulus layout computed here from SplitMix64::next().
struct ScalarCounts {
    std::vector<std::uint64_t> ones, toggles;
};

ScalarCounts scalar_random(const Circuit& c, std::uint64_t n, std::uint64_t seed)
{
    const NetStructure s = build_net_structure(c);
    const std::size_t words = (n + 63) / 64;
    std::vector<std::vector<std::uint64_t>> stimulus;
    SplitMix64 rng(seed);
    for (std::size_t i = 0; i < s.primary_inputs.size(); ++i) {
        stimulus.emplace_back();
        for (std::size_t w = 0; w < words; ++w) stimulus.back().push_back(rng.next());
    }
    ScalarEvaluator eval(c);
    ScalarCounts r{std::vector<std::uint64_t>(c.net_count(), 0),
                   std::vector<std::uint64_t>(c.net_count(), 0)};
    std::vector<int> previous;
    for (std::uint64_t v = 0; v < n; ++v) {
        std::vector<int> values(c.net_count(), -1);
        for (std::size_t i = 0; i < s.primary_inputs.size(); ++i)
            values[s.primary_inputs[i]] = static_cast<int>((stimulus[i][v / 64] >> (v % 64)) & 1u);
        eval.evaluate(values);
        for (std::size_t k = 0; k < values.size(); ++k) {
            r.ones[k] += values[k] == 1;
            if (v > 0) r.toggles[k] += values[k] != previous[k];
        }
        previous = values;
    }
    return r;
}

} // namespace

TEST(SplitMix64, FirstOutputsForSeed2024AreTheReadmeOnes)
{
    SplitMix64 rng(2024);
    EXPECT_EQ(rng.next(), 0x9f6d8fecf88eecd5ull);
    EXPECT_EQ(rng.next(), 0x18e430bb1511f2d2ull);
    EXPECT_EQ(rng.next(), 0x4c6f7cbf58dba57full);
}

TEST(SplitMix64, DirectAccessEqualsTheStream)
{
    SplitMix64 rng(7);
    for (std::uint64_t k = 0; k < 1000; ++k) ASSERT_EQ(SplitMix64::at(7, k), rng.next()) << k;
}

TEST(SplitMix64, FirstVectorsOfC432FirstInputAreTheReadmeOnes)
{
    const std::uint64_t w = SplitMix64::at(2024, 0); // PI 0, word 0
    const int want[8] = {1, 0, 1, 0, 1, 0, 1, 1};
    for (int v = 0; v < 8; ++v) EXPECT_EQ(static_cast<int>((w >> v) & 1u), want[v]) << v;
}

TEST(LogicSimulator, ExhaustiveC17EqualsBruteForceOverAll32Vectors)
{
    const Circuit c = load_netlist(netlists_dir() + "/iscas85/bench/c17.bench");
    const NetStructure s = build_net_structure(c);
    ASSERT_EQ(s.primary_inputs.size(), 5u);
    std::vector<std::uint64_t> ones(c.net_count(), 0);
    ScalarEvaluator eval(c);
    for (unsigned v = 0; v < 32; ++v) {
        std::vector<int> values(c.net_count(), -1);
        for (std::size_t i = 0; i < 5; ++i) values[s.primary_inputs[i]] = (v >> i) & 1u;
        eval.evaluate(values);
        for (std::size_t k = 0; k < values.size(); ++k) ones[k] += values[k] == 1;
    }
    const SimulationResult r = simulate(c, exhaustive());
    EXPECT_EQ(r.total, 32u);
    EXPECT_FALSE(r.has_toggles);
    EXPECT_EQ(r.ones, ones);
    EXPECT_EQ(r.ones[c.net_names.find("22")], 18u); // NAND(10, 16): P = 18/32, the README's check
}

TEST(LogicSimulator, RandomTogglesEqualScalarOnesAcrossWordAndThreadBorders)
{
    // 1,000 vectors: not a multiple of 64, so the last word is partial; 3 threads split the
    // 16 words at odd places.
    const Circuit c = load_netlist(netlists_dir() + "/iscas85/bench/c17.bench");
    const ScalarCounts want = scalar_random(c, 1000, 99);
    for (unsigned threads : {1u, 3u, 4u}) {
        const SimulationResult r = simulate(c, random_vectors(1000, 99, threads));
        EXPECT_EQ(r.total, 1000u);
        EXPECT_EQ(r.toggle_total, 999u);
        EXPECT_EQ(r.ones, want.ones) << threads << " threads";
        EXPECT_EQ(r.toggles, want.toggles) << threads << " threads";
    }
}

TEST(LogicSimulator, ThreadCountDoesNotChangeResults)
{
    const Circuit comb = load_netlist(netlists_dir() + "/iscas85/bench/c6288.bench");
    const LogicSimulator sim(comb, build_net_structure(comb));
    const SimulationResult one = sim.run(random_vectors(65536, 2024, 1));
    const SimulationResult four = sim.run(random_vectors(65536, 2024, 4));
    EXPECT_EQ(one.ones, four.ones);
    EXPECT_EQ(one.toggles, four.toggles);

    const Circuit blif = load_netlist(netlists_dir() + "/epfl/random_control/int2float.blif");
    const LogicSimulator exh(blif, build_net_structure(blif));
    EXPECT_EQ(exh.run(exhaustive(1)).ones, exh.run(exhaustive(4)).ones);

    const Circuit seq = load_netlist(netlists_dir() + "/iscas89/bench/s1196.bench");
    const LogicSimulator cyc(seq, build_net_structure(seq));
    SimulationOptions o = sequential_runs(1000, 20, 4, 1); // 16 words, the last one partial
    const SimulationResult s1 = cyc.run(o);
    o.threads = 4;
    const SimulationResult s4 = cyc.run(o);
    EXPECT_EQ(s1.ones, s4.ones);
    EXPECT_EQ(s1.toggles, s4.toggles);
    EXPECT_EQ(s1.total, 16u * 1000u);
    EXPECT_EQ(s1.toggle_total, 15u * 1000u);
}

TEST(LogicSimulator, FlipFlopsStartAtZeroAndLoadOncePerCycle)
{
    // q toggles every cycle: 0 1 0 1 ... in every run; r follows q one cycle later.
    const Circuit c =
        circuit_of("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(d)\nd = NOT(q)\nr = DFF(q)\n");
    // Samples cycles 3..9: q = 1 0 1 0 1 0 1.
    const SimulationResult r = simulate(c, sequential_runs(100, 10, 3, 2));
    EXPECT_EQ(r.total, 700u);
    EXPECT_EQ(r.ones[c.net_names.find("q")], 400u);
    EXPECT_EQ(r.ones[c.net_names.find("d")], 300u);
    EXPECT_EQ(r.ones[c.net_names.find("r")], 300u); // r = q of the cycle before: 0 1 0 1 0 1 0
    EXPECT_EQ(r.toggles[c.net_names.find("q")], 600u);
    EXPECT_EQ(r.toggle_total, 600u);
}

TEST(LogicSimulator, OneSampleHasNoTogglesRatherThanARateOfZero)
{
    // One vector, or one cycle past the warm-up, has no consecutive pair: no toggle rate, where
    // a rate of 0 would claim a net that never switches.
    const Circuit comb = load_netlist(netlists_dir() + "/iscas85/bench/c17.bench");
    const SimulationResult one = simulate(comb, random_vectors(1, 5, 1));
    EXPECT_EQ(one.total, 1u);
    EXPECT_EQ(one.toggle_total, 0u);
    EXPECT_FALSE(one.has_toggles);
    EXPECT_TRUE(simulate(comb, random_vectors(2, 5, 1)).has_toggles);

    const Circuit seq =
        circuit_of("t.bench", "INPUT(a)\nOUTPUT(q)\nq = DFF(d)\nd = NOT(q)\n");
    SimulationOptions o = sequential_runs(10, 4, 3);
    const SimulationResult last = simulate(seq, o);
    EXPECT_EQ(last.total, 10u);
    EXPECT_FALSE(last.has_toggles);
    o.warmup = 2;
    const SimulationResult two = simulate(seq, o);
    EXPECT_TRUE(two.has_toggles);
    EXPECT_EQ(two.toggles[seq.net_names.find("q")], 10u);
}

TEST(LogicSimulator, VerilogGatesSeeTheirConstantInputs)
{
    // A miter whose outputs are 0 for every input (yosys `sat -prove` agrees): a gate input
    // tied to 1'b0 or 1'b1 was left unconnected, so xor(x1, a, 1'b1) was a buffer of a and
    // every output came out 1 or 0.5.
    const Circuit c = circuit_of(
        "t.v", "module top(input a, input b, output d0, output d1, output d2);\n"
               "  wire x1, x2, o1, o2, na, n1, n2;\n"
               "  xor (x1, a, 1'b1); not (x2, a); xor (d0, x1, x2);\n"
               "  or (o1, a, 1'b1); not (na, a); or (o2, a, na); xor (d1, o1, o2);\n"
               "  nor (n1, b, 1'b1); and (n2, b, 1'b0); or (d2, n1, n2);\n"
               "endmodule\n");
    const SimulationResult r = simulate(c, exhaustive());
    EXPECT_EQ(r.total, 4u);
    for (const char* out : {"d0", "d1", "d2"}) EXPECT_EQ(r.ones[c.net_names.find(out)], 0u) << out;
    EXPECT_EQ(r.ones[c.net_names.find("x1")], 2u); // not a
    EXPECT_EQ(r.ones[c.net_names.find("o1")], 4u); // always 1
    EXPECT_EQ(r.ones[c.net_names.find("1'b1")], 4u);
    EXPECT_EQ(r.ones[c.net_names.find("1'b0")], 0u);
}

TEST(LogicSimulator, MuxSelectsItsFirstDataInputWhenTheSelectIsOne)
{
    // ABC's bench MUX: y = MUX(s, a, b) = s ? a : b.
    const Circuit c = circuit_of("t.bench", "INPUT(s)\nINPUT(a)\nINPUT(b)\nOUTPUT(y)\n"
                                            "y = MUX(s, a, b)\nOUTPUT(z)\nz = AND(s, a)\n");
    const SimulationResult r = simulate(c, exhaustive());
    // y = 1 for s=1,a=1 (2 vectors) and s=0,b=1 (2 vectors)
    EXPECT_EQ(r.ones[c.net_names.find("y")], 4u);
    ScalarEvaluator eval(c);
    const NetStructure s = build_net_structure(c);
    std::uint64_t ones = 0;
    for (unsigned v = 0; v < 8; ++v) {
        std::vector<int> values(c.net_count(), -1);
        for (std::size_t i = 0; i < 3; ++i) values[s.primary_inputs[i]] = (v >> i) & 1u;
        eval.evaluate(values);
        const bool sel = v & 1u, a = v & 2u, b = v & 4u;
        EXPECT_EQ(values[c.net_names.find("y")], sel ? a : b);
        ones += values[c.net_names.find("y")];
    }
    EXPECT_EQ(ones, 4u);
}

TEST(LogicSimulator, AigerInvertedEdgesAreComplemented)
{
    // y = !a & b; z = !(y) & !a, output z inverted: the net z itself is counted.
    const Circuit c = circuit_of("t.aag", "aag 4 2 0 2 2\n2\n4\n6\n9\n6 3 4\n8 7 3\n");
    const SimulationResult r = simulate(c, exhaustive());
    const NetStructure s = build_net_structure(c);
    ASSERT_EQ(s.primary_inputs.size(), 2u);
    // Vectors (a, b): 00 01 10 11 with a = bit 0. n3 = !a & b: only a=0,b=1.
    EXPECT_EQ(r.ones[c.net_names.find("n3")], 1u);
    // n4 = !n3 & !a: a=0 and not (b=1): only a=0,b=0.
    EXPECT_EQ(r.ones[c.net_names.find("n4")], 1u);
}

TEST(LogicSimulator, BlifCoversOnAndOffSetWithDontCares)
{
    const Circuit c = circuit_of("t.blif", ".model t\n.inputs a b c\n.outputs x y k\n"
                                           ".names a b c x\n1-1 1\n01- 1\n"
                                           ".names a b c y\n1-1 0\n01- 0\n"
                                           ".names k\n1\n.end\n");
    const SimulationResult r = simulate(c, exhaustive());
    // x = a&c | !a&b: a=1,c=1 (2 of 8) + a=0,b=1 (2 of 8) = 4; y is its complement.
    EXPECT_EQ(r.ones[c.net_names.find("x")], 4u);
    EXPECT_EQ(r.ones[c.net_names.find("y")], 4u);
    EXPECT_EQ(r.ones[c.net_names.find("k")], 8u);
    ScalarEvaluator eval(c);
    const NetStructure s = build_net_structure(c);
    for (unsigned v = 0; v < 8; ++v) {
        std::vector<int> values(c.net_count(), -1);
        for (std::size_t i = 0; i < 3; ++i) values[s.primary_inputs[i]] = (v >> i) & 1u;
        eval.evaluate(values);
        EXPECT_NE(values[c.net_names.find("x")], values[c.net_names.find("y")]);
    }
}

TEST(LogicSimulator, AnUnsimulableCellIsAnErrorNamingIt)
{
    const Circuit inst = circuit_of("t.v", "module t(a, y);\ninput a;\noutput y;\n"
                                           "INV_X1 u7 (.A(a), .ZN(y));\nendmodule\n");
    try {
        LogicSimulator sim(inst, build_net_structure(inst));
        FAIL() << "expected gsr::Error";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 4) << e.what(); // the instance's line
        EXPECT_NE(std::string(e.what()).find("'u7'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("INV_X1"), std::string::npos) << e.what();
    }

    const Circuit expr = circuit_of("t.v", "module t(a, b, y);\ninput [1:0] a, b;\n"
                                           "output [1:0] y;\nassign y = a + b;\nendmodule\n");
    EXPECT_THROW(LogicSimulator(expr, build_net_structure(expr)), gsr::Error);
}

TEST(LogicSimulator, ASecondDriverIsAnErrorAtItsLineNamingBothDrivers)
{
    const Circuit c = circuit_of("t.v", "module t(a, b, y);\n"
                                        "  input a, b;\n"
                                        "  output y;\n"
                                        "  and g1(y, a, b);\n"
                                        "  or g2(y,\n"
                                        "        a, b);\n"
                                        "endmodule\n");
    try {
        LogicSimulator sim(c, build_net_structure(c));
        FAIL() << "expected gsr::Error";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "t.v:5: error: net 'y' has more than one driver: cell 'g2' of type 'OR' and "
                  "cell 'g1' of type 'AND' on line 4 (1 such net); simulation needs one driver "
                  "per net");
    }

    // A cell driving a primary input: the port has no line of its own.
    const Circuit pi = circuit_of("t.v", "module t(a, y);\ninput a;\noutput y;\n"
                                         "not g1(a, y);\nendmodule\n");
    try {
        LogicSimulator sim(pi, build_net_structure(pi));
        FAIL() << "expected gsr::Error";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().line, 4) << e.what();
        EXPECT_NE(std::string(e.what()).find("and the primary input of that name"),
                  std::string::npos)
            << e.what();
    }
}

TEST(LogicSimulator, ExhaustiveAbove20InputsIsAnErrorNamingTheLimit)
{
    std::string text;
    for (int i = 0; i < 21; ++i) text += "INPUT(i" + std::to_string(i) + ")\n";
    text += "OUTPUT(y)\ny = AND(i0, i20)\n";
    const Circuit c = circuit_of("t.bench", text);
    try {
        simulate(c, exhaustive());
        FAIL() << "expected gsr::Error";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("20"), std::string::npos) << e.what();
    }
}

TEST(LogicSimulator, RandomModeOnASequentialCircuitIsAnError)
{
    const Circuit c = load_netlist(netlists_dir() + "/iscas89/bench/s344.bench");
    EXPECT_THROW(simulate(c, random_vectors(64, 1, 1)), gsr::Error);
}

TEST(LogicSimulator, UndrivenNetsReadAsZero)
{
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nOUTPUT(y)\ny = OR(a, ghost)\n");
    const LogicSimulator sim(c, build_net_structure(c));
    EXPECT_EQ(sim.undriven_nets(), 1u);
    const SimulationResult r = sim.run(exhaustive());
    EXPECT_EQ(r.ones[c.net_names.find("y")], 1u);
}

TEST(LogicSimulator, RowsAreRecycledOnDeepCircuits)
{
    const Circuit c = load_netlist(netlists_dir() + "/iscas85/bench/c6288.bench");
    const LogicSimulator sim(c, build_net_structure(c));
    EXPECT_EQ(sim.instruction_count(), 2448u - 32u);
    EXPECT_LT(sim.live_rows(), sim.instruction_count() / 2);
}
