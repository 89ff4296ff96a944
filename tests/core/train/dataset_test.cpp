// Targets on graph nodes, and data sets: mapping nets to nodes, the union one-hot, splits.
#include "train_fixtures.hpp"

#include "train/dataset.hpp"

#include "labels/logic_simulator.hpp"
#include "labels/net_levels.hpp"
#include "netlist/readers.hpp"
#include "util/source_text.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace gsr::train;
using gsr::train::testing::netlist_path;
using gsr::netlist::Circuit;

namespace {

Circuit circuit_of(const std::string& name, const std::string& text)
{
    return gsr::netlist::load_netlist(gsr::SourceText::from_string(name, text));
}

/// The node that carries net `name`'s label.
gsr::graph::NodeId node_of(const Circuit& c, const LabelledCircuit& l, const std::string& name)
{
    for (gsr::graph::NodeId v = 0; v < l.net_of.size(); ++v)
        if (l.net_of[v] != gsr::netlist::kNoNet && c.net_name(l.net_of[v]) == name) return v;
    ADD_FAILURE() << "no node drives net " << name;
    return 0;
}

LabelOptions quick()
{
    LabelOptions o;
    o.vectors = 4096;
    o.runs = 256;
    o.cycles = 24;
    o.warmup = 4;
    return o;
}

const char* kAndOr = "INPUT(a)\nINPUT(b)\nINPUT(c)\nOUTPUT(y)\nx = AND(a, b)\ny = OR(x, c)\n";

} // namespace

TEST(Dataset, TargetNamesRoundTripAndBadNamesAreNamed)
{
    for (Target t : {Target::SignalProbability, Target::Toggle, Target::Level, Target::Arrival})
        EXPECT_EQ(parse_target(target_name(t)), t);
    try {
        parse_target("power");
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("--target"), std::string::npos);
        EXPECT_NE(e.message().find("sp, toggle, level, arrival"), std::string::npos);
    }
}

TEST(Dataset, C17SignalProbabilityOfNode22IsTheSimulatorsValue)
{
    const Circuit c = gsr::netlist::load_netlist(netlist_path("iscas85/bench/c17.bench"));
    const LabelledCircuit l = label_circuit(c, Target::SignalProbability);
    ASSERT_EQ(l.graph.node_count(), 5u + 6u);

    const gsr::labels::NetStructure s = gsr::labels::build_net_structure(c);
    gsr::labels::SimulationOptions o; // label_circuit's defaults: random, 65536, seed 2024
    const gsr::labels::SimulationResult r = gsr::labels::LogicSimulator(c, s).run(o);
    const gsr::netlist::NetId net22 = c.net_names.find("22");
    const gsr::graph::NodeId v = node_of(c, l, "22");
    EXPECT_EQ(l.net_of[v], net22);
    EXPECT_GE(l.graph.cell_of[v], 0); // a cell (NAND), not a primary input
    EXPECT_DOUBLE_EQ(l.target[v],
                     static_cast<double>(r.ones[net22]) / static_cast<double>(r.total));
    EXPECT_NEAR(l.target[v], 18.0 / 32.0, 0.01); // the exact value (labels README)

    // Primary inputs carry their own net: about 1/2 under random stimulus.
    for (gsr::graph::NodeId pi = 0; pi < 5; ++pi) {
        EXPECT_LT(l.graph.cell_of[pi], 0);
        EXPECT_TRUE(l.has_target[pi]);
        EXPECT_NEAR(l.target[pi], 0.5, 0.01);
    }
}

TEST(Dataset, LevelAndArrivalTargetsFollowTheNetLabels)
{
    const Circuit c = circuit_of("t.bench", kAndOr);
    const LabelledCircuit level = label_circuit(c, Target::Level);
    EXPECT_EQ(level.target[node_of(c, level, "a")], 0.0);
    EXPECT_EQ(level.target[node_of(c, level, "x")], 1.0);
    EXPECT_EQ(level.target[node_of(c, level, "y")], 2.0);
    const LabelledCircuit arrival = label_circuit(c, Target::Arrival);
    // AND 1.6 + 0.1 load, then OR 1.8 + no load (labels/arrival_time.hpp).
    EXPECT_NEAR(arrival.target[node_of(c, arrival, "x")], 1.7, 1e-12);
    EXPECT_NEAR(arrival.target[node_of(c, arrival, "y")], 3.5, 1e-12);
    const LabelledCircuit toggle = label_circuit(c, Target::Toggle, quick());
    EXPECT_NEAR(toggle.target[node_of(c, toggle, "a")], 0.5, 0.05);
}

