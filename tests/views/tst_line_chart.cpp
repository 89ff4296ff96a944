// The live training chart's axes: whole epochs on x (never "0 0 0 0 1"), labels short enough
// for a narrow dock on y, ranges that follow the points.
#include "panels/line_chart.hpp"
#include "view_test_support.hpp"

#include <QLineSeries>
#include <QTest>
#include <QValueAxis>
#include <QWidget>

#include <cmath>
#include <limits>

using gsr::views::LineChart;

namespace {

/// The labels Qt draws on an axis with dynamic ticks: anchor, anchor + interval, .. up to max.
QStringList tick_labels(const QValueAxis& axis)
{
    QStringList out;
    for (double v = axis.tickAnchor(); v <= axis.max() + 1e-9; v += axis.tickInterval())
        out << QString::asprintf(axis.labelFormat().toLatin1().constData(), int(std::lround(v)));
    return out;
}

} // namespace

class TestLineChart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void emptyChartShowsTwoWholeEpochs()
    {
        QWidget host; // owns the chart's view
        LineChart chart(QStringLiteral("Loss"), QStringLiteral("epoch"), QStringLiteral("loss"),
                        &host);
        QCOMPARE(chart.xAxis()->tickType(), QValueAxis::TicksDynamic);
        QCOMPARE(tick_labels(*chart.xAxis()), (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
        chart.addSeries(QStringLiteral("train"));
        chart.append(0, 3, 0.5);
        chart.clearPoints();
        QCOMPARE(tick_labels(*chart.xAxis()), (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
    }

    void epochTicksStayWholeAndAtMostEleven()
    {
        QWidget host; // owns the chart's view
        LineChart chart(QStringLiteral("Loss"), QStringLiteral("epoch"), QStringLiteral("loss"),
                        &host);
        chart.addSeries(QStringLiteral("train"));
        for (int e = 1; e <= 13; ++e) chart.append(0, e, 1.0 / e);
        QCOMPARE(chart.xAxis()->min(), 1.0);
        QCOMPARE(chart.xAxis()->max(), 13.0);
        QCOMPARE(chart.xAxis()->tickInterval(), 2.0);
        QCOMPARE(tick_labels(*chart.xAxis()),
                 (QStringList{"1", "3", "5", "7", "9", "11", "13"}));
        for (int e = 14; e <= 250; ++e) chart.append(0, e, 1.0 / e);
        QCOMPARE(chart.xAxis()->tickInterval(), 25.0); // 249 epochs: ceil(24.9)
        QVERIFY(tick_labels(*chart.xAxis()).size() <= 11);
        // y follows the points with a 5 % margin of their span.
        const double span = 1.0 - 1.0 / 250;
        QCOMPARE(chart.yAxis()->max(), 1.0 + 0.05 * span);
        QCOMPARE(chart.yAxis()->min(), 1.0 / 250 - 0.05 * span);
        QCOMPARE(chart.series(0)->count(), 250);
    }

    void aBillionEpochsTakeElevenTicksAtOnce()
    {
        // A damaged project's run whose last epoch reads 1000000003: the axis lays its ticks
        // out on every change, so one range at the last interval of one hung the window (and
        // would run into ctest's timeout here).
        QWidget host; // owns the chart's view
        host.resize(400, 300);
        LineChart chart(QStringLiteral("Loss"), QStringLiteral("epoch"), QStringLiteral("loss"),
                        &host);
        host.show(); // the axes lay their ticks out only when shown
        chart.addSeries(QStringLiteral("train"));
        chart.append(0, 1, 0.5);
        chart.append(0, 1000000003, 0.25);
        QCOMPARE(chart.xAxis()->max(), 1000000003.0);
        QCOMPARE(chart.xAxis()->tickInterval(), 100000001.0); // ceil(100000000.2)
        QVERIFY(tick_labels(*chart.xAxis()).size() <= 11);
        // And back to a short run: the interval narrows after the range.
        chart.clearPoints();
        chart.append(0, 1, 0.5);
        chart.append(0, 3, 0.25);
        QCOMPARE(tick_labels(*chart.xAxis()), (QStringList{"1", "2", "3"}));
    }

    void shortLabelsOnY()
    {
        QWidget host;
        LineChart chart(QStringLiteral("Validation"), QStringLiteral("epoch"),
                        QStringLiteral("coefficient"), &host);
        chart.setFixedYRange(-1.0, 1.0);
        const QByteArray format = chart.yAxis()->labelFormat().toLatin1();
        QCOMPARE(QString::asprintf(format.constData(), -1.0), QStringLiteral("-1"));
        QCOMPARE(QString::asprintf(format.constData(), 0.25), QStringLiteral("0.25"));
        QCOMPARE(QString::asprintf(format.constData(), 0.012345), QStringLiteral("0.0123"));
        chart.addSeries(QStringLiteral("pearson"));
        chart.append(0, 1, std::numeric_limits<double>::quiet_NaN()); // a gap, not a point
        QCOMPARE(chart.series(0)->count(), 0);
        QCOMPARE(chart.yAxis()->min(), -1.0); // fixed
    }

    void aLongRunIsThinnedEvenlyAndKeepsItsNewestPoint()
    {
        // A tiny model ends over a thousand epochs a second and the limit is 2^24: every
        // epoch stayed a point with a marker. Now a series keeps every stride-th point (the
        // stride doubling as it fills) and the newest, markers only while it is short.
        QWidget parent;
        LineChart chart(QStringLiteral("Loss"), QStringLiteral("epoch"), QStringLiteral("loss"),
                        &parent);
        chart.addSeries(QStringLiteral("batches"));
        chart.addSeries(QStringLiteral("one by one"));
        const auto y = [](int e) { return 1.0 / (1 + e); };
        for (int e = 0; e < LineChart::kMarkerLimit; ++e) chart.append(1, e, y(e));
        QVERIFY(chart.series(1)->pointsVisible());
        chart.append(1, LineChart::kMarkerLimit, y(LineChart::kMarkerLimit));
        QVERIFY(!chart.series(1)->pointsVisible());

        const int epochs = 100003;
        for (int first = 0; first < epochs; first += 997) {
            QList<QPointF> batch;
            for (int e = first; e < std::min(epochs, first + 997); ++e) batch.append({double(e), y(e)});
            chart.append(0, batch);
        }
        for (int e = LineChart::kMarkerLimit + 1; e < epochs; ++e) chart.append(1, e, y(e));
        for (int i = 0; i < 2; ++i) {
            const QList<QPointF> p = chart.series(i)->points();
            QVERIFY(p.size() > LineChart::kMaxPoints / 2);
            QVERIFY(p.size() <= LineChart::kMaxPoints);
            QCOMPARE(p.front(), QPointF(0, 1));
            QCOMPARE(p.back(), QPointF(epochs - 1, y(epochs - 1)));
            // Evenly: every point but the newest is on one stride, a power of two.
            const double stride = p[1].x() - p[0].x();
            QCOMPARE(std::exp2(std::round(std::log2(stride))), stride);
            for (qsizetype k = 0; k + 1 < p.size(); ++k) {
                QCOMPARE(p[k].x(), double(k) * stride);
                QCOMPARE(p[k].y(), y(int(p[k].x())));
            }
            QVERIFY(p.back().x() - p[p.size() - 2].x() <= stride);
        }
        // The batches and the points one by one keep the same points.
        QCOMPARE(chart.series(0)->points(), chart.series(1)->points());
        QCOMPARE(chart.xAxis()->max(), double(epochs - 1));
    }
};

QTEST_MAIN(TestLineChart)
#include "tst_line_chart.moc"
