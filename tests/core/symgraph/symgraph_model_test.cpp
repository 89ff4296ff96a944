// The SymGraph node model on public circuits, and the graph-level classifier on cycles.
#include "symgraph/graph_classifier.hpp"
#include "symgraph/symgraph_model.hpp"

#include "symgraph_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>

using namespace gsr::symgraph;
namespace train = gsr::train;

namespace {

train::LabelOptions quick_labels()
{
    train::LabelOptions o;
    o.vectors = 4096;
    return o;
}

/// c432 and c880 to train on (20 % of their nodes held out for validation), c1908 to test.
train::Dataset small_dataset(std::uint64_t seed = 3)
{
    std::vector<train::LabelledCircuit> circuits;
    std::vector<train::Role> roles;
    for (const char* f : {"c432", "c880", "c1908"}) {
        const auto c = gsr::netlist::load_netlist(
            gsr::test::netlist_path(std::string("iscas85/bench/") + f + ".bench"));
        circuits.push_back(
            train::label_circuit(c, train::Target::SignalProbability, quick_labels()));
        roles.push_back(std::string(f) == "c1908" ? train::Role::Test : train::Role::Train);
    }
    train::HoldOut h;
    h.validation = 0.2;
    h.seed = seed;
    return train::make_dataset(train::Target::SignalProbability, std::move(circuits), roles, h);
}

SymGraphOptions few_candidates(Task task)
{
    SymGraphOptions o;
    o.task = task;
    o.candidates = {Granularity{true, 0, 1}, Granularity{false, 3, 2}};
    return o;
}

std::vector<std::vector<double>> predictions(const SymGraphModel& m, const train::Dataset& d)
{
    std::vector<std::vector<double>> p;
    for (const train::CircuitData& c : d.circuits) p.push_back(m.predict(c.graph));
    return p;
}

} // namespace

TEST(SymGraphModel, SameDataAndSeedGiveByteIdenticalRules)
{
    const train::Dataset d1 = small_dataset(), d2 = small_dataset();
    std::vector<CandidateReport> search;
    const SymGraphModel a = SymGraphModel::fit(d1, few_candidates(Task::Regression), &search);
    const SymGraphModel b = SymGraphModel::fit(d2, few_candidates(Task::Regression));
    EXPECT_EQ(a.text(), b.text());
    EXPECT_EQ(a.to_json().dump(), b.to_json().dump());
    ASSERT_EQ(search.size(), 2u * 3u); // two granularities x three support factors
    EXPECT_GT(a.rules().rules.size(), 2u);
    // The winner is the candidate with the best objective, and the objective is the score less
    // the penalty per kept rule.
    const auto best =
        std::max_element(search.begin(), search.end(),
                         [](const auto& x, const auto& y) { return x.objective < y.objective; });
    EXPECT_EQ(best->granularity, a.granularity());
    EXPECT_EQ(best->rules_kept, a.rules().rules.size());
    for (const CandidateReport& r : search)
        EXPECT_NEAR(r.objective, r.validation_score - 0.001 * static_cast<double>(r.rules_kept),
                    1e-12);
}

TEST(SymGraphModel, RulesCoverExactlyTheTrainingNodesTheyClaim)
{
    const train::Dataset d = small_dataset();
    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Classification));
    std::vector<std::size_t> covered(m.rules().rules.size() + 1, 0);
    for (const train::CircuitData& c : d.circuits) {
        const std::vector<std::uint32_t> a = m.assign(c.graph);
        for (std::uint32_t v : c.nodes(train::Split::Train)) ++covered[a[v]];
    }
    for (std::size_t i = 0; i < m.rules().rules.size(); ++i)
        EXPECT_EQ(covered[i], m.rules().rules[i].support) << m.rule_text(i);
    EXPECT_EQ(covered.back(), m.rules().fallback.support);
}

