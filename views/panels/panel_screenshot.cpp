#include "panels/panel_screenshot.hpp"

#include "panels/candidates_table_model.hpp"
#include "panels/communities_panel.hpp"
#include "panels/console_panel.hpp"
#include "panels/memory_panel.hpp"
#include "panels/profiling_panel.hpp"
#include "panels/runs_panel.hpp"
#include "panels/studio_panels.hpp"
#include "panels/training_panel.hpp"
#include "panels/tune_includes.hpp"
#include "util/diagnostics.hpp"
#include "util/resources.hpp"

#ifdef GSR_HAVE_STORE
#include "store/project_store.hpp"
#endif

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QItemSelectionModel>
#include <QPixmap>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QWidget>

#include <functional>

#include <iostream>

namespace gsr::views {

namespace {

constexpr int kTrainTimeoutMs = 120000;

void settle()
{
    for (int i = 0; i < 10; ++i) QCoreApplication::processEvents();
}

/// Runs the event loop while `busy()` holds, for at most kTrainTimeoutMs, then settles.
void wait_while(const std::function<bool()>& busy)
{
    const QDeadlineTimer deadline(kTrainTimeoutMs);
    while (busy() && !deadline.hasExpired())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    settle();
}

/// Trains with the form as it is and waits for the end. False when it did not finish.
bool train_now(StudioPanels& panels)
{
    TrainingPanel* t = panels.training();
    t->train();
    if (!t->isTraining()) return false; // refused: the status line says why
    wait_while([t] { return t->isTraining(); });
    return !t->isTraining() && t->lastOutcome() &&
           t->lastOutcome()->status != QLatin1String("failed");
}

bool save(QWidget* widget, const QSize& size, const QString& out_png)
{
    widget->resize(size);
    widget->show();
    settle();
    const QPixmap shot = widget->grab();
    if (shot.isNull() || !shot.save(out_png, "PNG")) {
        std::cerr << "gsr-studio: could not write " << out_png.toStdString() << '\n';
        return false;
    }
    std::cout << "wrote " << out_png.toStdString() << " (" << shot.width() << "x"
              << shot.height() << ")\n";
    return true;
}

QStringList test_circuits()
{
    const QString list = qEnvironmentVariable("GSR_SCREENSHOT_TEST");
    QStringList out;
    for (const QString& p : list.split(QLatin1Char(':'), Qt::SkipEmptyParts)) out << p;
    return out;
}

/// The demo evaluator of the profiling screenshot: no GPU, so the times are the SOL model's
/// own prediction of each config (tune::predicted_time) times a fixed per-config factor in
/// [1, 1.3), a few configs fail verification, and one planted cheat (the 17th trial) reports
/// half of T_SOL (search() must flag it gaming). Synthetic, and the panel says so.
std::unique_ptr<tune::Evaluator> demo_evaluator(const tune::Problem& p)
{
    const sol::DeviceSpec& device = sol::device_or_throw("H100 SXM");
    const double t_sol = sol::analyze(p.op_spec(), device).t_sol;
    auto calls = std::make_shared<int>(0);
    return std::make_unique<tune::FunctionEvaluator>(
        [p, device, t_sol, calls](const tune::KernelConfig& c) {
            const std::size_t h = std::hash<std::string>{}(tune::to_text(c));
            const double factor = 1.0 + 0.3 * double(h % 1000) / 1000.0;
            tune::Evaluation e;
            if (++*calls == 17) {
                e.seconds = 0.5 * t_sol;
                e.detail = "demo: a planted cheat that skips the work";
            } else if (h % 11 == 3) {
                e.verdict = tune::Verdict::WrongResult;
                e.detail = "demo: element 17 out of tolerance";
            } else {
                e.seconds = tune::predicted_time(p, c, device) * factor;
            }
            return e;
        });
}

bool profiling_screenshot(StudioPanels& panels, const QString& out_png)
{
    ProfilingPanel* p = panels.profiling();
    const QString banner = QStringLiteral(
        "Demo session: synthetic timings (the SOL model's predicted time x a per-config factor, "
        "one planted cheat), not a measurement");
    p->setBanner(banner);
    p->setWindowTitle(QStringLiteral("Profiling (demo session, not a measurement)"));
    p->setEvaluatorFactory(
        [](const tune::Problem& problem, const sol::DeviceSpec&, const sol::SolAnalysis&,
           std::string*) {
            return demo_evaluator(problem);
        },
        false);
    p->setDevice(QStringLiteral("H100 SXM"));
    const QString problem = QStringLiteral("gemm_bias_relu");
    if (!p->selectProblem(problem)) {
        std::cerr << "gsr-studio: the suite has no " << problem.toStdString() << '\n';
        return false;
    }
    p->setStrategy(QStringLiteral("random"));
    p->setBudget(120);
    p->tune();
    wait_while([p] { return p->isTuning(); });
    if (p->isTuning() || !p->session(problem)) {
        std::cerr << "gsr-studio: the demo search did not finish: "
                  << p->statusText().toStdString() << '\n';
        return false;
    }
    // Fastest first: the flagged cheat on top, then the best verified candidate.
    p->candidatesView()->sortByColumn(CandidatesTableModel::TimeColumn, Qt::AscendingOrder);
    return save(p, QSize(1800, 720), out_png);
}

} // namespace

QStringList screenshot_panels()
{
    return {QStringLiteral("communities"), QStringLiteral("training"), QStringLiteral("memory"),
            QStringLiteral("runs"), QStringLiteral("console"), QStringLiteral("profiling")};
}

bool render_panel_screenshot(const QString& panel, const QString& out_png, const QString& file)
{
    if (!screenshot_panels().contains(panel)) {
        std::cerr << "gsr-studio: unknown panel '" << panel.toStdString() << "' (known: "
                  << screenshot_panels().join(QStringLiteral(", ")).toStdString() << ")\n";
        return false;
    }
    QString path = file;
    if (path.isEmpty()) {
        try {
            path = QString::fromStdString(bundled_sample_path());
        } catch (const Error& e) {
            std::cerr << "gsr-studio: " << e.what() << '\n';
            return false;
        }
    }

    StudioPanels panels;
    // The reader's error names the file, the line and what was expected: print it.
    QString why;
    QObject::connect(&panels, &StudioPanels::graphFailed,
                     [&why](const QString&, const QString& error) { why = error; });
    if (!panels.setNetlistNow(path)) {
        std::cerr << "gsr-studio: could not read " << path.toStdString();
        if (!why.isEmpty()) std::cerr << ": " << why.toStdString();
        std::cerr << '\n';
        return false;
    }
    if (panel == QLatin1String("profiling")) return profiling_screenshot(panels, out_png);
    // Loading started the table's detection: wait for it (a second one would show twice in
    // the console).
    CommunitiesPanel* communities = panels.communities();
    wait_while([communities] { return communities->isDetecting(); });
    if (!communities->result()) communities->detectNow();
    if (panel == QLatin1String("communities")) {
        QTableView* table = panels.communities()->table();
        table->selectRow(0);
        return save(panels.communities(), QSize(560, 640), out_png);
    }

    // Training-based panels: runs go into a throwaway project.
    QTemporaryDir dir;
    if (!dir.isValid()) {
        std::cerr << "gsr-studio: cannot create a temporary folder\n";
        return false;
    }
#ifdef GSR_HAVE_STORE
    const QString project = dir.filePath(QStringLiteral("screenshot.gsr"));
    try {
        store::ProjectStore::open(project.toStdString(), store::OpenMode::CreateOrOpen);
    } catch (const Error& e) {
        std::cerr << "gsr-studio: " << e.what() << '\n';
        return false;
    }
    panels.setProject(project);
#else
    // Training and Memory train in memory; the Runs panel lists a project's runs only.
    if (panel == QLatin1String("runs")) {
        std::cerr << "gsr-studio: this build has no project store: the Runs panel has no "
                     "runs to show\n";
        return false;
    }
#endif
    TrainingPanel* t = panels.training();
    const QStringList tests = test_circuits();
    t->setTestCircuits(tests);
    bool trained = false;
    if (!tests.isEmpty()) {
        if (panel == QLatin1String("memory")) t->applyPreset(1); // deep: flat vs growing memory
        else t->applyPreset(0);
        TrainingSettings s = t->settings();
        s.config.epochs = panel == QLatin1String("memory") ? 5 : 40;
        s.config.patience = 0;
        t->setSettings(s);
        trained = train_now(panels);
        if (panel == QLatin1String("runs") && trained) {
            // A second run to compare with: the residual model of the same size.
            s.config.model.kind = nn::ModelKind::Res;
            t->setSettings(s);
            trained = train_now(panels);
            panels.runs()->refresh();
            panels.runs()->selectRuns({1, 2});
            panels.runs()->compareSelected();
        }
    }
    if (!tests.isEmpty() && !trained) {
        std::cerr << "gsr-studio: the training for the screenshot did not finish: "
                  << t->statusText().toStdString() << '\n';
        return false; // an image of the failure is no screenshot of the panel
    }

    if (panel == QLatin1String("training")) return save(t, QSize(1400, 520), out_png);
    if (panel == QLatin1String("memory")) return save(panels.memory(), QSize(1400, 520), out_png);
    if (panel == QLatin1String("runs")) return save(panels.runs(), QSize(1200, 640), out_png);
    return save(panels.console(), QSize(1100, 300), out_png);
}

} // namespace gsr::views
