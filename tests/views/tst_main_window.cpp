// MainWindow: loads in the background, shows what core computed, reports bad files in words,
// and abandons a cancelled load for good.
#include "loading/netlist_loader.hpp"
#include "mainwindow/main_window.hpp"
#include "mainwindow/recent_files.hpp"
#include "models/netlist_summary_model.hpp"
#include "panels/cli_equivalent.hpp"
#include "panels/console_panel.hpp"
#include "panels/profiling_panel.hpp"
#include "panels/studio_panels.hpp"
#include "panels/training_panel.hpp"
#include "project/project_session.hpp"
#include "view_test_support.hpp"

#include "netlist/format.hpp"
#include "report/netlist_summary.hpp"

#ifdef GSR_HAVE_STORE
#include "store/project_store.hpp"
#include "store/tune_store.hpp"
#endif

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QIcon>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QThread>
#include <QToolButton>
#include <QUrl>

#include <algorithm>

using gsr::views::MainWindow;
using gsr::views::NetlistLoader;
using gsr::views::NetlistSummaryModel;
using Field = NetlistSummaryModel::Field;

namespace {

constexpr int kLoadTimeoutMs = 60000;

/// Drags `path` over the window and drops it, as a file manager does; false when the window
/// refuses the drag.
bool drop_file(MainWindow& w, const QString& path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    const QPoint at(w.width() / 2, w.height() / 2);
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    if (!enter.isAccepted()) return false;
    QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    return true;
}

qint64 core_cells(const QString& path)
{
    const auto s = gsr::report::summarize_file(path.toStdString());
    return s.counts.cells.value();
}

/// The cells figure as the Summary dock's table shows it (through the view's model).
QString table_cells(const MainWindow& w)
{
    const auto* table = w.findChild<QTableView*>(QStringLiteral("summaryTable"));
    if (!table || !table->model()) return {};
    const QAbstractItemModel* m = table->model();
    if (m->rowCount() == 0) return {};
    return m->data(m->index(NetlistSummaryModel::rowOf(Field::Cells),
                            NetlistSummaryModel::ValueColumn))
        .toString();
}

QString digits(const QString& text)
{
    QString out;
    for (const QChar c : text)
        if (c.isDigit()) out += c;
    return out;
}

/// A file of GSCLib's IWLS 2005 set, absolute (as the window names what it opens).
QString gsclib(const char* relative)
{
    return QFileInfo(gsr::views::test::data_file("netlists/iwls05_gsclib180/") +
                     QString::fromUtf8(relative))
        .absoluteFilePath();
}

bool any_contains(const QStringList& lines, const QString& needle)
{
    for (const QString& l : lines)
        if (l.contains(needle, Qt::CaseInsensitive)) return true;
    return false;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void theWindowHasTheDesktopEntrysIdAndIcon()
    {
        // Nothing set either: under Wayland the app_id was the executable's name, which no
        // desktop entry has, and the dock showed a generic icon.
        QCOMPARE(QGuiApplication::desktopFileName(), QStringLiteral("io.github.gsrstudio.GsrStudio"));
        MainWindow w;
        const QIcon icon = w.windowIcon();
        QVERIFY(!icon.isNull());
        // The bundled PNGs, drawn: the icon's 32-pixel form is not empty.
        const QImage image = icon.pixmap(32, 32).toImage();
        QCOMPARE(image.size(), QSize(32, 32));
        int opaque = 0;
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 32; ++x) opaque += qAlpha(image.pixel(x, y)) > 0;
        QVERIFY2(opaque > 200, qPrintable(QString::number(opaque)));
    }