TEST(Dataset, SequentialCircuitsAreSimulatedOverCycles)
{
    const Circuit c = gsr::netlist::load_netlist(netlist_path("iscas89/bench/s344.bench"));
    const LabelledCircuit l = label_circuit(c, Target::SignalProbability, quick());
    const std::size_t with = std::count(l.has_target.begin(), l.has_target.end(), 1);
    EXPECT_EQ(with, l.graph.node_count());
    EXPECT_TRUE(std::all_of(l.target.begin(), l.target.end(),
                            [](double p) { return p >= 0 && p <= 1; }));
}

TEST(Dataset, FeaturesUseTheUnionOfCellTypes)
{
    std::vector<LabelledCircuit> cs;
    cs.push_back(label_circuit(circuit_of("a.bench", kAndOr), Target::Level));
    cs.push_back(label_circuit(
        circuit_of("b.bench", "INPUT(a)\nOUTPUT(y)\nn = NOT(a)\ny = NAND(a, n)\n"),
        Target::Level));
    const Dataset d = make_dataset(Target::Level, std::move(cs), {Role::Train, Role::Test});
    EXPECT_EQ(d.type_names, (std::vector<std::string>{"PI", "AND", "NAND", "NOT", "OR"}));
    EXPECT_EQ(d.feature_count, 10u);
    EXPECT_EQ(d.feature_names()[2], "type=NAND");
    for (const CircuitData& c : d.circuits) {
        EXPECT_EQ(c.input.feature_count, d.feature_count);
        EXPECT_EQ(c.input.features.size(), c.input.node_count * d.feature_count);
        for (std::size_t v = 0; v < c.input.node_count; ++v) {
            const float* row = c.input.features.data() + v * d.feature_count;
            float hot = 0;
            for (std::size_t t = 0; t < 5; ++t) hot += row[t];
            EXPECT_EQ(hot, 1.0f);
        }
    }
    // b: node 2 is the NAND (a, n): two fan-ins, log1p(2); the NOT has fan-out 1.
    const CircuitData& b = d.circuits[1];
    const float* nand = b.input.features.data() + 2 * d.feature_count;
    EXPECT_EQ(nand[2], 1.0f);
    EXPECT_FLOAT_EQ(nand[5], std::log1p(2.0f));
    EXPECT_FLOAT_EQ(nand[6], 0.0f);
    EXPECT_EQ(nand[8], 1.0f); // drives the output
    EXPECT_EQ(b.input.fanin_offsets, b.graph.fanin.offsets);
}

TEST(Dataset, CircuitRolesAndSeededNodeHoldOuts)
{
    auto build = [](std::uint64_t seed) {
        std::vector<LabelledCircuit> cs;
        const Circuit c880 = gsr::netlist::load_netlist(netlist_path("iscas85/bench/c880.bench"));
        const Circuit c17 = gsr::netlist::load_netlist(netlist_path("iscas85/bench/c17.bench"));
        cs.push_back(label_circuit(c880, Target::Level));
        cs.push_back(label_circuit(c17, Target::Level));
        HoldOut h;
        h.validation = 0.2;
        h.test = 0.1;
        h.seed = seed;
        return make_dataset(Target::Level, std::move(cs), {Role::Train, Role::Test}, h);
    };
    const Dataset d = build(5);
    const CircuitData& train = d.circuits[0];
    const std::size_t n = train.summary.count;
    EXPECT_EQ(train.nodes(Split::Validation).size(),
              static_cast<std::size_t>(std::llround(n * 0.2)));
    EXPECT_EQ(train.nodes(Split::Test).size(), static_cast<std::size_t>(std::llround(n * 0.1)));
    EXPECT_EQ(train.nodes(Split::Train).size() + train.nodes(Split::Validation).size() +
                  train.nodes(Split::Test).size(),
              n);
    EXPECT_EQ(d.circuits[1].nodes(Split::Test).size(), 11u);
    EXPECT_TRUE(d.circuits[1].nodes(Split::Train).empty());
    EXPECT_EQ(build(5).circuits[0].split, train.split);
    EXPECT_NE(build(6).circuits[0].split, train.split);
    // The scaling comes from the training nodes only.
    double sum = 0;
    for (std::uint32_t v : train.nodes(Split::Train)) sum += train.target[v];
    EXPECT_NEAR(d.target_mean, sum / static_cast<double>(train.nodes(Split::Train).size()), 1e-9);
    EXPECT_GT(d.target_scale, 1.0);
}

