#include "panels/lineage_model.hpp"

#include "panels/candidates_table_model.hpp"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace gsr::views {

LineageModel::LineageModel(QObject* parent) : QAbstractItemModel(parent) {}

void LineageModel::setSession(const tune::TuneSession& session)
{
    beginResetModel();
    nodes_.clear();
    roots_.clear();
    node_of_id_.clear();
    for (const tune::CandidateRecord& c : session.candidates) addNode(c, false);
    endResetModel();
}

void LineageModel::appendCandidate(const tune::CandidateRecord& candidate)
{
    addNode(candidate, true);
}

void LineageModel::clear()
{
    beginResetModel();
    nodes_.clear();
    roots_.clear();
    node_of_id_.clear();
    endResetModel();
}

void LineageModel::addNode(const tune::CandidateRecord& candidate, bool notify)
{
    Node n;
    n.candidate = candidate;
    if (candidate.parent) {
        const QModelIndex p = indexOfCandidate(*candidate.parent);
        if (p.isValid()) n.parent = int(p.internalId());
    }
    const int self = int(nodes_.size());
    std::vector<int>& siblings = n.parent < 0 ? roots_ : nodes_[std::size_t(n.parent)].children;
    n.row = int(siblings.size());
    if (n.parent >= 0) {
        const Node& p = nodes_[std::size_t(n.parent)];
        n.level = p.level + 1;
        n.change = config_change(p.candidate.label, candidate.label);
    } else {
        n.change = candidate.parent ? tr("(parent %1 not in this session)").arg(*candidate.parent)
                                    : QString();
    }
    if (notify) beginInsertRows(indexOfNode(n.parent, 0), n.row, n.row);
    siblings.push_back(self);
    node_of_id_.emplace(candidate.id, self); // the first of an id, as the scan found it
    nodes_.push_back(std::move(n));
    if (notify) endInsertRows();
}

const tune::CandidateRecord* LineageModel::candidate(const QModelIndex& index) const
{
    if (!index.isValid() || index.model() != this) return nullptr;
    return &nodes_[std::size_t(index.internalId())].candidate;
}

QModelIndex LineageModel::indexOfCandidate(std::size_t id) const
{
    // A map, not a scan: a session of 100,000 candidates looked each parent up linearly.
    const auto it = node_of_id_.find(id);
    return it == node_of_id_.end() ? QModelIndex() : indexOfNode(it->second, 0);
}

int LineageModel::depth() const
{
    int d = 0;
    for (const Node& n : nodes_) d = std::max(d, n.level);
    return d;
}

QModelIndex LineageModel::indexOfNode(int node, int column) const
{
    if (node < 0) return {};
    return createIndex(nodes_[std::size_t(node)].row, column, quintptr(node));
}

QModelIndex LineageModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const std::vector<int>& list =
        parent.isValid() ? nodes_[std::size_t(parent.internalId())].children : roots_;
    if (row >= int(list.size())) return {};
    return createIndex(row, column, quintptr(list[std::size_t(row)]));
}

QModelIndex LineageModel::parent(const QModelIndex& child) const
{
    if (!child.isValid()) return {};
    return indexOfNode(nodes_[std::size_t(child.internalId())].parent, 0);
}

int LineageModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid()) return int(roots_.size());
    if (parent.column() != 0) return 0;
    return int(nodes_[std::size_t(parent.internalId())].children.size());
}

int LineageModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant LineageModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid()) return {};
    const Node& n = nodes_[std::size_t(index.internalId())];
    const tune::CandidateRecord& c = n.candidate;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case CandidateColumn:
            return QStringLiteral("#%1 %2").arg(c.id).arg(QString::fromStdString(c.origin));
        case ChangeColumn: return n.change;
        case VerdictColumn: return QString::fromLatin1(tune::verdict_name(c.verdict).data());
        case TimeColumn:
            return tune::is_timed(c) ? QString::number(c.seconds * 1e6, 'f', 2) : QString();
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(c.label);
        if (!c.detail.empty()) tip += QLatin1Char('\n') + QString::fromStdString(c.detail);
        return tip;
    }
    if (role == Qt::ForegroundRole && c.verdict == tune::Verdict::Gaming)
        return QBrush(QColor(200, 30, 30));
    return {};
}

QVariant LineageModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case CandidateColumn: return tr("Candidate");
    case ChangeColumn: return tr("Change");
    case VerdictColumn: return tr("Verdict");
    case TimeColumn: return tr("Time (µs)");
    default: return {};
    }
}

} // namespace gsr::views
