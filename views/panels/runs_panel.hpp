#pragma once
// The Runs browser: the open project's training runs in a sortable table; two selected runs
// compared (their settings and metrics side by side, their loss curves overlaid); the table
// exported as CSV; a stopped run resumed.
#include <QString>
#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace gsr::views {

class LineChart;
class RunComparisonModel;
class RunsTableModel;

class RunsPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunsPanel(QWidget* parent = nullptr);
    ~RunsPanel() override;

    void setProject(const QString& path);
    QString project() const { return project_; }

    RunsTableModel* model() const { return model_; }
    QSortFilterProxyModel* sortedModel() const { return sorted_; }
    RunComparisonModel* comparisonModel() const { return comparison_; }
    QTableView* table() const { return table_; }
    LineChart* lossCurves() const { return curves_.get(); }

    /// @brief Selects the runs with these ids in the table (tests, scripts).
    void selectRuns(const QList<qint64>& ids);
    /// @brief Writes the table to `path` as CSV. False (and the error shown) when it failed.
    bool exportCsv(const QString& path);

public slots:
    /// Reads the runs again from the project.
    void refresh();
    /// Compares the two selected runs.
    void compareSelected();
    /// While a run trains, Resume is off (the Training panel runs one at a time).
    void setTraining(bool training);

signals:
    void commandIssued(const QString& line);
    void resumeRequested(qint64 run_id);

private:
    QList<qint64> selectedRunIds() const;
    void updateState();
    void chooseCsvFile();
    void showError(const QString& message);

    QString project_;
    bool training_ = false;
    RunsTableModel* model_ = nullptr;
    QSortFilterProxyModel* sorted_ = nullptr;
    RunComparisonModel* comparison_ = nullptr;
    QTableView* table_ = nullptr;
    QTableView* comparison_table_ = nullptr;
    std::unique_ptr<LineChart> curves_;
    QPushButton* refresh_button_ = nullptr;
    QPushButton* compare_button_ = nullptr;
    QPushButton* resume_button_ = nullptr;
    QPushButton* export_button_ = nullptr;
    QLabel* status_ = nullptr;
};

} // namespace gsr::views
