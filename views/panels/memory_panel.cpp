#include "panels/memory_panel.hpp"

#include "panels/memory_estimates.hpp"
#include "util/diagnostics.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGridLayout>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace gsr::views {

namespace {

QString kind_name(nn::ModelKind kind) { return QString::fromLatin1(nn::model_kind_name(kind).data()); }

/// Bytes of the tallest stacked bar of some rows.
std::size_t tallest_layer(const std::vector<nn::LayerMemory>& rows)
{
    std::size_t m = 0;
    for (const nn::LayerMemory& l : rows)
        m = std::max(m, l.parameter_bytes + l.gradient_bytes + l.optimizer_bytes +
                            l.activation_bytes + l.workspace_bytes);
    return m;
}

/// A unit that keeps the axis labels short.
std::pair<double, QString> unit_for(std::size_t bytes)
{
    if (bytes >= (std::size_t{1} << 30)) return {double(1 << 30), QStringLiteral("GiB")};
    if (bytes >= (std::size_t{1} << 20)) return {double(1 << 20), QStringLiteral("MiB")};
    return {1024.0, QStringLiteral("KiB")};
}

QChartView* make_view(QWidget* parent)
{
    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(2, 2, 2, 2));
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(220, 200);
    return view;
}

} // namespace

MemoryPanel::MemoryPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("memoryPanel"));
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("memoryCaption"));
    caption_->setWordWrap(true);
    auto* charts = new QGridLayout;
    for (std::size_t i = 0; i < kCompared.size(); ++i) {
        views_[i] = make_view(this);
        views_[i]->setObjectName(QStringLiteral("memoryChart_") + kind_name(kCompared[i]));
        charts->addWidget(views_[i], 0, static_cast<int>(i));
    }
    measured_view_ = make_view(this);
    measured_view_->setObjectName(QStringLiteral("memoryChart_measured"));
    measured_view_->hide();
    charts->addWidget(measured_view_, 0, 3);

    peak_bar_ = new QProgressBar(this);
    peak_bar_->setObjectName(QStringLiteral("peakBar"));
    peak_bar_->setRange(0, 1000);
    peak_bar_->setTextVisible(false);
    peak_label_ = new QLabel(this);
    peak_label_->setObjectName(QStringLiteral("peakLabel"));
    warning_ = new QLabel(this);
    warning_->setObjectName(QStringLiteral("memoryWarning"));
    warning_->setWordWrap(true);
    warning_->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(caption_);
    layout->addLayout(charts, 1);
    layout->addWidget(peak_label_);
    layout->addWidget(peak_bar_);
    layout->addWidget(warning_);
    refresh();
}

void MemoryPanel::setGraphShape(const nn::GraphShape& shape, const QString& name)
{
    shape_ = shape;
    graph_name_ = name;
    refresh();
}

void MemoryPanel::setModelConfig(const nn::ModelConfig& config)
{
    config_ = config;
    refresh();
}

void MemoryPanel::showMeasured(const nn::MemoryReport& report, const nn::ModelConfig& config,
                               const QString& label)
{
    measured_ = report;
    measured_config_ = config;
    measured_label_ = label;
    refresh();
}

void MemoryPanel::setDeviceMemory(std::size_t bytes)
{
    device_override_ = bytes;
    refresh();
}

std::size_t MemoryPanel::deviceMemory() const
{
    return device_override_ ? device_override_ : device_memory_bytes(config_.hidden);
}

const std::optional<nn::MemoryReport>& MemoryPanel::estimate(nn::ModelKind kind) const
{
    static const std::optional<nn::MemoryReport> none;
    for (std::size_t i = 0; i < kCompared.size(); ++i)
        if (kCompared[i] == kind) return estimates_[i];
    return none;
}

QChart* MemoryPanel::chart(nn::ModelKind kind) const
{
    for (std::size_t i = 0; i < kCompared.size(); ++i)
        if (kCompared[i] == kind) return views_[i]->chart();
    return nullptr;
}

QChart* MemoryPanel::measuredChart() const { return measured_view_->chart(); }

QString MemoryPanel::warningText() const { return warning_->text(); }

const std::vector<nn::LayerMemory>* MemoryPanel::measuredRows() const
{
    if (!measured_) return nullptr;
    return measured_->measured_layers.empty() ? &measured_->layers : &measured_->measured_layers;
}