TEST(SymGraphModel, ClassifiesHeldOutNodesBetterThanTheMajorityBin)
{
    const train::Dataset d = small_dataset();
    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Classification));
    const Binning& b = m.binning();
    ASSERT_EQ(b.bins, 10u);
    // The majority bin of the training nodes, as a baseline on the held-out nodes.
    std::vector<std::size_t> hist(b.bins, 0);
    for (const auto& c : d.circuits)
        for (std::uint32_t v : c.nodes(train::Split::Train)) ++hist[b.of(c.target[v])];
    const std::uint32_t majority =
        static_cast<std::uint32_t>(std::max_element(hist.begin(), hist.end()) - hist.begin());
    std::size_t hit = 0, base = 0, n = 0;
    for (const auto& c : d.circuits) {
        const std::vector<std::uint32_t> bins = m.predict_bin(c.graph);
        for (std::uint32_t v : c.nodes(train::Split::Validation)) {
            hit += bins[v] == b.of(c.target[v]);
            base += majority == b.of(c.target[v]);
            ++n;
        }
    }
    ASSERT_GT(n, 100u);
    EXPECT_GT(hit, 2 * base) << "accuracy " << double(hit) / n << " majority " << double(base) / n;
    const SplitScore s = evaluate_split(d, predictions(m, d), train::Split::Validation, b);
    EXPECT_DOUBLE_EQ(s.bin_accuracy, double(hit) / double(n));
}

TEST(SymGraphModel, RegressionCorrelatesOnAnUnseenCircuit)
{
    const train::Dataset d = small_dataset();
    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Regression));
    const SplitScore s = evaluate_split(d, predictions(m, d), train::Split::Test, m.binning());
    ASSERT_TRUE(s.metrics.pearson.defined());
    EXPECT_GT(s.metrics.pearson.value, 0.3);
    // Every regression rule's value lies within its stated 10-90 % interval's hull of targets.
    for (const Rule& r : m.rules().rules) {
        EXPECT_LE(r.low, r.high);
        EXPECT_GE(r.value, 0.0);
        EXPECT_LE(r.value, 1.0);
    }
}

TEST(SymGraphModel, JsonRoundTripKeepsRulesAndCoverage)
{
    const train::Dataset d = small_dataset();
    for (Task task : {Task::Regression, Task::Classification}) {
        const SymGraphModel m = SymGraphModel::fit(d, few_candidates(task));
        const SymGraphModel back =
            SymGraphModel::from_json(nlohmann::json::parse(m.to_json().dump()));
        EXPECT_EQ(back.text(), m.text());
        EXPECT_EQ(back.assign(d.circuits[2].graph), m.assign(d.circuits[2].graph));
        EXPECT_EQ(back.predict(d.circuits[2].graph), m.predict(d.circuits[2].graph));
    }
    nlohmann::json bad = SymGraphModel::fit(d, few_candidates(Task::Regression)).to_json();
    bad["rules"][0]["conditions"][0]["predicate"] = 100000;
    EXPECT_THROW(SymGraphModel::from_json(bad), gsr::Error);
    // A negative count is refused, not wrapped into 4294967295.
    nlohmann::json negative = SymGraphModel::fit(d, few_candidates(Task::Regression)).to_json();
    negative["rules"][0]["conditions"][0]["at_least"] = -1;
    try {
        SymGraphModel::from_json(negative);
        ADD_FAILURE() << "a negative count was read";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("at_least is -1, expected a whole number"), std::string::npos)
            << e.message();
    }
    bad.erase("granularity");
    EXPECT_THROW(SymGraphModel::from_json(bad), gsr::Error);
}

TEST(SymGraphModel, RulesSavedAsVersionOneKeepHashingDirectionAlone)
{
    // Version 2 hashes edge inversions and says so; version 1 documents load with it off, and
    // saving them again keeps it off.
    const train::Dataset d = small_dataset();
    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Regression));
    nlohmann::json j = m.to_json();
    EXPECT_EQ(j.at("version"), 2);
    EXPECT_EQ(j.at("granularity").at("polarity"), true);
    EXPECT_TRUE(m.granularity().polarity);
    j["version"] = 1;
    j["granularity"].erase("polarity");
    const SymGraphModel old = SymGraphModel::from_json(j);
    EXPECT_FALSE(old.granularity().polarity);
    const SymGraphModel again = SymGraphModel::from_json(old.to_json());
    EXPECT_FALSE(again.granularity().polarity);
    // The bench circuits have no inversions: the same coverage either way.
    EXPECT_EQ(old.assign(d.circuits[2].graph), m.assign(d.circuits[2].graph));
    j["version"] = 3;
    EXPECT_THROW(SymGraphModel::from_json(j), gsr::Error);
}

