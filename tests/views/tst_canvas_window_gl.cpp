// The main window with a display that has OpenGL (Xvfb): loading a netlist makes the graph
// canvas the central view, beside the overview, coloured by Leiden communities, with the
// layout running off the UI thread, and closing stops it.
#include "canvas/canvas_panel.hpp"
#include "canvas/graph_canvas.hpp"
#include "canvas/layout_runner.hpp"
#include "mainwindow/main_window.hpp"
#include "summary/summary_overview.hpp"
#include "view_test_support.hpp"

#include "layout/force_atlas2.hpp"
#include "util/resources.hpp"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using gsr::views::MainWindow;
using namespace gsr::views::canvas;

class TestCanvasWindowGl : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void loadingShowsCommunitiesAndRunsTheLayout()
    {
        MainWindow w;
        w.setShowsMessageBoxes(false);
        w.resize(1000, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        const QString sample = QString::fromStdString(gsr::bundled_sample_path());
        w.openFile(sample);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);

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
};

QTEST_MAIN(TestCanvasWindowGl)
#include "tst_canvas_window_gl.moc"
