#include "panels/studio_panels.hpp"

#include "mainwindow/main_window.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/communities_panel.hpp"
#include "panels/console_panel.hpp"
#include "panels/memory_panel.hpp"
#include "panels/profiling_panel.hpp"
#include "panels/rules_panel.hpp"
#include "panels/runs_panel.hpp"
#include "panels/training_panel.hpp"
#include "project/project_session.hpp"
#include "nn/gpu_runtime.hpp"
#include "report/netlist_summary.hpp"
#include "report/report_export.hpp"
#include "tune/worker_evaluator.hpp"

#ifdef GSR_HAVE_STORE
#include "store/tune_store.hpp"
#endif

#include <QAction>
#include <QDockWidget>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace gsr::views {

namespace {

/// Tune's evaluator in the application: the GPU worker process (core/tune/worker_evaluator)
/// on the GPU in hand, judged by the bounds of the panel's device (as `gsr kernels tune
/// --device`); the reasons it cannot be had go to the panel.
std::unique_ptr<tune::Evaluator> gpu_worker_evaluator(const tune::Problem& p,
                                                      const sol::DeviceSpec& device,
                                                      const sol::SolAnalysis& bounds,
                                                      std::string* why)
{
    const nn::GpuStatus gpu = nn::gpu_status();
    const std::string worker = tune::find_worker();
    if (!gpu.available || worker.empty()) {
        if (why)
            *why = !gpu.available ? gpu.reason
                                  : std::string("the kernel worker (gsr-kernel-worker) is not "
                                                "installed beside gsr-studio");
        return nullptr;
    }
    return std::make_unique<tune::WorkerEvaluator>(p, device, sol::gaming_bound(bounds));
}

/// The calibration the project at `path` keeps (`gsr kernels calibrate --project`), for the
/// Profiling panel's bounds; none without a project or one, and none (with a note in the
/// Console saying why, `error`) when it cannot be read.
std::optional<sol::Calibration> project_calibration(const QString& path, QString* error)
{
#ifdef GSR_HAVE_STORE
    if (path.isEmpty()) return std::nullopt;
    try {
        const auto project = store::ProjectStore::open(QFile::encodeName(path).toStdString(),
                                                       store::OpenMode::ReadOnly);
        return store::stored_calibration(project);
    } catch (const Error& e) {
        *error = QString::fromStdString(e.what());
    }
#else
    (void)path;
    (void)error;
#endif
    return std::nullopt;
}

/// Export Report: each session to its file (ProfilingPanel::reportFiles names them, and the
/// panel asks before any is replaced). The format follows the extension (html, pdf, csv,
/// json); one that names none is refused before anything is written.
void export_sessions(const std::vector<tune::TuneSession>& sessions, const QStringList& files)
{
    std::vector<report::ReportFormat> formats;
    for (const QString& file : files) {
        const std::string target = QFile::encodeName(file).toStdString();
        const auto format = report::report_format_of_path(target);
        if (!format)
            throw Error(SourceLocation{target}, "expected a .html, .pdf, .csv or .json file");
        formats.push_back(*format);
    }
    for (std::size_t i = 0; i < sessions.size() && i < std::size_t(files.size()); ++i)
        write_file_atomically(QFile::encodeName(files[qsizetype(i)]).toStdString(),
                              report::export_session(sessions[i], formats[i]));
}

/// Apply in the open project: the session is stored, then its best config becomes the
/// applied kernel of its problem (store::TuneStore::apply), as `gsr kernels apply` does.
ProfilingPanel::KernelApplier project_applier(const QString& project)
{
#ifdef GSR_HAVE_STORE
    if (project.isEmpty()) return nullptr;
    return [project](const tune::TuneSession& session) {
        const std::string path = QFile::encodeName(project).toStdString();
        store::TuneStore store = store::TuneStore::open(path, store::OpenMode::OpenExisting);
        const std::int64_t id = store.save(session);
        const tune::ApplyChoice choice = store.apply({id});
        ProfilingPanel::ApplyOutcome out;
        out.command = gsr_command({QStringLiteral("kernels"), QStringLiteral("apply"),
                                   QStringLiteral("--project"), project,
                                   QStringLiteral("--session"), QString::number(id)});
        std::vector<std::string> notes = choice.skipped;
        std::vector<tune::AppliedKernel> mine;
        for (const tune::AppliedKernel& k : store.applied())
            if (k.problem == session.problem) mine.push_back(k);
        if (tune::tuned_kernels(mine, &notes).empty() && notes.empty())
            notes.push_back(session.problem + ": nothing to apply");
        if (notes.empty())
            notes.push_back(session.problem + ": applied (session " + std::to_string(id) +
                            "); the next GPU training run uses it");
        for (const std::string& n : notes) out.notes << QString::fromStdString(n);
        return out;
    };
#else
    (void)project;
    return nullptr;
#endif
}

struct GraphOutcome {
    std::shared_ptr<const LoadedGraph> graph;
    QString error;
};

/// The graph of `path`: `circuit`'s where the window read it already, else read here.
GraphOutcome read_graph(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    GraphOutcome out;
    try {
        out.graph = circuit ? loaded_graph(path, std::move(circuit)) : load_circuit_graph(path);
    } catch (...) {
        out.error = describe_failure(std::current_exception());
    }
    return out;
}

} // namespace

