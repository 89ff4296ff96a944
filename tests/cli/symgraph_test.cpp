// `gsr train --model symgraph` and `gsr rules`, run as a user would on public circuits.
#include "run_gsr.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using gsr::test::read_text;
using gsr::test::run_gsr;
using gsr::test::shell_quote;

namespace {

std::string data(const std::string& rel)
{
    return shell_quote(std::string(GSR_DATA_DIR) + "/netlists/" + rel);
}

fs::path symgraph_scratch(const std::string& name)
{
    const fs::path path = gsr::test::scratch_file(name);
    fs::remove(path);
    return path;
}

/// PI + cells of a COUNTS.csv row: the graph nodes, every one of which drives a net.
std::size_t nodes_in_counts(const std::string& file)
{
    std::ifstream in(std::string(GSR_DATA_DIR) + "/netlists/COUNTS.csv");
    std::string line;
    while (std::getline(in, line)) {
        const auto cells = gsr::test::split_csv(line, 9);
        if (cells[0] == file) return std::stoul(cells[3]) + std::stoul(cells[6]);
    }
    ADD_FAILURE() << file << " not in COUNTS.csv";
    return 0;
}

std::string train_args(const fs::path& db, const std::string& extra)
{
    return "train " + data("iscas85/bench/c432.bench") + " " + data("iscas85/bench/c880.bench") +
           " --test " + data("iscas85/bench/c1908.bench") + " --db " + shell_quote(db.string()) +
           " --model symgraph --seed 5 " + extra;
}

} // namespace

