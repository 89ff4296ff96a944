#include "panels/line_chart.hpp"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QPainter>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace gsr::views {

LineChart::LineChart(const QString& title, const QString& x_title, const QString& y_title,
                     QWidget* parent)
{
    chart_ = new QChart;
    chart_->setTitle(title);
    chart_->legend()->setAlignment(Qt::AlignBottom);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    x_axis_ = new QValueAxis;
    x_axis_->setTitleText(x_title);
    x_axis_->setLabelFormat(QStringLiteral("%d"));
    y_axis_ = new QValueAxis;
    y_axis_->setTitleText(y_title);
    // Three significant digits: "-1", "0.25", "0.0123" fit a narrow chart, where "%.2f" is
    // elided ("-1.…") and hides small losses.
    y_axis_->setLabelFormat(QStringLiteral("%.3g"));
    chart_->addAxis(x_axis_, Qt::AlignBottom);
    chart_->addAxis(y_axis_, Qt::AlignLeft);
    clearPoints(); // the empty chart's ranges
    view_ = new QChartView(chart_, parent); // the view owns the chart
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(160);
}

int LineChart::addSeries(const QString& name)
{
    auto* s = new QLineSeries;
    s->setName(name);
    s->setPointsVisible(true);
    chart_->addSeries(s);
    s->attachAxis(x_axis_);
    s->attachAxis(y_axis_);
    series_.append(s);
    thinning_.append(Thinning{});
    return static_cast<int>(series_.size()) - 1;
}

void LineChart::append(int index, double x, double y)
{
    append(index, QList<QPointF>{QPointF(x, y)});
}

void LineChart::append(int index, const QList<QPointF>& points)
{
    QLineSeries* s = series_[index];
    Thinning& t = thinning_[index];
    QList<QPointF> kept = s->points();
    const qsizetype before = kept.size();
    qsizetype untouched = before; // the series' first points this batch leaves as they are
    bool added = false, thinned = false;
    for (const QPointF& p : points) {
        if (!std::isfinite(p.x()) || !std::isfinite(p.y())) continue;
        added = true;
        x_lo_ = std::min(x_lo_, p.x());
        x_hi_ = std::max(x_hi_, p.x());
        y_lo_ = std::min(y_lo_, p.y());
        y_hi_ = std::max(y_hi_, p.y());
        if (t.tail) { // the newest point so far was off the stride: this one replaces it
            kept.removeLast();
            untouched = std::min(untouched, kept.size());
        }
        t.tail = t.offered++ % t.stride != 0;
        kept.append(p);
        if (kept.size() <= kMaxPoints) continue;
        // Every other point on the stride (the multiples of 2 * stride), then the newest
        // again where the new stride leaves it out.
        const qsizetype on_stride = kept.size() - (t.tail ? 1 : 0);
        QList<QPointF> half;
        half.reserve(kMaxPoints / 2 + 2);
        for (qsizetype i = 0; i < on_stride; i += 2) half.append(kept[i]);
        t.stride *= 2;
        t.tail = (t.offered - 1) % t.stride != 0;
        if (t.tail) half.append(kept.back());
        kept = std::move(half);
        thinned = true;
    }
    if (!added) return;
    if (thinned) {
        s->replace(kept);
    } else {
        if (untouched < before) s->removePoints(int(untouched), int(before - untouched));
        s->append(kept.mid(untouched));
    }
    s->setPointsVisible(kept.size() <= kMarkerLimit);
    updateRanges();
}

void LineChart::clearPoints()
{
    for (QLineSeries* s : series_) s->clear();
    for (Thinning& t : thinning_) t = {};
    x_lo_ = y_lo_ = std::numeric_limits<double>::infinity();
    x_hi_ = y_hi_ = -x_lo_;
    setEpochRange(0, 1);
    if (!fixed_y_) y_axis_->setRange(0, 1);
}

void LineChart::clearSeries()
{
    chart_->removeAllSeries(); // deletes them
    series_.clear();
    thinning_.clear();
    clearPoints();
}

void LineChart::setFixedYRange(double lo, double hi)
{
    fixed_y_ = true;
    y_axis_->setRange(lo, hi);
}

void LineChart::updateRanges()
{
    // Whole epochs on x; a margin on y so the extreme points are not cut by the frame.
    setEpochRange(std::floor(x_lo_), std::max(std::ceil(x_hi_), std::floor(x_lo_) + 1));
    if (fixed_y_) return;
    const double span = y_hi_ - y_lo_;
    const double pad = span > 0 ? 0.05 * span : std::max(0.05 * std::abs(y_hi_), 0.01);
    y_axis_->setRange(y_lo_ - pad, y_hi_ + pad);
}

void LineChart::setEpochRange(double lo, double hi)
{
    // Ticks at the range's start and every `step` epochs from it: with a tick count, 0..1
    // got five ticks labelled "0 0 0 0 1" and 0..13 eleven at 1.3 epochs. The axis lays
    // its ticks out on every change, so a wider interval goes in before a longer range and
    // a narrower one after a shorter range: a billion epochs at the last range's interval
    // of one took minutes.
    const double interval = std::max(1.0, std::ceil((hi - lo) / 10));
    const bool widening = interval >= x_axis_->tickInterval();
    x_axis_->setTickType(QValueAxis::TicksDynamic);
    if (widening) x_axis_->setTickInterval(interval);
    x_axis_->setRange(lo, hi);
    x_axis_->setTickAnchor(lo);
    if (!widening) x_axis_->setTickInterval(interval);
}

} // namespace gsr::views