StudioPanels::StudioPanels(QObject* parent) : QObject(parent)
{
    communities_ = new CommunitiesPanel;
    rules_ = new RulesPanel;
    training_ = new TrainingPanel;
    memory_ = new MemoryPanel;
    runs_ = new RunsPanel;
    console_ = new ConsolePanel;
    profiling_ = new ProfilingPanel;
    wirePanels();
    memory_->setModelConfig(training_->settings().config.model);
    profiling_->setModelConfig(training_->settings().config.model);
    profiling_->setEvaluatorFactory(gpu_worker_evaluator, /*needs_gpu=*/true);
    profiling_->setReportExporter(export_sessions);
}

StudioPanels::~StudioPanels()
{
    // The training panel first: its runner stops the worker thread before anything goes.
    for (QWidget* w : std::initializer_list<QWidget*>{training_, profiling_, communities_, rules_,
                                                      memory_, runs_, console_})
        if (w && !w->parentWidget()) delete w;
}

void StudioPanels::wirePanels()
{
    connect(communities_, &CommunitiesPanel::commandIssued, console_, &ConsolePanel::appendCommand);
    connect(communities_, &CommunitiesPanel::communitySelected, this,
            &StudioPanels::communitySelected);
    connect(communities_, &CommunitiesPanel::communitiesDetected, this,
            &StudioPanels::communitiesDetected);
    connect(communities_, &CommunitiesPanel::detectionFailed, console_, &ConsolePanel::appendNote);
    connect(rules_, &RulesPanel::commandIssued, console_, &ConsolePanel::appendCommand);
    connect(rules_, &RulesPanel::noteIssued, console_, &ConsolePanel::appendNote);
    connect(rules_, &RulesPanel::learningFailed, console_, &ConsolePanel::appendNote);
    connect(rules_, &RulesPanel::ruleSelected, this, &StudioPanels::ruleSelected);
    connect(training_, &TrainingPanel::commandIssued, console_, &ConsolePanel::appendCommand);
    connect(training_, &TrainingPanel::noteIssued, console_, &ConsolePanel::appendNote);
    connect(training_, &TrainingPanel::settingsChanged, memory_,
            [this](const TrainingSettings& s) {
                memory_->setModelConfig(s.config.model);
                profiling_->setModelConfig(s.config.model);
            });
    connect(training_, &TrainingPanel::runCreated, runs_, &RunsPanel::refresh);
    connect(training_, &TrainingPanel::trainingStarted, runs_, [this] { runs_->setTraining(true); });
    connect(training_, &TrainingPanel::trainingFinished, this, [this](const TrainingOutcome& o) {
        runs_->setTraining(false);
        runs_->refresh();
        if (o.status != QLatin1String("failed") && !o.memory.layers.empty())
            memory_->showMeasured(o.memory, training_->runner()->settings().config.model,
                                  o.run_id > 0 ? tr("run %1").arg(o.run_id) : tr("last run"));
        if (!o.predictions.isEmpty()) Q_EMIT predictionsReady(o.predicted_circuit, o.predictions);
    });
    connect(runs_, &RunsPanel::commandIssued, console_, &ConsolePanel::appendCommand);
    connect(runs_, &RunsPanel::resumeRequested, training_, &TrainingPanel::resumeRun);
    connect(profiling_, &ProfilingPanel::commandIssued, console_, &ConsolePanel::appendCommand);
    connect(profiling_, &ProfilingPanel::noteIssued, console_, &ConsolePanel::appendNote);
    // After the panels' own handlers: the runners say they stopped before they signal.
    connect(training_->runner(), &TrainingRunner::finished, this, &StudioPanels::noteWorkEnded);
    connect(profiling_->runner(), &TuneRunner::finished, this, &StudioPanels::noteWorkEnded);
    connect(training_->runner(), &TrainingRunner::started, this, &StudioPanels::noteWorkStarted);
    // At launch, not at TuneRunner::started: that comes after the baseline is timed (seconds
    // on the GPU), and a close agreed meanwhile took it for new work.
    connect(profiling_->runner(), &TuneRunner::launched, this, &StudioPanels::noteWorkStarted);
    connect(rules_, &RulesPanel::learningStarted, this, &StudioPanels::noteWorkStarted);
}

