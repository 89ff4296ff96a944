#include "summary/summary_overview.hpp"

#include "models/netlist_summary_model.hpp"
#include "summary/level_histogram.hpp"

#include <QFileInfo>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace gsr::views {

namespace {

QString count_text(const std::optional<std::int64_t>& v)
{
    return v ? QLocale().toString(static_cast<qlonglong>(*v)) : QObject::tr("n/a");
}

void scale_font(QWidget* w, double factor, bool bold)
{
    QFont f = w->font();
    f.setPointSizeF(f.pointSizeF() * factor);
    f.setBold(bold);
    w->setFont(f);
}

} // namespace

SummaryOverview::SummaryOverview(QWidget* parent) : QWidget(parent)
{
    pages_ = new QStackedWidget(this);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(pages_);

    auto* empty = new QLabel(tr("No netlist loaded.\n\nOpen one with File \u25b8 Open "
                                "Netlist\u2026 (Ctrl+O), or drop a file on this window."),
                             pages_);
    empty->setAlignment(Qt::AlignCenter);
    empty->setWordWrap(true);
    empty->setForegroundRole(QPalette::PlaceholderText);
    scale_font(empty, 1.2, false);
    pages_->addWidget(empty);

    auto* content = new QWidget(pages_);
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(24, 18, 24, 18);
    layout->setSpacing(10);
    // A file or top name is shown as it is: "a<i>.v" was a.v in italics (AutoText).
    title_ = new QLabel(content);
    title_->setObjectName(QStringLiteral("summaryTitle"));
    title_->setTextFormat(Qt::PlainText);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    scale_font(title_, 1.8, true);
    subtitle_ = new QLabel(content);
    subtitle_->setObjectName(QStringLiteral("summarySubtitle"));
    subtitle_->setTextFormat(Qt::PlainText);
    subtitle_->setForegroundRole(QPalette::PlaceholderText);
    subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    subtitle_->setWordWrap(true);
    layout->addWidget(title_);
    layout->addWidget(subtitle_);

    auto* grid = new QGridLayout;
    grid->setSpacing(10);
    inputs_ = addTile(0, 0, tr("inputs"), grid);
    outputs_ = addTile(0, 1, tr("outputs"), grid);
    flip_flops_ = addTile(0, 2, tr("flip-flops"), grid);
    cells_ = addTile(0, 3, tr("cells"), grid);
    nets_ = addTile(1, 0, tr("nets"), grid);
    graph_nodes_ = addTile(1, 1, tr("graph nodes"), grid);
    graph_edges_ = addTile(1, 2, tr("graph edges"), grid);
    max_level_ = addTile(1, 3, tr("max level"), grid);
    layout->addSpacing(6);
    layout->addLayout(grid);

    auto* histogram_title = new QLabel(tr("Nodes per logic level"), content);
    scale_font(histogram_title, 1.0, true);
    layout->addSpacing(8);
    layout->addWidget(histogram_title);
    histogram_ = new LevelHistogram(content);
    layout->addWidget(histogram_, 1);
    pages_->addWidget(content);
}

QLabel* SummaryOverview::addTile(int row, int column, const QString& caption, QGridLayout* grid)
{
    auto* tile = new QFrame(this);
    tile->setFrameShape(QFrame::StyledPanel);
    tile->setBackgroundRole(QPalette::Base);
    tile->setAutoFillBackground(true);
    auto* v = new QVBoxLayout(tile);
    v->setContentsMargins(12, 8, 12, 8);
    auto* value = new QLabel(tile);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    scale_font(value, 1.6, true);
    auto* label = new QLabel(caption, tile);
    label->setForegroundRole(QPalette::PlaceholderText);
    v->addWidget(value);
    v->addWidget(label);
    grid->addWidget(tile, row, column);
    return value;
}

void SummaryOverview::setSummary(const report::NetlistSummary& s)
{
    const QString path = QString::fromStdString(s.path);
    title_->setText(QFileInfo(path).fileName());
    QStringList facts;
    facts << QString::fromStdString(s.format);
    if (!s.top.empty()) facts << tr("top %1").arg(QString::fromStdString(s.top));
    facts << count_phrase(qint64(s.warnings.size() + s.warnings_suppressed), tr("warning"),
                          tr("warnings"));
    facts << tr("loaded in %1").arg(format_duration(s.seconds));
    subtitle_->setText(facts.join(QStringLiteral("  \u00b7  ")) + QLatin1Char('\n') +
                       QFileInfo(path).absoluteFilePath());
    inputs_->setText(count_text(s.counts.inputs));
    outputs_->setText(count_text(s.counts.outputs));
    flip_flops_->setText(count_text(s.counts.flip_flops));
    cells_->setText(count_text(s.counts.cells));
    nets_->setText(count_text(s.counts.nets));
    graph_nodes_->setText(count_text(s.graph_nodes));
    graph_edges_->setText(count_text(s.graph_edges));
    max_level_->setText(count_text(s.max_level));
    histogram_->setCounts(s.level_histogram);
    pages_->setCurrentIndex(1);
}

void SummaryOverview::clear()
{
    histogram_->setCounts({});
    pages_->setCurrentIndex(0);
}

} // namespace gsr::views
