#include "summary/level_histogram.hpp"

#include <QEvent>
#include <QHelpEvent>
#include <QLocale>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <utility>

namespace gsr::views {

namespace {

constexpr int kMinBarWidth = 3; ///< px; below this bars merge into bins of several levels

} // namespace

LevelHistogram::LevelHistogram(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
}

void LevelHistogram::setCounts(std::vector<std::size_t> counts)
{
    counts_ = std::move(counts);
    update();
}

QSize LevelHistogram::sizeHint() const { return {480, 220}; }

QSize LevelHistogram::minimumSizeHint() const { return {160, 90}; }

QRect LevelHistogram::plotArea() const
{
    const QFontMetrics fm = fontMetrics();
    // Left margin fits the largest count's label; bottom margin fits the level labels.
    const std::size_t top = counts_.empty() ? 0 : *std::max_element(counts_.begin(), counts_.end());
    const int left = fm.horizontalAdvance(QLocale().toString(qulonglong(top))) + 8;
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
        for (std::size_t l = bin.first_level; l <= bin.last_level; ++l) bin.nodes += counts_[l];
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
    std::size_t top = 1;
    for (const Bin& b : bs) top = std::max(top, b.nodes);

    // Axes and the two labels of each axis: enough to read the scale, no clutter.
    p.setPen(pal.color(QPalette::Mid));
    p.drawLine(area.bottomLeft(), area.bottomRight());
    p.drawLine(area.bottomLeft(), area.topLeft());
    p.setPen(pal.color(QPalette::WindowText));
    const QFontMetrics fm = fontMetrics();
    const QRect ylabel(0, area.top() - fm.height() / 2, area.left() - 4, fm.height());
    p.drawText(ylabel, Qt::AlignRight | Qt::AlignVCenter, QLocale().toString(qulonglong(top)));
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
        const double h = double(area.height()) * double(bs[i].nodes) / double(top);
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
    const auto i = std::min<std::size_t>(
        bs.size() - 1, std::size_t(double(help->pos().x() - area.left()) * bs.size() / area.width()));
    const Bin& b = bs[i];
    const QString levels = b.first_level == b.last_level
                               ? tr("level %1").arg(b.first_level)
                               : tr("levels %1-%2").arg(b.first_level).arg(b.last_level);
    QToolTip::showText(help->globalPos(),
                       tr("%1: %2 nodes").arg(levels, QLocale().toString(qulonglong(b.nodes))),
                       this);
    return true;
}

} // namespace gsr::views
