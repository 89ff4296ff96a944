// The verifier's process boundary without a GPU: stand-in workers (shell scripts) that answer,
// hang, die of a signal, or talk nonsense, and the verdicts WorkerEvaluator gives each. The
// caller must survive all of them. Also the launch expressions of hand-written kernels.
#include "tune/worker_evaluator.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

namespace {

using namespace gsr;
using namespace gsr::tune;
namespace fs = std::filesystem;

class FakeWorker : public ::testing::Test {
protected:
    /// A worker that runs `body` for every job line it reads ($line holds the job, $id its
    /// "id", which a reply must carry back).
    WorkerOptions script(const std::string& body, int timeout_ms = 3000)
    {
        const fs::path path = dir_ / "worker.sh";
        std::ofstream(path) << "#!/bin/sh\nwhile read -r line; do\n"
                            << "id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\([0-9]*\\).*/\\1/p')\n"
                            << body << "\ndone\n";
        fs::permissions(path, fs::perms::owner_all);
        WorkerOptions o;
        o.worker = path.string();
        o.timeout = std::chrono::milliseconds(timeout_ms);
        o.seed = 7;
        return o;
    }

    /// The shell that answers the job with `fields` (JSON members, without braces).
    static std::string reply(const std::string& fields)
    {
        return "printf '{\"id\":%s,%s}\\n' \"$id\" '" + fields + "'";
    }

    const Problem& problem() { return suite_problem("ew_scale_relu"); }
    const sol::DeviceSpec& device() { return sol::device_or_throw("H100 SXM"); }

