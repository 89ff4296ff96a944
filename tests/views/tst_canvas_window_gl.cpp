// The main window with a display that has OpenGL (Xvfb): loading a netlist makes the graph
// canvas the central view, beside the overview, coloured by Leiden communities, with the
// layout running off the UI thread, and closing stops it.
#include "canvas/canvas_panel.hpp"
#include "canvas/graph_canvas.hpp"
#include "canvas/layout_runner.hpp"
#include "loading/shared_detection.hpp"
#include "mainwindow/main_window.hpp"
#include "panels/communities_panel.hpp"
#include "panels/community_table_model.hpp"
#include "panels/studio_panels.hpp"
#include "panels/training_panel.hpp"
#include "summary/summary_overview.hpp"
#include "view_test_support.hpp"

#include "layout/force_atlas2.hpp"
#include "util/resources.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using gsr::views::MainWindow;
using namespace gsr::views::canvas;

namespace {

/// Shows the window and opens the bundled sample in it; false if it did not load in time.
/// `as_given` names the file as given (e.g. "./alu8.v", as `gsr-studio ./alu8.v` does).
bool open_sample(MainWindow& w, const QString& as_given = {})
{
    w.setShowsMessageBoxes(false);
    w.resize(1000, 700);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return false;
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    w.openFile(as_given.isEmpty() ? QString::fromStdString(gsr::bundled_sample_path()) : as_given);
    return QTest::qWaitFor([&] { return finished.count() == 1; }, 60000);
}

} // namespace