TEST(SymGraphModel, AStopFlagEndsTheSearchBetweenCandidates)
{
    const train::Dataset d = small_dataset();
    std::atomic<bool> stop{true};
    SymGraphOptions o = few_candidates(Task::Regression);
    o.cancel = &stop;
    std::vector<CandidateReport> search;
    EXPECT_THROW(SymGraphModel::fit(d, o, &search), FitCancelled);
    EXPECT_TRUE(search.empty());
    stop = false;
    EXPECT_NO_THROW(SymGraphModel::fit(d, o, &search));
    EXPECT_EQ(search.size(), o.candidates.size() * o.support_factors.size());
}

TEST(SymGraphModel, FineBinsGetDigitsEnoughToTellTheirEndsApart)
{
    const train::Dataset d = small_dataset();
    SymGraphOptions o = few_candidates(Task::Classification);
    o.bins = 1000; // bins 0.001 wide on [0, 1]
    const std::string t = SymGraphModel::fit(d, o).text();
    // "in [0.860, 0.861)": three digits, where two printed "[0.86, 0.86)".
    const std::size_t at = t.find("otherwise -> signal probability in [");
    ASSERT_NE(at, std::string::npos) << t;
    const std::string range = t.substr(at + 36, t.find(')', at) - at - 36);
    const std::size_t comma = range.find(", ");
    ASSERT_NE(comma, std::string::npos) << range;
    EXPECT_EQ(comma, 5u) << range; // "0.xyz"
    EXPECT_NE(range.substr(0, comma), range.substr(comma + 2)) << range;
}

TEST(SymGraphModel, RuleTextNamesCellsRolesAndTheTarget)
{
    const train::Dataset d = small_dataset();
    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Classification));
    const std::string t = m.text();
    EXPECT_NE(t.find("-> signal probability in ["), std::string::npos) << t;
    EXPECT_NE(t.find("otherwise -> signal probability"), std::string::npos) << t;
    // Every class or role a rule names is explained in the legend.
    for (const Predicate& p : m.vocabulary().predicates())
        if (p.kind != Kind::State)
            EXPECT_NE(t.find("  " + p.name + ": "), std::string::npos) << p.name;
}

TEST(FeatureCache, BuildsEgoNetworksOncePerCircuitAndK)
{
    const train::Dataset d = small_dataset();
    FeatureCache cache;
    for (const Granularity& g : default_candidates())
        for (std::size_t c = 0; c < d.circuits.size(); ++c) cache.get(c, d.circuits[c].graph, g);
    EXPECT_EQ(cache.ego_builds(), 2 * d.circuits.size());
    const NodeFeatures& a = cache.get(0, d.circuits[0].graph, Granularity{true, 0, 1});
    const NodeFeatures& b = cache.get(0, d.circuits[0].graph, Granularity{true, 0, 1});
    EXPECT_EQ(&a, &b);
    const EgoNetworks ego(structure_of(d.circuits[0].graph), 1);
    EXPECT_EQ(node_features(d.circuits[0].graph, Granularity{true, 0, 1}, ego).role, a.role);
}

TEST(GraphRuleClassifier, LearnsTriangleGraphsThatOneWlCannotSee)
{
    // 2-regular graphs of 12 nodes: 1-WL gives all of them the same colours.
    const std::vector<std::vector<std::uint32_t>> with = {{3, 3, 3, 3}, {3, 4, 5}, {3, 3, 6}},
                                                  without = {{12}, {6, 6}, {4, 4, 4}, {4, 8}};
    std::vector<StructureGraph> graphs;
    std::vector<std::uint32_t> labels;
    for (const auto& c : with) graphs.push_back(gsr::test::cycles(c)), labels.push_back(1);
    for (const auto& c : without) graphs.push_back(gsr::test::cycles(c)), labels.push_back(0);
    for (const StructureGraph& g : graphs)
        EXPECT_EQ(graph_signature(wl_hashes(g, 3)), graph_signature(wl_hashes(graphs[0], 3)));
    const GraphRuleClassifier m = GraphRuleClassifier::fit(graphs, labels, 2);
    for (std::size_t i = 0; i < graphs.size(); ++i)
        EXPECT_EQ(m.predict(graphs[i]), labels[i]) << i;
    // Graphs it has not seen.
    EXPECT_EQ(m.predict(gsr::test::cycles({3, 9})), 1u);
    EXPECT_EQ(m.predict(gsr::test::cycles({5, 7})), 0u);
    EXPECT_EQ(m.predict(gsr::test::cycles({3, 4, 4})), 1u) << m.text();
    EXPECT_NE(m.text().find("role R"), std::string::npos) << m.text();
}

