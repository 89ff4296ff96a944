// The Profiling panel without a GPU: its models under QAbstractItemModelTester, searches run
// through FunctionEvaluators on the worker thread (finishing, gaming, cancelling a slow one),
// the roofline's axes, the console line, sessions saved and opened, the report hook.
#include "panels/candidates_table_model.hpp"
#include "panels/lineage_model.hpp"
#include "panels/profiling_panel.hpp"
#include "panels/rules_panel.hpp"
#include "panels/roofline_chart.hpp"
#include "panels/studio_panels.hpp"
#include "view_test_support.hpp"

#include "nn/gpu_runtime.hpp"
#include "panels/tune_includes.hpp"
#include "util/diagnostics.hpp"

#include <QAbstractItemModelTester>
#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

using namespace gsr;
using gsr::views::CandidatesTableModel;
using gsr::views::LineageModel;
using gsr::views::ProfilingPanel;
using CloseAnswer = gsr::views::StudioPanels::CloseAnswer;

namespace {

constexpr int kTuneTimeoutMs = 20000;

const sol::DeviceSpec& h100() { return sol::device_or_throw("H100 SXM"); }

/// Tune's trials all take 1 ms; `bound_seen` gets the T_SOL each search was handed.
void tune_at_one_ms(ProfilingPanel& panel, double* bound_seen)
{
    panel.setEvaluatorFactory(
        [bound_seen](const tune::Problem&, const sol::DeviceSpec&, const sol::SolAnalysis& bounds,
                     std::string*) -> std::unique_ptr<tune::Evaluator> {
            *bound_seen = bounds.t_sol;
            return std::make_unique<tune::FunctionEvaluator>([](const tune::KernelConfig&) {
                return tune::Evaluation{tune::Verdict::Ok, 1e-3, {}, {}};
            });
        },
        false);
}

/// What `gsr kernels calibrate --project /projects/p.gsr` keeps for an H100 SXM that copies at
/// `copy_fraction` of its datasheet bandwidth.
sol::Calibration h100_calibration(double copy_fraction)
{
    sol::Calibration c;
    c.device_name = "NVIDIA H100 80GB HBM3";
    c.date = "2026-11-29T10:00:00Z";
    c.copy_bandwidth = copy_fraction * h100().dram_bandwidth;
    c.source = "/projects/p.gsr";
    return c;
}

/// Times by the SOL model's own prediction, stretched by `factor`.
views::EvaluatorFactory predicted_factory(double factor = 1.25)
{
    return [factor](const tune::Problem& p, const sol::DeviceSpec&,
                    const sol::SolAnalysis&, std::string*) -> std::unique_ptr<tune::Evaluator> {
        return std::make_unique<tune::FunctionEvaluator>([p, factor](const tune::KernelConfig& c) {
            tune::Evaluation e;
            e.seconds = tune::predicted_time(p, c, h100()) * factor;
            return e;
        });
    };
}

/// predicted_factory's, with a vendor baseline of `baseline` seconds.
views::EvaluatorFactory factory_with_baseline(double baseline)
{
    class WithBaseline : public tune::FunctionEvaluator {
    public:
        WithBaseline(tune::Problem p, double seconds)
            : tune::FunctionEvaluator([p](const tune::KernelConfig& c) {
                  tune::Evaluation e;
                  e.seconds = tune::predicted_time(p, c, h100()) * 1.25;
                  return e;
              }),
              seconds_(seconds)
        {
        }
        tune::Evaluation baseline() override
        {
            return {tune::Verdict::Ok, seconds_, "cuDNN-like fastest", std::nullopt};
        }

    private:
        double seconds_;
    };
    return [baseline](const tune::Problem& p, const sol::DeviceSpec&,
                      const sol::SolAnalysis&, std::string*) -> std::unique_ptr<tune::Evaluator> {
        return std::make_unique<WithBaseline>(p, baseline);
    };
}

/// Every trial at 1 ms, after a baseline that takes `baseline_ms` (the GPU worker's starts
/// CUDA, compiles and times: seconds).
views::EvaluatorFactory slow_baseline_factory(int baseline_ms)
{
    class SlowBaseline : public tune::FunctionEvaluator {
    public:
        explicit SlowBaseline(int ms)
            : tune::FunctionEvaluator([](const tune::KernelConfig&) {
                  return tune::Evaluation{tune::Verdict::Ok, 1e-3, {}, {}};
              }),
              ms_(ms)
        {
        }
        tune::Evaluation baseline() override
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
            return {tune::Verdict::Ok, 2e-3, "slow baseline", std::nullopt};
        }

    private:
        int ms_;
    };
    return [baseline_ms](const tune::Problem&, const sol::DeviceSpec&, const sol::SolAnalysis&,
                         std::string*) -> std::unique_ptr<tune::Evaluator> {
        return std::make_unique<SlowBaseline>(baseline_ms);
    };
}

/// Trial `cheat` (1-based) reports half of T_SOL; the rest as predicted_factory.
views::EvaluatorFactory cheating_factory(int cheat)
{
    return [cheat](const tune::Problem& p, const sol::DeviceSpec&,
                   const sol::SolAnalysis&, std::string*) -> std::unique_ptr<tune::Evaluator> {
        const double t_sol = sol::analyze(p.op_spec(), h100()).t_sol;
        auto calls = std::make_shared<int>(0);
        return std::make_unique<tune::FunctionEvaluator>(
            [p, t_sol, calls, cheat](const tune::KernelConfig& c) {
                tune::Evaluation e;
                e.seconds = ++*calls == cheat ? 0.5 * t_sol
                                              : tune::predicted_time(p, c, h100()) * 1.5;
                return e;
            });
    };
}

tune::CandidateRecord record(std::size_t id, std::optional<std::size_t> parent,
                             const std::string& label, tune::Verdict v, double seconds)
{
    tune::CandidateRecord c;
    c.id = id;
    c.parent = parent;
    c.label = label;
    c.origin = parent ? "refine" : "start";
    c.verdict = v;
    c.seconds = seconds;
    return c;
}