class TestCanvasWindowGl : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void aGraphThatCannotBeDrawnNamesItsFile()
    {
        // Inputs alone have no edges to detect communities on: the Graph tab and the Messages
        // dock said "error: community detection needs edges" without the file.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("inputs_only.bench"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("INPUT(a)\nINPUT(b)\nOUTPUT(a)\n");
        f.close();
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openFile(path);
        QVERIFY(QTest::qWaitFor([&] { return finished.count() == 1; }, 60000));
        CanvasPanel* panel = w.canvasPanel();
        QVERIFY2(panel, qPrintable(w.messages().join(QLatin1Char('\n'))));
        const QString expected = path + QStringLiteral(": error: community detection needs edges");
        QVERIFY(QTest::qWaitFor(
            [&] {
                return w.messages().join(QLatin1Char('\n')).contains(expected);
            },
            30000));
    }

    void loadingShowsCommunitiesAndRunsTheLayout()
    {
        MainWindow w;
        QVERIFY(open_sample(w));

        CanvasPanel* panel = w.canvasPanel();
        QVERIFY2(panel, qPrintable(w.messages().join(QLatin1Char('\n'))));
        auto* tabs = qobject_cast<QTabWidget*>(w.centralPanel());
        QVERIFY(tabs);
        QCOMPARE(tabs->currentWidget(), panel);
        QVERIFY(tabs->findChild<gsr::views::SummaryOverview*>()); // the overview is kept

        GraphCanvas* canvas = panel->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(canvas->scene() != nullptr, 60000);
        QCOMPARE(int(canvas->colourMode()), int(ColourMode::Community));
        const auto& m = canvas->scene()->communities.membership;
        QVERIFY(canvas->scene()->communities.community_count > 1);
        for (std::size_t v = 0; v < m.size(); ++v)
            QCOMPARE(canvas->nodeColours()[v], categorical_colour(m[v]));

        LayoutRunner* runner = panel->layoutRunner();
        QVERIFY(runner);
        QCOMPARE(canvas->layoutRunner(), runner);
        // The sample settles in well under a second, so the test sees the layout at some
        // point of its run: past its random start, and what the canvas shows is its snapshot.
        QTRY_VERIFY_WITH_TIMEOUT(runner->latestProgress().iteration > 30, 20000);
        const auto start = gsr::layout::random_positions(
            m.size(), gsr::layout::default_extent(m.size()), CanvasPanel::layoutOptions().seed);
        QTRY_VERIFY_WITH_TIMEOUT(canvas->positions()[0].x != float(start[0].x), 5000);
        runner->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!runner->isRunning(), 10000);
        QTest::qWait(50); // the last snapshot's message
        const auto shown = runner->latest();
        for (std::size_t v = 0; v < m.size(); ++v)
            QCOMPARE(canvas->positions()[v].x, float(shown.positions[v].x));
        QVERIFY(w.messages().filter(QStringLiteral("communities (Leiden, seed 1")).size() == 1);

        w.close();
        QCOMPARE(panel->layoutRunner(), nullptr); // cancelled and gone: no thread left
    }

    void aTrainedModelColoursTheCanvasByItsError()
    {
        // The "prediction error" colours had no source in the window: a finished sp run now
        // hands the canvas its prediction for every node of the circuit shown. The file is
        // opened by a relative path: the Training panel names it absolute, and the canvas
        // dropped the predictions of "./alu8.v" as another file's.
        const QFileInfo sample(QString::fromStdString(gsr::bundled_sample_path()));
        const QString was = QDir::currentPath();
        QVERIFY(QDir::setCurrent(sample.absolutePath()));
        const auto restore = qScopeGuard([&] { QDir::setCurrent(was); });
        MainWindow w;
        QVERIFY(open_sample(w, QStringLiteral("./") + sample.fileName()));
        CanvasPanel* panel = w.canvasPanel();
        QVERIFY(panel);
        GraphCanvas* canvas = panel->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(canvas->scene() != nullptr, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w.panels()->graph() != nullptr, 60000);
        gsr::views::TrainingPanel* t = w.panels()->training();
        t->applyPreset(0);
        gsr::views::TrainingSettings s = t->settings();
        s.config.epochs = 2;
        s.test = QStringList{gsr::views::test::data_file("netlists/iscas85/bench/c432.bench")};
        t->setSettings(s);
        QSignalSpy ready(w.panels(), &gsr::views::StudioPanels::predictionsReady);
        QSignalSpy finished(t, &gsr::views::TrainingPanel::trainingFinished);
        t->train();
        QVERIFY(finished.wait(60000));
        QCOMPARE(t->lastOutcome()->status, QStringLiteral("finished"));
        QCOMPARE(ready.count(), 1);
        const auto predictions = ready.at(0).at(1).value<QVector<float>>();
        QCOMPARE(std::size_t(predictions.size()), canvas->scene()->node_count());

        canvas->setColourMode(ColourMode::PredictionError);
        const std::vector<float> p(predictions.begin(), predictions.end());
        const ColourInputs in{ColourMode::PredictionError, -1, p};
        QCOMPARE(QString::fromStdString(unavailable_reason(*canvas->scene(), in)), QString());
        QVERIFY(canvas->nodeColours() == node_colours(*canvas->scene(), in));
        // Another file's predictions change nothing.
        panel->applyPredictions(QStringLiteral("/elsewhere/other.v"),
                                QVector<float>(qsizetype(p.size()), 0.f));
        QVERIFY(canvas->nodeColours() == node_colours(*canvas->scene(), in));
    }

    void communitiesPanelAndCanvasShowOnePartition()
    {
        const std::size_t runs_before = gsr::views::shared_detection_runs();
        MainWindow w;
        QVERIFY(open_sample(w));
        CanvasPanel* panel = w.canvasPanel();
        QVERIFY2(panel, qPrintable(w.messages().join(QLatin1Char('\n'))));
        GraphCanvas* canvas = panel->canvas();
        QTRY_VERIFY_WITH_TIMEOUT(canvas->scene() != nullptr, 60000);

        // Once loaded, the Communities table lists the communities the canvas is coloured by.
        gsr::views::CommunitiesPanel* communities = w.panels()->communities();
        QTRY_VERIFY_WITH_TIMEOUT(communities->result().has_value(), 60000);
        QCOMPARE(communities->result()->membership, canvas->scene()->communities.membership);
        QCOMPARE(communities->model()->rowCount(),
                 int(canvas->scene()->communities.community_count));
        // The file was read once, by the load, and the partition detected once for both.
        QVERIFY(w.loadedCircuit());
        QCOMPARE(canvas->scene()->loaded, w.loadedCircuit());
        QCOMPARE(communities->graph()->circuit, w.loadedCircuit());
        QCOMPARE(w.panels()->graph()->circuit, w.loadedCircuit());
        QCOMPARE(gsr::views::shared_detection_runs() - runs_before, std::size_t{1});

        // Another method and resolution there: the canvas is coloured by the new partition,
        // and no node moves.
        LayoutRunner* runner = panel->layoutRunner();
        QVERIFY(runner);
        runner->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!runner->isRunning(), 10000);
        QTest::qWait(50); // the last snapshot
        const std::vector<Vec2> before = canvas->positions();
        const auto* shown = canvas->scene();
        communities->setOptions(gsr::community::Method::Louvain, 0.5, 7);
        QVERIFY(communities->detectNow());
        QCOMPARE(gsr::views::shared_detection_runs() - runs_before, std::size_t{2});
        const auto& m = communities->result()->membership;
        QVERIFY(m != shown->communities.membership);
        QTRY_VERIFY_WITH_TIMEOUT(canvas->scene() != shown, 20000);
        QCOMPARE(canvas->scene()->communities.membership, m);
        QVERIFY(canvas->scene()->community_method == gsr::community::Method::Louvain);
        QCOMPARE(canvas->positions().size(), before.size());
        for (std::size_t v = 0; v < before.size(); ++v) {
            QCOMPARE(canvas->positions()[v].x, before[v].x);
            QCOMPARE(canvas->positions()[v].y, before[v].y);
            QCOMPARE(canvas->nodeColours()[v], categorical_colour(m[v]));
        }
        QCOMPARE(w.messages().filter(QStringLiteral("from the Communities panel (Louvain")).size(),
                 1);
        w.close();
    }
};

QTEST_MAIN(TestCanvasWindowGl)
#include "tst_canvas_window_gl.moc"
