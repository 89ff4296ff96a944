#include "models/netlist_summary_model.hpp"

#include <QFileInfo>
#include <QLocale>
#include <QStringList>

namespace gsr::views {

namespace {

using Field = NetlistSummaryModel::Field;

std::int64_t warning_total(const report::NetlistSummary& s)
{
    return static_cast<std::int64_t>(s.warnings.size() + s.warnings_suppressed);
}

QString key_tooltip(Field field)
{
    switch (field) {
    case Field::Format: return QObject::tr("The reader that understood the file");
    case Field::Top: return QObject::tr("Top module, model or design name");
    case Field::Inputs: return QObject::tr("Primary inputs");
    case Field::Outputs: return QObject::tr("Primary outputs");
    case Field::FlipFlops: return QObject::tr("Sequential elements (flip-flops and latches)");
    case Field::Cells: return QObject::tr("Cell instances, as the dataset manifest counts them");
    case Field::Nets: return QObject::tr("Distinct nets");
    case Field::GraphNodes: return QObject::tr("Nodes of the circuit graph");
    case Field::GraphEdges: return QObject::tr("Directed edges of the circuit graph");
    case Field::MaxLevel: return QObject::tr("Logic depth: the longest path in levels");
    case Field::Warnings: return QObject::tr("Warnings while reading (see the Messages panel)");
    case Field::LoadTime: return QObject::tr("Time to read the file and build its graph");
    }
    return {};
}

} // namespace

NetlistSummaryModel::NetlistSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void NetlistSummaryModel::setSummary(const report::NetlistSummary& summary)
{
    beginResetModel();
    summary_ = summary;
    endResetModel();
}

void NetlistSummaryModel::clear()
{
    if (!summary_) return;
    beginResetModel();
    summary_.reset();
    endResetModel();
}

QString NetlistSummaryModel::label(Field field)
{
    switch (field) {
    case Field::Format: return tr("format");
    case Field::Top: return tr("top");
    case Field::Inputs: return tr("inputs");
    case Field::Outputs: return tr("outputs");
    case Field::FlipFlops: return tr("flip-flops");
    case Field::Cells: return tr("cells");
    case Field::Nets: return tr("nets");
    case Field::GraphNodes: return tr("graph nodes");
    case Field::GraphEdges: return tr("graph edges");
    case Field::MaxLevel: return tr("max level");
    case Field::Warnings: return tr("warnings");
    case Field::LoadTime: return tr("load time");
    }
    return {};
}

int NetlistSummaryModel::rowCount(const QModelIndex& parent) const
{
    // A table: only the invisible root has children.
    if (parent.isValid() || !summary_) return 0;
    return kFieldCount;
}

int NetlistSummaryModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NetlistSummaryModel::rawValue(Field field) const
{
    const report::NetlistSummary& s = *summary_;
    auto count = [](const std::optional<std::int64_t>& v) {
        return v ? QVariant(static_cast<qint64>(*v)) : QVariant();
    };
    switch (field) {
    case Field::Format: return QString::fromStdString(s.format);
    case Field::Top: return QString::fromStdString(s.top);
    case Field::Inputs: return count(s.counts.inputs);
    case Field::Outputs: return count(s.counts.outputs);
    case Field::FlipFlops: return count(s.counts.flip_flops);
    case Field::Cells: return count(s.counts.cells);
    case Field::Nets: return count(s.counts.nets);
    case Field::GraphNodes: return count(s.graph_nodes);
    case Field::GraphEdges: return count(s.graph_edges);
    case Field::MaxLevel: return count(s.max_level);
    case Field::Warnings: return static_cast<qint64>(warning_total(s));
    case Field::LoadTime: return s.seconds;
    }
    return {};
}

QString NetlistSummaryModel::displayValue(Field field) const
{
    const QVariant v = rawValue(field);
    if (!v.isValid()) return tr("n/a");
    if (field == Field::LoadTime) return format_duration(v.toDouble());
    if (v.typeId() == QMetaType::LongLong) return QLocale().toString(v.toLongLong());
    const QString text = v.toString();
    return text.isEmpty() ? tr("(none)") : text;
}

QVariant NetlistSummaryModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (!summary_) return {};
    const auto field = static_cast<Field>(index.row());
    const bool is_value = index.column() == ValueColumn;
    switch (role) {
    case Qt::DisplayRole: return is_value ? displayValue(field) : label(field);
    case RawValueRole: return is_value ? rawValue(field) : QVariant();
    case Qt::TextAlignmentRole: {
        const bool number = is_value && field != Field::Format && field != Field::Top;
        const Qt::Alignment a = Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft);
        return QVariant::fromValue(a);
    }
    case Qt::ToolTipRole:
        if (is_value && field == Field::Warnings && !summary_->warnings.empty()) {
            // The first few, so a hover answers "what kind of warnings?" without the dock.
            QStringList lines;
            const std::size_t shown = std::min<std::size_t>(summary_->warnings.size(), 5);
            for (std::size_t i = 0; i < shown; ++i)
                lines << QString::fromStdString(summary_->warnings[i]);
            if (warning_total(*summary_) > static_cast<std::int64_t>(shown))
                lines << tr("... (all of them are in the Messages panel)");
            return lines.join(QLatin1Char('\n'));
        }
        return key_tooltip(field);
    default: return {};
    }
}

QVariant NetlistSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    switch (section) {
    case KeyColumn: return tr("Property");
    case ValueColumn: return tr("Value");
    default: return {};
    }
}

QString summary_line(const report::NetlistSummary& s)
{
    QStringList parts;
    parts << QString::fromStdString(s.format);
    if (!s.top.empty()) parts << QObject::tr("top %1").arg(QString::fromStdString(s.top));
    auto add = [&](const std::optional<std::int64_t>& v, const QString& one,
                   const QString& many) {
        if (v) parts << count_phrase(*v, one, many);
    };
    add(s.counts.inputs, QObject::tr("input"), QObject::tr("inputs"));
    add(s.counts.outputs, QObject::tr("output"), QObject::tr("outputs"));
    add(s.counts.flip_flops, QObject::tr("flip-flop"), QObject::tr("flip-flops"));
    add(s.counts.cells, QObject::tr("cell"), QObject::tr("cells"));
    add(s.counts.nets, QObject::tr("net"), QObject::tr("nets"));
    add(s.graph_nodes, QObject::tr("graph node"), QObject::tr("graph nodes"));
    add(s.graph_edges, QObject::tr("graph edge"), QObject::tr("graph edges"));
    if (s.max_level) parts << QObject::tr("max level %1").arg(*s.max_level);
    parts << count_phrase(warning_total(s), QObject::tr("warning"), QObject::tr("warnings"));
    parts << format_duration(s.seconds);
    const QString name = QFileInfo(QString::fromStdString(s.path)).fileName();
    return name + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
}

QString format_duration(double seconds)
{
    if (seconds < 1e-3) return QStringLiteral("%1 µs").arg(seconds * 1e6, 0, 'f', 0);
    if (seconds < 1.0) return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', 1);
    return QStringLiteral("%1 s").arg(seconds, 0, 'f', 2);
}

QString count_phrase(qint64 n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(QLocale().toString(n), n == 1 ? one : many);
}

} // namespace gsr::views