TEST(Dataset, ACircuitWithoutVarianceIsReported)
{
    std::vector<LabelledCircuit> cs;
    cs.push_back(label_circuit(circuit_of("t.bench", kAndOr), Target::Level));
    cs.push_back(label_circuit(circuit_of("flat.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(a)\n"),
                               Target::Level));
    const Dataset d = make_dataset(Target::Level, std::move(cs), {Role::Train, Role::Validation});
    EXPECT_TRUE(d.circuits[1].summary.constant());
    ASSERT_EQ(d.notes.size(), 2u); // and that its 2 nodes alone choose the best epoch
    EXPECT_NE(d.notes[0].find("flat.bench: the level target has no variance"), std::string::npos)
        << d.notes[0];
    EXPECT_EQ(d.notes[1].rfind("only 2 validation nodes: ", 0), 0u) << d.notes[1];
}

TEST(Dataset, TrainingNodesWithoutVarianceAreNamedInPlainWords)
{
    // It read "the training nodes' the level target has no variance".
    std::vector<LabelledCircuit> cs;
    cs.push_back(label_circuit(circuit_of("flat.bench", "INPUT(a)\nINPUT(b)\nOUTPUT(a)\n"),
                               Target::Level));
    cs.push_back(label_circuit(circuit_of("t.bench", kAndOr), Target::Level));
    const Dataset d = make_dataset(Target::Level, std::move(cs), {Role::Train, Role::Test});
    const std::string want = "the level target has no variance on the training nodes (every "
                             "one is 0): nothing can be learnt";
    EXPECT_NE(std::find(d.notes.begin(), d.notes.end(), want), d.notes.end())
        << ::testing::PrintToString(d.notes);
}

TEST(Dataset, AFewValidationNodesAreSaidToChooseTheBestEpochAlone)
{
    // c17 alone: a tenth of its 11 nodes held out is one validation node, which then chose the
    // best epoch and early stopping without a word.
    HoldOut h;
    h.validation = 0.1;
    const Dataset d = load_dataset(Target::Level, {netlist_path("iscas85/bench/c17.bench")}, {},
                                   {netlist_path("iscas85/bench/c432.bench")}, h);
    ASSERT_EQ(d.node_count(Split::Validation), 1u);
    const std::string want = "only 1 validation node: the best epoch and early stopping follow "
                             "its loss alone (give --val circuits for a steadier choice)";
    EXPECT_NE(std::find(d.notes.begin(), d.notes.end(), want), d.notes.end())
        << ::testing::PrintToString(d.notes);
}

TEST(Dataset, ATrainingCircuitWithNothingToLabelIsNamed)
{
    // A transistor-level SPICE adder: its elements are no gates, so no net gets a level.
    const std::string spice = netlist_path("spice/adder_mos.cir");
    try {
        load_dataset(Target::Level, {spice}, {}, {netlist_path("iscas85/bench/c17.bench")});
        FAIL() << "trained on a circuit with no labels";
    } catch (const gsr::Error& e) {
        // Named where the labels are computed (`gsr labels` says the same).
        EXPECT_EQ(e.where().file, spice);
        EXPECT_EQ(e.message(), "no net has a driver (no input port, no cell output pin; a "
                               "transistor-level deck's pins have no direction): labels need a "
                               "gate-level netlist");
    }
}

