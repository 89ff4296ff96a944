#include "summary/level_histogram.hpp"

#include <QEvent>
#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <utility>

namespace gsr::views {

namespace {

constexpr int kMinBarWidth = 3; ///< px; below this bars merge into bins of several levels
/// Peak over median level at which linear bars of the median would be a pixel or two high.
constexpr double kLogScaleSkew = 50.0;

} // namespace

LevelHistogram::LevelHistogram(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
}

void LevelHistogram::setCounts(std::vector<std::size_t> counts)
{
    counts_ = std::move(counts);
    peak_ = counts_.empty() ? 0 : *std::max_element(counts_.begin(), counts_.end());
    std::vector<std::size_t> busy;
    for (std::size_t c : counts_)
        if (c) busy.push_back(c);
    log_scale_ = false;
    if (!busy.empty()) {
        std::nth_element(busy.begin(), busy.begin() + busy.size() / 2, busy.end());
        log_scale_ = double(peak_) > kLogScaleSkew * double(busy[busy.size() / 2]);
    }
    update();
}

double LevelHistogram::barFraction(std::size_t nodes) const
{
    if (peak_ == 0) return 0.0;
    if (log_scale_) return std::log1p(double(nodes)) / std::log1p(double(peak_));
    return double(nodes) / double(peak_);
}

QSize LevelHistogram::sizeHint() const { return {480, 220}; }

QSize LevelHistogram::minimumSizeHint() const { return {160, 90}; }

QRect LevelHistogram::plotArea() const
{
    const QFontMetrics fm = fontMetrics();
    // Left margin fits the largest count's label; bottom margin fits the level labels.
    const int left = fm.horizontalAdvance(QLocale().toString(qulonglong(peak_))) + 8;
    return rect().adjusted(left, fm.height() / 2 + 2, -8, -(fm.height() + 6));
}

std::vector<LevelHistogram::Bin> LevelHistogram::bins(int width) const
{
    std::vector<Bin> out;
    const std::size_t n = counts_.size();
    if (n == 0 || width <= 0) return out;
    const std::size_t nbins = std::clamp<std::size_t>(width / kMinBarWidth, 1, n);
    out.resize(nbins);
    for (std::size_t b = 0; b < nbins; ++b) {
        Bin& bin = out[b];
        bin.first_level = b * n / nbins;
        bin.last_level = (b + 1) * n / nbins - 1;
        for (std::size_t l = bin.first_level; l <= bin.last_level; ++l) {
            bin.nodes += counts_[l];
            bin.peak = std::max(bin.peak, counts_[l]);
        }
    }
    return out;
}

void LevelHistogram::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QPalette& pal = palette();
    const QRect area = plotArea();
    if (counts_.empty() || area.width() < 4 || area.height() < 4) return;

    const std::vector<Bin> bs = bins(area.width());

    // Axes and the two labels of each axis: enough to read the scale, no clutter.
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(area.bottomLeft(), area.bottomRight());
    p.drawLine(area.bottomLeft(), area.topLeft());
    p.setPen(pal.color(QPalette::WindowText));
    const QFontMetrics fm = fontMetrics();
    const QRect ylabel(0, area.top() - fm.height() / 2, area.left() - 4, fm.height());
    p.drawText(ylabel, Qt::AlignRight | Qt::AlignVCenter, QLocale().toString(qulonglong(peak_)));
    if (log_scale_)
        p.drawText(area.adjusted(6, 0, 0, 0), Qt::AlignRight | Qt::AlignTop, tr("log scale"));
    p.drawText(QRect(0, area.bottom() - fm.height() / 2, area.left() - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
    const QRect xlabels(area.left(), area.bottom() + 3, area.width(), fm.height());
    p.drawText(xlabels, Qt::AlignLeft | Qt::AlignTop, tr("level 0"));
    p.drawText(xlabels, Qt::AlignRight | Qt::AlignTop,
               tr("level %1").arg(counts_.size() - 1));

    const double bar_w = double(area.width()) / double(bs.size());
    const double gap = bar_w >= 6.0 ? 1.0 : 0.0;
    p.setPen(Qt::NoPen);
    p.setBrush(pal.color(QPalette::Highlight));
    for (std::size_t i = 0; i < bs.size(); ++i) {
        const double h = double(area.height()) * barFraction(bs[i].peak);
        const QRectF bar(area.left() + i * bar_w + gap, area.bottom() + 1 - h, bar_w - 2 * gap, h);
        p.drawRect(bar);
    }
}

bool LevelHistogram::event(QEvent* e)
{
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    const auto* help = static_cast<QHelpEvent*>(e);
    const QRect area = plotArea();
    const std::vector<Bin> bs = bins(area.width());
    if (bs.empty() || !area.contains(help->pos())) {
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    const double x = double(help->pos().x() - area.left()) / double(area.width());
    const auto i = std::min<std::size_t>(bs.size() - 1, std::size_t(x * double(bs.size())));
    const Bin& b = bs[i];
    const QString levels = b.first_level == b.last_level
                               ? tr("level %1").arg(b.first_level)
                               : tr("levels %1-%2").arg(b.first_level).arg(b.last_level);
    QString text = tr("%1: %2 nodes").arg(levels, QLocale().toString(qulonglong(b.nodes)));
    if (b.first_level != b.last_level)
        text += tr(" (busiest level: %1)").arg(QLocale().toString(qulonglong(b.peak)));
    QToolTip::showText(help->globalPos(), text, this);
    return true;
}

} // namespace gsr::views
