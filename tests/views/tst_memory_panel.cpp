// The Memory panel: the bars are core's analytic model layer by layer, res grows with depth
// where gsr stays flat, and the peak is held against the device's memory.
#include "panels/memory_estimates.hpp"
#include "panels/memory_panel.hpp"
#include "view_test_support.hpp"

#include <QBarSet>
#include <QChart>
#include <QStackedBarSeries>
#include <QTest>

using gsr::views::MemoryPanel;

class TestMemoryPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gsr::views::test::init_test_application(); }

    void barsAreTheAnalyticModel()
    {
        MemoryPanel panel;
        const gsr::nn::GraphShape shape{5000, 9000, 12};
        gsr::nn::ModelConfig config;
        config.kind = gsr::nn::ModelKind::Gsr;
        config.layers = 16;
        config.hidden = 64;
        config.groups = 4;
        config.topk = 8;
        panel.setGraphShape(shape, QStringLiteral("test graph"));
        panel.setModelConfig(config);
        // One unit for every chart: KiB, MiB or GiB by the tallest bar of the three models.
        std::size_t tallest = 0;
        for (const auto kind : MemoryPanel::kCompared)
            for (const auto& l : panel.estimate(kind)->layers)
                tallest = std::max(tallest, l.parameter_bytes + l.gradient_bytes +
                                                l.optimizer_bytes + l.activation_bytes +
                                                l.workspace_bytes);
        const double unit = tallest >= (1u << 30) ? double(1u << 30)
                            : tallest >= (1u << 20) ? double(1u << 20) : 1024.0;
        for (const auto kind : MemoryPanel::kCompared) {
            gsr::nn::ModelConfig c = config;
            c.kind = kind;
            const auto expected = gsr::nn::estimate_memory(c, shape);
            QVERIFY(panel.estimate(kind).has_value());
            QCOMPARE(panel.estimate(kind)->analytic_peak_bytes, expected.analytic_peak_bytes);
            auto* series = qobject_cast<QStackedBarSeries*>(panel.chart(kind)->series().at(0));
            QVERIFY(series);
            QCOMPARE(series->count(), 5);
            // Stored activations (set 3) per layer, in the chart's unit (KiB at this size).
            const QBarSet* stored = series->barSets().at(3);
            QCOMPARE(stored->count(), int(expected.layers.size()));
            for (int i = 0; i < stored->count(); ++i)
                QCOMPARE(stored->at(i), expected.layers[std::size_t(i)].activation_bytes / unit);
        }
        // The point of the panel: res keeps every layer's activations, gsr does not.
        QVERIFY(panel.estimate(gsr::nn::ModelKind::Res)->activation_bytes >
                4 * panel.estimate(gsr::nn::ModelKind::Gsr)->activation_bytes);
        QCOMPARE(panel.predictedPeak(),
                 panel.estimate(gsr::nn::ModelKind::Gsr)->analytic_peak_bytes);
    }

    void warnsBeforeAnOutOfMemory()
    {
        MemoryPanel panel;
        gsr::nn::ModelConfig config;
        config.kind = gsr::nn::ModelKind::Res;
        panel.setModelConfig(config);
        panel.setGraphShape({100000, 300000, 12}, QStringLiteral("big"));
        const std::size_t peak = panel.predictedPeak();
        QVERIFY(peak > 0);
        panel.setDeviceMemory(peak * 4);
        QVERIFY(panel.warningText().isEmpty());
        panel.setDeviceMemory(peak + peak / 10); // above 80 %: tight
        QVERIFY(panel.warningText().contains(QStringLiteral("may run out")));
        panel.setDeviceMemory(peak / 2);
        QVERIFY(panel.warningText().contains(QStringLiteral("would run out")));
    }

    void verdictBoundaries()
    {
        using gsr::views::MemoryVerdict;
        QCOMPARE(gsr::views::memory_verdict(800, 1000), MemoryVerdict::Fits);
        QCOMPARE(gsr::views::memory_verdict(801, 1000), MemoryVerdict::Tight);
        QCOMPARE(gsr::views::memory_verdict(1000, 1000), MemoryVerdict::Tight);
        QCOMPARE(gsr::views::memory_verdict(1001, 1000), MemoryVerdict::TooLarge);
        QCOMPARE(gsr::views::memory_verdict(1001, 0), MemoryVerdict::Fits); // unknown device
        QCOMPARE(gsr::views::human_bytes(512), QStringLiteral("512 B"));
        QCOMPARE(gsr::views::human_bytes(1536), QStringLiteral("1.50 KiB"));
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memory_panel.moc"
