#pragma once
// The project's training runs as tables: RunsTableModel lists them (one row per run, sortable
// through a QSortFilterProxyModel on SortRole), RunComparisonModel sets two side by side. The
// rows are plain data (RunRow) read from the store by read_runs(), so the models need no
// SQLite and the tests can fill them directly.
//
// Contents: RunRow, read_runs, read_run_epochs, write_text_atomically,
// RunsTableModel, RunComparisonModel.
#include "panels/training_runner.hpp"
#include "report/run_table.hpp"

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

namespace gsr::views {

/// A run as the tables show it (report::RunTableRow: the command line's `runs list --csv` too).
using RunRow = report::RunTableRow;

/// The runs of `project`, oldest first. Throws gsr::Error naming the file.
std::vector<RunRow> read_runs(const QString& project);
/// A run's epochs as recorded (train and validation loss, validation correlations).
std::vector<EpochPoint> read_run_epochs(const QString& project, qint64 run_id);

/// Writes `text` (UTF-8) through a temporary file and a rename: readers never see half of it.
/// Throws gsr::Error naming the file.
void write_text_atomically(const QString& path, const QString& text);

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        IdColumn = report::RunIdColumn, CreatedColumn = report::RunCreatedColumn,
        StatusColumn = report::RunStatusColumn, ModelColumn = report::RunModelColumn,
        ShapeColumn = report::RunShapeColumn, TargetColumn = report::RunTargetColumn,
        EpochsColumn = report::RunEpochsColumn, BestEpochColumn = report::RunBestEpochColumn,
        BestValLossColumn = report::RunBestValLossColumn,
        TestMaeColumn = report::RunTestMaeColumn, TestPearsonColumn = report::RunTestPearsonColumn,
        TestSpearmanColumn = report::RunTestSpearmanColumn,
        TestKendallColumn = report::RunTestKendallColumn,
        PeakAnalyticColumn = report::RunPeakAnalyticColumn,
        PeakMeasuredColumn = report::RunPeakMeasuredColumn, ColumnCount = report::RunColumnCount
    };
    static constexpr int SortRole = Qt::UserRole;

    explicit RunsTableModel(QObject* parent = nullptr);

    void setRuns(std::vector<RunRow> rows);
    const std::vector<RunRow>& runs() const { return rows_; }
    const RunRow& run(int row) const { return rows_[static_cast<std::size_t>(row)]; }
    /// The row of run `id`, or -1.
    int rowOfRun(qint64 id) const;

    /// Header text of a column (also the CSV's).
    static QString columnTitle(int column);
    /// A cell as text (also the CSV's, without thousands separators).
    static QString cellText(const RunRow& run, int column);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<RunRow> rows_;
};

/// Two runs side by side: one row per property, one column per run.
class RunComparisonModel : public QAbstractTableModel {
    Q_OBJECT

public:
    explicit RunComparisonModel(QObject* parent = nullptr);

    void setRuns(const RunRow& a, const RunRow& b);
    void clear();
    bool isEmpty() const { return runs_.empty(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<RunRow> runs_; ///< empty or two
};

} // namespace gsr::views
