// The Training panel in the main window: Train runs a tiny CPU training end to end into the
// project, the Runs table then shows it with the store's metrics, the Console's command line
// trains the same run, Stop leaves a resumable run (one whose checkpoint is damaged fails to
// resume and stays as it was), and closing during a run asks first.
#include "mainwindow/main_window.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/console_panel.hpp"
#include "panels/memory_panel.hpp"
#include "panels/runs_panel.hpp"
#include "panels/runs_table_model.hpp"
#include "panels/studio_panels.hpp"
#include "panels/training_panel.hpp"
#include "view_test_support.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_store.hpp"
#endif

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLineSeries>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cmath>
#include <memory>

using gsr::views::MainWindow;
using gsr::views::TrainingOutcome;
using gsr::views::TrainingPanel;

namespace {

constexpr int kWaitMs = 9000;

/// Calls `answer` with the next dialog of type T once it shows (a modal
/// dialog runs its own event loop, so the test answers it from a timer).
template <typename T, typename F>
void when_modal(F answer)
{
    auto* timer = new QTimer;
    QObject::connect(timer, &QTimer::timeout, [timer, answer] {
        for (QWidget* w : QApplication::topLevelWidgets()) {
            auto* dialog = qobject_cast<T*>(w);
            if (!dialog || !dialog->isVisible()) continue;
            timer->stop();
            timer->deleteLater();
            answer(dialog);
            return;
        }
    });
    timer->start(20);
}

QString sample_path() { return QStringLiteral(GSR_SOURCE_DIR "/resources/samples/alu8.v"); }
QString test_circuit() { return gsr::views::test::data_file("netlists/iscas85/bench/c432.bench"); }

/// A window with a project, the sample loaded, its graph read, c432 to test on.
std::unique_ptr<MainWindow> ready_window(const QString& project, int preset, int epochs)
{
    auto w = std::make_unique<MainWindow>();
    if (!project.isEmpty()) w->newProject(project);
    QSignalSpy graph(w->panels(), &gsr::views::StudioPanels::graphReady);
    if (!w->loadFileNow(sample_path())) return nullptr;
    if (!graph.wait(kWaitMs)) return nullptr;
    TrainingPanel* t = w->panels()->training();
    t->applyPreset(preset);
    gsr::views::TrainingSettings s = t->settings();
    s.config.epochs = static_cast<std::uint32_t>(epochs);
    s.config.patience = 0;
    s.test = QStringList{test_circuit()};
    t->setSettings(s);
    return w;
}

/// Shows the window and trains; true once the run's first epoch has ended (it runs on).
bool train_past_the_first_epoch(MainWindow& w)
{
    w.show();
    TrainingPanel* t = w.panels()->training();
    QSignalSpy epochs(t->runner(), &gsr::views::TrainingRunner::epochsFinished);
    t->train();
    return epochs.wait(kWaitMs);
}

} // namespace

class TestTrainingPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        gsr::views::test::init_test_application();
    }

