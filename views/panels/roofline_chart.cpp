#include "panels/roofline_chart.hpp"

#include "report/session_report.hpp"

#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>

#include <algorithm>
#include <cmath>

namespace gsr::views {

namespace {

constexpr double kGiga = 1e9;

QScatterSeries* scatter(QChart* chart, const QString& name, QScatterSeries::MarkerShape shape,
                        const QColor& color, double size)
{
    auto* s = new QScatterSeries;
    s->setName(name);
    s->setMarkerShape(shape);
    s->setMarkerSize(size);
    s->setColor(color);
    s->setBorderColor(color.darker(140));
    chart->addSeries(s);
    return s;
}

/// Whether a point can sit on the log axes: an infinite one (a session's flops over a
/// denormal byte count) made the axes' range infinite, and Qt Charts crashed labelling it.
bool plottable(const QPointF& p)
{
    return p.x() > 0 && p.y() > 0 && std::isfinite(p.x()) && std::isfinite(p.y());
}

/// Powers of ten around [lo, hi], so the log axes start and end on a labelled decade; within
/// 1e-300..1e300, so that the room added around extreme points stays finite.
std::pair<double, double> decades(double lo, double hi)
{
    const auto exponent = [](double e) { return std::clamp(e, -300.0, 300.0); };
    return {std::pow(10.0, exponent(std::floor(std::log10(lo)))),
            std::pow(10.0, exponent(std::ceil(std::log10(hi))))};
}

} // namespace

RooflineChart::RooflineChart(QWidget* parent)
{
    chart_ = new QChart;
    chart_->setTitle(QObject::tr("Roofline"));
    chart_->legend()->setAlignment(Qt::AlignBottom);
    QFont small = chart_->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart_->legend()->setFont(small);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    x_axis_ = new QLogValueAxis;
    x_axis_->setBase(10);
    x_axis_->setTitleText(QObject::tr("arithmetic intensity (FLOP/byte)"));
    x_axis_->setLabelFormat(QStringLiteral("%g"));
    x_axis_->setMinorTickCount(-1);
    y_axis_ = new QLogValueAxis;
    y_axis_->setBase(10);
    y_axis_->setTitleText(QObject::tr("GFLOP/s"));
    y_axis_->setLabelFormat(QStringLiteral("%g"));
    y_axis_->setMinorTickCount(-1);
    chart_->addAxis(x_axis_, Qt::AlignBottom);
    chart_->addAxis(y_axis_, Qt::AlignLeft);

    memory_roof_ = new QLineSeries;
    memory_roof_->setName(QObject::tr("memory roof"));
    memory_roof_->setPen(QPen(QColor(40, 90, 170), 2));
    compute_roof_ = new QLineSeries;
    compute_roof_->setName(QObject::tr("compute roof"));
    compute_roof_->setPen(QPen(QColor(120, 60, 160), 2));
    chart_->addSeries(memory_roof_);
    chart_->addSeries(compute_roof_);
    candidates_ = scatter(chart_, QObject::tr("candidates"), QScatterSeries::MarkerShapeCircle,
                          QColor(70, 130, 200), 8);
    gaming_ = scatter(chart_, QObject::tr("gaming"), QScatterSeries::MarkerShapeRectangle,
                      QColor(215, 40, 40), 11);
    baseline_ = scatter(chart_, QObject::tr("baseline"), QScatterSeries::MarkerShapeTriangle,
                        QColor(230, 150, 30), 12);
    bound_ = scatter(chart_, QObject::tr("SOL bound"), QScatterSeries::MarkerShapeRotatedRectangle,
                     QColor(40, 40, 40), 12);
    best_ = scatter(chart_, QObject::tr("best"), QScatterSeries::MarkerShapeStar,
                    QColor(30, 160, 70), 18);
    for (QAbstractSeries* s : chart_->series()) {
        s->attachAxis(x_axis_);
        s->attachAxis(y_axis_);
    }
    x_axis_->setRange(0.1, 100);
    y_axis_->setRange(1, 1e5);
    view_ = new QChartView(chart_, parent); // the view owns the chart
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(200);
}

QPointF RooflineChart::pointOf(const tune::CandidateRecord& c) const
{
    // The exported report's placement of a candidate (its measured DRAM bytes when profiled).
    if (!tune::is_timed(c)) return {};
    return {report::candidate_intensity(session_, c), tune::achieved_flops(session_, c) / kGiga};
}

void RooflineChart::clear()
{
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{memory_roof_, compute_roof_,
                                                          candidates_, gaming_, baseline_, bound_,
                                                          best_})
        s->clear();
    points_.clear();
    session_ = {};
    chart_->setTitle(QObject::tr("Roofline"));
    x_axis_->setRange(0.1, 100);
    y_axis_->setRange(1, 1e5);
}

