#pragma once
// The lineage of a tuning session as a tree: each candidate under the one it was derived
// from (refine children under their parent, a SOL search's neighbour trials under the best
// before them), with what it changed, its verdict and its time. Candidates without a parent
// (grid, random and predicted trials, the refine start) are the top level.
#include "panels/tune_includes.hpp"

#include <QAbstractItemModel>

#include <unordered_map>
#include <vector>

namespace gsr::views {

class LineageModel : public QAbstractItemModel {
    Q_OBJECT

public:
    enum Column { CandidateColumn, ChangeColumn, VerdictColumn, TimeColumn, ColumnCount };

    explicit LineageModel(QObject* parent = nullptr);

    void setSession(const tune::TuneSession& session);
    /// Adds one candidate under its parent (at the top level when it has none, or when the
    /// parent is not in the tree).
    void appendCandidate(const tune::CandidateRecord& candidate);
    void clear();

    /// The candidate behind an index (null for an invalid one).
    const tune::CandidateRecord* candidate(const QModelIndex& index) const;
    /// The index of candidate `id` in column 0 (invalid when absent).
    QModelIndex indexOfCandidate(std::size_t id) const;
    /// Levels below the top of the deepest candidate (0: a flat list).
    int depth() const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node {
        tune::CandidateRecord candidate;
        int parent = -1; ///< node index, -1 at the top
        int row = 0; ///< among its siblings
        int level = 0;
        QString change;
        std::vector<int> children;
    };
    void addNode(const tune::CandidateRecord& candidate, bool notify);
    QModelIndex indexOfNode(int node, int column) const;

    std::vector<Node> nodes_;
    std::vector<int> roots_;
    std::unordered_map<std::size_t, int> node_of_id_; ///< candidate id -> its node
};

} // namespace gsr::views