TEST(Binning, AValuePastTwoToThe32BinsGoesToTheLastBin)
{
    // The bin index was cast before the clamp: 2^32 + 3 bins past lo wrapped to bin 3.
    const Binning b{0, 1, 10};
    EXPECT_EQ(b.of(429496729.9), 9u);
    EXPECT_EQ(b.of(1e300), 9u);
    EXPECT_EQ(b.of(0.95), 9u);
    EXPECT_EQ(b.of(0.15), 1u);
    // A stored binning only promises hi > lo: a tiny range puts every value far past it.
    EXPECT_EQ((Binning{0, 1e-12, 10}.of(0.5)), 9u);
}

TEST(SymGraphLegend, InvertedNeighboursAreMarked)
{
    // AIGER: g1 = a & b and g2 = a & !b. Their classes differ (the hash sees the inversion);
    // their legends read the same while it was left out.
    const gsr::graph::CircuitGraph c = gsr::graph::build_graph(gsr::netlist::load_netlist(
        gsr::SourceText::from_string("and2.aag", "aag 4 2 0 2 2\n2\n4\n6\n8\n6 2 4\n8 2 5\n"
                                                 "i0 a\ni1 b\no0 g1\no1 g2\n")));
    const Granularity gr;
    const EgoNetworks ego(structure_of(c), gr.hops, 256);
    const NodeFeatures f = node_features(c, gr, ego);
    std::vector<std::string> fanins, blind;
    for (std::uint32_t v = 0; v < c.node_count(); ++v)
        if (c.fanin.degree(v) == 2) {
            fanins.push_back(neighbour_states(f, c.fanin, v, true));
            blind.push_back(neighbour_states(f, c.fanin, v, false));
        }
    std::sort(fanins.begin(), fanins.end());
    EXPECT_EQ(fanins, (std::vector<std::string>{"!PI fo2, PI fo2", "2x PI fo2"}));
    // Without polarity (rules saved as version 1) the classes are alike, and so are the words.
    EXPECT_EQ(blind, (std::vector<std::string>{"2x PI fo2", "2x PI fo2"}));
    // The inputs' fan-outs: b drives one AND plainly and one through an inversion.
    std::vector<std::string> fanouts;
    for (std::uint32_t v = 0; v < c.node_count(); ++v)
        if (c.fanin.degree(v) == 0) fanouts.push_back(neighbour_states(f, c.fanout, v, true));
    std::sort(fanouts.begin(), fanouts.end());
    EXPECT_EQ(fanouts, (std::vector<std::string>{"!AND2 fo0 PO, AND2 fo0 PO", "2x AND2 fo0 PO"}));
    EXPECT_EQ(neighbour_states(f, c.fanin, 0, true), "none");
}

TEST(SymGraphLegend, NamesEachClassAndRoleOnceAndNoState)
{
    Vocabulary v;
    v.add({Scope::Self, Kind::State, 1, "NAND2 fo1", "", 10, 2, 1});
    v.add({Scope::Self, Kind::WlClass, 2, "W3", "AND2 fo1; fan-ins: 2x PI fo2", 8});
    v.add({Scope::Fanin, Kind::WlClass, 2, "W3", "AND2 fo1; fan-ins: 2x PI fo2", 6});
    v.add({Scope::Fanout, Kind::Role, 3, "R1", "PI fo2; fan-ins: none", 5});
    const std::vector<std::pair<std::string, std::string>> want = {
        {"W3", "AND2 fo1; fan-ins: 2x PI fo2"}, {"R1", "PI fo2; fan-ins: none"}};
    EXPECT_EQ(v.legend(), want);
    EXPECT_EQ(Vocabulary::from_json(v.to_json()).legend(), want);
}

