#include "panels/community_table_model.hpp"

#include <QLocale>

#include <algorithm>
#include <stdexcept>

namespace gsr::views {

std::vector<CommunityStats> community_stats(const graph::CircuitGraph& graph,
                                            const std::vector<std::uint32_t>& membership)
{
    if (membership.size() != graph.node_count())
        throw std::invalid_argument("community_stats: one community per node");
    std::uint32_t count = 0;
    for (const std::uint32_t c : membership) count = std::max(count, c + 1);
    std::vector<CommunityStats> stats(count);
    for (std::uint32_t c = 0; c < count; ++c) stats[c].id = c;
    for (const std::uint32_t c : membership) ++stats[c].size;
    for (graph::NodeId u = 0; u < graph.node_count(); ++u) {
        const std::uint32_t cu = membership[u];
        for (std::uint64_t e = graph.fanout.offsets[u]; e < graph.fanout.offsets[u + 1]; ++e) {
            const std::uint32_t cv = membership[graph.fanout.targets[e]];
            if (cu == cv) {
                ++stats[cu].internal_edges;
            } else {
                ++stats[cu].external_edges;
                ++stats[cv].external_edges;
            }
        }
    }
    return stats;
}

CommunityTableModel::CommunityTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CommunityTableModel::setCommunities(const graph::CircuitGraph& graph,
                                         const std::vector<std::uint32_t>& membership)
{
    std::vector<CommunityStats> stats = community_stats(graph, membership);
    // Counting sort of the nodes by community keeps each community's nodes ascending.
    std::vector<std::size_t> first(stats.size() + 1, 0);
    for (const CommunityStats& s : stats) first[s.id + 1] = s.size;
    for (std::size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
    std::vector<quint32> members(membership.size());
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (std::size_t v = 0; v < membership.size(); ++v)
        members[next[membership[v]]++] = static_cast<quint32>(v);

    beginResetModel();
    stats_ = std::move(stats);
    members_ = std::move(members);
    first_ = std::move(first);
    endResetModel();
}

void CommunityTableModel::clear()
{
    beginResetModel();
    stats_.clear();
    members_.clear();
    first_.clear();
    endResetModel();
}

QVector<quint32> CommunityTableModel::nodesOf(int row) const
{
    if (row < 0 || row >= rowCount()) return {};
    const std::uint32_t c = stats_[static_cast<std::size_t>(row)].id;
    return QVector<quint32>(members_.begin() + static_cast<std::ptrdiff_t>(first_[c]),
                            members_.begin() + static_cast<std::ptrdiff_t>(first_[c + 1]));
}

int CommunityTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(stats_.size());
}

int CommunityTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CommunityTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CommunityStats& s = stats_[static_cast<std::size_t>(index.row())];
    qulonglong value = 0;
    switch (index.column()) {
    case IdColumn: value = s.id; break;
    case SizeColumn: value = s.size; break;
    case InternalColumn: value = s.internal_edges; break;
    case ExternalColumn: value = s.external_edges; break;
    default: return {};
    }
    if (role == SortRole) return value;
    if (role == Qt::DisplayRole) return QLocale().toString(value);
    if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == ExternalColumn)
        return tr("Edges with one end in community %1").arg(s.id);
    return {};
}

QVariant CommunityTableModel::headerData(int section, Qt::Orientation orientation,
                                         int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case IdColumn: return tr("Community");
    case SizeColumn: return tr("Nodes");
    case InternalColumn: return tr("Internal edges");
    case ExternalColumn: return tr("External edges");
    default: return {};
    }
}

} // namespace gsr::views
