// Where the data MANIFEST says two formats of one circuit agree, they give the same graph:
// the same node and edge counts and the same level histogram.
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct SameCircuit {
    std::string a, b;
};

void PrintTo(const SameCircuit& s, std::ostream* os) { *os << s.a << " ~ " << s.b; }

std::vector<SameCircuit> pairs()
{
    std::vector<SameCircuit> p;
    // ISCAS-85 as .bench and gate-primitive .v
    for (const char* c : {"c17", "c432", "c880"})
        p.push_back({std::string("iscas85/bench/") + c + ".bench", std::string("iscas85/verilog/") + c + ".v"});
    // ISCAS-89 as .bench and .blif; s1196.v has no clock port, so it matches too
    for (const char* c : {"s27", "s344", "s1196"})
        p.push_back({std::string("iscas89/bench/") + c + ".bench", std::string("iscas89/blif/") + c + ".blif"});
    p.push_back({"iscas89/bench/s1196.bench", "iscas89/verilog/s1196.v"});
    // EPFL as .v, .blif and .aig (.aig differs for ctrl, i2c and router: constant/buffer outputs)
    const char* arith[] = {"adder", "bar", "max", "multiplier", "sin"};
    const char* control[] = {"cavlc", "ctrl", "dec", "i2c", "int2float", "priority", "router"};
    for (const char* c : arith) {
        const std::string base = std::string("epfl/arithmetic/") + c;
        p.push_back({base + ".blif", base + ".v"});
        p.push_back({base + ".blif", base + ".aig"});
    }
    for (const char* c : control) {
        const std::string base = std::string("epfl/random_control/") + c;
        p.push_back({base + ".blif", base + ".v"});
        const std::string n = c;
        if (n != "ctrl" && n != "i2c" && n != "router") p.push_back({base + ".blif", base + ".aig"});
    }
    p.push_back({"epfl/arithmetic/hyp.aig", "epfl/arithmetic/hyp_from_aig.blif"});
    return p;
}

gsr::graph::CircuitGraph graph_of_file(const std::string& rel)
{
    return gsr::graph::build_graph(gsr::netlist::load_netlist(std::string(GSR_DATA_DIR) + "/netlists/" + rel));
}

class FormatAgreement : public ::testing::TestWithParam<SameCircuit> {};

TEST_P(FormatAgreement, SameNodesEdgesAndLevelHistogram)
{
    const auto ga = graph_of_file(GetParam().a);
    const auto gb = graph_of_file(GetParam().b);
    EXPECT_EQ(ga.node_count(), gb.node_count());
    EXPECT_EQ(ga.edge_count(), gb.edge_count());
    EXPECT_EQ(ga.max_level, gb.max_level);
    EXPECT_EQ(ga.level_histogram(), gb.level_histogram());
}

std::string pair_name(const ::testing::TestParamInfo<SameCircuit>& info)
{
    std::string n = info.param.a + "_" + info.param.b.substr(info.param.b.rfind('.') + 1);
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(Manifest, FormatAgreement, ::testing::ValuesIn(pairs()), pair_name);

TEST(GuessedDirections, AMultiplexersSelectIsAnInput)
{
    // Without a library, gcd's MUX2_X1 select S was guessed an output (an adder's sum): 12
    // nets of two drivers and 754 edges, where the Liberty gives 766 (and yosys agrees).
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/openroad_nangate45/";
    const gsr::netlist::Circuit guessed = gsr::netlist::load_netlist(dir + "gcd_nangate45.v");
    gsr::Diagnostics diag;
    const gsr::graph::CircuitGraph g = gsr::graph::build_graph(guessed, &diag);
    EXPECT_EQ(g.edge_count(), 766u);
    for (const gsr::Warning& w : diag.warnings())
        EXPECT_EQ(w.message.find("more than one driver"), std::string::npos) << w.message;
    EXPECT_EQ(gsr::netlist::guess_pin_direction("S", "MUX2_X1"), gsr::netlist::Direction::Input);
    EXPECT_EQ(gsr::netlist::guess_pin_direction("S", "FA_X1"), gsr::netlist::Direction::Output);
}

} // namespace