void StudioPanels::noteWorkStarted()
{
    if (!waiting_to_close_) return;
    waiting_to_close_ = false;
    Q_EMIT closeAbandoned();
}

bool StudioPanels::isBusy() const { return training_->isTraining() || profiling_->isTuning(); }

void StudioPanels::noteWorkEnded()
{
    if (!waiting_to_close_ || isBusy()) return;
    waiting_to_close_ = false;
    Q_EMIT workStopped();
}

void StudioPanels::install(MainWindow& window)
{
    window_ = &window;
    auto dock = [&](QWidget* panel, const QString& title, const char* name,
                    Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, &window);
        d->setObjectName(QString::fromLatin1(name));
        d->setWidget(panel);
        window.addDockWidget(area, d);
        docks_ << d;
        return d;
    };
    QDockWidget* communities = dock(communities_, tr("Communities"), "communitiesDock",
                                    Qt::RightDockWidgetArea);
    QDockWidget* rules = dock(rules_, tr("Rules"), "rulesDock", Qt::RightDockWidgetArea);
    QDockWidget* training = dock(training_, tr("Training"), "trainingDock",
                                 Qt::BottomDockWidgetArea);
    QDockWidget* memory = dock(memory_, tr("Memory"), "memoryDock", Qt::BottomDockWidgetArea);
    QDockWidget* runs = dock(runs_, tr("Runs"), "runsDock", Qt::BottomDockWidgetArea);
    QDockWidget* profiling =
        dock(profiling_, tr("Profiling"), "profilingDock", Qt::BottomDockWidgetArea);
    QDockWidget* console = dock(console_, tr("Console"), "consoleDock", Qt::BottomDockWidgetArea);
    // Tabs at the bottom, Training in front; the Console beside the window's Messages.
    window.tabifyDockWidget(training, memory);
    window.tabifyDockWidget(training, runs);
    window.tabifyDockWidget(training, profiling);
    if (auto* messages = window.findChild<QDockWidget*>(QStringLiteral("messagesDock")))
        window.tabifyDockWidget(messages, console);
    else
        window.tabifyDockWidget(training, console);
    if (auto* summary = window.findChild<QDockWidget*>(QStringLiteral("summaryDock")))
        window.tabifyDockWidget(summary, communities);
    window.tabifyDockWidget(communities, rules);
    training->raise();
    communities->raise();

    // An Analysis menu before Help: the panels' main actions with shortcuts.
    auto* menu = new QMenu(tr("&Analysis"), &window);
    QAction* detect = menu->addAction(tr("&Detect Communities"), communities_,
                                      &CommunitiesPanel::detect);
    detect->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    menu->addAction(tr("Learn &Rules"), rules_, &RulesPanel::learn);
    QAction* train = menu->addAction(tr("&Train"), training_, &TrainingPanel::train);
    train->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    QAction* stop = menu->addAction(tr("&Stop Training"), training_, &TrainingPanel::stop);
    stop->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    menu->addSeparator();
    for (QDockWidget* d : docks_) menu->addAction(d->toggleViewAction());
    const QList<QAction*> top = window.menuBar()->actions();
    window.menuBar()->insertMenu(top.isEmpty() ? nullptr : top.last(), menu);

    // A cell library has no circuit: the panels keep the netlist they have (Training would
    // have trained on the library).
    connect(&window, &MainWindow::loadFinished, this, [this, w = &window](const QString& path) {
        if (w->summary() && w->summary()->graph_nodes) setNetlist(path, w->loadedCircuit());
    });
    connect(&window, &MainWindow::loadFailed, this,
            [this, w = &window](const QString& path, const QString& m) {
        console_->appendCommand(info_command(path, w->cellLibraries()));
        console_->appendNote(m);
    });
    connect(&window, &MainWindow::projectCreated, this,
            [this](const QString& path) { console_->appendCommand(new_project_command(path)); });
    connect(&window, &MainWindow::projectChanged, this, &StudioPanels::setProject);
    if (auto* import = window.findChild<QAction*>(QStringLiteral("importAction")))
        connect(import, &QAction::triggered, this, [this, w = &window] {
            if (w->summary() && w->project().isOpen())
                console_->appendCommand(import_command(
                    QString::fromStdString(w->summary()->path), w->project().path(),
                    circuit_libraries(w->loadedCircuit().get())));
        });
    const auto ask = [w = &window](const QString& question) {
        if (!w->showsMessageBoxes()) return true;
        return QMessageBox::question(w, tr("GSR Studio"), question,
                                     QMessageBox::Yes | QMessageBox::Cancel,
                                     QMessageBox::Cancel) == QMessageBox::Yes;
    };
    if (!close_question_) close_question_ = ask;
    profiling_->setReplaceQuestion(ask);
}

