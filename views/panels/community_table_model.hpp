#pragma once
// The communities of one detection as a table: id, size, internal and external edges. Edges are
// the circuit graph's directed edges (a net with k sinks is k edges): internal when both ends
// lie in the community, external when one does. Sorting is the view's (a QSortFilterProxyModel
// on SortRole, which carries the raw numbers).
#include "graph/circuit_graph.hpp"

#include <QAbstractTableModel>
#include <QVector>

#include <cstdint>
#include <vector>

namespace gsr::views {

struct CommunityStats {
    std::uint32_t id = 0;      ///< as core numbers them: 0 is the largest
    std::uint64_t size = 0;    ///< nodes
    std::uint64_t internal_edges = 0;
    std::uint64_t external_edges = 0;
};

/// Per community, in id order. `membership` has one entry per node of `graph`; ids are dense.
/// Throws std::invalid_argument when the sizes differ.
std::vector<CommunityStats> community_stats(const graph::CircuitGraph& graph,
                                            const std::vector<std::uint32_t>& membership);

class CommunityTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { IdColumn, SizeColumn, InternalColumn, ExternalColumn, ColumnCount };
    /// The raw number of a cell, for sorting.
    static constexpr int SortRole = Qt::UserRole;

    explicit CommunityTableModel(QObject* parent = nullptr);

    /// Replaces the table: the statistics and the members of every community.
    void setCommunities(const graph::CircuitGraph& graph,
                        const std::vector<std::uint32_t>& membership);
    void clear();

    /// The nodes of the community in `row`, ascending.
    QVector<quint32> nodesOf(int row) const;
    const CommunityStats& statsOf(int row) const { return stats_[static_cast<std::size_t>(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<CommunityStats> stats_;
    /// Members by community: community c's nodes are members_[first_[c] .. first_[c + 1]).
    std::vector<quint32> members_;
    std::vector<std::size_t> first_;
};

} // namespace gsr::views
