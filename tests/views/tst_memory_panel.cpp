// The Memory panel: the bars are core's analytic model layer by layer, res grows with depth
// where gsr stays flat, and the peak is held against the device's memory. After a run the
// measured chart shows the run's measured per-layer rows.
#include "panels/memory_estimates.hpp"
#include "panels/memory_panel.hpp"
#include "nn/gpu_runtime.hpp"
#include "nn/model.hpp"
#include "view_test_support.hpp"

#include <QBarSet>
#include <QChart>
#include <QLabel>
#include <QProgressBar>
#include <QStackedBarSeries>
#include <QTest>

using gsr::views::MemoryPanel;

namespace {

std::size_t tallest_row(const std::vector<gsr::nn::LayerMemory>& rows)
{
    std::size_t m = 0;
    for (const auto& l : rows)
        m = std::max(m, l.parameter_bytes + l.gradient_bytes + l.optimizer_bytes +
                            l.activation_bytes + l.workspace_bytes);
    return m;
}

double unit_for(std::size_t tallest)
{
    return tallest >= (1u << 30) ? double(1u << 30)
           : tallest >= (1u << 20) ? double(1u << 20) : 1024.0;
}

/// The measured chart's five bar sets: parameters, gradients, Adam, activations, workspace.
QList<QBarSet*> measured_sets(const MemoryPanel& panel)
{
    auto* series = qobject_cast<QStackedBarSeries*>(panel.measuredChart()->series().at(0));
    return series ? series->barSets() : QList<QBarSet*>{};
}

} // namespace

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

    void measuredChartShowsTheMeasuredRows()
    {
        MemoryPanel panel;
        const gsr::nn::GraphShape shape{2000, 5000, 8};
        gsr::nn::ModelConfig config;
        config.kind = gsr::nn::ModelKind::Res;
        config.layers = 3;
        config.hidden = 32;
        panel.setGraphShape(shape, QStringLiteral("test graph"));
        panel.setModelConfig(config);
        // A report whose measured rows differ from its analytic ones in every part.
        gsr::nn::MemoryReport report = gsr::nn::estimate_memory(config, shape);
        report.measured_peak_bytes = 3u << 20;
        std::size_t i = 0;
        for (const auto& l : report.layers) {
            gsr::nn::LayerMemory m = l;
            m.parameter_bytes = 1024 * (i + 1);
            m.gradient_bytes = 2048 * (i + 1);
            m.optimizer_bytes = 4096 * (i + 1);
            m.activation_bytes = 10240 * (i + 1);
            m.workspace_bytes = 512 * (i + 3);
            report.measured_layers.push_back(m);
            ++i;
        }
        // The bar is the label's prediction: an old run's peak stayed in it after the model or
        // circuit changed, beside a label with the new prediction.
        panel.setDeviceMemory(8 * report.analytic_peak_bytes);
        const auto* bar = panel.findChild<QProgressBar*>(QStringLiteral("peakBar"));
        QCOMPARE(bar->value(), 125); // 1000ths
        report.measured_peak_bytes = 4 * report.analytic_peak_bytes;
        panel.showMeasured(report, config, QStringLiteral("run 7"));
        QCOMPARE(bar->value(), 125);
        std::size_t tallest = tallest_row(report.measured_layers);
        for (const auto kind : MemoryPanel::kCompared)
            tallest = std::max(tallest, tallest_row(panel.estimate(kind)->layers));
        const double unit = unit_for(tallest);
        const QList<QBarSet*> sets = measured_sets(panel);
        QCOMPARE(sets.size(), 5);
        for (int r = 0; r < int(report.measured_layers.size()); ++r) {
            const auto& m = report.measured_layers[std::size_t(r)];
            QCOMPARE(sets[0]->at(r), m.parameter_bytes / unit);
            QCOMPARE(sets[1]->at(r), m.gradient_bytes / unit);
            QCOMPARE(sets[2]->at(r), m.optimizer_bytes / unit);
            QCOMPARE(sets[3]->at(r), m.activation_bytes / unit);
            QCOMPARE(sets[4]->at(r), m.workspace_bytes / unit);
        }
        QVERIFY(panel.measuredChart()->title().contains(QStringLiteral("measured per layer")));
        QVERIFY(panel.measuredChart()->title().contains(QStringLiteral("run 7")));

        // An older run's report without measured rows: its analytic rows, and the title says so.
        report.measured_layers.clear();
        panel.showMeasured(report, config, QStringLiteral("old run"));
        const QList<QBarSet*> old = measured_sets(panel);
        QCOMPARE(old.size(), 5);
        QCOMPARE(old[3]->count(), int(report.layers.size()));
        const double old_unit = unit_for([&] {
            std::size_t t = tallest_row(report.layers);
            for (const auto kind : MemoryPanel::kCompared)
                t = std::max(t, tallest_row(panel.estimate(kind)->layers));
            return t;
        }());
        QCOMPARE(old[3]->at(1), report.layers[1].activation_bytes / old_unit);
        QVERIFY(panel.measuredChart()->title().contains(QStringLiteral("analytic per layer")));
    }

    void measuredRowsOfARealStep()
    {
        // A model's own report after one training step flows into the chart unchanged.
        const std::size_t n = 120;
        gsr::nn::GraphInput g;
        g.node_count = n;
        g.feature_count = 3;
        g.features.assign(n * 3, 0.5f);
        g.fanin_offsets.assign(n + 1, 0); // a chain: node v's driver is v - 1
        for (std::uint32_t v = 1; v < n; ++v) g.fanin_targets.push_back(v - 1);
        for (std::size_t v = 1; v <= n; ++v) g.fanin_offsets[v] = v - 1;
        gsr::nn::ModelConfig config;
        config.kind = gsr::nn::ModelKind::Gsr;
        config.layers = 4;
        config.hidden = 16;
        config.groups = 2;
        config.topk = 3;
        gsr::nn::Model model(config, g.feature_count);
        model.bind_graph(g);
        std::vector<float> targets(n, 1.0f);
        const std::vector<std::uint32_t> nodes = {1, 5, 9};
        model.train_step(nodes, targets, gsr::nn::LossKind::MeanSquaredError);
        const gsr::nn::MemoryReport report = model.memory_report();
        QCOMPARE(report.measured_layers.size(), report.layers.size());

        MemoryPanel panel;
        panel.setModelConfig(config);
        panel.showMeasured(report, config, QStringLiteral("step"));
        // No graph shape: no estimates, so the measured rows alone set the unit.
        const double unit = unit_for(tallest_row(report.measured_layers));
        const QList<QBarSet*> sets = measured_sets(panel);
        QCOMPARE(sets.size(), 5);
        for (int r = 0; r < int(report.measured_layers.size()); ++r) {
            const auto& m = report.measured_layers[std::size_t(r)];
            QVERIFY(m.workspace_bytes > 0);
            QCOMPARE(sets[4]->at(r), m.workspace_bytes / unit);
            QCOMPARE(sets[3]->at(r), m.activation_bytes / unit);
            QCOMPARE(sets[0]->at(r), m.parameter_bytes / unit);
        }
    }

    void warnsBeforeAnOutOfMemory()
    {
        MemoryPanel panel;
        gsr::nn::ModelConfig config;
        config.kind = gsr::nn::ModelKind::Res;
        panel.setModelConfig(config);
        panel.setGraphShape({100000, 300000, 12}, QStringLiteral("big"));
        const std::size_t peak = panel.predictedPeak();
        QCOMPARE(peak, gsr::nn::estimate_memory(config, {100000, 300000, 12}).analytic_peak_bytes);
        QVERIFY(peak > 100000 * 12 * 4); // the features alone, float32
        panel.setDeviceMemory(peak * 4);
        QVERIFY(panel.warningText().isEmpty());
        panel.setDeviceMemory(peak + peak / 10); // above 80 %: tight
        QVERIFY(panel.warningText().contains(QStringLiteral("may run out")));
        panel.setDeviceMemory(peak / 2);
        QVERIFY(panel.warningText().contains(QStringLiteral("would run out")));

        // Offloaded, the optimizer state leaves the device peak and is named as host memory.
        auto* label = panel.findChild<QLabel*>(QStringLiteral("peakLabel"));
        QVERIFY(label);
        QVERIFY(!label->text().contains(QStringLiteral("pinned host memory")));
        config.offload_optimizer = true;
        panel.setModelConfig(config);
        const gsr::nn::MemoryReport offloaded =
            gsr::nn::estimate_memory(config, {100000, 300000, 12});
        QVERIFY(offloaded.host_bytes > 0);
        QCOMPARE(panel.predictedPeak(), offloaded.analytic_peak_bytes);
        QVERIFY(panel.predictedPeak() < peak);
        QVERIFY2(label->text().contains(
                     QStringLiteral("plus %1 of pinned host memory")
                         .arg(gsr::views::human_bytes(offloaded.host_bytes))),
                 qPrintable(label->text()));
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

    void theVerdictIsAgainstTheDeviceTrainingTakes()
    {
        // A model wider than the GPU backend takes trains on the CPU (train::choose_device):
        // its verdict was against the GPU's memory all the same.
        constexpr std::size_t kGiB = std::size_t{1} << 30;
        gsr::nn::GpuStatus gpu;
        gpu.available = true;
        gpu.total_bytes = 24 * kGiB;
        gpu.max_hidden = 1024;
        using gsr::views::training_memory_bytes;
        QCOMPARE(training_memory_bytes(gpu, 64 * kGiB, 1024), 24 * kGiB);
        QCOMPARE(training_memory_bytes(gpu, 64 * kGiB, 2048), 64 * kGiB);
        gpu.max_hidden = 0; // no limit known
        QCOMPARE(training_memory_bytes(gpu, 64 * kGiB, 4096), 24 * kGiB);
        gpu.available = false;
        QCOMPARE(training_memory_bytes(gpu, 64 * kGiB, 64), 64 * kGiB);
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memory_panel.moc"