/// A refine-like session of layernorm_1k on an H100: a start, two children of it, a
/// grandchild, a gaming child and a failed one.
tune::TuneSession lineage_session()
{
    const tune::Problem& p = tune::suite_problem("layernorm_1k");
    tune::TuneSession s = tune::make_session(p, sol::analyze(p.op_spec(), h100()), "refine");
    const double t = s.t_sol;
    const std::string base = "family=layernorm block=256 vec=1 tpr=32 unroll=1";
    s.candidates.push_back(record(0, std::nullopt, base, tune::Verdict::Ok, 3 * t));
    s.candidates.push_back(record(
        1, 0, "family=layernorm block=256 vec=4 tpr=32 unroll=1", tune::Verdict::Ok, 2 * t));
    s.candidates.push_back(record(
        2, 0, "family=layernorm block=512 vec=1 tpr=32 unroll=1", tune::Verdict::Ok, 2.5 * t));
    s.candidates.push_back(record(
        3, 1, "family=layernorm block=256 vec=4 tpr=64 unroll=1", tune::Verdict::Ok, 1.5 * t));
    s.candidates.push_back(record(4, 3, "family=layernorm block=256 vec=4 tpr=64 unroll=2",
                                  tune::Verdict::Gaming, 0.5 * t));
    s.candidates.push_back(record(5, 3, "family=layernorm block=256 vec=4 tpr=128 unroll=1",
                                  tune::Verdict::WrongResult, 0));
    return s;
}

/// Starts a grid search of layernorm_4k whose every trial takes 50 ms, counted in `calls`.
bool start_slow_search(ProfilingPanel& panel, std::atomic<int>& calls)
{
    panel.setEvaluatorFactory(
        [&calls](const tune::Problem&, const sol::DeviceSpec&,
                 const sol::SolAnalysis&, std::string*) -> std::unique_ptr<tune::Evaluator> {
            return std::make_unique<tune::FunctionEvaluator>([&calls](const tune::KernelConfig&) {
                ++calls;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                return tune::Evaluation{tune::Verdict::Ok, 1e-3, {}, {}};
            });
        },
        false);
    if (!panel.selectProblem(QStringLiteral("layernorm_4k"))) return false;
    panel.setStrategy(QStringLiteral("grid"));
    panel.setBudget(200);
    panel.tune();
    return true;
}

bool wait_for_tune(ProfilingPanel& panel)
{
    QElapsedTimer clock;
    clock.start();
    while (panel.isTuning() && clock.elapsed() < kTuneTimeoutMs)
        QTest::qWait(10);
    QCoreApplication::processEvents();
    return !panel.isTuning();
}

} // namespace

class TestProfilingPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { views::test::init_test_application(); }

    void candidatesModelPassesTheTester()
    {
        CandidatesTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        tune::TuneSession s = lineage_session();
        model.setSession(s);
        QCOMPARE(model.rowCount(), 6);
        // The gaming candidate is the fastest, but the best is the fastest verified one.
        QCOMPARE(model.bestRow(), 3);
        QCOMPARE(model.data(model.index(4, CandidatesTableModel::VerdictColumn)).toString(),
                 QStringLiteral("gaming"));
        QCOMPARE(model.data(model.index(3, CandidatesTableModel::VerdictColumn)).toString(),
                 QStringLiteral("ok (best)"));
        // %SOL = 100 T_SOL / T: 100 / 1.5 for the best, 200 for the cheat; none for a failure.
        QCOMPARE(model.data(model.index(3, CandidatesTableModel::PercentSolColumn)).toString(),
                 QStringLiteral("66.7"));
        QCOMPARE(model.data(model.index(4, CandidatesTableModel::PercentSolColumn)).toString(),
                 QStringLiteral("200.0"));
        QVERIFY(model.data(model.index(5, CandidatesTableModel::TimeColumn)).toString().isEmpty());
        // The family word is the same on every row, so the table leaves it out.
        QCOMPARE(model.data(model.index(1, CandidatesTableModel::ConfigColumn)).toString(),
                 QStringLiteral("block=256 vec=4 tpr=32 unroll=1"));
        QCOMPARE(model.data(model.index(0, CandidatesTableModel::BoundColumn)).toString(),
                 QStringLiteral("memory"));
        // A faster verified candidate arriving moves the best.
        model.appendCandidate(record(6, 1, "family=layernorm block=128 vec=4 tpr=32 unroll=1",
                                     tune::Verdict::Ok, 1.2 * s.t_sol));
        QCOMPARE(model.bestRow(), 6);
        QCOMPARE(model.data(model.index(3, CandidatesTableModel::VerdictColumn)).toString(),
                 QStringLiteral("ok"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void lineageModelPassesTheTester()
    {
        LineageModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        tune::TuneSession s = lineage_session();
        model.setSession(s);
        QCOMPARE(model.rowCount(), 1); // one root: the start
        const QModelIndex root = model.index(0, 0);
        QCOMPARE(model.rowCount(root), 2);
        const QModelIndex child = model.index(0, 0, root); // candidate 1
        QCOMPARE(model.candidate(child)->id, std::size_t(1));
        QCOMPARE(model.index(0, LineageModel::ChangeColumn, root).data().toString(),
                 QStringLiteral("vec 1 -> 4"));
        const QModelIndex grandchild = model.index(0, 0, child); // candidate 3
        QCOMPARE(model.parent(grandchild), child);
        QCOMPARE(model.rowCount(grandchild), 2);
        QCOMPARE(grandchild.siblingAtColumn(LineageModel::VerdictColumn).data().toString(),
                 QStringLiteral("ok"));
        QCOMPARE(model.index(0, LineageModel::VerdictColumn, grandchild).data().toString(),
                 QStringLiteral("gaming")); // candidate 4, the cheat
        QCOMPARE(model.index(1, LineageModel::ChangeColumn, grandchild).data().toString(),
                 QStringLiteral("tpr 64 -> 128"));
        QCOMPARE(model.depth(), 3);
        // Live: a child appended under candidate 2, and an orphan at the top.
        model.appendCandidate(record(6, 2, "family=layernorm block=512 vec=2 tpr=32 unroll=1",
                                     tune::Verdict::Ok, 2 * s.t_sol));
        QCOMPARE(model.rowCount(model.indexOfCandidate(2)), 1);
        model.appendCandidate(record(7, 99, "x.cu", tune::Verdict::CompileError, 0));
        QCOMPARE(model.rowCount(), 2);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void tuneIsOffWithoutAnEvaluator()
    {
        ProfilingPanel panel;
        QVERIFY(!panel.tuneButton()->isEnabled());
        const nn::GpuStatus gpu = nn::gpu_status();
        if (!gpu.available) {
            QCOMPARE(panel.whyTuneIsOff(),
                     QStringLiteral("Tuning needs a CUDA GPU: ") +
                         QString::fromStdString(gpu.reason));
            // A GPU evaluator given without a GPU stays off too.
            panel.setEvaluatorFactory(predicted_factory(), true);
            QVERIFY(!panel.tuneButton()->isEnabled());
        }
        QCOMPARE(panel.tuneButton()->toolTip(), panel.whyTuneIsOff());
        panel.setEvaluatorFactory(predicted_factory(), false);
        QVERIFY(panel.tuneButton()->isEnabled());
        QVERIFY(panel.whyTuneIsOff().isEmpty());
    }

    void tuneRunFillsTheTable()
    {
        ProfilingPanel panel;
        QStringList commands;
        connect(&panel, &ProfilingPanel::commandIssued, this,
                [&](const QString& line) { commands << line; });
        QSignalSpy finished(&panel, &ProfilingPanel::tuningFinished);
        panel.setEvaluatorFactory(predicted_factory(), false);
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_1k")));
        QVERIFY(panel.solText().contains(QStringLiteral("T_SOL")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(30);
        panel.tune();
        QVERIFY(panel.isTuning());
        QVERIFY(!panel.tuneButton()->isEnabled());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(commands,
                 QStringList{QStringLiteral("gsr kernels tune layernorm_1k --strategy grid "
                                            "--budget 30 --device 'H100 SXM'")});
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_1k"));
        QVERIFY(s);
        QCOMPARE(s->candidates.size(), std::size_t(30));
        QCOMPARE(panel.candidatesModel()->rowCount(), 30);
        QCOMPARE(panel.progressBar()->value(), 30);
        QCOMPARE(QString::fromStdString(s->stop_reason), QStringLiteral("budget"));
        // Every time is predicted x 1.25, so the best is 80% of SOL or less, and it is marked.
        const int best = panel.candidatesModel()->bestRow();
        QVERIFY(best >= 0);
        const tune::CandidateRecord& b = panel.candidatesModel()->candidate(best);
        QVERIFY(tune::percent_of_sol(*s, b) <= 80.0 + 1e-9);
        QCOMPARE(panel.roofline()->timedPoints().size(), 30);
        QVERIFY(panel.tuneButton()->isEnabled());
        QVERIFY(panel.statusText().contains(QStringLiteral("after 30 trials")));
        // The problem list shows the best %SOL.
        QVERIFY(panel.problemModel()
                    ->findItems(QStringLiteral("layernorm_1k"), Qt::MatchRecursive)
                    .size() == 1);
        // No baseline from this evaluator: the session has none.
        QCOMPARE(s->baseline_seconds, 0.0);
    }

    void theProjectsCalibrationSetsTheBoundsOfItsGpu()
    {
        // `gsr kernels tune --project` divides by the peaks the project measured on that GPU;
        // the panel took the device table's, so its T_SOL and %SOL were not the command's.
        ProfilingPanel panel;
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_1k")));
        const tune::Problem problem = *panel.currentProblem();
        sol::Calibration c = h100_calibration(0.5); // a conservative measurement
        const double datasheet = sol::analyze(problem.op_spec(), h100()).t_sol;
        const double calibrated = sol::analyze(problem.op_spec(), h100(), &c).t_sol;
        QVERIFY(calibrated > 1.9 * datasheet); // memory-bound: half the bandwidth
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));
        panel.setCalibration(c);
        QVERIFY2(panel.solText().contains(QStringLiteral("Calibrated")), qPrintable(panel.solText()));
        QVERIFY(panel.solText().contains(QStringLiteral("p.gsr")));

        // A kernel at 0.8 of the calibrated bound beats it but not the datasheet's: not gaming
        // (the more permissive bound judges, as the command's worker does).
        bool factory_saw_calibration = false;
        const double seconds = 0.8 * calibrated;
        panel.setEvaluatorFactory(
            [&](const tune::Problem&, const sol::DeviceSpec&, const sol::SolAnalysis& bounds,
                std::string*) -> std::unique_ptr<tune::Evaluator> {
                factory_saw_calibration = bounds.calibrated && bounds.t_sol == calibrated;
                return std::make_unique<tune::FunctionEvaluator>([seconds](const tune::KernelConfig&) {
                    return tune::Evaluation{tune::Verdict::Ok, seconds, {}, {}};
                });
            },
            false);
        QStringList commands;
        connect(&panel, &ProfilingPanel::commandIssued, this,
                [&](const QString& line) { commands << line; });
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(3);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QVERIFY(factory_saw_calibration);
        QCOMPARE(commands, QStringList{QStringLiteral("gsr kernels tune layernorm_1k --strategy "
                                                      "grid --budget 3 --device 'H100 SXM' "
                                                      "--project /projects/p.gsr")});
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_1k"));
        QVERIFY(s);
        QCOMPARE(s->t_sol, calibrated);
        QCOMPARE(s->candidates.size(), std::size_t(3));
        for (const tune::CandidateRecord& r : s->candidates)
            QCOMPARE(int(r.verdict), int(tune::Verdict::Ok));

        // Another GPU's bounds stay the datasheet's.
        QVERIFY(panel.setDevice(QStringLiteral("H200")));
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));
        panel.setCalibration(std::nullopt);
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));

        // Peaks past what the GPU can do (a copy at 1.79x the datasheet's): refused once with
        // a note naming the project; the panel keeps working on the datasheet's.
        QSignalSpy notes(&panel, &ProfilingPanel::noteIssued);
        c.copy_bandwidth = 6e12;
        panel.setCalibration(c);
        QVERIFY(!panel.calibration());
        QCOMPARE(notes.count(), 1);
        const QString note = notes.first().first().toString();
        QVERIFY2(note.contains(QStringLiteral("/projects/p.gsr")) &&
                     note.contains(QStringLiteral("copy_bandwidth")),
                 qPrintable(note));
        QVERIFY(panel.solText().contains(QStringLiteral("T_SOL")));
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));
    }

    void aCalibrationSourceIsReadAgainWhenTuneStarts()
    {
        // The project's calibration was read once, when it opened: `gsr kernels calibrate
        // --project` run while the window stayed open did not count until it was reopened.
        ProfilingPanel panel;
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_1k")));
        sol::Calibration c = h100_calibration(0.5);
        std::optional<sol::Calibration> kept; // what the project keeps now
        QString unreadable;                   // or why it cannot be read
        int reads = 0;
        QStringList notes; // a finished search adds its own line: these count the source's
        connect(&panel, &ProfilingPanel::noteIssued, this, [&](const QString& note) {
            if (note.contains(QStringLiteral("error"))) notes << note;
        });
        panel.setCalibrationSource([&](QString* error) {
            ++reads;
            if (!unreadable.isEmpty()) *error = unreadable;
            return unreadable.isEmpty() ? kept : std::nullopt;
        });
        QCOMPARE(reads, 1);
        QVERIFY(!panel.calibration());
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));

        double bound_seen = 0;
        tune_at_one_ms(panel, &bound_seen);
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(1);
        kept = c; // calibrated since the source was set
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(reads, 2);
        QVERIFY(panel.calibration());
        QCOMPARE(bound_seen, sol::analyze(panel.currentProblem()->op_spec(), h100(), &c).t_sol);
        QVERIFY(panel.solText().contains(QStringLiteral("Calibrated")));
        QVERIFY2(notes.isEmpty(), qPrintable(notes.join(QLatin1Char('\n'))));

        // Unreadable now: the datasheet's peaks, and one note however often it is read again.
        unreadable = QStringLiteral("/projects/p.gsr: error: database is locked");
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(reads, 4);
        QVERIFY(!panel.calibration());
        QCOMPARE(notes, QStringList{unreadable});
        QCOMPARE(bound_seen, sol::analyze(panel.currentProblem()->op_spec(), h100()).t_sol);

        // No source (the project closed): no calibration, and nothing read any more.
        panel.setCalibrationSource({});
        QVERIFY(!panel.calibration());
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(reads, 4);
    }

    void tuneMeasuresTheBaselineFirstAsTheCommandLineDoes()
    {
        // `gsr kernels tune` times the vendor baseline before the search; the panel's search
        // had none, so its session said nothing of the baseline the logged line would show.
        ProfilingPanel panel;
        panel.setEvaluatorFactory(factory_with_baseline(123e-6), false);
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_1k")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(4);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_1k"));
        QVERIFY(s);
        QCOMPARE(s->baseline_seconds, 123e-6);
        QCOMPARE(QString::fromStdString(s->baseline), QStringLiteral("cuDNN-like fastest"));
        QCOMPARE(s->candidates.size(), std::size_t(4));
    }

    void gamingIsFlaggedAndNeverBest()
    {
        ProfilingPanel panel;
        panel.setEvaluatorFactory(cheating_factory(3), false);
        QVERIFY(panel.selectProblem(QStringLiteral("softmax_1k")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(12);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        CandidatesTableModel* m = panel.candidatesModel();
        QCOMPARE(m->rowCount(), 12);
        QVERIFY(m->candidate(2).verdict == tune::Verdict::Gaming);
        QCOMPARE(m->data(m->index(2, CandidatesTableModel::VerdictColumn)).toString(),
                 QStringLiteral("gaming"));
        QVERIFY(m->bestRow() >= 0);
        QVERIFY(m->bestRow() != 2);
        QVERIFY(m->candidate(m->bestRow()).verdict == tune::Verdict::Ok);
        QCOMPARE(panel.roofline()->gamingSeries()->count(), 1);
        QCOMPARE(panel.roofline()->bestSeries()->count(), 1);
        // On the roofline the cheat sits above the roof at twice the SOL rate.
        const tune::TuneSession& s = m->session();
        QCOMPARE(panel.roofline()->gamingSeries()->at(0).y(), 2.0 * s.flops / s.t_sol / 1e9);
        QVERIFY(panel.statusText().contains(QStringLiteral("1 gaming")));
    }

    void cancelStopsASlowEvaluator()
    {
        ProfilingPanel panel;
        std::atomic<int> calls{0};
        QSignalSpy finished(&panel, &ProfilingPanel::tuningFinished);
        QVERIFY(start_slow_search(panel, calls));
        QTest::qWait(300);
        QVERIFY(panel.isTuning());
        QElapsedTimer clock;
        clock.start();
        panel.cancel();
        while (panel.isTuning() && clock.elapsed() < 5000) QTest::qWait(5);
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(1).toBool(), true);
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_4k"));
        QVERIFY(s);
        // Exactly the trials that ran, far fewer than the budget.
        QCOMPARE(s->candidates.size(), std::size_t(calls.load()));
        QVERIFY(s->candidates.size() < 50);
        QCOMPARE(QString::fromStdString(s->stop_reason), QStringLiteral("cancelled"));
        QCOMPARE(panel.candidatesModel()->rowCount(), calls.load());
        QVERIFY(panel.statusText().contains(QStringLiteral("cancelled")));
    }

    void closingDuringASearchAsksFirst()
    {
        // The window's close asks StudioPanels: a search's trials are lost unless saved.
        gsr::views::StudioPanels panels;
        ProfilingPanel& panel = *panels.profiling();
        std::atomic<int> calls{0};
        QVERIFY(start_slow_search(panel, calls));
        QTest::qWait(200);
        QVERIFY(panel.isTuning());
        int asked = 0;
        bool answer = false;
        panels.setCloseQuestion([&](const QString& question) {
            ++asked;
            return question.contains(QStringLiteral("kernel search")) &&
                   question.contains(QStringLiteral("Save Session")) && answer;
        });
        QCOMPARE(panels.confirmClose(), CloseAnswer::Stay); // "Cancel": the search goes on
        QCOMPARE(asked, 1);
        QVERIFY(panel.isTuning());
        answer = true;
        // Agreed: the search is asked to stop, and the answer comes at once (the window waited
        // on the thread for up to a minute, not repainting); workStopped() follows it.
        QSignalSpy stopped(&panels, &gsr::views::StudioPanels::workStopped);
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(panels.confirmClose(), CloseAnswer::WhenStopped);
        QCOMPARE(asked, 2);
        QVERIFY(panel.isTuning()); // the trial in flight ends first
        QVERIFY(stopped.wait(2000));
        QCOMPARE(stopped.count(), 1);
        QVERIFY(!panel.isTuning());
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_4k"));
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->stop_reason), QStringLiteral("cancelled"));

        // New work started while the close waits (Ctrl+T reaches the Analysis menu): the close
        // is given up, not carried out without a question when that work ends.
        calls = 0;
        QVERIFY(start_slow_search(panel, calls));
        QTRY_VERIFY(calls > 0);
        QSignalSpy abandoned(&panels, &gsr::views::StudioPanels::closeAbandoned);
        QCOMPARE(panels.confirmClose(), CloseAnswer::WhenStopped);
        Q_EMIT panels.rules()->learningStarted(); // what Learn Rules signals as it starts
        QCOMPARE(abandoned.count(), 1);
        QVERIFY(wait_for_tune(panel));
        QCoreApplication::processEvents();
        QCOMPARE(stopped.count(), 1); // the first close's only
        // And a question answered Cancel after an earlier agreement leaves nothing pending.
        QVERIFY(start_slow_search(panel, calls));
        QCOMPARE(panels.confirmClose(), CloseAnswer::WhenStopped);
        answer = false;
        QCOMPARE(panels.confirmClose(), CloseAnswer::Stay);
        panel.cancel();
        QVERIFY(wait_for_tune(panel));
        QCoreApplication::processEvents();
        QCOMPARE(stopped.count(), 1);
    }

    void aCloseAgreedWhileTheBaselineRunsIsCarriedOut()
    {
        // TuneRunner::started comes only after the baseline is timed: a close agreed before
        // then was given up ("new work started") when it came, and the window stayed open.
        gsr::views::StudioPanels panels;
        ProfilingPanel& panel = *panels.profiling();
        panel.setEvaluatorFactory(slow_baseline_factory(300), false);
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_4k")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(50);
        QSignalSpy started(panel.runner(), &views::TuneRunner::started);
        QSignalSpy stopped(&panels, &gsr::views::StudioPanels::workStopped);
        QSignalSpy abandoned(&panels, &gsr::views::StudioPanels::closeAbandoned);
        panel.tune();
        QVERIFY(panel.isTuning());
        panels.setCloseQuestion([](const QString&) { return true; });
        QCOMPARE(panels.confirmClose(), CloseAnswer::WhenStopped);
        QCOMPARE(started.count(), 0); // still timing the baseline
        QVERIFY(stopped.wait(5000));
        QCOMPARE(started.count(), 1);
        QCOMPARE(stopped.count(), 1);
        QCOMPARE(abandoned.count(), 0);
        QVERIFY(!panel.isTuning());
        const tune::TuneSession* s = panel.session(QStringLiteral("layernorm_4k"));
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->stop_reason), QStringLiteral("cancelled"));
        QCOMPARE(s->candidates.size(), std::size_t(0));
    }

    void aCalibrationOfTheGpuInHandAppliesToTheRowStandingInForIt()
    {
        // A GPU with no row of the table (an H100 NVL) is tuned with a row standing in for it;
        // its calibration names its CUDA name, which maps to no row, and was silently not used.
        QVERIFY(!sol::find_device("NVIDIA H100 NVL"));
        ProfilingPanel panel;
        panel.setGpuName(QStringLiteral("NVIDIA H100 NVL"));
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(panel.selectProblem(QStringLiteral("layernorm_1k")));
        QStringList unused;
        connect(&panel, &ProfilingPanel::noteIssued, this, [&](const QString& note) {
            if (note.contains(QStringLiteral("is not used"))) unused << note;
        });
        sol::Calibration c;
        c.device_name = "NVIDIA H100 NVL";
        c.date = "2026-11-29T10:00:00Z";
        c.copy_bandwidth = 3.9e12; // the NVL's; the SXM's datasheet says 3.35 TB/s
        c.source = "/projects/p.gsr";
        panel.setCalibration(c);
        QVERIFY(panel.calibration());
        QVERIFY2(panel.solText().contains(QStringLiteral("Calibrated")),
                 qPrintable(panel.solText()));
        QVERIFY(unused.isEmpty());
        const double calibrated =
            sol::analyze(panel.currentProblem()->op_spec(), h100(), &c).t_sol;
        QVERIFY(calibrated < 0.9 * sol::analyze(panel.currentProblem()->op_spec(), h100()).t_sol);
        double bound_seen = 0;
        tune_at_one_ms(panel, &bound_seen);
        QStringList commands;
        connect(&panel, &ProfilingPanel::commandIssued, this,
                [&](const QString& line) { commands << line; });
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(1);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(bound_seen, calibrated);
        QCOMPARE(panel.session(QStringLiteral("layernorm_1k"))->t_sol, calibrated);
        QCOMPARE(commands, QStringList{QStringLiteral("gsr kernels tune layernorm_1k --strategy "
                                                      "grid --budget 1 --device 'H100 SXM' "
                                                      "--project /projects/p.gsr")});

        // Another GPU in hand: the calibration says nothing of it, and one note says so,
        // however often the bounds are shown again.
        panel.setGpuName(QStringLiteral("NVIDIA L4"));
        panel.setCalibration(c);
        QVERIFY(!panel.solText().contains(QStringLiteral("Calibrated")));
        QVERIFY(panel.setDevice(QStringLiteral("H200")));
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(panel.selectProblem(QStringLiteral("softmax_1k")));
        QCOMPARE(unused, QStringList{QStringLiteral(
                             "The calibration kept in /projects/p.gsr is not used (it was "
                             "measured on NVIDIA H100 NVL, not on this GPU (NVIDIA L4) or a GPU "
                             "of the H100 SXM row): T_SOL uses the device table's peaks")});
    }

    void theCalibratedBoundSteersTheSolSearch()
    {
        // The search steered by the gaming bound (the datasheet's, the smaller): a kernel at
        // 95% of the calibrated SOL read as 82% and the search ran on instead of stopping.
        ProfilingPanel panel;
        QVERIFY(panel.setDevice(QStringLiteral("H100 SXM")));
        QVERIFY(panel.selectProblem(QStringLiteral("softmax_1k")));
        sol::Calibration c = h100_calibration(0.87);
        panel.setCalibration(c);
        const double calibrated =
            sol::analyze(panel.currentProblem()->op_spec(), h100(), &c).t_sol;
        panel.setEvaluatorFactory(
            [calibrated](const tune::Problem&, const sol::DeviceSpec&, const sol::SolAnalysis&,
                         std::string*) -> std::unique_ptr<tune::Evaluator> {
                return std::make_unique<tune::FunctionEvaluator>(
                    [calibrated](const tune::KernelConfig&) {
                        return tune::Evaluation{tune::Verdict::Ok, 1.05 * calibrated, {}, {}};
                    });
            },
            false);
        panel.setStrategy(QStringLiteral("sol"));
        panel.setBudget(400);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        const tune::TuneSession* s = panel.session(QStringLiteral("softmax_1k"));
        QVERIFY(s);
        QCOMPARE(QString::fromStdString(s->stop_reason), QStringLiteral("near SOL"));
        QCOMPARE(s->candidates.size(), std::size_t(1));
        QCOMPARE(int(s->candidates[0].verdict), int(tune::Verdict::Ok));
    }

    void rooflineAxesHoldEveryPoint()
    {
        ProfilingPanel panel;
        panel.setEvaluatorFactory(cheating_factory(5), false);
        QVERIFY(panel.selectProblem(QStringLiteral("gemm_bias_relu")));
        panel.setStrategy(QStringLiteral("random"));
        panel.setBudget(40);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        views::RooflineChart* r = panel.roofline();
        const QList<QPointF> points = r->timedPoints();
        QCOMPARE(points.size(), 40);
        const QLogValueAxis* x = r->xAxis();
        const QLogValueAxis* y = r->yAxis();
        for (const QPointF& p : points) {
            QVERIFY(p.x() >= x->min() && p.x() <= x->max());
            QVERIFY2(p.y() >= y->min() && p.y() <= y->max(),
                     qPrintable(QStringLiteral("%1 in [%2, %3]")
                                    .arg(p.y()).arg(y->min()).arg(y->max())));
        }
        // The bound is on the roof: a 4096^3 fp32 GEMM is compute-bound on an H100.
        const tune::TuneSession& s = panel.candidatesModel()->session();
        QCOMPARE(QString::fromStdString(s.bound), QStringLiteral("compute"));
        QCOMPARE(r->boundSeries()->count(), 1);
        QCOMPARE(r->boundSeries()->at(0).y(), s.peak_rate / 1e9);
        QVERIFY(r->boundSeries()->at(0).y() <= y->max());
        QCOMPARE(r->computeRoof()->at(0).x(), s.peak_rate / s.bandwidth); // the ridge
    }

    void rooflineLeavesOutPointsItCannotPlace()
    {
        // A session file with a denormal DRAM byte count puts a candidate at an infinite
        // intensity: the axes' range went infinite and Qt Charts crashed labelling it.
        QWidget host;
        host.resize(600, 400);
        views::RooflineChart chart(&host);
        host.show();
        tune::TuneSession s = lineage_session();
        s.candidates[0].profile = tune::ProfileSignals{};
        s.candidates[0].profile->dram_bytes = 1e-320; // flops / bytes overflows
        s.candidates[1].profile = tune::ProfileSignals{};
        s.candidates[1].profile->dram_bytes = s.flops / 1e300; // finite, 1e300 FLOP/byte
        chart.setSession(s);
        QTest::qWait(50); // laid out and drawn
        chart.view()->grab();
        const QList<QPointF> points = chart.timedPoints();
        QCOMPARE(points.size(), 4); // the gaming one too; the infinite and the failed out
        for (const QPointF& p : points) QVERIFY(std::isfinite(p.x()) && std::isfinite(p.y()));
        QVERIFY(std::isfinite(chart.xAxis()->max()));
        QCOMPARE(chart.xAxis()->max(), 1e300); // the room around 1e300 stops at 1e300
    }

    void solSearchLineageMatchesTheLiveStream()
    {
        ProfilingPanel panel;
        panel.setEvaluatorFactory(predicted_factory(1.6), false);
        QVERIFY(panel.selectProblem(QStringLiteral("spmm_w64")));
        panel.setStrategy(QStringLiteral("sol"));
        panel.setBudget(24);
        QSignalSpy live(panel.runner(), &views::TuneRunner::candidateFinished);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        const tune::TuneSession* s = panel.session(QStringLiteral("spmm_w64"));
        QVERIFY(s);
        QCOMPARE(std::size_t(live.count()), s->candidates.size());
        bool any_child = false;
        for (int i = 0; i < live.count(); ++i) {
            const auto c = live.at(i).at(0).value<tune::CandidateRecord>();
            const tune::CandidateRecord& f = s->candidates[std::size_t(i)];
            QVERIFY(c.origin == f.origin);
            QVERIFY(c.parent == f.parent);
            QVERIFY(c.label == f.label);
            any_child = any_child || f.parent.has_value();
        }
        QVERIFY(any_child);
        QVERIFY(panel.lineageModel()->depth() >= 1);
    }

    void anUnsavedSearchIsReplacedOnlyWhenTheUserSaysSo()
    {
        // Tune again (or Open Session of its problem) replaced a finished search that was
        // neither saved nor applied without a word; closing the window lost it silently too.
        QTemporaryDir dir;
        gsr::views::StudioPanels panels;
        ProfilingPanel& panel = *panels.profiling();
        QStringList asked;
        bool answer = false;
        panel.setReplaceQuestion([&](const QString& q) {
            asked << q;
            return answer;
        });
        panel.setEvaluatorFactory(predicted_factory(), false);
        QVERIFY(panel.selectProblem(QStringLiteral("reduce_rows")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(6);
        panel.tune(); // nothing to replace: no question
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(asked.size(), 0);
        QCOMPARE(panel.unsavedSessions(), QStringList{QStringLiteral("reduce_rows")});
        QString closing;
        panels.setCloseQuestion([&](const QString& q) {
            closing = q;
            return false;
        });
        QCOMPARE(panels.confirmClose(), CloseAnswer::Stay); // nothing runs, and still it asks
        QVERIFY2(closing.contains(QStringLiteral("reduce_rows is not saved")), qPrintable(closing));

        panel.setBudget(3);
        panel.tune(); // "Cancel": the six trials stay
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].contains(QStringLiteral("reduce_rows (6 trials) is not saved")),
                 qPrintable(asked[0]));
        QVERIFY(!panel.isTuning());
        QCOMPARE(panel.session(QStringLiteral("reduce_rows"))->candidates.size(), std::size_t(6));
        // Opening a session of that problem asks the same.
        const QString file = dir.filePath(QStringLiteral("s.json"));
        QString error;
        QVERIFY2(panel.saveSession(file, &error), qPrintable(error));
        QVERIFY(panel.unsavedSessions().isEmpty()); // saved: nothing is asked again
        QCOMPARE(panels.confirmClose(), CloseAnswer::Close);
        answer = true;
        panel.tune();
        QCOMPARE(asked.size(), 1);
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(panel.session(QStringLiteral("reduce_rows"))->candidates.size(), std::size_t(3));
        answer = false;
        QVERIFY(!panel.openSession(file, &error));
        QCOMPARE(asked.size(), 2);
        QVERIFY2(error.contains(QStringLiteral("the unsaved search of reduce_rows is kept")),
                 qPrintable(error));
        QCOMPARE(panel.session(QStringLiteral("reduce_rows"))->candidates.size(), std::size_t(3));
        answer = true;
        QVERIFY2(panel.openSession(file, &error), qPrintable(error));
        QCOMPARE(panel.session(QStringLiteral("reduce_rows"))->candidates.size(), std::size_t(6));
        QVERIFY(panel.unsavedSessions().isEmpty()); // what it shows is in the file
    }

    void sessionsRoundTripAndReport()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("s.json"));
        ProfilingPanel panel;
        panel.setEvaluatorFactory(predicted_factory(), false);
        QVERIFY(panel.selectProblem(QStringLiteral("reduce_rows")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(10);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QString error;
        QVERIFY2(panel.saveSession(file, &error), qPrintable(error));

        ProfilingPanel other;
        QVERIFY2(other.openSession(file, &error), qPrintable(error));
        QCOMPARE(other.currentProblemName(), QStringLiteral("reduce_rows"));
        QCOMPARE(other.candidatesModel()->rowCount(), 10);
        QCOMPARE(other.candidatesModel()->bestRow(), panel.candidatesModel()->bestRow());

        QFile broken(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"problem\": \"x\"}");
        broken.close();
        QVERIFY(!other.openSession(broken.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("device")), qPrintable(error));
        // Text that is not JSON: the line and column where it broke.
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{\n  \"problem\": \"x\",\n  \"device\": tru\n}\n");
        broken.close();
        QVERIFY(!other.openSession(broken.fileName(), &error));
        QVERIFY2(error.startsWith(broken.fileName() + QStringLiteral(":3:")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("expected a JSON tuning session")),
                 qPrintable(error));

        // The report hook gets every session of the window; one goes to the chosen file.
        QVERIFY(!panel.exportReport(dir.filePath(QStringLiteral("r")), &error));
        std::vector<std::string> got;
        QStringList files;
        panel.setReportExporter([&](const std::vector<tune::TuneSession>& all,
                                    const QStringList& to) {
            for (const tune::TuneSession& s : all) got.push_back(s.problem);
            files = to;
        });
        QVERIFY(panel.exportReport(dir.filePath(QStringLiteral("r")), &error));
        QVERIFY(got == std::vector<std::string>{"reduce_rows"});
        QCOMPARE(files, QStringList{dir.filePath(QStringLiteral("r"))});
    }

    void exportingSeveralSessionsAsksBeforeReplacingAndKeepsEachOne()
    {
        // Export Report of several sessions wrote report-PROBLEM.* beside the chosen file
        // without a question (the save dialog asked about report.json, never written), and
        // problems whose names reduce to one file name ("a b", "a:b") overwrote each other.
        QCOMPARE(ProfilingPanel::reportFiles({QStringLiteral("a b"), QStringLiteral("a:b"),
                                              QStringLiteral("A_B"), QStringLiteral("a_b-2")},
                                             QStringLiteral("/out/report.v1.html")),
                 (QStringList{QStringLiteral("/out/report.v1-a_b.html"),
                              QStringLiteral("/out/report.v1-a_b-2.html"),
                              QStringLiteral("/out/report.v1-A_B-3.html"),
                              QStringLiteral("/out/report.v1-a_b-2-2.html")}));
        QCOMPARE(ProfilingPanel::reportFiles({QStringLiteral("a:b")},
                                             QStringLiteral("/out/mine.pdf")),
                 QStringList{QStringLiteral("/out/mine.pdf")});

        QTemporaryDir dir;
        gsr::views::StudioPanels panels; // the application's report exporter
        ProfilingPanel& panel = *panels.profiling();
        QStringList asked;
        bool answer = false;
        panel.setReplaceQuestion([&](const QString& q) {
            asked << q;
            return answer;
        });
        QString error;
        int opened = 0;
        for (const char* problem : {"a b", "a:b"}) {
            tune::TuneSession s = lineage_session();
            s.problem = problem;
            const QString file = dir.filePath(QStringLiteral("s%1.json").arg(++opened));
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(tune::to_json(s).dump()));
            f.close();
            QVERIFY2(panel.openSession(file, &error), qPrintable(error));
        }
        const QString path = dir.filePath(QStringLiteral("report.json"));
        const QString first = dir.filePath(QStringLiteral("report-a_b.json"));
        const QString second = dir.filePath(QStringLiteral("report-a_b-2.json"));
        const auto read = [](const QString& file) {
            QFile f(file);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        const auto problem_of = [&](const QString& file) {
            const auto j = nlohmann::json::parse(read(file).toStdString(), nullptr, false);
            return j.is_object() && j.contains("session") ? j["session"].value("problem", "")
                                                          : std::string();
        };
        {
            QFile f(first);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("kept");
        }
        QVERIFY(!panel.exportReport(path, &error)); // "Cancel"
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked[0].contains(QStringLiteral("report.json")) &&
                     asked[0].contains(QStringLiteral("report-a_b.json already exists")) &&
                     !asked[0].contains(QStringLiteral("report-a_b-2.json")),
                 qPrintable(asked[0]));
        QCOMPARE(error, QStringLiteral("report not exported: report-a_b.json kept"));
        QCOMPARE(read(first), QStringLiteral("kept"));
        QVERIFY(!QFile::exists(second));

        answer = true;
        QStringList notes;
        connect(&panel, &ProfilingPanel::noteIssued, this,
                [&](const QString& note) { notes << note; });
        QVERIFY2(panel.exportReport(path, &error), qPrintable(error));
        QCOMPARE(asked.size(), 2);
        QCOMPARE(problem_of(first), std::string("a b"));
        QCOMPARE(problem_of(second), std::string("a:b"));
        QVERIFY(!QFile::exists(path));
        QCOMPARE(notes, QStringList{QStringLiteral("reports of 2 sessions written to %1, %2")
                                        .arg(first, second)});
        // Both exist now: both are asked about.
        answer = false;
        QVERIFY(!panel.exportReport(path, &error));
        QVERIFY2(asked.last().contains(QStringLiteral("report-a_b.json, report-a_b-2.json "
                                                      "already exist")),
                 qPrintable(asked.last()));
    }

    void engineProblemsFollowTheCircuit()
    {
        ProfilingPanel panel;
        QVERIFY(!panel.problemNames().contains(QStringLiteral("engine_spmm_N214591_F64")));
        nn::ModelConfig m;
        m.kind = nn::ModelKind::Gsr;
        m.layers = 256;
        m.hidden = 128;
        m.groups = 2;
        m.topk = 16;
        panel.setModelConfig(m);
        panel.setGraphShape({214591, 857340, 12}, QStringLiteral("hyp"));
        const QStringList names = panel.problemNames();
        QVERIFY(names.contains(QStringLiteral("engine_layernorm_N214591_F64")));
        QVERIFY(names.contains(QStringLiteral("engine_topk_dense_N214591_F64")));
        QVERIFY(names.contains(QStringLiteral("engine_gemm_N214591_F64")));
        QVERIFY(names.contains(QStringLiteral("gemm_bias_relu")));
        QCOMPARE(names.indexOf(QStringLiteral("engine_layernorm_N214591_F64")), 0);
        QVERIFY(panel.selectProblem(QStringLiteral("engine_gemm_N214591_F64")));
        QVERIFY(panel.solText().contains(QStringLiteral("memory-bound")));
        QVERIFY(panel.solText().contains(QStringLiteral("H100 SXM")));
        // Tune's console line names the model and graph, so `gsr kernels tune` can rebuild
        // the same engine problem.
        QStringList commands;
        connect(&panel, &ProfilingPanel::commandIssued, this,
                [&](const QString& line) { commands << line; });
        panel.setEvaluatorFactory(predicted_factory(), false);
        QVERIFY(panel.selectProblem(QStringLiteral("engine_layernorm_N214591_F64")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(3);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QCOMPARE(commands,
                 QStringList{QStringLiteral(
                     "gsr kernels tune engine_layernorm_N214591_F64 --strategy grid --budget 3 "
                     "--device 'H100 SXM' --model gsr --hidden 128 --groups 2 --topk 16 "
                     "--nodes 214591 --edges 857340")});
    }

    void applyHandsAnEngineSessionToTheProject()
    {
        ProfilingPanel panel;
        nn::ModelConfig m;
        m.kind = nn::ModelKind::Rev;
        m.layers = 8;
        m.hidden = 128;
        m.groups = 2;
        panel.setModelConfig(m);
        panel.setGraphShape({5000, 20000, 12}, QStringLiteral("g"));
        panel.setEvaluatorFactory(predicted_factory(), false);
        const QString spmm = QStringLiteral("engine_spmm_N5000_F64");
        QVERIFY(panel.selectProblem(spmm));
        QVERIFY(!panel.applyButton()->isEnabled());
        QVERIFY(panel.whyApplyIsOff().contains(QStringLiteral("project")));

        std::vector<tune::TuneSession> applied;
        panel.setKernelApplier([&](const tune::TuneSession& s) {
            applied.push_back(s);
            return ProfilingPanel::ApplyOutcome{QStringLiteral("gsr kernels apply --session 1"),
                                                {QStringLiteral("used")}};
        });
        QVERIFY(panel.whyApplyIsOff().contains(QStringLiteral("Tune")));
        panel.setStrategy(QStringLiteral("grid"));
        panel.setBudget(4);
        panel.tune();
        QVERIFY(!panel.applyButton()->isEnabled()); // not while it runs
        QVERIFY(wait_for_tune(panel));
        QVERIFY2(panel.applyButton()->isEnabled(), qPrintable(panel.whyApplyIsOff()));

        QStringList commands, notes;
        connect(&panel, &ProfilingPanel::commandIssued, this,
                [&](const QString& line) { commands << line; });
        connect(&panel, &ProfilingPanel::noteIssued, this,
                [&](const QString& line) { notes << line; });
        QTest::mouseClick(panel.applyButton(), Qt::LeftButton);
        QCOMPARE(applied.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(applied[0].problem), spmm);
        QVERIFY(applied[0].best_candidate());
        // The session carries its problem, so the config can be regenerated for the backend.
        QCOMPARE(tune::problem_from_json(applied[0].problem_spec).cols, std::uint64_t(64));
        QCOMPARE(commands, QStringList{QStringLiteral("gsr kernels apply --session 1")});
        QCOMPARE(notes, QStringList{QStringLiteral("used")});

        // A suite problem's session does not run in training; a failing applier says why.
        QVERIFY(panel.selectProblem(QStringLiteral("reduce_rows")));
        panel.setBudget(2);
        panel.tune();
        QVERIFY(wait_for_tune(panel));
        QVERIFY(!panel.applyButton()->isEnabled());
        QVERIFY(panel.whyApplyIsOff().contains(QStringLiteral("engine")));
        QVERIFY(panel.selectProblem(spmm));
        panel.setKernelApplier([](const tune::TuneSession&) -> ProfilingPanel::ApplyOutcome {
            throw Error(gsr::SourceLocation{"p.gsr"}, "read-only");
        });
        QString error;
        QVERIFY(!panel.applyKernel(&error));
        QCOMPARE(error, QStringLiteral("p.gsr: error: read-only")); // the project named
    }
};

QTEST_MAIN(TestProfilingPanel)
#include "tst_profiling_panel.moc"