void RooflineChart::setSession(const tune::TuneSession& session)
{
    clear();
    session_ = session;
    session_.candidates.clear();
    chart_->setTitle(QObject::tr("Roofline: %1 on %2")
                         .arg(QString::fromStdString(session.problem),
                              QString::fromStdString(session.device)));
    // Points of zero, negative or infinite coordinates are not plottable: no time, no bytes.
    const QPointF bound(session.intensity(), session.flops / session.t_sol / kGiga);
    if (plottable(bound)) bound_->append(bound);
    const QPointF base(session.intensity(), session.flops / session.baseline_seconds / kGiga);
    if (plottable(base)) baseline_->append(base);
    for (const tune::CandidateRecord& c : session.candidates) addCandidate(c);
    setBest(session.best_candidate());
    updateRanges();
    // No baseline measured: no legend entry for it.
    for (QLegendMarker* m : chart_->legend()->markers(baseline_))
        m->setVisible(baseline_->count() > 0);
}

void RooflineChart::addCandidate(const tune::CandidateRecord& c)
{
    const QPointF p = pointOf(c);
    if (!plottable(p)) return;
    (c.verdict == tune::Verdict::Gaming ? gaming_ : candidates_)->append(p);
    points_.append(p);
    updateRanges();
}

void RooflineChart::setBest(const tune::CandidateRecord* c)
{
    best_->clear();
    if (!c) return;
    const QPointF p = pointOf(*c);
    if (plottable(p)) best_->append(p);
}

QList<QPointF> RooflineChart::timedPoints() const { return points_; }

void RooflineChart::updateRanges()
{
    if (session_.bandwidth <= 0 || session_.peak_rate <= 0) return;
    const double ridge = session_.peak_rate / session_.bandwidth;
    if (!plottable({ridge, session_.peak_rate / kGiga})) return;
    double x_lo = ridge, x_hi = ridge;
    double y_lo = session_.peak_rate / kGiga, y_hi = y_lo;
    auto include = [&](const QPointF& p) {
        x_lo = std::min(x_lo, p.x());
        x_hi = std::max(x_hi, p.x());
        y_lo = std::min(y_lo, p.y());
        y_hi = std::max(y_hi, p.y());
    };
    for (const QPointF& p : points_) include(p);
    if (!bound_->points().isEmpty()) include(bound_->at(0));
    if (!baseline_->points().isEmpty()) include(baseline_->at(0));
    // Room around the data, then whole decades.
    const auto [xa, xb] = decades(x_lo / 3.0, x_hi * 3.0);
    const auto [ya, yb] = decades(y_lo / 3.0, y_hi * 3.0);
    x_axis_->setRange(xa, xb);
    y_axis_->setRange(ya, yb);
    memory_roof_->replace(QList<QPointF>{{xa, session_.bandwidth * xa / kGiga},
                                         {ridge, session_.peak_rate / kGiga}});
    compute_roof_->replace(
        QList<QPointF>{{ridge, session_.peak_rate / kGiga}, {xb, session_.peak_rate / kGiga}});
}

} // namespace gsr::views