void StudioPanels::setNetlist(const QString& path,
                              std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    const QStringList libraries = circuit_libraries(circuit.get());
    console_->appendCommand(info_command(path, libraries));
    training_->setNetlist(path, libraries);
    const std::uint64_t job = next_graph_job_++;
    graph_job_ = job;
    auto* watcher = new QFutureWatcher<GraphOutcome>(this);
    connect(watcher, &QFutureWatcher<GraphOutcome>::finished, this, [this, watcher, job, path] {
        const GraphOutcome out = watcher->result();
        watcher->deleteLater();
        if (job != graph_job_) return; // another netlist was opened meanwhile
        graph_job_ = 0;
        if (out.graph) {
            useGraph(out.graph);
        } else {
            console_->appendNote(out.error);
            Q_EMIT graphFailed(path, out.error);
        }
    });
    watcher->setFuture(QtConcurrent::run([path, circuit] { return read_graph(path, circuit); }));
}

bool StudioPanels::setNetlistNow(const QString& path,
                                 std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    const QStringList libraries = circuit_libraries(circuit.get());
    console_->appendCommand(info_command(path, libraries));
    training_->setNetlist(path, libraries);
    graph_job_ = 0;
    const GraphOutcome out = read_graph(path, std::move(circuit));
    if (!out.graph) {
        console_->appendNote(out.error);
        Q_EMIT graphFailed(path, out.error);
        return false;
    }
    useGraph(out.graph);
    return true;
}