TEST(Dataset, CellCircuitsLabelWithTheirLibrary)
{
    // gsr train --liberty: synthesized circuits read with their library. Without it their
    // cells have no logic; with a library of other cells every arrival would be 0.
    const gsr::netlist::Library gsclib =
        gsr::netlist::load_libraries({netlist_path("iwls05_gsclib180/lib/GSCLib_3.0.lib")});
    LabelOptions with;
    with.library = &gsclib;
    with.runs = 64;
    const std::string s344 = netlist_path("iwls05_gsclib180/netlist/s344.v");
    const std::string s27 = netlist_path("iwls05_gsclib180/netlist/s27.v");
    EXPECT_THROW(load_dataset(Target::SignalProbability, {s344}, {}, {s27}), gsr::Error);
    const Dataset sp = load_dataset(Target::SignalProbability, {s344}, {}, {s27}, {}, with);
    ASSERT_EQ(sp.circuits.size(), 2u);
    const Dataset arrival = load_dataset(Target::Arrival, {s344}, {}, {s27}, {}, with);
    double latest = 0;
    for (double t : arrival.circuits[0].target) latest = std::max(latest, t);
    EXPECT_GT(latest, 0.1); // ns: GSCLib's tables (s344's paths reach about 0.6 ns)
    try {
        (void)load_dataset(Target::Arrival, {netlist_path("iscas85/bench/c17.bench")}, {},
                           {netlist_path("iscas85/bench/c432.bench")}, {}, with);
        FAIL() << "timed bench gates by a library that has none of them";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("expected the library of the netlist's cells"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Dataset, ImpossibleSetsAreRefused)
{
    const std::string c17 = netlist_path("iscas85/bench/c17.bench");
    EXPECT_THROW(load_dataset(Target::Level, {c17}, {}, {c17}), gsr::Error);
    std::vector<LabelledCircuit> cs;
    cs.push_back(label_circuit(circuit_of("t.bench", kAndOr), Target::Level));
    EXPECT_THROW(make_dataset(Target::Level, cs, {Role::Test}), gsr::Error); // nothing to train
    HoldOut all;
    all.validation = 0.5;
    all.test = 0.5;
    EXPECT_THROW(make_dataset(Target::Level, cs, {Role::Train}, all), gsr::Error);
}

TEST(Dataset, LoadDatasetReadsFilesWithTheirRoles)
{
    const Dataset d = load_dataset(Target::Level, {netlist_path("iscas85/bench/c432.bench")},
                                   {netlist_path("iscas85/bench/c17.bench")},
                                   {netlist_path("iscas85/bench/c880.bench")});
    ASSERT_EQ(d.circuits.size(), 3u);
    EXPECT_EQ(d.node_count(Split::Validation), 11u);
    EXPECT_EQ(d.node_count(Split::Train), d.circuits[0].summary.count);
    EXPECT_EQ(d.circuits[2].summary.max, 24.0); // the published depth of c880
}

TEST(Dataset, RunLibrariesLabelStandardCellsAndSurviveAMove)
{
    // No paths: no library, and GSCLib's s27 cannot be labelled (its cells have no functions).
    const std::string s27 = netlist_path("iwls05_gsclib180/netlist/s27.v");
    const RunLibraries none({});
    EXPECT_EQ(none.library(), nullptr);
    EXPECT_EQ(none.label_options().library, nullptr);
    EXPECT_THROW(load_dataset(Target::SignalProbability, {s27}, {}, {}, {}, none.label_options()),
                 gsr::Error);

    RunLibraries read({netlist_path("iwls05_gsclib180/lib/GSCLib_3.0.lib")});
    ASSERT_NE(read.library(), nullptr);
    EXPECT_EQ(read.library()->cells.size(), 38u); // COUNTS.csv: 38 Liberty cell groups
    const LabelOptions options = read.label_options();
    const RunLibraries moved(std::move(read)); // the options made before still hold
    EXPECT_EQ(options.library, moved.library());
    const Dataset data = load_dataset(Target::SignalProbability, {s27}, {}, {}, {}, options);
    ASSERT_EQ(data.circuits.size(), 1u);
    std::size_t labelled = 0;
    for (std::uint8_t t : data.circuits.front().has_target) labelled += t;
    // COUNTS.csv: s27's 6 inputs and 19 cells each drive a net, and so does the constant 1'b1
    // that ties its flip-flops' SN.
    EXPECT_EQ(labelled, 6u + 19u + 1u);

    // A file that is no library is an error naming it.
    try {
        const RunLibraries bad({s27});
        FAIL() << "read a netlist as a library";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("s27.v"), std::string::npos) << e.what();
    }
}