    void opensFileThroughSlotInTheBackground()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.restoreSettings(); // settings are the test's own (QStandardPaths test mode)
        w.show();
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        const QString c17 = gsr::views::test::c17_path();
        w.openFile(c17);
        QVERIFY(w.isLoading()); // the slot returned before the file was read
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QVERIFY(!w.isLoading());
        QCOMPARE(digits(table_cells(w)), QString::number(core_cells(c17)));
        QVERIFY(any_contains(w.messages(), QStringLiteral("Loaded c17.bench")));
        const auto* file_label = w.findChild<QLabel*>(QStringLiteral("fileLabel"));
        QVERIFY(file_label);
        QCOMPARE(file_label->text(), QStringLiteral("c17.bench"));
        const auto* device = w.findChild<QLabel*>(QStringLiteral("deviceLabel"));
        QVERIFY(device && device->text().contains(QStringLiteral("CPU")));
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("c17.bench")));
        QCOMPARE(gsr::views::RecentFiles().files().value(0), QFileInfo(c17).absoluteFilePath());
    }

    void malformedFileIsReportedNotFatal_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("binary garbage") << QByteArray("\x01\x02garbage\x00\xff\xfe", 11);
        QTest::newRow("broken bench") << QByteArray("INPUT(a)\nOUTPUT(b)\nb = AND(a,\n"
                                                    "%%%% this is not a netlist @@@\n");
    }

    void malformedFileIsReportedNotFatal()
    {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString bad = dir.filePath(QStringLiteral("garbage.bench"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();

        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openFile(bad);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
        QCOMPARE(finished.count(), 0);
        const QString message = failed.at(0).at(1).toString();
        // Core's wording, "FILE:LINE:COL: error: ...", reaches the Messages dock unchanged.
        const QRegularExpression where(QStringLiteral("garbage\\.bench:\\d+:\\d+: error: "));
        QVERIFY2(where.match(message).hasMatch(), qPrintable(message));
        QVERIFY(w.messages().contains(message));
        QVERIFY(!w.summary().has_value());
        QCOMPARE(w.summaryModel()->rowCount(), 0);
        QVERIFY(!w.isLoading());
    }

    void missingFileIsReportedNotFatal()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.openFile(QStringLiteral("/nonexistent/dir/none.bench"));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
        QVERIFY(any_contains(w.messages(), QStringLiteral("none.bench")));
    }

    void cancelAbandonsTheLoad()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.show();
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy cancelled(&w, &MainWindow::loadCancelled);
        QSignalSpy abandoned(w.loader(), &NetlistLoader::abandonedLoadFinished);

        w.openFile(gsr::views::test::big_blif_path());
        auto* cancel = w.findChild<QToolButton*>(QStringLiteral("cancelLoadButton"));
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);

        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!w.isLoading());
        QVERIFY(!cancel->isVisible());
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("cancelled")),
                 qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(any_contains(w.messages(), QStringLiteral("Cancelled loading")));

        // The worker still runs to its end; what it returns must be dropped.
        QTRY_COMPARE_WITH_TIMEOUT(abandoned.count(), 1, kLoadTimeoutMs);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 0);
        QVERIFY(!w.summary().has_value());
        QCOMPARE(w.summaryModel()->rowCount(), 0);
        QCOMPARE(w.loader()->abandonedInFlight(), 0);
    }

    void cancelKeepsThePreviousFile()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        const QString c17 = gsr::views::test::c17_path();
        QVERIFY(w.loadFileNow(c17));
        const QString before = table_cells(w);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy abandoned(w.loader(), &NetlistLoader::abandonedLoadFinished);

        w.openFile(gsr::views::test::big_blif_path());
        w.cancelLoading();
        QTRY_COMPARE_WITH_TIMEOUT(abandoned.count(), 1, kLoadTimeoutMs);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(table_cells(w), before);
        QCOMPARE(QFileInfo(QString::fromStdString(w.summary()->path)).fileName(),
                 QStringLiteral("c17.bench"));
    }

    void openingAnotherFileSupersedesTheLoad()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy abandoned(w.loader(), &NetlistLoader::abandonedLoadFinished);
        w.openFile(gsr::views::test::big_blif_path());
        w.openFile(gsr::views::test::c17_path());
        QTRY_COMPARE_WITH_TIMEOUT(abandoned.count(), 1, kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(QFileInfo(finished.at(0).at(0).toString()).fileName(),
                 QStringLiteral("c17.bench"));
    }

    void aMessageShowsItsFileNameAsItIs()
    {
        // Tooltips take text that looks like markup for markup: "a<i>.bench" read "a.bench"
        // in italics in the Messages list.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString odd = dir.filePath(QStringLiteral("a<i>.bench"));
        QVERIFY(QFile::copy(gsr::views::test::c17_path(), odd));
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QVERIFY(w.loadFileNow(odd));
        auto* list = w.findChild<QListWidget*>(QStringLiteral("messages"));
        QVERIFY(list && list->count() > 0);
        const QListWidgetItem* item = list->item(list->count() - 1);
        QVERIFY2(item->text().contains(QStringLiteral("a<i>.bench")), qPrintable(item->text()));
        QTextDocument shown;
        const QString tip = item->toolTip();
        if (Qt::mightBeRichText(tip)) shown.setHtml(tip);
        else shown.setPlainText(tip);
        QCOMPARE(shown.toPlainText(), item->text());
    }

    void theNetlistFilterNamesWhatCoreReads()
    {
        // The test circuits' picker left out .sv and the SPICE names File > Open Netlist
        // offers; both now take this filter, whose every pattern core reads as a circuit.
        const QString filter = gsr::views::netlist_files_filter();
        const QRegularExpression pattern(QStringLiteral("\\*\\.(\\w+)"));
        QStringList extensions;
        for (auto it = pattern.globalMatch(filter); it.hasNext();) extensions << it.next().captured(1);
        for (const char* expected : {"bench", "blif", "aag", "aig", "v", "vg", "sv", "def", "cir",
                                     "sp", "spi", "spice", "cdl"})
            QVERIFY2(extensions.contains(QLatin1String(expected)), expected);
        for (const QString& e : extensions) {
            if (e == QLatin1String("gz")) continue;
            const auto format = gsr::netlist::from_extension(("x." + e).toStdString());
            QVERIFY2(format != gsr::netlist::Format::Unknown &&
                         !gsr::netlist::is_library_format(format),
                     qPrintable(e));
        }
    }

    void aLoadDoesNotWaitBehindAbandonedOnes()
    {
        // Loads ran in Qt's global pool, two threads on a 2-core machine: two abandoned big
        // reads (a reader has no stop) held both, and the next small file waited for them.
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy abandoned(w.loader(), &NetlistLoader::abandonedLoadFinished);
        for (int i = 0; i < std::max(2, QThread::idealThreadCount()); ++i) {
            w.openFile(gsr::views::test::big_blif_path());
            w.cancelLoading();
        }
        w.openFile(gsr::views::test::c17_path());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QCOMPARE(abandoned.count(), 0); // each big read takes far longer than c17's
        QVERIFY(w.loader()->abandonedInFlight() > 0);
        QTRY_COMPARE_WITH_TIMEOUT(w.loader()->abandonedInFlight(), 0, kLoadTimeoutMs);
    }

    void droppedFileIsOpened()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QVERIFY(drop_file(w, gsr::views::test::c17_path()));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
    }

