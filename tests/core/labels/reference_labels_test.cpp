// Every CSV of shared/data/labels, recomputed with the stimulus settings of the README's command
// lines and compared to the file as it is on disk now: exact integers, row for row.
#include "label_test_support.hpp"

#include "labels/label_set.hpp"
#include "labels/logic_simulator.hpp"
#include "labels/net_levels.hpp"
#include "labels/net_structure.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace gsr::labels;
using namespace gsr::labels::testing;

namespace {

const std::vector<std::string> kReferenceCsvs = {
    "iscas85_c17.csv",    "iscas85_c432.csv", "iscas85_c880.csv",    "iscas85_c6288.csv",
    "epfl_int2float.csv", "epfl_cavlc.csv",   "iscas89_s344.csv",    "iscas89_s1196.csv"};

SimulationOptions options_of(const ReferenceRun& r)
{
    SimulationOptions o;
    if (r.mode == "exhaustive") o.mode = SimulationMode::Exhaustive;
    else if (r.mode == "seq") o.mode = SimulationMode::Sequential;
    else o.mode = SimulationMode::Random;
    o.vectors = r.vectors;
    o.seed = r.seed;
    o.runs = r.runs;
    o.cycles = r.cycles;
    o.warmup = r.warmup;
    o.threads = 2;
    return o;
}

std::optional<ReferenceRun> run_for(const std::string& csv)
{
    for (const ReferenceRun& r : reference_runs())
        if (r.csv == csv) return r;
    return std::nullopt;
}

class ReferenceLabels : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(ReferenceLabelsData, EveryCsvOfTheFolderIsCheckedAndHasACommandLine)
{
    std::vector<std::string> on_disk;
    for (const auto& e : std::filesystem::directory_iterator(labels_dir()))
        if (e.path().extension() == ".csv") on_disk.push_back(e.path().filename().string());
    std::sort(on_disk.begin(), on_disk.end());
    std::vector<std::string> checked = kReferenceCsvs;
    std::sort(checked.begin(), checked.end());
    EXPECT_EQ(on_disk, checked);
    for (const std::string& csv : kReferenceCsvs) EXPECT_TRUE(run_for(csv).has_value()) << csv;
}

TEST_P(ReferenceLabels, SimulationAndStructureMatchExactly)
{
    const std::optional<ReferenceRun> run = run_for(GetParam());
    ASSERT_TRUE(run.has_value()) << "no README command line for " << GetParam();
    const CsvTable want = parse_csv(read_text(labels_dir() + "/" + run->csv));
    ASSERT_FALSE(want.rows.empty());

    const auto circuit = gsr::netlist::load_netlist(netlists_dir() + "/" + run->netlist);
    const NetStructure s = build_net_structure(circuit);
    const NetLevels levels = compute_net_levels(s);
    const SimulationResult sim = LogicSimulator(circuit, s).run(options_of(*run));
    const LabelSet got = make_label_set(circuit, s, levels, &sim);
    const CsvTable mine = parse_csv(label_csv(got));

    ASSERT_EQ(got.size(), want.rows.size());
    EXPECT_EQ(got.has_toggles, want.column("toggles").has_value());
    // Every column both files have, compared as text: integers, and ratios with 6 decimals.
    std::size_t compared = 0;
    for (const std::string& name : mine.header) {
        const auto wc = want.column(name);
        if (!wc) continue;
        const std::size_t mc = *mine.column(name);
        ++compared;
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < want.rows.size(); ++i) {
            std::string w = want.rows[i][*wc], m = mine.rows[i][mc];
            if (name == "driver" && w == "BUFF") w = "BUF"; // the bench reader stores BUFF as BUF
            if (w != m && mismatches++ < 5)
                ADD_FAILURE() << run->csv << " row " << i + 2 << " (" << want.rows[i][0]
                              << ") column " << name << ": want " << w << ", got " << m;
        }
        EXPECT_EQ(mismatches, 0u) << run->csv << " column " << name;
    }
    const std::size_t expected = want.column("toggles") ? 15u : 12u;
    EXPECT_EQ(compared, expected) << "columns compared in " << run->csv;
}

INSTANTIATE_TEST_SUITE_P(AllCsvs, ReferenceLabels, ::testing::ValuesIn(kReferenceCsvs),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = info.param.substr(0, info.param.find('.'));
                             return n;
                         });
