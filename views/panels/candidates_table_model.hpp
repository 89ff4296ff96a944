#pragma once
// The candidates of one tuning session as a table for the Profiling panel: one row per
// candidate in the order they ran, with its config, origin, verdict, time, the problem's
// T_SOL, %SOL (100 T_SOL / T) and bound. Gaming candidates read "gaming" and are never the
// best; the best verified one is marked. Rows arrive one by one while a search runs
// (appendCandidate) or all at once (setSession). Sortable through a QSortFilterProxyModel on
// SortRole.
//
// Also here: config_change() (what a child changed against its parent, for the lineage) and
// link_search_lineage() (a SOL search's neighbour trials as children of the best so far).
#include "panels/tune_includes.hpp"

#include <QAbstractTableModel>
#include <QString>

namespace gsr::views {

/// "vec 1 -> 4, unroll 2 -> 1" between two config texts (key=value words); a label that is
/// not a config (a file name) gives "label -> label".
QString config_change(const std::string& parent_label, const std::string& child_label);

/// A SOL search explores the neighbourhood of its best verified config: its "neighbour"
/// candidates from index `first` on get the best before them as parent (the same rule as
/// tune::search: a new best is verified and strictly faster).
void link_search_lineage(tune::TuneSession& session, std::size_t first = 0);

class CandidatesTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        IdColumn, ConfigColumn, OriginColumn, VerdictColumn, TimeColumn, TsolColumn,
        PercentSolColumn, BoundColumn, ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit CandidatesTableModel(QObject* parent = nullptr);

    /// Replaces every row.
    void setSession(tune::TuneSession session);
    /// Appends one candidate; re-marks the best.
    void appendCandidate(tune::CandidateRecord candidate);
    void clear();
    const tune::TuneSession& session() const { return session_; }
    const tune::CandidateRecord& candidate(int row) const;
    /// The best row, or -1.
    int bestRow() const;

    static QString columnTitle(int column);
    /// "ok", "gaming", "wrong_result", ... with " (best)" on the best row.
    static QString verdictText(const tune::CandidateRecord& c);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void remarkBest();

    tune::TuneSession session_;
};

} // namespace gsr::views