#ifdef GSR_HAVE_STORE
    void droppedProjectIsOpenedAsAProject()
    {
        // A project dropped on the window went to the netlist loader: "found binary data".
        QTemporaryDir dir;
        const QString project = dir.filePath(QStringLiteral("dropped.gsr"));
        gsr::store::ProjectStore::open(QFile::encodeName(project).toStdString(),
                                       gsr::store::OpenMode::CreateOrOpen);
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy loads(&w, &MainWindow::loadFinished);
        QVERIFY(drop_file(w, project));
        QVERIFY2(w.project().isOpen(), qPrintable(w.messages().join(QLatin1Char('\n'))));
        QCOMPARE(QFileInfo(w.project().path()).fileName(), QStringLiteral("dropped.gsr"));
        QTest::qWait(50);
        QCOMPARE(loads.count(), 0); // no netlist load
    }

    void aRenamedProjectIsOpenedAsAProject()
    {
        // The desktop's MIME type knows a project by its header and offers a renamed one to
        // gsr-studio, which went by the .gsr suffix: "found binary data, not a netlist".
        QTemporaryDir dir;
        const QString made = dir.filePath(QStringLiteral("made.gsr"));
        gsr::store::ProjectStore::open(QFile::encodeName(made).toStdString(),
                                       gsr::store::OpenMode::CreateOrOpen);
        for (const QString& name : {QStringLiteral("renamed.db"), QStringLiteral("no_suffix")}) {
            const QString renamed = dir.filePath(name);
            QVERIFY(QFile::copy(made, renamed));
            MainWindow w;
            w.setShowsMessageBoxes(false);
            QSignalSpy loads(&w, &MainWindow::loadFinished);
            w.openPath(renamed);
            QVERIFY2(w.project().isOpen(), qPrintable(w.messages().join(QLatin1Char('\n'))));
            QCOMPARE(QFileInfo(w.project().path()).fileName(), name);
            QTest::qWait(50);
            QCOMPARE(loads.count(), 0);
        }
        // Not a project: a netlist, read as before (and a file too short to hold a header).
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openPath(gsr::views::test::c17_path());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QVERIFY(!w.project().isOpen());
    }
