#pragma once
// A log-log roofline of one tuning session (Qt Charts, QLogValueAxis on both axes): x is the
// arithmetic intensity in FLOP per byte, y the achieved rate in GFLOP/s. The memory roof
// (bandwidth x intensity) meets the compute roof (the unit's peak) at the ridge; the problem's
// own bound sits on the roof at its intensity (y = FLOPs / T_SOL). Each timed candidate is a
// point at the problem's intensity (or at FLOPs / measured DRAM bytes when a profiler gave
// them) and y = FLOPs / its time: the gap to the roof is its distance from SOL. Gaming
// candidates (above the roof by more than 5%) are red squares in their own "gaming" series;
// the best verified candidate is a star.
#include "panels/tune_includes.hpp"

#include <QList>
#include <QPointF>

class QChart;
class QChartView;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QWidget;

namespace gsr::views {

class RooflineChart {
public:
    explicit RooflineChart(QWidget* parent);

    QChartView* view() const { return view_; }
    QChart* chart() const { return chart_; }
    QLogValueAxis* xAxis() const { return x_axis_; }
    QLogValueAxis* yAxis() const { return y_axis_; }
    QScatterSeries* candidateSeries() const { return candidates_; }
    QScatterSeries* gamingSeries() const { return gaming_; }
    QScatterSeries* bestSeries() const { return best_; }
    QScatterSeries* boundSeries() const { return bound_; }
    QLineSeries* memoryRoof() const { return memory_roof_; }
    QLineSeries* computeRoof() const { return compute_roof_; }

    /// Draws the session's roofs and every timed candidate.
    void setSession(const tune::TuneSession& session);
    /// Adds one candidate of the session shown (live while a search runs); the best is the
    /// one the session marks, so call setBest after.
    void addCandidate(const tune::CandidateRecord& candidate);
    /// Moves the star to `candidate` (none: no star).
    void setBest(const tune::CandidateRecord* candidate);
    void clear();

    /// Where a candidate is drawn: (FLOP/byte, GFLOP/s); (0, 0) when it has no time.
    QPointF pointOf(const tune::CandidateRecord& candidate) const;
    /// Every plotted candidate point (candidates, gaming and best series together).
    QList<QPointF> timedPoints() const;

private:
    void updateRanges();

    QChart* chart_ = nullptr;
    QChartView* view_ = nullptr;
    QLogValueAxis* x_axis_ = nullptr;
    QLogValueAxis* y_axis_ = nullptr;
    QLineSeries* memory_roof_ = nullptr;
    QLineSeries* compute_roof_ = nullptr;
    QScatterSeries* candidates_ = nullptr;
    QScatterSeries* gaming_ = nullptr;
    QScatterSeries* best_ = nullptr;
    QScatterSeries* bound_ = nullptr;
    QScatterSeries* baseline_ = nullptr;
    tune::TuneSession session_; ///< bounds only (the candidates are in the series)
    QList<QPointF> points_;
};

} // namespace gsr::views