namespace {

/// `files` of iscas85 (bench), all trained on, `validation` of their nodes held out.
train::Dataset training_set(train::Target target, std::initializer_list<const char*> files,
                            double validation)
{
    std::vector<train::LabelledCircuit> circuits;
    for (const char* f : files)
        circuits.push_back(train::label_circuit(
            gsr::netlist::load_netlist(
                gsr::test::netlist_path(std::string("iscas85/bench/") + f + ".bench")),
            target, quick_labels()));
    train::HoldOut h;
    h.validation = validation;
    h.seed = 3;
    const std::vector<train::Role> roles(circuits.size(), train::Role::Train);
    return train::make_dataset(target, std::move(circuits), roles, h);
}

bool any_note_has(const SymGraphModel& m, const std::string& words)
{
    return std::any_of(m.notes().begin(), m.notes().end(),
                       [&](const std::string& n) { return n.find(words) != std::string::npos; });
}

} // namespace

TEST(SymGraphModel, ALevelTargetGetsNoDepthBinsItWouldReadTheAnswerFrom)
{
    // A depth bin is a bin of the node's level: for --target level the search kept it, and
    // its rules read "PI fo2+ d1/3 -> logic level in [0.0, 1.7)".
    const SymGraphOptions o = few_candidates(Task::Regression); // one of them with 3 bins
    std::vector<CandidateReport> search;
    const SymGraphModel level =
        SymGraphModel::fit(training_set(train::Target::Level, {"c432"}, 0.2), o, &search);
    ASSERT_EQ(search.size(), 2 * o.support_factors.size()); // {fine, 0, 1} and {coarse, 0, 2}
    for (const CandidateReport& c : search) EXPECT_EQ(c.granularity.depth_bins, 0u);
    EXPECT_EQ(level.granularity().depth_bins, 0u);
    EXPECT_TRUE(any_note_has(level, "depth bins are left out")) << level.notes().size();

    search.clear();
    const SymGraphModel sp = SymGraphModel::fit(
        training_set(train::Target::SignalProbability, {"c432"}, 0.2), o, &search);
    EXPECT_TRUE(std::any_of(search.begin(), search.end(), [](const CandidateReport& c) {
        return c.granularity.depth_bins == 3;
    }));
    EXPECT_TRUE(sp.notes().empty());
}

TEST(SymGraphModel, ValidationWithNoPearsonRLeavesTheChoiceToTheTrainingNodes)
{
    // A validation circuit of buffers has one target value on every node: its r is
    // undefined, every prefix scored 0 and the penalty kept no rule (c432 alone keeps some).
    std::vector<train::LabelledCircuit> circuits;
    circuits.push_back(train::label_circuit(
        gsr::netlist::load_netlist(gsr::test::netlist_path("iscas85/bench/c432.bench")),
        train::Target::SignalProbability, quick_labels()));
    circuits.push_back(train::label_circuit(
        gsr::netlist::load_netlist(gsr::SourceText::from_string(
            "bufs.bench", "INPUT(a)\nOUTPUT(d)\nb = BUFF(a)\nc = BUFF(b)\nd = BUFF(c)\n")),
        train::Target::SignalProbability, quick_labels()));
    const train::Dataset d =
        train::make_dataset(train::Target::SignalProbability, std::move(circuits),
                            {train::Role::Train, train::Role::Validation}, train::HoldOut{});
    const std::vector<std::uint32_t> val = d.circuits[1].nodes(train::Split::Validation);
    ASSERT_GE(val.size(), 2u);
    for (std::uint32_t v : val) ASSERT_EQ(d.circuits[1].target[v], d.circuits[1].target[val[0]]);

    const SymGraphModel m = SymGraphModel::fit(d, few_candidates(Task::Regression));
    EXPECT_GT(m.rules().rules.size(), 0u);
    EXPECT_TRUE(any_note_has(m, "validation node(s) give no Pearson r (one target value)"))
        << (m.notes().empty() ? std::string("no note") : m.notes().front());
}
