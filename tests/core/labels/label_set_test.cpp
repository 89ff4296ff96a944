#include "label_test_support.hpp"
#include "labels/label_set.hpp"
#include "netlist/readers.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using gsr::SourceText;
using gsr::netlist::Circuit;
using gsr::netlist::load_netlist;
using namespace gsr::labels;

using gsr::labels::testing::circuit_of;

TEST(LabelSet, CsvHasTheReadmeColumnsAndSixDecimals)
{
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(y)\ny = NAND(a, b)\n");
    const NetStructure s = build_net_structure(c);
    const NetLevels l = compute_net_levels(s);
    SimulationOptions o;
    o.mode = SimulationMode::Random;
    o.vectors = 192;
    o.seed = 3;
    const SimulationResult sim = LogicSimulator(c, s).run(o);
    const ArrivalTimes at = compute_arrival_times(c, s);
    const LabelSet set = make_label_set(c, s, l, &sim, &at);
    ASSERT_EQ(set.size(), 3u);
    EXPECT_EQ(set.driver[2], "NAND");
    const std::string csv = label_csv(set);
    std::istringstream in(csv);
    std::string header, row_a, row_b, row_y;
    std::getline(in, header);
    std::getline(in, row_a);
    std::getline(in, row_b);
    std::getline(in, row_y);
    EXPECT_EQ(header, "net,driver,is_pi,is_po,is_state,fanin,fanout,level,rev_level,sim_ones,"
                      "sim_total,sim_prob,toggles,toggle_total,toggle_rate,arrival");
    const std::string start = "a,PI,1,0,0,0,1,0,1," + std::to_string(sim.ones[0]) + ",192,";
    EXPECT_EQ(row_a.substr(0, start.size()), start);
    const std::string prob = row_y.substr(row_y.find(",192,") + 5, 8);
    EXPECT_EQ(prob.size(), 8u);
    EXPECT_EQ(prob[1], '.');
    EXPECT_EQ(row_y.substr(row_y.rfind(',') + 1), "1.200000"); // NAND, no load
}

TEST(LabelSet, AHugeValueIsWrittenWholeWithSixDecimals)
{
    // 1e300 takes 301 digits: a 64-byte buffer wrote stack bytes and NULs for it before.
    const Circuit c = circuit_of("t.bench", "INPUT(a)\nOUTPUT(y)\ny = NOT(a)\n");
    const NetStructure s = build_net_structure(c);
    ArrivalTimes at = compute_arrival_times(c, s);
    at.arrival.assign(at.arrival.size(), 1e300);
    at.arrival[0] = -1e300;
    const std::string csv = label_csv(make_label_set(c, s, compute_net_levels(s), nullptr, &at));
    EXPECT_EQ(csv.find('\0'), std::string::npos);
    std::istringstream in(csv);
    std::string header, row_a, row_y;
    std::getline(in, header);
    std::getline(in, row_a);
    std::getline(in, row_y);
    char expect[400];
    std::snprintf(expect, sizeof expect, "%.6f", 1e300);
    EXPECT_EQ(row_y.substr(row_y.rfind(',') + 1), expect);
    EXPECT_EQ(row_y.substr(row_y.rfind(',') + 1).size(), 301u + 7u);
    std::snprintf(expect, sizeof expect, "%.6f", -1e300);
    EXPECT_EQ(row_a.substr(row_a.rfind(',') + 1), expect);
}

TEST(LabelSet, BlifNodesAreNamedByTheirInputCount)
{
    const Circuit c =
        circuit_of("t.blif", ".model t\n.inputs a b\n.outputs y\n.names a b y\n11 1\n.end\n");
    const NetStructure s = build_net_structure(c);
    const LabelSet set = make_label_set(c, s, compute_net_levels(s));
    EXPECT_EQ(set.driver.back(), "NAMES2");
    EXPECT_FALSE(set.has_simulation);
    EXPECT_EQ(label_csv(set).find("sim_ones"), std::string::npos);
}

TEST(LabelSet, WriteIsAtomicAndQuotesNamesWithCommas)
{
    const Circuit c =
        circuit_of("t.blif", ".model t\n.inputs a,b\n.outputs y\n.names a,b y\n0 1\n.end\n");
    const NetStructure s = build_net_structure(c);
    const LabelSet set = make_label_set(c, s, compute_net_levels(s));
    const std::string dir = ::testing::TempDir();
    const std::string path = dir + "/labels_write_test.csv";
    write_label_csv(set, path);
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), label_csv(set));
    EXPECT_NE(ss.str().find("\"a,b\",PI"), std::string::npos);
    std::filesystem::remove(path);
    EXPECT_THROW(write_label_csv(set, dir + "/no/such/dir/x.csv"), gsr::Error);
}
