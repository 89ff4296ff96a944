// `gsr report` as a user runs it: a run trained with the real `gsr train`, exported in all four
// formats; a tune-session JSON file; the listing; and errors that name what was expected.
#include "run_gsr.hpp"

#include "core/report/report_support.hpp"
#include "tune/tune_session.hpp"
#include "util/json_text.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_store.hpp"
#include "store/tune_store.hpp"
#endif

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using gsr::test::run_gsr;
using gsr::test::data_arg;
using gsr::test::shell_quote;

namespace {

/// One project with one real run (c432 trained on, c17 tested on, 3 epochs), made once.
class ReportCommand : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        dir_ = new gsr::test::ScratchDir("gsr_cli_report");
        project_ = (dir_->path / "p.gsr").string();
        const auto r = run_gsr("train " + data_arg("netlists/iscas85/bench/c432.bench") + " --test " +
                               data_arg("netlists/iscas85/bench/c17.bench") + " --db " +
                               shell_quote(project_) +
                               " --model gcn --layers 2 --hidden 8 --epochs 3 --quiet");
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    static void TearDownTestSuite()
    {
        delete dir_;
        dir_ = nullptr;
    }
    static fs::path out(const std::string& name) { return dir_->path / name; }
    static std::string project() { return shell_quote(project_); }

    static gsr::test::ScratchDir* dir_;
    static std::string project_;
};

gsr::test::ScratchDir* ReportCommand::dir_ = nullptr;
std::string ReportCommand::project_;

gsr::tune::TuneSession small_session()
{
    gsr::tune::TuneSession s;
    s.problem = "gemm_512";
    s.family = "gemm";
    s.device = "H100 SXM";
    s.strategy = "refine";
    s.t_sol = 4e-6;
    s.flops = 2.7e8;
    s.bytes = 3.1e6;
    s.peak_rate = 6.7e13;
    s.bandwidth = 3.35e12;
    s.bound = "compute";
    for (std::size_t i = 0; i < 6; ++i) {
        gsr::tune::CandidateRecord c;
        c.id = i;
        if (i) c.parent = i - 1;
        c.label = "tile=" + std::to_string(32 << (i % 3)) + ",stages=" + std::to_string(i);
        c.origin = i ? "refine" : "start";
        c.seconds = 2e-5 / double(i + 1);
        s.candidates.push_back(c);
    }
    s.candidates[5].verdict = gsr::tune::Verdict::Gaming; // 3.3 us < T_SOL
    s.candidates[4].best = true;
    return s;
}

} // namespace