#ifdef GSR_HAVE_STORE
    void trainButtonTrainsAndTheRunsTableShowsTheRun()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        auto w = ready_window(project, 0, 5);
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        QVERIFY2(t->whyTrainIsOff().isEmpty(), qPrintable(t->whyTrainIsOff()));
        QAbstractItemModelTester tester(w->panels()->runs()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);

        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        QTest::mouseClick(t->findChild<QPushButton*>(QStringLiteral("trainButton")),
                          Qt::LeftButton);
        QVERIFY(t->isTraining());
        QVERIFY(finished.wait(kWaitMs));
        const TrainingOutcome o = *t->lastOutcome();
        QCOMPARE(o.status, QStringLiteral("finished"));
        QCOMPARE(o.epochs_done, 5u);
        QVERIFY(o.run_id > 0);
        QVERIFY(o.best.has_value());

        // The store's record, read independently of the panels.
        const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                      gsr::store::OpenMode::ReadOnly);
        const auto record = store.find_run(o.run_id);
        QVERIFY(record.has_value());
        QCOMPARE(QString::fromStdString(record->status), QStringLiteral("finished"));
        QCOMPARE(record->epochs_done, 5);
        const auto result = nlohmann::json::parse(record->result_json);
        const double stored_r = result["best"]["test"]["pearson"].get<double>();
        const double stored_mae = result["best"]["test"]["mae"].get<double>();

        const gsr::views::RunsTableModel* runs = w->panels()->runs()->model();
        QCOMPARE(runs->rowCount(), 1);
        const gsr::views::RunRow& row = runs->run(0);
        QCOMPARE(row.id, o.run_id);
        QCOMPARE(QString::fromStdString(row.status), QStringLiteral("finished"));
        QCOMPARE(row.epochs_done, 5);
        QCOMPARE(QString::fromStdString(row.model), QStringLiteral("gsr"));
        QCOMPARE(row.test_pearson, stored_r);
        QCOMPARE(row.test_mae, stored_mae);
        QCOMPARE(row.test_pearson, o.best->test.metrics.pearson.value);
        QCOMPARE(row.best_epoch, qint64(o.best->epoch));

        // Live charts got one point per epoch; the scatter has every test node.
        auto* loss = qobject_cast<QLineSeries*>(t->lossChart()->series().at(0));
        QVERIFY(loss);
        QCOMPARE(loss->count(), 5);
        QCOMPARE(t->epochs().size(), 5);
        QCOMPARE(std::size_t(t->scatterSeries()->count()), o.best->test.metrics.count);
        // The scatter is the best epoch's model's, and says so: its error is that epoch's.
        QCOMPARE(o.model_epoch, o.best->epoch);
        const QString title = t->scatterSeries()->chart()->title();
        QCOMPARE(title, QStringLiteral("Test nodes: predicted (epoch %1's model) against true")
                            .arg(o.best->epoch));
        double abs_error = 0.0;
        for (int i = 0; i < t->scatterSeries()->count(); ++i)
            abs_error += std::abs(t->scatterSeries()->at(i).y() - t->scatterSeries()->at(i).x());
        const double mae = abs_error / t->scatterSeries()->count();
        QVERIFY2(std::abs(mae - o.best->test.metrics.mae) <= 1e-9 * (1 + mae),
                 qPrintable(QStringLiteral("scatter MAE %1, best epoch's %2")
                                .arg(mae, 0, 'g', 17)
                                .arg(o.best->test.metrics.mae, 0, 'g', 17)));
        // The memory panel shows the run's measured peak.
        QVERIFY(o.memory.measured_peak_bytes > 0);
        QCOMPARE(w->panels()->memory()->measuredChart()->series().size(), 1);

        // The console logged each action's command line.
        const QStringList commands = w->panels()->console()->commands();
        QVERIFY(commands.contains(gsr::views::info_command(sample_path())));
        QVERIFY(commands.contains(gsr::views::netlists_command(project)));
        const QString train_line =
            QStringLiteral("gsr train %1 --test %2 --db %3 --target sp --model gsr --layers 4 "
                           "--hidden 16 --groups 2 --topk 4 --epochs 5 --lr 0.001 --batch 0 "
                           "--seed 1 --patience 0 --device auto")
                .arg(sample_path(), QFileInfo(test_circuit()).absoluteFilePath(),
                     gsr::views::shell_quote(project));
        QVERIFY2(commands.contains(train_line), qPrintable(commands.join(QLatin1Char('\n'))));

        // Not over the project itself, which the file dialog lets a user pick.
        QVERIFY(!w->panels()->runs()->exportCsv(project));
        QCOMPARE(gsr::views::read_runs(project).size(), std::size_t{1});
        // Export CSV writes the table; its logged line, run by the real CLI, writes the same.
        const QString csv = dir.filePath(QStringLiteral("runs.csv"));
        QVERIFY(w->panels()->runs()->exportCsv(csv));
        const QString export_line = gsr::views::runs_list_command(project, csv);
        QCOMPARE(w->panels()->console()->commands().last(), export_line);
        QFile exported(csv);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QByteArray table = exported.readAll();
        QVERIFY2(table.startsWith("Run,Created (UTC),Status,Model,"), table.constData());
        QVERIFY2(table.contains(QStringLiteral(",finished,gsr,\"4 \u00d7 16, 2 groups, top-4\",sp,"
                                               "5/5,").toUtf8()),
                 table.constData());
        exported.close();

        // Export CSV… with "runs" typed: the dialog asks about "runs", the panel writes
        // runs.csv, so it asks about that itself: No keeps the file, Yes replaces it.
        auto* export_button = w->panels()->runs()->findChild<QPushButton*>(
            QStringLiteral("exportCsvButton"));
        QVERIFY(export_button);
        QVERIFY(QFile::resize(csv, 3));
        for (const QMessageBox::StandardButton answer : {QMessageBox::No, QMessageBox::Yes}) {
            when_modal<QFileDialog>([&](QFileDialog* d) {
                when_modal<QMessageBox>([answer](QMessageBox* m) { m->button(answer)->click(); });
                // Accepted as a dialog that asked about "runs" does (a desktop's own; Qt's
                // would complete the name to runs.csv as it is typed).
                d->setDirectory(dir.path());
                auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
                QVERIFY(name);
                name->setText(QStringLiteral("runs"));
                static_cast<QDialog*>(d)->done(QDialog::Accepted); // public in QDialog
            });
            export_button->click();
            QCOMPARE(QFileInfo(csv).size(), answer == QMessageBox::No ? 3 : table.size());
        }
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("runs"))));
        QVERIFY(QFile::remove(csv));
        const QString gsr_binary = QStringLiteral(GSR_BIN_DIR "/gsr");
        if (!QFile::exists(gsr_binary)) QSKIP("the gsr CLI is not built");
        QProcess runs_cli;
        runs_cli.start(QStringLiteral("/bin/sh"),
                       {QStringLiteral("-c"), gsr_binary + export_line.mid(3)});
        QVERIFY(runs_cli.waitForFinished(kWaitMs));
        QCOMPARE(runs_cli.exitCode(), 0);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        QCOMPARE(exported.readAll(), table);
        exported.close();

        // The training line, run by the real CLI into another project, trains the same run.
        QString line = train_line;
        line.replace(gsr::views::shell_quote(project),
                     gsr::views::shell_quote(dir.filePath(QStringLiteral("cli.gsr"))));
        line = gsr_binary + line.mid(3) + QStringLiteral(" --json");
        QProcess cli;
        cli.start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), line});
        QVERIFY(cli.waitForFinished(kWaitMs));
        QCOMPARE(cli.exitCode(), 0);
        const QJsonObject j = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(j.value(QStringLiteral("test")).toObject().value(QStringLiteral("pearson"))
                     .toDouble(),
                 stored_r);
    }

    void stopLeavesAResumableRunThatResumes()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        auto w = ready_window(project, 1, 100000); // deep: epochs long enough to stop in
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        QSignalSpy epochs(t->runner(), &gsr::views::TrainingRunner::epochsFinished);
        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        t->train();
        QVERIFY(epochs.wait(kWaitMs));
        QTest::mouseClick(t->findChild<QPushButton*>(QStringLiteral("stopButton")),
                          Qt::LeftButton);
        QVERIFY(finished.wait(kWaitMs));
        const TrainingOutcome o = *t->lastOutcome();
        QCOMPARE(o.status, QStringLiteral("cancelled"));
        QVERIFY(o.resumable);
        QVERIFY(o.epochs_done >= 1 && o.epochs_done < 100000);
        QVERIFY(t->findChild<QPushButton*>(QStringLiteral("resumeButton"))->isEnabled());
        // A stopped run ends with its best epoch's weights, and shows their test scatter (it
        // showed none, although the status line gave that epoch's test figures).
        QVERIFY(o.model_epoch >= 1);
        QVERIFY(o.best);
        QCOMPARE(std::size_t(t->scatterSeries()->count()), o.best->test.metrics.count);

        const gsr::views::RunsTableModel* runs = w->panels()->runs()->model();
        QCOMPARE(runs->rowCount(), 1);
        QCOMPARE(QString::fromStdString(runs->run(0).status), QStringLiteral("cancelled"));
        QVERIFY(runs->run(0).resumable);
        QCOMPARE(runs->run(0).epochs_done, qint64(o.epochs_done));
        {
            const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                          gsr::store::OpenMode::ReadOnly);
            QCOMPARE(store.last_checkpoint(o.run_id)->epoch, qint64(o.epochs_done));
        }
        // The Runs panel's Resume, on while nothing trains; off while a run does (it did
        // nothing then, without a word).
        gsr::views::RunsPanel* runs_panel = w->panels()->runs();
        runs_panel->selectRuns({o.run_id});
        auto* resume_run = runs_panel->findChild<QPushButton*>(QStringLiteral("resumeRunButton"));
        QVERIFY(resume_run->isEnabled());
        runs_panel->setTraining(true);
        QVERIFY(!resume_run->isEnabled());
        runs_panel->setTraining(false);
        QVERIFY(resume_run->isEnabled());

        // With the checkpoint's random state damaged, resuming fails and keeps the run as
        // it was; with the checkpoint put back, it resumes.
        gsr::store::CheckpointRecord good;
        gsr::store::RunEpochRecord last;
        const auto rewrite = [&](const gsr::store::CheckpointRecord& ck) {
            auto store = gsr::store::RunStore::open(project.toStdString(),
                                                    gsr::store::OpenMode::OpenExisting);
            store.record_epoch(last, ck, false);
            store.set_status(o.run_id, "cancelled"); // recording an epoch marks it running
        };
        {
            const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                          gsr::store::OpenMode::ReadOnly);
            good = *store.last_checkpoint(o.run_id);
            last = store.epochs(o.run_id).back();
        }
        gsr::store::CheckpointRecord damaged = good;
        damaged.rng = {1, 2, 3};
        rewrite(damaged);
        QVERIFY(t->runner()->resume(project, o.run_id, o.epochs_done + 2));
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("failed"));
        QVERIFY2(t->lastOutcome()->error.contains(
                     QStringLiteral("cannot be read: its random state is damaged")),
                 qPrintable(t->lastOutcome()->error));
        {
            const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                          gsr::store::OpenMode::ReadOnly);
            QCOMPARE(store.find_run(o.run_id)->status, std::string("cancelled"));
            QCOMPARE(store.find_run(o.run_id)->epochs_done, qint64(o.epochs_done));
        }
        rewrite(good);

        // Resume with two more epochs: it continues after the checkpoint and finishes. Offload
        // is this session's choice (the run's stored settings do not keep it; a resume
        // dropped it without a word).
        QVERIFY(!t->runner()->settings().config.model.offload_optimizer);
        QVERIFY(t->runner()->resume(project, o.run_id, o.epochs_done + 2, true));
        QVERIFY(finished.wait(kWaitMs));
        QVERIFY(t->runner()->settings().config.model.offload_optimizer);
        const TrainingOutcome resumed = *t->lastOutcome();
        QCOMPARE(resumed.status, QStringLiteral("finished"));
        QCOMPARE(resumed.first_epoch, o.epochs_done + 1);
        QCOMPARE(resumed.epochs_done, o.epochs_done + 2);
        QCOMPARE(QString::fromStdString(runs->run(0).status), QStringLiteral("finished"));
        QCOMPARE(runs->run(0).epochs_done, qint64(o.epochs_done + 2));
        QVERIFY(!runs->run(0).resumable);
    }

    void stopWhileTheCircuitsLoadTrainsNothing()
    {
        // Stop used to wait for the circuits to load and then train on regardless until the
        // first step's end; now nothing is trained, and no run is made.
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        auto w = ready_window(project, 0, 3);
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        gsr::views::TrainingSettings s = t->settings();
        s.test = QStringList{gsr::views::test::big_blif_path()}; // hyp: a second to label
        t->setSettings(s);
        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        QSignalSpy epochs(t->runner(), &gsr::views::TrainingRunner::epochsFinished);
        t->train();
        t->stop();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("cancelled"));
        QCOMPARE(t->lastOutcome()->epochs_done, 0u);
        QCOMPARE(epochs.count(), 0);
        QVERIFY(t->statusText().contains(QStringLiteral("stopped before training began")));
        const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                      gsr::store::OpenMode::ReadOnly);
        QCOMPARE(store.runs().size(), std::size_t(0));
    }

    void closingDuringTrainingAsksFirst()
    {
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        auto w = ready_window(project, 1, 100000);
        QVERIFY(w);
        QVERIFY(train_past_the_first_epoch(*w));
        TrainingPanel* t = w->panels()->training();

        int asked = 0;
        bool answer = false;
        w->panels()->setCloseQuestion([&](const QString& question) {
            ++asked;
            return question.contains(QStringLiteral("resume"), Qt::CaseInsensitive) && answer;
        });
        w->show();
        QVERIFY(!w->close()); // "Cancel": the window stays and the run goes on
        QCOMPARE(asked, 1);
        QVERIFY(t->isTraining());
        QVERIFY(w->isVisible());
        answer = true;
        // Agreed: the run is asked to stop and the window closes once it has; meanwhile it
        // stays open (and repaints: it waited on the thread before) and says so.
        QVERIFY(!w->close());
        QCOMPARE(asked, 2);
        QVERIFY(w->isVisible());
        QVERIFY2(w->statusBar()->currentMessage().contains(QStringLiteral("closes when")),
                 qPrintable(w->statusBar()->currentMessage()));
        QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), kWaitMs);
        QCOMPARE(asked, 2); // closing after the stop asks nothing more
        QVERIFY(!t->isTraining());
        const auto store = gsr::store::RunStore::open(project.toStdString(),
                                                      gsr::store::OpenMode::ReadOnly);
        const auto runs = store.runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(runs[0].status), QStringLiteral("cancelled"));
        QVERIFY(!store.checkpoint_epochs(runs[0].id).empty());
    }
