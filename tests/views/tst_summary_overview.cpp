// SummaryOverview and LevelHistogram: the central panel shows the loaded file and survives
// any histogram shape (empty, one level, more levels than pixels).
#include "summary/level_histogram.hpp"
#include "summary/summary_overview.hpp"
#include "view_test_support.hpp"

#include "report/netlist_summary.hpp"

#include <QFontMetrics>
#include <QLabel>
#include <QStackedWidget>
#include <QTest>

using gsr::views::LevelHistogram;
using gsr::views::SummaryOverview;

class TestSummaryOverview : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void showsTheLoadedFileThenTheEmptyHint()
    {
        SummaryOverview overview;
        overview.resize(900, 600);
        auto* pages = overview.findChild<QStackedWidget*>();
        QVERIFY(pages);
        QCOMPARE(pages->currentIndex(), 0);

        const auto s = gsr::report::summarize_file(gsr::views::test::c17_path().toStdString());
        overview.setSummary(s);
        QCOMPARE(pages->currentIndex(), 1);
        const auto* title = overview.findChild<QLabel*>(QStringLiteral("summaryTitle"));
        QVERIFY(title);
        QCOMPARE(title->text(), QStringLiteral("c17.bench"));
        const auto* histogram = overview.findChild<LevelHistogram*>();
        QVERIFY(histogram);
        QCOMPARE(histogram->counts().size(), s.level_histogram.size());
        QVERIFY(!overview.grab().isNull());

        overview.clear();
        QCOMPARE(pages->currentIndex(), 0);
    }

    void namesAreShownAsTheyAreNotAsRichText()
    {
        // A file "a<i>.v" was titled "a.v" in italics, a top \q<b> came out bold without
        // its tag, and the path's line break was lost (Qt::AutoText took them for HTML).
        SummaryOverview overview;
        gsr::report::NetlistSummary s;
        s.path = "/tmp/designs/a<i>.v";
        s.format = "verilog";
        s.top = "\\q<b>";
        overview.setSummary(s);
        const auto* title = overview.findChild<QLabel*>(QStringLiteral("summaryTitle"));
        const auto* subtitle = overview.findChild<QLabel*>(QStringLiteral("summarySubtitle"));
        QVERIFY(title);
        QVERIFY(subtitle);
        QCOMPARE(title->textFormat(), Qt::PlainText);
        QCOMPARE(subtitle->textFormat(), Qt::PlainText);
        QCOMPARE(title->text(), QStringLiteral("a<i>.v"));
        QVERIFY2(subtitle->text().contains(QStringLiteral("top \\q<b>")),
                 qPrintable(subtitle->text()));
        QVERIFY2(subtitle->text().endsWith(QStringLiteral("\n/tmp/designs/a<i>.v")),
                 qPrintable(subtitle->text()));
        // Drawn with its tag: as wide as the whole name (as HTML, only "a.v" was drawn).
        QVERIFY(title->sizeHint().width() >=
                QFontMetrics(title->font()).horizontalAdvance(QStringLiteral("a<i>.v")));
    }

    void histogramSwitchesToLogScaleWhenSkewed()
    {
        LevelHistogram h;
        h.setCounts({5, 2, 2, 2});
        QVERIFY(!h.logScale());
        std::vector<std::size_t> skewed(100, 3);
        skewed[0] = 100000; // e.g. every primary input and constant at level 0
        h.setCounts(skewed);
        QVERIFY(h.logScale());
    }

    void histogramPaintsAnyShape_data()
    {
        QTest::addColumn<int>("levels");
        QTest::newRow("empty") << 0;
        QTest::newRow("one level") << 1;
        QTest::newRow("a few") << 7;
        QTest::newRow("more levels than pixels") << 25000;
    }

    void histogramPaintsAnyShape()
    {
        QFETCH(int, levels);
        std::vector<std::size_t> counts(static_cast<std::size_t>(levels));
        for (int i = 0; i < levels; ++i) counts[std::size_t(i)] = std::size_t(i % 13) * 1000u;
        LevelHistogram h;
        h.resize(400, 200);
        h.setCounts(counts);
        QVERIFY(!h.grab().isNull());
        h.resize(5, 5); // smaller than its margins
        QVERIFY(!h.grab().isNull());
    }
};

QTEST_MAIN(TestSummaryOverview)
#include "tst_summary_overview.moc"