TEST_F(ReportCommand, RunExportsInEveryFormat)
{
    const auto csv = run_gsr("report run:1 --project " + project() + " --format csv --out " +
                             shell_quote(out("run.csv").string()));
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    const auto rows = gsr::test::parse_csv(gsr::test::read_text(out("run.csv")));
    ASSERT_EQ(rows.size(), 4u); // header + 3 epochs
    for (std::size_t r = 1; r < rows.size(); ++r)
        for (std::size_t c = 0; c < rows[0].size(); ++c)
            EXPECT_TRUE(gsr::test::parses_as_number(rows[r][c])) << rows[0][c] << " row " << r;

    // --db works as for the other commands; the format comes from the extension.
    const auto html = run_gsr("report run:1 --db " + project() + " --out " +
                              shell_quote(out("run.html").string()));
    ASSERT_EQ(html.exit_code, 0) << html.err;
    const std::string page = gsr::test::read_text(out("run.html"));
    EXPECT_NE(page.find("<svg"), std::string::npos);
    EXPECT_EQ(gsr::test::external_references(page), std::vector<std::string>{});

    const auto json = run_gsr("report run:1 --project " + project() + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out); // without --out: stdout
    EXPECT_EQ(j["run"]["epochs"].size(), 3u);
    EXPECT_EQ(j["run"]["settings"]["layers"], 2);

    const auto pdf = run_gsr("report run:1 --project " + project() + " --format pdf --out " +
                             shell_quote(out("run.pdf").string()));
    if (pdf.exit_code == 2 && pdf.err.find("lacks cairo") != std::string::npos)
        GTEST_SKIP() << "this build has no cairo";
    ASSERT_EQ(pdf.exit_code, 0) << pdf.err;
    EXPECT_EQ(gsr::test::read_text(out("run.pdf")).rfind("%PDF-", 0), 0u);
    for (const auto& e : fs::directory_iterator(dir_->path))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST_F(ReportCommand, ListNamesRunsAndSessions)
{
    const auto r = run_gsr("report --list --project " + project());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("run:1\tfinished\tgcn"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sessions: 0"), std::string::npos) << r.out;
    const auto j = run_gsr("report --list --json --project " + project());
    ASSERT_EQ(j.exit_code, 0) << j.err;
    EXPECT_EQ(nlohmann::json::parse(j.out)["runs"][0]["epochs_done"], 3);
}

TEST_F(ReportCommand, FlagsItDoesNotReadAreRefused)
{
    // --db is --project's other spelling, so both together name the project twice.
    auto r = run_gsr("report run:1 --project " + project() + " --db other.gsr --format json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("the project is given twice (--db other.gsr)"), std::string::npos)
        << r.err;
    r = run_gsr("report run:1 --db " + project() + " --format csv");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_gsr("report run:1 --project " + project() + " --json");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--json applies to report --list"), std::string::npos) << r.err;
    const fs::path file = out("flags_session.json");
    std::ofstream(file) << gsr::tune::to_json(small_session()).dump(2);
    r = run_gsr("report " + shell_quote(file.string()) + " --format csv --project " + project());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("reads only the file: leave out the project"), std::string::npos)
        << r.err;
}

#ifdef GSR_HAVE_STORE
TEST_F(ReportCommand, AKilledTrainingIsInterruptedNotRunning)
{
    // A run left "running" that no training holds: what a SIGKILL leaves.
    const fs::path copy = out("killed.gsr");
    fs::copy_file(project_, copy, fs::copy_options::overwrite_existing);
    {
        auto store = gsr::store::RunStore::open(copy.string(), gsr::store::OpenMode::OpenExisting);
        store.set_status(1, "running");
    }
    auto r = run_gsr("report --list --project " + shell_quote(copy.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("run:1\tinterrupted\tgcn"), std::string::npos) << r.out;
    r = run_gsr("report run:1 --format json --project " + shell_quote(copy.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["run"]["status"], "interrupted");
    r = run_gsr("runs list --csv --db " + shell_quote(copy.string()));
    EXPECT_NE(r.out.find(",interrupted,"), std::string::npos) << r.out; // every epoch done
}
#endif

TEST_F(ReportCommand, ASessionFileNeedsNoProject)
{
    const fs::path file = out("session.json");
    std::ofstream(file) << gsr::tune::to_json(small_session()).dump(2);
    const auto csv = run_gsr("report " + shell_quote(file.string()) + " --format csv --out " +
                             shell_quote(out("s.csv").string()));
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    const auto rows = gsr::test::parse_csv(gsr::test::read_text(out("s.csv")));
    ASSERT_EQ(rows.size(), 7u); // header + 6 candidates
    EXPECT_EQ(rows[6][4], "gaming");
    EXPECT_EQ(rows[2][1], "0"); // candidate 1's parent

    const auto html = run_gsr("report " + shell_quote(file.string()) + " --format html");
    ASSERT_EQ(html.exit_code, 0) << html.err;
    EXPECT_NE(html.out.find("Lineage"), std::string::npos);
    EXPECT_EQ(gsr::test::external_references(html.out), std::vector<std::string>{});

    // A report JSON of this command reads back as its session.
    const auto json = run_gsr("report " + shell_quote(file.string()) + " --format json --out " +
                              shell_quote(out("s.report.json").string()));
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto again = run_gsr("report " + shell_quote(out("s.report.json").string()) +
                               " --format csv");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, gsr::test::read_text(out("s.csv")));
}

#ifdef GSR_HAVE_STORE
TEST_F(ReportCommand, AStoredSessionIsListedAndReported)
{
    const std::int64_t id =
        gsr::store::TuneStore::open(project_, gsr::store::OpenMode::OpenExisting)
            .save(small_session());
    const std::string target = "session:" + std::to_string(id);
    const auto list = run_gsr("report --list --project " + project());
    ASSERT_EQ(list.exit_code, 0) << list.err;
    // The best is candidate 4: 100 * 4 us / 4 us = 100 % of SOL.
    const std::string row = target + "\tgemm_512\tH100 SXM\trefine\t6 candidates\tbest 100 % SOL";
    EXPECT_NE(list.out.find(row), std::string::npos) << list.out;
    const auto csv = run_gsr("report " + target + " --project " + project() + " --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(gsr::test::parse_csv(csv.out).size(), 7u);
    const auto json = run_gsr("report " + target + " --project " + project() + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const nlohmann::json stored = nlohmann::json::parse(json.out)["session"];
    nlohmann::json expected = gsr::tune::to_json(small_session());
    // Saved without a timestamp, the session takes the time it was stored.
    EXPECT_EQ(stored["created"].get<std::string>().size(), 20u);
    expected["created"] = stored["created"];
    EXPECT_EQ(stored, expected);
}
#endif

TEST_F(ReportCommand, ErrorsNameTheFileAndWhatWasExpected)
{
    const fs::path bad = out("bad.json");
    std::ofstream(bad) << "{\n  \"problem\": \"x\",\n  oops\n}\n";
    auto r = run_gsr("report " + shell_quote(bad.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(bad.string() + ":3:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("expected a tune session"), std::string::npos) << r.err;

    const fs::path wrong = out("wrong.json");
    std::ofstream(wrong) << R"({"problem": "x", "device": "y"})";
    r = run_gsr("report " + shell_quote(wrong.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(wrong.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'t_sol'"), std::string::npos) << r.err;

    // A run's report JSON, damaged inside (as a fuzzer did): values of another type, a missing
    // object, a number past a double. Each used to stop the program with nlohmann's exception
    // (exit 3, no file named).
    const auto report = run_gsr("report run:1 --project " + project() + " --format json");
    ASSERT_EQ(report.exit_code, 0) << report.err;
    const auto damaged = [&](const std::string& name, auto&& edit) {
        nlohmann::json j = nlohmann::json::parse(report.out);
        edit(j);
        const fs::path f = out(name);
        std::ofstream(f) << gsr::json_text(j);
        return f;
    };
    for (const fs::path& f :
         {damaged("kind.json", [](nlohmann::json& j) { j["kind"] = 1.5; }),
          damaged("epoch.json", [](nlohmann::json& j) { j["run"]["epochs"][0]["val"] = "x"; }),
          damaged("improved.json",
                  [](nlohmann::json& j) { j["run"]["result"]["best"]["improved"] = 1.5; }),
          damaged("best.json",
                  [](nlohmann::json& j) { j["run"]["result"]["best"].erase("val"); })}) {
        r = run_gsr("report " + shell_quote(f.string()) + " --format html");
        EXPECT_EQ(r.exit_code, 2) << f << ": " << r.err;
        EXPECT_EQ(r.err.rfind(f.string() + ": error: ", 0), 0u) << r.err;
    }
    const fs::path huge = out("huge.json");
    std::ofstream(huge) << R"({"kind": "run", "run": {"id": 1e999}})";
    r = run_gsr("report " + shell_quote(huge.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    // The parser gives no position for it: the number's own is found (line 1, column 31).
    EXPECT_NE(r.err.find(huge.string() + ":1:31: error: not valid JSON: number overflow"),
              std::string::npos)
        << r.err;

    r = run_gsr("report session:9 --project " + project() + " --format html");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no tune session 9"), std::string::npos) << r.err;
    r = run_gsr("report run:4 --project " + project() + " --format html");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no run 4"), std::string::npos) << r.err;

    EXPECT_EQ(run_gsr("report run:x --project " + project() + " --format csv").exit_code, 1);
    EXPECT_EQ(run_gsr("report run:1 --project " + project()).exit_code, 1); // no format
    EXPECT_EQ(run_gsr("report run:1 --format csv").exit_code, 1);            // no project
    EXPECT_EQ(run_gsr("report run:1 --project " + project() + " --format docx").exit_code, 1);
    r = run_gsr("report run:1 --project " + project() + " --format csv --out " +
                shell_quote((dir_->path / "no" / "such" / "dir.csv").string()));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no/such/dir.csv"), std::string::npos) << r.err;
}

#ifdef GSR_HAVE_STORE
TEST_F(ReportCommand, ASymgraphRunExportsItsSplitsAndTheLegendOfItsRules)
{
    const std::string sg = shell_quote((dir_->path / "sg.gsr").string());
    const auto trained = run_gsr("train " + data_arg("netlists/iscas85/bench/c432.bench") +
                                 " --test " + data_arg("netlists/iscas85/bench/c17.bench") +
                                 " --db " + sg + " --model symgraph --hops 1 --quiet");
    ASSERT_EQ(trained.exit_code, 0) << trained.err;

    // The CSV had the epoch header and no row.
    const auto csv = run_gsr("report run:1 --project " + sg + " --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    const auto rows = gsr::test::parse_csv(csv.out);
    ASSERT_EQ(rows.size(), 4u) << csv.out;
    EXPECT_EQ(rows[0][0], "split");
    EXPECT_EQ(rows[1][0], "train");
    EXPECT_EQ(rows[2][0], "val");
    EXPECT_EQ(rows[3][0], "test");
    EXPECT_EQ(rows[3][1], "11"); // every c17 node
    for (std::size_t r = 1; r < rows.size(); ++r)
        for (std::size_t c = 1; c < rows[0].size(); ++c)
            EXPECT_TRUE(gsr::test::parses_as_number(rows[r][c])) << rows[0][c] << " row " << r;

    // The run's granularity says what the rules' does: polarity too.
    const auto json = run_gsr("report run:1 --project " + sg + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const nlohmann::json result = nlohmann::json::parse(json.out)["run"]["result"];
    EXPECT_EQ(result["granularity"]["polarity"], true);
    EXPECT_EQ(result["granularity"], result["rules"]["granularity"]);

    // Each class or role of the legend `gsr rules` prints is explained on the page too.
    const auto rules = run_gsr("rules 1 --db " + sg);
    ASSERT_EQ(rules.exit_code, 0) << rules.err;
    const std::size_t where = rules.out.find("\nwhere\n");
    ASSERT_NE(where, std::string::npos) << rules.out;
    const auto html = run_gsr("report run:1 --project " + sg + " --format html");
    ASSERT_EQ(html.exit_code, 0) << html.err;
    EXPECT_NE(html.out.find("<p>where</p>"), std::string::npos);
    std::istringstream lines(rules.out.substr(where + 7));
    for (std::string line; std::getline(lines, line);) {
        const std::size_t colon = line.find(": ");
        ASSERT_NE(colon, std::string::npos) << line;
        EXPECT_NE(html.out.find("<tr><th>" + line.substr(2, colon - 2) + "</th><td>"),
                  std::string::npos)
            << line;
    }
}
#endif

TEST_F(ReportCommand, JsonErrorsNameTheElementAndWhatWasExpectedOnlyOfAnUnknownKind)
{
    // A run report whose third epoch is damaged: the epoch is named, and a file that says it is
    // a run report is not told that a tune session was expected.
    const auto report = run_gsr("report run:1 --project " + project() + " --format json");
    ASSERT_EQ(report.exit_code, 0) << report.err;
    nlohmann::json run = nlohmann::json::parse(report.out);
    run["run"]["epochs"][2]["epoch"] = -3;
    const fs::path bad_epoch = out("bad_epoch.json");
    std::ofstream(bad_epoch) << gsr::json_text(run);
    auto r = run_gsr("report " + shell_quote(bad_epoch.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(bad_epoch.string() + ": error: run report: epoch 3 of 3: "),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("expected a tune session"), std::string::npos) << r.err;

    // An unknown verdict names its candidate and the verdicts there are.
    nlohmann::json session = gsr::tune::to_json(small_session());
    session["candidates"][1]["verdict"] = "failed";
    const std::string want = "candidate 2 of 6 has the unknown verdict 'failed' (the verdicts "
                             "are ok, invalid_config, compile_error, wrong_result, "
                             "unwritten_output, input_insensitive, timeout, crash, "
                             "illegal_address, gaming, unsupported)";
    const fs::path bare = out("bad_verdict.json");
    std::ofstream(bare) << session.dump(2);
    r = run_gsr("report " + shell_quote(bare.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    // A bare session has no kind: what was expected is still said.
    EXPECT_NE(r.err.find("expected a tune session"), std::string::npos) << r.err;
    const fs::path wrapped = out("bad_verdict.report.json");
    std::ofstream(wrapped) << nlohmann::json{{"kind", "tune_session"}, {"session", session}}.dump();
    r = run_gsr("report " + shell_quote(wrapped.string()) + " --format csv");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("expected a tune session"), std::string::npos) << r.err;
}