#endif

    void closingDuringAnInMemoryRunSaysItIsLost()
    {
        // The question promised "Resume ... continues it later" for a run with no project,
        // which closing the window loses.
        auto w = ready_window(QString(), 1, 100000);
        QVERIFY(w);
        QVERIFY(train_past_the_first_epoch(*w));
        TrainingPanel* t = w->panels()->training();
        QString asked;
        w->panels()->setCloseQuestion([&](const QString& question) {
            asked = question;
            return false;
        });
        QVERIFY(!w->close());
        QVERIFY2(asked.contains(QStringLiteral("closing loses it")), qPrintable(asked));
        QVERIFY2(!asked.contains(QStringLiteral("Resume")), qPrintable(asked));
        w->panels()->setCloseQuestion([](const QString&) { return true; });
        w->show();
        QVERIFY(!w->close()); // closes once the run has stopped
        QVERIFY(w->isVisible());
        QVERIFY(w->close()); // asked again meanwhile: at once, and the run still stops
        QVERIFY(!w->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!t->isTraining(), kWaitMs);
    }

    void withoutAProjectTheRunStaysInMemory()
    {
        auto w = ready_window(QString(), 0, 3);
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        t->train();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("finished"));
        QCOMPARE(t->lastOutcome()->run_id, 0);
        QCOMPARE(t->lastOutcome()->epochs_done, 3u);
        QCOMPARE(w->panels()->runs()->model()->rowCount(), 0);
        QVERIFY(w->panels()->console()->commands().last().contains(
            QStringLiteral("--db PROJECT.gsr")));
        QVERIFY(t->statusText().contains(QStringLiteral("Not saved")));
    }

    void aStandardCellCircuitTrainsWithTheWindowsCellLibraries()
    {
        // GSCLib's s344, tested on s27: their cells are simulated by the library's functions,
        // which the window's cell libraries give; without them the run fails and says where
        // to give them.
        const QString dir = gsr::views::test::data_file("netlists/iwls05_gsclib180/");
        const QString lib = QFileInfo(dir + QStringLiteral("lib/GSCLib_3.0.lib")).absoluteFilePath();
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.setCellLibraries({lib});
        QSignalSpy graph(w.panels(), &gsr::views::StudioPanels::graphReady);
        QVERIFY(w.loadFileNow(dir + QStringLiteral("netlist/s344.v")));
        QVERIFY(graph.wait(kWaitMs));
        TrainingPanel* t = w.panels()->training();
        t->applyPreset(0);
        gsr::views::TrainingSettings s = t->settings();
        s.config.epochs = 3;
        s.config.patience = 0;
        s.test = QStringList{dir + QStringLiteral("netlist/s27.v")};
        t->setSettings(s);
        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        t->train();
        QVERIFY(finished.wait(kWaitMs));
        QVERIFY2(t->lastOutcome()->status == QStringLiteral("finished"),
                 qPrintable(t->lastOutcome()->error));
        QCOMPARE(t->lastOutcome()->epochs_done, 3u);
        QCOMPARE(t->runner()->settings().liberty, QStringList{lib});
        const QString line = w.panels()->console()->commands().filter(
            QStringLiteral("gsr train ")).last();
        QVERIFY2(line.contains(QStringLiteral(" --liberty ") + lib), qPrintable(line));
        QVERIFY(!t->lastOutcome()->test_scatter.isEmpty()); // s27's nets, labelled

        w.setCellLibraries({});
        QVERIFY(graph.wait(kWaitMs)); // read again, bare
        QVERIFY(t->settings().liberty.isEmpty());
        t->train();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("failed"));
        QVERIFY2(t->lastOutcome()->error.contains(QStringLiteral("File > Cell Libraries")),
                 qPrintable(t->lastOutcome()->error));
    }

    void warmupAndOffloadReachTheRunAndItsCommand()
    {
        auto w = ready_window(QString(), 0, 3);
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        auto* warmup = t->findChild<QSpinBox*>(QStringLiteral("warmupBox"));
        auto* offload = t->findChild<QCheckBox*>(QStringLiteral("offloadBox"));
        QVERIFY(warmup && offload);
        QCOMPARE(t->settings().config.warmup_steps, 0u);
        QVERIFY(!t->settings().config.model.offload_optimizer);
        warmup->setValue(7);
        QTest::mouseClick(offload, Qt::LeftButton);
        QCOMPARE(t->settings().config.warmup_steps, 7u);
        QVERIFY(t->settings().config.model.offload_optimizer);

        QSignalSpy finished(t, &TrainingPanel::trainingFinished);
        t->train();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("finished"));
        QCOMPARE(t->lastOutcome()->epochs_done, 3u);
        const QString line = w->panels()->console()->commands().last();
        QVERIFY2(line.contains(QStringLiteral(" --warmup 7 --offload-optimizer --device auto")),
                 qPrintable(line));
        // The offloaded optimizer state is host memory, outside the arena's peak.
        QVERIFY(t->lastOutcome()->memory.host_bytes > 0);

        gsr::views::TrainingSettings s = t->settings();
        s.config.warmup_steps = 0;
        s.config.model.offload_optimizer = false;
        t->setSettings(s);
        QCOMPARE(warmup->value(), 0);
        QVERIFY(!offload->isChecked());
    }

    void trainIsOffWithoutATestCircuitAndSaysWhy()
    {
        auto w = ready_window(QString(), 0, 3);
        QVERIFY(w);
        TrainingPanel* t = w->panels()->training();
        t->setTestCircuits({});
        QVERIFY(t->whyTrainIsOff().contains(QStringLiteral("test on")));
        QVERIFY(!t->findChild<QPushButton*>(QStringLiteral("trainButton"))->isEnabled());
        t->setTestCircuits({sample_path()});
        QVERIFY(t->whyTrainIsOff().contains(QStringLiteral("cannot be a test circuit")));
    }
};

QTEST_MAIN(TestTrainingPanel)
#include "tst_training_panel.moc"