TEST(SymGraphCommand, TrainsStoresARunAndReportsTheGnnMetrics)
{
    const fs::path db = symgraph_scratch("sg.gsr");
    const auto r = run_gsr(train_args(db, "--json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["model"], "symgraph");
    EXPECT_EQ(j["target"], "sp");
    EXPECT_EQ(j["test"]["count"].get<std::size_t>(), nodes_in_counts("iscas85/bench/c1908.bench"));
    // Without --val, 10 % of the training nodes are held out, as for the GNNs.
    const std::size_t train_nodes =
        nodes_in_counts("iscas85/bench/c432.bench") + nodes_in_counts("iscas85/bench/c880.bench");
    EXPECT_EQ(j["train"]["count"].get<std::size_t>() + j["val"]["count"].get<std::size_t>(),
              train_nodes);
    for (const char* k : {"pearson", "spearman", "kendall", "mae", "rmse", "bin_accuracy"})
        EXPECT_TRUE(j["test"][k].is_number()) << k;
    EXPECT_GT(j["test"]["pearson"].get<double>(), 0.2);
    const auto rules = j["rules"];
    ASSERT_EQ(rules.size(), j["rule_count"].get<std::size_t>() + 1);
    EXPECT_EQ(rules.back().get<std::string>().rfind("otherwise -> signal probability", 0), 0u);
    EXPECT_EQ(j["search"].size(), 8u * 3u); // 8 granularities x 3 support levels

    const auto runs = run_gsr("runs list --json --db " + shell_quote(db.string()));
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    const auto list = nlohmann::json::parse(runs.out);
    ASSERT_EQ(list.size(), 1u);
    EXPECT_EQ(list[0]["model"], "symgraph");
    EXPECT_EQ(list[0]["status"], "finished");
    EXPECT_EQ(list[0]["result"]["test"]["pearson"], j["test"]["pearson"]);
}

TEST(SymGraphCommand, WithoutTestCircuitsItScoresTheHeldOutNodes)
{
    // The Rules panel's command: the rules of one circuit, scored on the 10 % of its nodes held
    // out. It used to need --test, and the panel logged its own file as the test circuit,
    // which gsr refuses.
    const fs::path db = symgraph_scratch("no_test.gsr");
    const auto r = run_gsr("train " + data("iscas85/bench/c432.bench") + " --db " +
                           shell_quote(db.string()) + " --model symgraph --target sp --seed 1 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["test"]["count"].get<std::size_t>(), 0u);
    EXPECT_TRUE(j["test"]["pearson"].is_null()) << j["test"];
    const std::size_t val = j["val"]["count"].get<std::size_t>();
    EXPECT_EQ(j["train"]["count"].get<std::size_t>() + val,
              nodes_in_counts("iscas85/bench/c432.bench"));
    EXPECT_EQ(val, (nodes_in_counts("iscas85/bench/c432.bench") + 5) / 10);
    EXPECT_TRUE(j["val"]["pearson"].is_number()) << j["val"];
}

TEST(SymGraphCommand, StandardCellCircuitsTakeTheirLibrary)
{
    // It asked for --liberty (the simulator's words) and then refused it as unknown.
    const fs::path db = symgraph_scratch("cells.gsr");
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/iwls05_gsclib180/";
    const auto r = run_gsr("train " + shell_quote(dir + "netlist/s344.v") + " --liberty " +
                           shell_quote(dir + "lib/GSCLib_3.0.lib") + " --db " +
                           shell_quote(db.string()) + " --model symgraph --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(nlohmann::json::parse(r.out)["train"]["count"].get<std::size_t>(), 0u);
    const auto runs = run_gsr("runs list --json --db " + shell_quote(db.string()));
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    EXPECT_EQ(nlohmann::json::parse(runs.out)[0]["config"]["liberty"].size(), 1u);
}

TEST(SymGraphCommand, SameDataAndSeedGiveByteIdenticalRuleExports)
{
    const fs::path a = symgraph_scratch("a.gsr"), b = symgraph_scratch("b.gsr");
    ASSERT_EQ(run_gsr(train_args(a, "--task bins --quiet")).exit_code, 0);
    ASSERT_EQ(run_gsr(train_args(b, "--task bins --quiet")).exit_code, 0);
    const auto ta = run_gsr("rules 1 --db " + shell_quote(a.string()));
    const auto tb = run_gsr("rules 1 --db " + shell_quote(b.string()));
    ASSERT_EQ(ta.exit_code, 0) << ta.err;
    EXPECT_EQ(ta.out, tb.out);
    EXPECT_NE(ta.out.find("-> signal probability in ["), std::string::npos) << ta.out;
    const auto ja = run_gsr("rules 1 --format json --db " + shell_quote(a.string()));
    const auto jb = run_gsr("rules 1 --format json --db " + shell_quote(b.string()));
    ASSERT_EQ(ja.exit_code, 0) << ja.err;
    EXPECT_EQ(ja.out, jb.out);
    const auto j = nlohmann::json::parse(ja.out);
    EXPECT_EQ(j["format"], "gsr-symgraph-rules");
    EXPECT_EQ(j["task"], "classification");
    // --out writes what stdout shows.
    const fs::path out = symgraph_scratch("rules.txt");
    ASSERT_EQ(
        run_gsr("rules 1 --out " + shell_quote(out.string()) + " --db " + shell_quote(a.string()))
            .exit_code,
        0);
    EXPECT_EQ(read_text(out), ta.out);
    // A write that cannot happen names the file and keeps what was there.
    const auto bad = run_gsr("rules 1 --out " + shell_quote((out / "no").string()) + " --db " +
                             shell_quote(a.string()));
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find((out / "no").string() + ": error: cannot write the file: " +
                           out.string() + " is not a folder"),
              std::string::npos)
        << bad.err;
    EXPECT_EQ(read_text(out), ta.out);
}

TEST(SymGraphCommand, RefusesGnnFlagsAndBadValues)
{
    const fs::path db = symgraph_scratch("bad.gsr");
    auto r = run_gsr(train_args(db, "--layers 4"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--layers"), std::string::npos) << r.err;
    r = run_gsr(train_args(db, "--task guess"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--task"), std::string::npos) << r.err;
    r = run_gsr(train_args(db, "--hops 3"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--hops"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
    // A training circuit that is not there: named, and no project made for nothing.
    const fs::path missing = gsr::test::scratch_file("no_such_circuit.bench");
    fs::remove(missing);
    r = run_gsr("train " + shell_quote(missing.string()) + " --test " +
                data("iscas85/bench/c17.bench") + " --db " + shell_quote(db.string()) +
                " --model symgraph");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("no_such_circuit.bench"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(db));
}

TEST(RulesCommand, NamesRunsWithoutRules)
{
    const fs::path db = symgraph_scratch("gnn.gsr");
    const auto t = run_gsr("train " + data("iscas85/bench/c17.bench") + " --test " +
                           data("iscas85/bench/c432.bench") + " --db " + shell_quote(db.string()) +
                           " --model gcn --layers 2 --hidden 4 --epochs 1 --quiet");
    ASSERT_EQ(t.exit_code, 0) << t.err;
    auto r = run_gsr("rules 1 --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2); // what the project holds, as a missing run
    EXPECT_NE(r.err.find("gcn run"), std::string::npos) << r.err;
    r = run_gsr("rules 7 --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 2); // as report run:7 and train --resume 7
    EXPECT_NE(r.err.find("no run 7"), std::string::npos) << r.err;
    r = run_gsr("rules x --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 1);
}

namespace {

/// Starts s38417's rule search (it takes seconds) into `db`, sends `signal` once the run is in
/// the project, and returns what the shell says of the process ("rc=N\n").
std::string signal_a_rule_run(const fs::path& db, const std::string& signal)
{
    const std::string gsr = shell_quote(std::string(GSR_BIN_DIR) + "/gsr");
    const std::string dbq = shell_quote(db.string());
    const std::string script =
        gsr + " train " + data("iscas89/bench/s38417.bench") + " --test " +
        data("iscas85/bench/c17.bench") + " --db " + dbq +
        " --model symgraph --quiet 2>/dev/null & pid=$!\n"
        "for i in $(seq 1200); do " + gsr + " runs list --db " + dbq +
        " 2>/dev/null | grep -q running && break; sleep 0.05; done\n"
        "kill -" + signal + " $pid; wait $pid; echo rc=$?\n";
    FILE* p = ::popen(script.c_str(), "r");
    if (!p) return "popen failed";
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
    return out;
}

} // namespace

TEST(SymGraphCommand, CtrlCEndsTheRunCancelledNotRunning)
{
    // Ctrl-C (SIGINT) once the run is in the project stops it between candidates, and the run
    // ends "cancelled"; it stayed "running" for ever before.
    const fs::path db = symgraph_scratch("interrupted.gsr");
    const std::string dbq = shell_quote(db.string());
    EXPECT_EQ(signal_a_rule_run(db, "INT"), "rc=130\n");
    const auto runs = run_gsr("runs list --db " + dbq + " --json");
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    const auto j = nlohmann::json::parse(runs.out);
    ASSERT_EQ(j.size(), 1u) << runs.out;
    EXPECT_EQ(j[0]["status"], "cancelled") << runs.out;
    const auto rules = run_gsr("rules 1 --db " + dbq);
    EXPECT_EQ(rules.exit_code, 2);
    EXPECT_NE(rules.err.find("no stored rules (status: cancelled)"), std::string::npos)
        << rules.err;
}

TEST(SymGraphCommand, AKilledRunIsInterruptedAndNoRuleRunResumes)
{
    // Killed (kill -9), a rule run stays "running" in the project: `runs list` says
    // interrupted, and `rules` said "(status: running)". `train --resume` of a rule run said
    // "--model: unknown model 'symgraph'", of a flag the user never gave.
    const fs::path db = symgraph_scratch("killed.gsr");
    const std::string dbq = shell_quote(db.string());
    EXPECT_EQ(signal_a_rule_run(db, "KILL"), "rc=137\n");
    const auto rules = run_gsr("rules 1 --db " + dbq);
    EXPECT_EQ(rules.exit_code, 2);
    EXPECT_NE(rules.err.find("no stored rules (status: interrupted)"), std::string::npos)
        << rules.err;
    const auto resume = run_gsr("train --resume 1 --db " + dbq);
    EXPECT_EQ(resume.exit_code, 2);
    EXPECT_EQ(resume.err, db.string() + ": error: --resume: run 1 learnt rules (symgraph), which "
                                        "keep no checkpoint to resume from: run 'gsr train ... "
                                        "--model symgraph' again\n");
}

TEST(RulesCommand, AnEmptyOutIsACommandLineMistake)
{
    const fs::path db = symgraph_scratch("out.gsr");
    const auto r = run_gsr("rules 1 --db " + shell_quote(db.string()) + " --out ''");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--out needs a value: it is empty"), std::string::npos) << r.err;
}
