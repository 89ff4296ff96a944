#pragma once
// A Qt Charts line chart that grows point by point (the live training curves, the compared
// runs): its axes follow the data, and undefined values (NaN) leave a gap instead of a point.
// A series keeps at most kMaxPoints: past that it keeps every 2nd, then 4th, ... point (and
// always the newest), so a run of millions of epochs draws as fast as one of thousands.
#include <QList>
#include <QPointF>
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
    /// Points drawn per series at most; markers only on series of at most kMarkerLimit.
    static constexpr qsizetype kMaxPoints = 4096;
    static constexpr qsizetype kMarkerLimit = 200;

    /// Appends (x, y) to series `index`; a non-finite y is skipped.
    void append(int index, double x, double y);
    /// Appends points in order, with one update of the axes (a batch of epochs).
    void append(int index, const QList<QPointF>& points);
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
    /// Per series: points offered, the stride kept, and whether the last point drawn is the
    /// newest one off the stride (replaced by the next).
    struct Thinning {
        qint64 offered = 0;
        qint64 stride = 1;
        bool tail = false;
    };
    QVector<Thinning> thinning_;
    double x_lo_ = std::numeric_limits<double>::infinity(), x_hi_ = -x_lo_;
    double y_lo_ = x_lo_, y_hi_ = -x_lo_;
    bool fixed_y_ = false;
};

} // namespace gsr::views