#endif

    void settingsAreKeptOnlyWhenAsked()
    {
        gsr::views::RecentFiles().clear();
        QSettings().remove(QStringLiteral("mainWindow"));
        {
            MainWindow quiet; // as for --screenshot and --smoke
            quiet.setShowsMessageBoxes(false);
            QVERIFY(quiet.loadFileNow(gsr::views::test::c17_path()));
            quiet.show();
            quiet.close();
        }
        QVERIFY(gsr::views::RecentFiles().files().isEmpty());
        QVERIFY(!QSettings().contains(QStringLiteral("mainWindow/state")));

        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.restoreSettings();
        QVERIFY(w.loadFileNow(gsr::views::test::c17_path()));
        w.show();
        w.close();
        QCOMPARE(gsr::views::RecentFiles().files().size(), 1);
        QVERIFY(QSettings().contains(QStringLiteral("mainWindow/state")));
        QVERIFY(QSettings().contains(QStringLiteral("mainWindow/geometry")));
    }

    void centralPanelCanBeReplaced()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        auto* panel = new QLabel(QStringLiteral("canvas goes here"));
        w.setCentralPanel(panel);
        QCOMPARE(w.centralPanel(), panel);
        QVERIFY(w.loadFileNow(gsr::views::test::c17_path())); // no stale pointer to the old one
        QCOMPARE(w.summaryModel()->rowCount(), NetlistSummaryModel::kFieldCount);
    }

    void projectActionsFollowTheStore()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        auto* import = w.findChild<QAction*>(QStringLiteral("importAction"));
        auto* open_project = w.findChild<QAction*>(QStringLiteral("openProjectAction"));
        QVERIFY(import && open_project);
        QVERIFY(!import->isEnabled()); // nothing loaded, no project
        QVERIFY(!import->toolTip().isEmpty());
        if (gsr::views::ProjectSession::available()) {
            QVERIFY(open_project->isEnabled());
        } else {
            // Offered but off, saying why, rather than missing from the menu.
            QVERIFY(!open_project->isEnabled());
            QVERIFY(open_project->toolTip().contains(QStringLiteral("SQLite")));
        }
    }

    void cellLibrariesReadTheNetlistAgainAndReachThePanels()
    {
        // GSCLib's s344 without its library: 55 pin directions guessed from their names.
        const QString s344 = gsclib("netlist/s344.v"), lib = gsclib("lib/GSCLib_3.0.lib");
        const auto bare = gsr::report::summarize_file(s344.toStdString());
        const auto with = gsr::report::summarize_file(s344.toStdString(), {lib.toStdString()});
        QVERIFY(!bare.warnings.empty());
        QVERIFY(with.warnings.empty());

        MainWindow w;
        w.setShowsMessageBoxes(false);
        auto* forget = w.findChild<QAction*>(QStringLiteral("forgetCellLibrariesAction"));
        QVERIFY(forget && w.findChild<QAction*>(QStringLiteral("cellLibrariesAction")));
        QVERIFY(!forget->isEnabled());
        QVERIFY(w.loadFileNow(s344));
        QCOMPARE(w.summary()->warnings.size(), bare.warnings.size());
        QVERIFY(w.loadedCircuit()->libraries.empty());

        // Given twice and relative: one absolute path. The netlist shown is read again with it.
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy changed(&w, &MainWindow::cellLibrariesChanged);
        w.setCellLibraries({lib, QDir::current().relativeFilePath(lib)});
        QCOMPARE(w.cellLibraries(), QStringList{lib});
        QCOMPARE(changed.count(), 1);
        QVERIFY(forget->isEnabled());
        QVERIFY(w.isLoading());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QCOMPARE(w.summary()->warnings.size(), std::size_t(0));
        QCOMPARE(w.summary()->counts.cells.value(), with.counts.cells.value());
        QCOMPARE(w.loadedCircuit()->libraries, std::vector<std::string>{lib.toStdString()});
        QVERIFY(any_contains(w.messages(), QStringLiteral("read with the cell library GSCLib_3.0.lib")));
        const auto* file_label = w.findChild<QLabel*>(QStringLiteral("fileLabel"));
        QVERIFY2(file_label->toolTip().contains(lib), qPrintable(file_label->toolTip()));

        // The panels take them: the Console's lines (the communities found in the graph read
        // with it too) and a new training run name the library.
        QTRY_VERIFY_WITH_TIMEOUT(w.panels()->console()->commands().last().startsWith(
                                     QStringLiteral("gsr communities ") + s344),
                                 kLoadTimeoutMs);
        const QStringList commands = w.panels()->console()->commands();
        QVERIFY(commands.contains(gsr::views::info_command(s344, {lib})));
        QVERIFY2(commands.last().endsWith(QStringLiteral("--liberty ") + lib),
                 qPrintable(commands.last()));
        const gsr::views::TrainingSettings run = w.panels()->training()->settings();
        QCOMPARE(run.liberty, QStringList{lib});
        QVERIFY(gsr::views::train_command(run, {}).contains(QStringLiteral("--liberty ") + lib));

        // The same libraries again change nothing; forgetting them reads the netlist bare.
        w.setCellLibraries({lib});
        QCOMPARE(changed.count(), 1);
        QVERIFY(!w.isLoading());
        forget->trigger();
        QVERIFY(w.cellLibraries().isEmpty());
        QCOMPARE(changed.count(), 2);
        QVERIFY(!forget->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kLoadTimeoutMs);
        QCOMPARE(w.summary()->warnings.size(), bare.warnings.size());
        QVERIFY(w.panels()->training()->settings().liberty.isEmpty());
        QVERIFY(w.panels()->console()->commands().contains(gsr::views::info_command(s344)));
    }

    void aCellLibraryOpenedAfterTheNetlistIsUsedForTheNetlistShown()
    {
        // s344 on the canvas, then its library opened (a summary, no graph), then File > Cell
        // Libraries as the window's hint says: the netlist shown is read again with it,
        // although the last file loaded was the library.
        const QString s344 = gsclib("netlist/s344.v"), lib = gsclib("lib/GSCLib_3.0.lib");
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QVERIFY(w.loadFileNow(s344));
        QVERIFY(w.loadFileNow(lib));
        QCOMPARE(w.summary()->counts.cells.value(), 38); // COUNTS.csv: 38 Liberty cell groups
        QVERIFY(any_contains(w.messages(), QStringLiteral("File > Cell Libraries")));
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.setCellLibraries({lib});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
        QCOMPARE(finished.first().first().toString(), s344);
        QCOMPARE(w.loadedCircuit()->libraries, std::vector<std::string>{lib.toStdString()});
        QVERIFY(w.summary()->warnings.empty());

        // A file that is no library: s344's load fails, and the message and the headline
        // name the library, not the netlist.
        const QString bad = gsr::views::test::c17_path();
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression(QStringLiteral("its cell library .c17\\.bench. "
                                                               "\\(File > Cell Libraries\\)")));
        w.setCellLibraries({bad});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
        QCOMPARE(failed.first().at(0).toString(), s344);
        const QString why = failed.first().at(1).toString();
        QVERIFY2(why.startsWith(QFileInfo(bad).absoluteFilePath() + QStringLiteral(":1:1: error: "
                                                                            "expected a Liberty")),
                 qPrintable(why));
        // Chosen again (say, fixed on disk): read again, not ignored as unchanged.
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("c17\\.bench")));
        w.setCellLibraries({bad});
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, kLoadTimeoutMs);
        // The canvas and panels keep s344 as read with GSCLib; forgetting reads it bare.
        QCOMPARE(w.loadedCircuit()->libraries, std::vector<std::string>{lib.toStdString()});
        w.setCellLibraries({});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kLoadTimeoutMs);
        QVERIFY(w.loadedCircuit()->libraries.empty());
        QVERIFY(!w.summary()->warnings.empty());
    }

    void librariesChosenWhileALibraryLoadsReadTheNetlistShownAfter()
    {
        // The netlist on the canvas, a library file opened (in the background), the libraries
        // chosen before it is read: that load starts again, then the netlist is read again.
        const QString s344 = gsclib("netlist/s344.v"), lib = gsclib("lib/GSCLib_3.0.lib");
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QVERIFY(w.loadFileNow(s344));
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openFile(lib);
        QVERIFY(w.isLoading());
        w.setCellLibraries({lib});
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kLoadTimeoutMs);
        QCOMPARE(finished.at(0).first().toString(), lib);
        QCOMPARE(finished.at(1).first().toString(), s344);
        QCOMPARE(w.loadedCircuit()->libraries, std::vector<std::string>{lib.toStdString()});
        QTest::qWait(100);
        QCOMPARE(finished.count(), 2); // and no more
    }

    void aProjectIsNamedByItsAbsolutePath()
    {
#ifndef GSR_HAVE_STORE
        QSKIP("this build has no project store");
#else
        // `gsr-studio p.gsr` kept "p.gsr": File > Open Project's absolute name for the same
        // file then did not match, and the Training panel did not take the project's runs
        // as its own.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy changed(&w, &MainWindow::projectChanged);
        w.newProject(QStringLiteral("./p.gsr"));
        w.openProject(QStringLiteral("sub/../p.gsr"));
        QVERIFY(QDir::setCurrent(before));
        const QString absolute = QFileInfo(dir.filePath(QStringLiteral("p.gsr"))).absoluteFilePath();
        QCOMPARE(changed.count(), 2);
        QCOMPARE(changed.at(0).at(0).toString(), absolute);
        QCOMPARE(changed.at(1).at(0).toString(), absolute);
        QCOMPARE(w.project().path(), absolute);
#endif
    }

    void importRecordsTheSummaryInTheProject()
    {
#ifndef GSR_HAVE_STORE
        QSKIP("this build has no project store");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        MainWindow w;
        w.setShowsMessageBoxes(false);
        QSignalSpy changed(&w, &MainWindow::projectChanged);
        w.newProject(project);
        QCOMPARE(changed.count(), 1);
        QVERIFY(w.project().isOpen());
        auto* import = w.findChild<QAction*>(QStringLiteral("importAction"));
        QVERIFY(!import->isEnabled()); // a project, but nothing loaded yet

        const QString c17 = gsr::views::test::c17_path();
        QVERIFY(w.loadFileNow(c17));
        QVERIFY(import->isEnabled());
        import->trigger();
        QVERIFY(any_contains(w.messages(), QStringLiteral("Imported")));

        auto store = gsr::store::ProjectStore::open(project.toStdString(),
                                                    gsr::store::OpenMode::ReadOnly);
        const auto rows = store.netlists();
        QCOMPARE(rows.size(), std::size_t(1));
        const auto core = gsr::report::summarize_file(c17.toStdString());
        QCOMPARE(rows[0].cells, core.counts.cells.value());
        QCOMPARE(rows[0].format, core.format);
        QCOMPARE(rows[0].graph_edges, core.graph_edges.value());

        // "New" never reuses an existing file; the window says so and keeps its project.
        MainWindow other;
        other.setShowsMessageBoxes(false);
        other.newProject(project);
        QVERIFY(!other.project().isOpen());
        QVERIFY(any_contains(other.messages(), QStringLiteral("exists already")));
        // A file that is no project is refused with the store's message.
        other.openProject(c17);
        QVERIFY(!other.project().isOpen());
#endif
    }

    void theProjectsCalibrationReachesTheProfilingPanel()
    {
#ifndef GSR_HAVE_STORE
        QSKIP("this build has no project store");
#else
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString project = dir.filePath(QStringLiteral("p.gsr"));
        {
            auto store = gsr::store::ProjectStore::open(project.toStdString(),
                                                        gsr::store::OpenMode::CreateOrOpen);
            gsr::sol::Calibration c;
            c.device_name = "NVIDIA H200";
            c.date = "2026-11-29T10:00:00Z";
            c.copy_bandwidth = 4.1e12;
            gsr::store::store_calibration(store, c);
        }
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.openProject(project);
        const auto& c = w.panels()->profiling()->calibration();
        QVERIFY(c.has_value());
        QCOMPARE(c->device_name, std::string("NVIDIA H200"));
        QCOMPARE(c->copy_bandwidth, 4.1e12);
        QCOMPARE(QString::fromStdString(c->source), project);
        // `gsr kernels calibrate --project` run while the window is open: the panel reads the
        // new peaks when it is shown again (and when Tune starts), not only when the project
        // opens.
        {
            auto store = gsr::store::ProjectStore::open(project.toStdString(),
                                                        gsr::store::OpenMode::OpenExisting);
            gsr::sol::Calibration again = *c;
            again.copy_bandwidth = 4.3e12;
            gsr::store::store_calibration(store, again);
        }
        QCOMPARE(w.panels()->profiling()->calibration()->copy_bandwidth, 4.1e12);
        w.show();
        auto* dock = qobject_cast<QDockWidget*>(w.panels()->profiling()->parentWidget());
        QVERIFY(dock);
        dock->hide(); // closed, then opened again (View menu)
        QCoreApplication::processEvents();
        dock->show();
        dock->raise();
        QCoreApplication::processEvents();
        QVERIFY(w.panels()->profiling()->isVisible());
        QCOMPARE(w.panels()->profiling()->calibration()->copy_bandwidth, 4.3e12);
        w.hide();

        // Peaks past what its GPU can do (an H200 copies at 4.8 TB/s): the project opens, the
        // panel keeps the datasheet's peaks, and the Console names the project.
        {
            auto store = gsr::store::ProjectStore::open(project.toStdString(),
                                                        gsr::store::OpenMode::OpenExisting);
            gsr::sol::Calibration fast = *c;
            fast.copy_bandwidth = 9e12;
            gsr::store::store_calibration(store, fast);
        }
        MainWindow implausible;
        implausible.setShowsMessageBoxes(false);
        implausible.openProject(project);
        QVERIFY(implausible.project().isOpen());
        QVERIFY(!implausible.panels()->profiling()->calibration());
        QVERIFY(implausible.panels()->console()->text().contains(project + QStringLiteral(": error: ")));

        // One that cannot be read: no calibration, and the Console says why, naming the project.
        gsr::store::ProjectStore::open(project.toStdString(), gsr::store::OpenMode::OpenExisting)
            .set_project_value("calibration", "{");
        MainWindow other;
        other.setShowsMessageBoxes(false);
        other.openProject(project);
        QVERIFY(other.project().isOpen());
        QVERIFY(!other.panels()->profiling()->calibration());
        const QString console = other.panels()->console()->text();
        QVERIFY2(console.contains(project + QStringLiteral(": error: its stored calibration")),
                 qPrintable(console));
#endif
    }

    void aProjectWhoseTablesAreDamagedIsRefusedNotFatal()
    {
#ifndef GSR_HAVE_STORE
        QSKIP("this build has no project store");
#else
        // Its schema version is this build's, but its netlists table lacks every column but
        // the id: the store opens it, and the first read fails. That read threw out of the
        // window (std::terminate); now the project open before stays open.
        QTemporaryDir dir;
        const std::string damaged = dir.filePath(QStringLiteral("damaged.gsr")).toStdString();
        std::vector<gsr::store::Migration> history = {
            {"project and netlists tables", "CREATE TABLE project(key TEXT PRIMARY KEY, value "
                                            "TEXT); CREATE TABLE netlists(id INTEGER PRIMARY "
                                            "KEY);"}};
        while (history.size() < std::size_t(gsr::store::ProjectStore::latest_schema_version()))
            history.push_back({"nothing", "SELECT 1;"});
        gsr::store::ProjectStore::open_with_migrations(damaged, gsr::store::OpenMode::CreateOrOpen,
                                                       history);

        MainWindow w;
        w.setShowsMessageBoxes(false);
        const QString good = dir.filePath(QStringLiteral("good.gsr"));
        w.newProject(good);
        QVERIFY(w.project().isOpen());
        QSignalSpy changed(&w, &MainWindow::projectChanged);
        w.openProject(QString::fromStdString(damaged));
        QCOMPARE(w.project().path(), good);
        QCOMPARE(changed.count(), 0);
        QVERIFY(any_contains(w.messages(), QString::fromStdString(damaged) +
                                               QStringLiteral(": error: database error: no "
                                                              "such column")));
#endif
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
