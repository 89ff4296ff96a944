#pragma once
// The Memory panel: per-layer memory of a training step (parameters, gradients, Adam moments,
// stored activations, workspace) as stacked bars, for res, rev and gsr side by side at the
// current depth and width, so the flat activation memory of the reversible models shows. Before
// training the bars are core's analytic model (nn::estimate_memory); after a run, a fourth chart
// shows the run's measured per-layer rows (MemoryReport::measured_layers: what the arena handed
// out per layer, workspace as the layer's high-water mark) with its measured peak; a report
// without measured rows (an older run) falls back to its analytic rows there. The predicted
// peak is held against the device's memory, with a warning before an out-of-memory.
#include "nn/memory_model.hpp"

#include <QString>
#include <QWidget>

#include <array>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QProgressBar;

namespace gsr::views {

class MemoryPanel : public QWidget {
    Q_OBJECT

public:
    static constexpr std::array<nn::ModelKind, 3> kCompared = {
        nn::ModelKind::Res, nn::ModelKind::Rev, nn::ModelKind::Gsr};

    explicit MemoryPanel(QWidget* parent = nullptr);

    /// The graph the estimates are for; `name` says which in the caption.
    void setGraphShape(const nn::GraphShape& shape, const QString& name);
    /// The configuration of the Training panel: its depth, width, groups and k are used for all
    /// three models; its own model's peak is the one held against the device.
    void setModelConfig(const nn::ModelConfig& config);
    /// A finished run's report: its measured per-layer rows (else its analytic ones) and the
    /// measured peak, in the measured chart.
    void showMeasured(const nn::MemoryReport& report, const nn::ModelConfig& config,
                      const QString& label);
    /// For tests: pretend the device has this much memory (0: the real device's).
    void setDeviceMemory(std::size_t bytes);

    /// The analytic report of `kind` at the current configuration (none: no graph yet, or the
    /// configuration is impossible for it).
    const std::optional<nn::MemoryReport>& estimate(nn::ModelKind kind) const;
    QChart* chart(nn::ModelKind kind) const;
    QChart* measuredChart() const;
    /// The current model's predicted peak (0 when unknown).
    std::size_t predictedPeak() const { return predicted_peak_; }
    std::size_t deviceMemory() const;
    QString warningText() const;

private:
    void refresh();
    /// The rows the measured chart shows (null before a run).
    const std::vector<nn::LayerMemory>* measuredRows() const;
    void fillChart(QChart* chart, const std::vector<nn::LayerMemory>& rows, double unit,
                   const QString& unit_name, double y_max);

    std::optional<nn::GraphShape> shape_;
    QString graph_name_;
    nn::ModelConfig config_;
    std::array<std::optional<nn::MemoryReport>, 3> estimates_;
    std::array<QString, 3> errors_;
    std::optional<nn::MemoryReport> measured_;
    nn::ModelConfig measured_config_;
    QString measured_label_;
    std::size_t predicted_peak_ = 0;
    std::size_t device_override_ = 0;

    QLabel* caption_ = nullptr;
    std::array<QChartView*, 3> views_{};
    QChartView* measured_view_ = nullptr;
    QProgressBar* peak_bar_ = nullptr;
    QLabel* peak_label_ = nullptr;
    QLabel* warning_ = nullptr;
};

} // namespace gsr::views
