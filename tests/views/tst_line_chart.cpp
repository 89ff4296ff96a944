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
};

QTEST_MAIN(TestLineChart)
#include "tst_line_chart.moc"