    gsr::test::ScratchDir scratch_{"gsr_fake_worker"};
    const fs::path dir_ = scratch_.path;
};

TEST_F(FakeWorker, AReplyBecomesAnEvaluationAndTheJobCarriesTheCandidate)
{
    // The worker echoes the job into a file and answers ok.
    const std::string job_file = (dir_ / "job.json").string();
    WorkerEvaluator w(problem(), device(), 0,
                      script("printf '%s\\n' \"$line\" > " + job_file +
                             "\n" + reply("\"verdict\":\"ok\",\"seconds\":0.00125")));
    const Evaluation e = w.evaluate(default_config(problem()));
    EXPECT_EQ(e.verdict, Verdict::Ok) << e.detail;
    EXPECT_DOUBLE_EQ(e.seconds, 0.00125);
    std::ifstream in(job_file);
    const auto job = nlohmann::json::parse(in);
    EXPECT_EQ(job.at("type"), "evaluate");
    EXPECT_EQ(job.at("entry"), "gsr_elementwise");
    EXPECT_NE(job.at("source").get<std::string>().find("gsr_elementwise"), std::string::npos);
    EXPECT_EQ(problem_from_json(job.at("problem")).rows, problem().rows);
    // Three fresh seeds, distinct, never the test seed 1.
    const auto seeds = job.at("seeds").get<std::vector<std::uint64_t>>();
    ASSERT_EQ(seeds.size(), 3u);
    for (auto s : seeds) EXPECT_GT(s, 1u);
    EXPECT_NE(seeds[0], seeds[1]);
    EXPECT_NE(seeds[1], seeds[2]);
    EXPECT_GE(job.at("runs").get<int>(), 10);
    // The same worker serves the next candidate.
    EXPECT_EQ(w.evaluate(default_config(problem())).verdict, Verdict::Ok);
    EXPECT_EQ(w.workers_started(), 1u);
}

TEST_F(FakeWorker, AHangIsATimeoutAndTheWorkerIsKilled)
{
    WorkerEvaluator w(problem(), device(), 0, script("sleep 30", 300));
    const auto start = std::chrono::steady_clock::now();
    const Evaluation e = w.evaluate(default_config(problem()));
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(e.verdict, Verdict::Timeout) << e.detail;
    EXPECT_GE(waited, 0.3);
    EXPECT_LT(waited, 5.0); // killed, not waited for
}

TEST_F(FakeWorker, ASignalIsACrashNamingIt)
{
    WorkerEvaluator w(problem(), device(), 0, script("echo dying >&2; kill -SEGV $$"));
    const Evaluation e = w.evaluate(default_config(problem()));
    EXPECT_EQ(e.verdict, Verdict::Crash);
    EXPECT_NE(e.detail.find("signal 11"), std::string::npos) << e.detail;
    EXPECT_NE(e.detail.find("dying"), std::string::npos) << e.detail;
    // A fresh worker takes the next candidate.
    w.evaluate(default_config(problem()));
    EXPECT_EQ(w.workers_started(), 2u);
}

TEST_F(FakeWorker, NonsenseIsACrash)
{
    WorkerEvaluator w(problem(), device(), 0, script("echo 'segmentation fault (core dumped)'"));
    const Evaluation e = w.evaluate(default_config(problem()));
    EXPECT_EQ(e.verdict, Verdict::Crash);
    EXPECT_NE(e.detail.find("not JSON"), std::string::npos) << e.detail;
}

TEST_F(FakeWorker, AFatalReplyKeepsItsVerdictAndRestartsTheWorker)
{
    WorkerEvaluator w(problem(), device(), 0,
                      script(reply("\"verdict\":\"illegal_address\",\"detail\":\"x\","
                                   "\"fatal\":true") + "; exit 3"));
    EXPECT_EQ(w.evaluate(default_config(problem())).verdict, Verdict::IllegalAddress);
    EXPECT_EQ(w.evaluate(default_config(problem())).verdict, Verdict::IllegalAddress);
    EXPECT_EQ(w.workers_started(), 2u);
}

TEST_F(FakeWorker, ALineThatIsNotThisJobsReplyIsACrashAndShiftsNothing)
{
    // A line ahead of the reply (what a candidate's printf wrote, when the worker let it reach
    // its replies) was taken as the verdict: the first candidate "ok" at the time it chose,
    // each later one the verdict of the one before.
    WorkerEvaluator w(problem(), device(), 0,
                      script("echo '{\"verdict\":\"ok\",\"seconds\":0.0001}'\n" +
                             reply("\"verdict\":\"wrong_result\",\"detail\":\"element 0\"")));
    for (int candidate = 0; candidate < 3; ++candidate) {
        const Evaluation e = w.evaluate(default_config(problem()));
        EXPECT_EQ(e.verdict, Verdict::Crash) << candidate << ": " << e.detail;
        EXPECT_NE(e.detail.find("not the reply to job"), std::string::npos) << e.detail;
    }
    EXPECT_EQ(w.workers_started(), 3u); // each time a fresh worker, nothing left over

    // JSON that is no object, and fields of the wrong type: crashes, not exceptions.
    for (const std::string& body :
         {std::string("echo 0.5"), reply("\"verdict\":\"ok\",\"fatal\":\"yes\""),
          reply("\"verdict\":7"), reply("\"verdict\":\"ok\",\"seconds\":\"fast\"")}) {
        WorkerEvaluator odd(problem(), device(), 0, script(body));
        Evaluation e;
        EXPECT_NO_THROW(e = odd.evaluate(default_config(problem()))) << body;
        EXPECT_EQ(e.verdict, Verdict::Crash) << body << ": " << e.detail;
    }
}

TEST_F(FakeWorker, AnInvalidConfigNeverReachesTheWorker)
{
    WorkerEvaluator w(problem(), device(), 0, script("kill -KILL $$"));
    KernelConfig c = default_config(problem());
    c.block = 33; // not a multiple of 32
    const Evaluation e = w.evaluate(c);
    EXPECT_EQ(e.verdict, Verdict::InvalidConfig);
    EXPECT_FALSE(e.detail.empty());
    EXPECT_EQ(w.workers_started(), 0u);
}

TEST_F(FakeWorker, AMissingWorkerProgramIsAClearError)
{
    WorkerOptions o;
    o.worker = (dir_ / "no-such-worker").string();
    WorkerEvaluator w(problem(), device(), 0, o);
    EXPECT_THROW(w.evaluate(default_config(problem())), Error);
}

TEST(LaunchExpression, EvaluatesOverTheProblem)
{
    const Problem& ew = suite_problem("ew_bias_gelu_residual"); // 4096 x 4096
    EXPECT_EQ(launch_from_expression(ew, "ceil(n / 256)", 256).grid[0], 65536u);
    EXPECT_EQ(launch_from_expression(ew, "ceil(rows/256)", 128).grid[0], 16u);
    EXPECT_EQ(launch_from_expression(ew, "ceil((rows + 1) / 256)", 256).grid[0], 17u);
    EXPECT_EQ(launch_from_expression(ew, "2 * cols - 4096", 64).block[0], 64u);
    const Problem& r = suite_problem("reduce_rows"); // 16384 rows
    EXPECT_EQ(launch_from_expression(r, "ceil(rows / 256)", 256).grid[0], 64u);
    EXPECT_EQ(default_launch(r).grid[0], 64u);
    EXPECT_EQ(default_launch(ew).grid[0], 65536u);
}

TEST(LaunchExpression, HugeNumbersAndDeepNestingAreRefusedWithAReason)
{
    const Problem& ew = suite_problem("ew_bias_gelu_residual");
    // 400 digits: stod threw out_of_range (exit 3); 50,000 '(': the recursion ran out of stack.
    for (const std::string& text :
         {std::string(400, '9'), std::string(50000, '(') + "1" + std::string(50000, ')')}) {
        try {
            launch_from_expression(ew, text, 256);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_NE(e.message().find("expected"), std::string::npos) << e.message();
        }
    }
    EXPECT_EQ(launch_from_expression(ew, "((((ceil(n / 256)))))", 256).grid[0], 65536u);
}

TEST(LaunchExpression, NestedCeilCountsTowardTheDepthLimit)
{
    const Problem& ew = suite_problem("ew_bias_gelu_residual");
    const auto nested = [](const std::string& open, int depth) {
        std::string text;
        for (int i = 0; i < depth; ++i) text += open;
        const auto opens = std::size_t(std::count(open.begin(), open.end(), '('));
        return text + "1" + std::string(opens * std::size_t(depth), ')');
    };
    // 256 levels are fine, by ceil( alone or mixed with '('.
    EXPECT_EQ(launch_from_expression(ew, nested("ceil(", 256), 256).grid[0], 1u);
    EXPECT_EQ(launch_from_expression(ew, nested("(ceil(", 128), 256).grid[0], 1u);
    // One more is refused by name: 'ceil(' used to bypass the guard and overflow the stack.
    for (const std::string& text : {nested("ceil(", 257), nested("(ceil(", 129)}) {
        try {
            launch_from_expression(ew, text, 256);
            ADD_FAILURE() << "accepted " << text.size() << " characters";
        } catch (const Error& e) {
            EXPECT_NE(e.message().find("at most 256 nested '(' or 'ceil('"), std::string::npos)
                << e.message();
        }
    }
}

TEST(LaunchExpression, BadExpressionsSayWhere)
{
    const Problem& ew = suite_problem("ew_bias_gelu_residual");
    try {
        launch_from_expression(ew, "ceil(n / )", 256);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(e.message().find("column 10"), std::string::npos) << e.message();
    }
    EXPECT_THROW(launch_from_expression(ew, "rows / 3", 256), Error);   // not whole
    EXPECT_THROW(launch_from_expression(ew, "warps", 256), Error);      // unknown name
    EXPECT_THROW(launch_from_expression(ew, "rows / 0", 256), Error);
    EXPECT_THROW(launch_from_expression(ew, "rows", 2048), Error);      // block too big
    EXPECT_THROW(launch_from_expression(ew, "rows - rows", 256), Error); // zero blocks
}

TEST(ProblemJson, RoundTripsEverySuiteProblem)
{
    for (const Problem& p : builtin_suite()) {
        const Problem q = problem_from_json(problem_json(p));
        EXPECT_EQ(problem_json(q), problem_json(p)) << p.name;
        EXPECT_EQ(q.epilogue, p.epilogue) << p.name;
    }
    EXPECT_THROW(problem_from_json({{"name", "x"}}), Error);
    EXPECT_THROW(problem_from_json({{"name", "x"}, {"family", "fft"}, {"rows", 1}, {"cols", 1}}),
                 Error);
}

} // namespace

