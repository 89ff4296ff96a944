#pragma once
// A Qt Charts line chart that grows point by point (the live training curves, the compared
// runs): its axes follow the data, and undefined values (NaN) leave a gap instead of a point.
#include <QString>
#include <QVector>

#include <limits>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;
class QWidget;

namespace gsr::views {

class LineChart {
public:
    LineChart(const QString& title, const QString& x_title, const QString& y_title,
              QWidget* parent);

    QChartView* view() const { return view_; }
    QChart* chart() const { return chart_; }

    /// Adds a series; returns its index.
    int addSeries(const QString& name);
    QLineSeries* series(int index) const { return series_[index]; }
    int seriesCount() const { return static_cast<int>(series_.size()); }
    /// Appends (x, y) to series `index`; a non-finite y is skipped.
    void append(int index, double x, double y);
    /// Removes every point (and keeps the series).
    void clearPoints();
    /// Removes every series.
    void clearSeries();
    /// Fixes the y range (correlations: [-1, 1]); otherwise it follows the data.
    void setFixedYRange(double lo, double hi);
    QValueAxis* xAxis() const { return x_axis_; }
    QValueAxis* yAxis() const { return y_axis_; }

private:
    void updateRanges();
    /// The x range [lo, hi] with ticks on whole epochs: at most 11 labels, a whole number
    /// of epochs apart.
    void setEpochRange(double lo, double hi);

    QChart* chart_ = nullptr;
    QChartView* view_ = nullptr;
    QValueAxis* x_axis_ = nullptr;
    QValueAxis* y_axis_ = nullptr;
    QVector<QLineSeries*> series_;
    double x_lo_ = std::numeric_limits<double>::infinity(), x_hi_ = -x_lo_;
    double y_lo_ = x_lo_, y_hi_ = -x_lo_;
    bool fixed_y_ = false;
};

} // namespace gsr::views