void MemoryPanel::fillChart(QChart* chart, const std::vector<nn::LayerMemory>& rows,
                            double unit, const QString& unit_name, double y_max)
{
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    auto* series = new QStackedBarSeries;
    const QString parts[] = {tr("parameters"), tr("gradients"), tr("Adam moments"),
                             tr("stored activations"), tr("workspace")};
    QBarSet* sets[5];
    for (int i = 0; i < 5; ++i) sets[i] = new QBarSet(parts[i]);
    QStringList categories;
    for (const nn::LayerMemory& l : rows) {
        // "layer 12" -> "12", "encoder" -> "in": eighteen bars fit under a narrow chart.
        QString name = QString::fromStdString(l.name);
        if (name.startsWith(QLatin1String("layer "))) name = name.mid(6);
        else if (name == QLatin1String("encoder")) name = QStringLiteral("in");
        else if (name == QLatin1String("head")) name = QStringLiteral("out");
        categories << name;
        *sets[0] << l.parameter_bytes / unit;
        *sets[1] << l.gradient_bytes / unit;
        *sets[2] << l.optimizer_bytes / unit;
        *sets[3] << l.activation_bytes / unit;
        *sets[4] << l.workspace_bytes / unit;
    }
    for (QBarSet* s : sets) series->append(s);
    series->setBarWidth(0.8);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(tr("layer"));
    QFont small = x->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.75);
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    y->setRange(0, y_max);
    y->setTitleText(unit_name);
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void MemoryPanel::refresh()
{
    predicted_peak_ = 0;
    std::size_t tallest = 0;
    for (std::size_t i = 0; i < kCompared.size(); ++i) {
        estimates_[i].reset();
        errors_[i].clear();
        if (!shape_) continue;
        nn::ModelConfig c = config_;
        c.kind = kCompared[i];
        try {
            estimates_[i] = nn::estimate_memory(c, *shape_);
            tallest = std::max(tallest, tallest_layer(estimates_[i]->layers));
        } catch (const Error& e) {
            errors_[i] = QString::fromStdString(e.message());
        }
    }
    if (measured_) tallest = std::max(tallest, tallest_layer(*measuredRows()));
    const auto [unit, unit_name] = unit_for(tallest);
    // One scale for every chart, so the heights compare across models.
    const double y_max = std::max(tallest / unit * 1.05, 1e-3);

    for (std::size_t i = 0; i < kCompared.size(); ++i) {
        QChart* chart = views_[i]->chart();
        const bool current = kCompared[i] == config_.kind;
        QString title = kind_name(kCompared[i]);
        if (estimates_[i]) {
            title += tr(": peak %1").arg(human_bytes(estimates_[i]->analytic_peak_bytes));
            fillChart(chart, estimates_[i]->layers, unit, unit_name, y_max);
        } else {
            chart->removeAllSeries();
            title += errors_[i].isEmpty() ? tr(" (open a netlist)") : tr(" (not possible)");
        }
        if (current) title += tr(" \u2014 current");
        chart->setTitle(title);
        chart->setToolTip(errors_[i]);
        QFont f = chart->titleFont();
        f.setBold(current);
        chart->setTitleFont(f);
        chart->legend()->setVisible(i == 0);
        QFont legend_font = chart->legend()->font();
        legend_font.setPointSizeF(QFont().pointSizeF() * 0.75);
        chart->legend()->setFont(legend_font);
    }

    if (measured_) {
        // The run's measured rows; a report without them (an older run) shows its analytic
        // rows and says so.
        const bool per_layer = !measured_->measured_layers.empty();
        fillChart(measured_view_->chart(), *measuredRows(), unit, unit_name, y_max);
        measured_view_->chart()->setTitle(
            (per_layer ? tr("%1 (%2): measured per layer, peak %3, analytic %4")
                       : tr("%1 (%2): analytic per layer, measured peak %3, analytic %4"))
                .arg(measured_label_, kind_name(measured_config_.kind),
                     human_bytes(measured_->measured_peak_bytes),
                     human_bytes(measured_->analytic_peak_bytes)));
        measured_view_->chart()->legend()->hide();
        measured_view_->show();
    }

    // The current model's peak: its own estimate when it is one of the three, else its own.
    std::optional<nn::MemoryReport> current;
    if (shape_) {
        try {
            current = nn::estimate_memory(config_, *shape_);
        } catch (const Error&) {
        }
    }
    if (current) predicted_peak_ = current->analytic_peak_bytes;

    const std::size_t device = deviceMemory();
    if (!shape_) {
        caption_->setText(tr("Open a netlist to see the memory a training step needs."));
    } else {
        caption_->setText(
            tr("One training step of %1 layers \u00d7 %2 wide on %3 (%4 nodes, %5 edges, %6 "
               "features). Analytic, from core's memory model; a run adds its measured rows and peak.")
                .arg(config_.layers)
                .arg(config_.hidden)
                .arg(graph_name_)
                .arg(shape_->nodes)
                .arg(shape_->edges)
                .arg(shape_->features));
    }
    // The bar is the label's prediction for the model and circuit shown now: a run's measured
    // peak (of its own model and circuit, which may differ since) is in its chart's title.
    if (predicted_peak_ > 0 && device > 0) {
        peak_label_->setText(tr("Predicted peak of %1: %2 of the device's %3 (%4 %)")
                                 .arg(kind_name(config_.kind), human_bytes(predicted_peak_),
                                      human_bytes(device))
                                 .arg(100.0 * double(predicted_peak_) / double(device), 0, 'g', 3));
        peak_bar_->setValue(static_cast<int>(
            std::min(1000.0, 1000.0 * double(predicted_peak_) / double(device))));
    } else {
        peak_label_->setText(tr("Predicted peak: unknown until a netlist is open"));
        peak_bar_->setValue(0);
    }
    // With the optimizer offloaded, its state is pinned host memory, outside the device peak.
    if (current && current->host_bytes > 0)
        peak_label_->setText(peak_label_->text() +
                             tr("; plus %1 of pinned host memory (gradients and Adam moments)")
                                 .arg(human_bytes(current->host_bytes)));
    warning_->setText(memory_warning(predicted_peak_, device));
}

} // namespace gsr::views