TEST(NcuCsv, ReadsTheMetricsOfTheFirstKernelRow)
{
    // The shape of `ncu --csv --page raw --print-units base` output: banner lines, the header,
    // the units, one row per kernel; numbers may carry thousands separators.
    const std::string text =
        "==PROF== Connected to process 4242\n"
        "\"ID\",\"Process ID\",\"Kernel Name\",\"dram__bytes.sum\","
        "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"launch__registers_per_thread\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"sm__warps_active.avg.pct_of_peak_sustained_active\"\n"
        "\"\",\"\",\"\",\"byte\",\"%\",\"register/thread\",\"%\",\"%\"\n"
        "\"0\",\"4242\",\"gsr_elementwise\",\"201,523,456\",\"91.25\",\"32\",\"18.5\",\"87.75\"\n";
    const auto s = parse_ncu_csv(text);
    ASSERT_TRUE(s);
    EXPECT_DOUBLE_EQ(s->dram_bytes, 201523456.0);
    EXPECT_DOUBLE_EQ(s->memory_percent, 91.25);
    EXPECT_DOUBLE_EQ(s->sm_percent, 18.5);
    EXPECT_EQ(s->registers, 32);
    EXPECT_DOUBLE_EQ(s->occupancy_percent, 87.75);
    EXPECT_FALSE(parse_ncu_csv("==PROF== No kernels were profiled.\n"));
}