void StudioPanels::useGraph(std::shared_ptr<const LoadedGraph> graph)
{
    graph_ = std::move(graph);
    const graph::CircuitGraph& g = graph_->graph();
    // The trainer's features: the one-hot of the cell types, fan-in, fan-out and three flags.
    const nn::GraphShape shape{g.node_count(), g.edge_count(), g.feature_count()};
    communities_->setGraph(graph_);
    // The table lists the communities as soon as the circuit loads (with the panel's method,
    // resolution and seed: the canvas's partition while they are the defaults).
    communities_->detect();
    rules_->setGraph(graph_);
    memory_->setGraphShape(shape, QFileInfo(graph_->path).fileName());
    training_->setGraphShape(shape);
    profiling_->setGraphShape(shape, QFileInfo(graph_->path).fileName());
    Q_EMIT graphReady(graph_->path);
}

void StudioPanels::setProject(const QString& path)
{
    if (!path.isEmpty()) console_->appendCommand(netlists_command(path));
    training_->setProject(path);
    profiling_->setKernelApplier(project_applier(path));
    if (path.isEmpty()) profiling_->setCalibrationSource({});
    else
        profiling_->setCalibrationSource(
            [path](QString* error) { return project_calibration(path, error); });
    rules_->setProject(path);
    runs_->setProject(path);
}

StudioPanels::CloseAnswer StudioPanels::confirmClose()
{
    const bool training = training_->isTraining();
    const bool tuning = profiling_->isTuning();
    const bool learning = rules_->isLearning();
    const QStringList unsaved = profiling_->unsavedSessions();
    waiting_to_close_ = false; // asked again: this answer is the one that counts
    if (!training && !tuning && !learning && unsaved.isEmpty()) return CloseAnswer::Close;
    // One question for all the work in progress, each with what stopping it keeps.
    QStringList work;
    if (training)
        work << (training_->runner()->runIsInProject()
                     ? tr("A training run is in progress. It keeps its last finished epoch: "
                          "Resume in the Runs panel (or gsr train --resume) continues it later.")
                     : tr("A training run is in progress. No project is open, so it is kept in "
                          "memory only: closing loses it (File > New Project before training "
                          "keeps a run)."));
    if (tuning)
        work << tr("A kernel search is in progress. Its trials so far are lost: only a session "
                   "saved (Save Session…) or applied is kept. Stopping waits for the trial "
                   "running on the GPU.");
    if (learning)
        work << tr("Rules are being learnt. The rules are not kept: Learn Rules starts over.");
    if (unsaved.size() == 1)
        work << tr("The finished search of %1 is not saved (Save Session\u2026 or Apply keeps "
                   "it): closing loses it.")
                    .arg(unsaved.front());
    else if (unsaved.size() > 1)
        work << tr("The finished searches of %1 are not saved (Save Session\u2026 or Apply "
                   "keeps them): closing loses them.")
                    .arg(unsaved.join(QStringLiteral(", ")));
    const bool running = training || tuning || learning;
    const QString question =
        work.join(QStringLiteral("\n\n")) + QStringLiteral("\n\n") +
        (!running              ? tr("Close GSR Studio?")
         : work.size() == 1    ? tr("Stop it and close GSR Studio?")
                               : tr("Stop them and close GSR Studio?"));
    if (close_question_ && !close_question_(question)) return CloseAnswer::Stay;
    if (learning) rules_->cancel();
    if (tuning) profiling_->cancel();
    if (training) training_->stop();
    if (!isBusy()) return CloseAnswer::Close;
    waiting_to_close_ = true;
    return CloseAnswer::WhenStopped;
}

} // namespace gsr::views
