#include "panels/runs_panel.hpp"

#include "panels/cli_equivalent.hpp"
#include "panels/circuit_graph_source.hpp"
#include "panels/line_chart.hpp"
#include "panels/runs_table_model.hpp"

#include <QChartView>
#include <QFile>
#include <QFileDialog>
#include <QMessageBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <filesystem>
#include <system_error>

namespace gsr::views {

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("runsPanel"));
    model_ = new RunsTableModel(this);
    sorted_ = new QSortFilterProxyModel(this);
    sorted_->setSourceModel(model_);
    sorted_->setSortRole(RunsTableModel::SortRole);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("runsTable"));
    table_->setModel(sorted_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(RunsTableModel::IdColumn, Qt::DescendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->verticalHeader()->hide();
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPanel::updateState);

    comparison_ = new RunComparisonModel(this);
    comparison_table_ = new QTableView(this);
    comparison_table_->setObjectName(QStringLiteral("runComparisonTable"));
    comparison_table_->setModel(comparison_);
    comparison_table_->horizontalHeader()->setStretchLastSection(true);
    comparison_table_->setAlternatingRowColors(true);
    curves_ = std::make_unique<LineChart>(tr("Loss curves"), tr("epoch"), tr("loss"), this);
    curves_->view()->setObjectName(QStringLiteral("runCurves"));

    refresh_button_ = new QPushButton(tr("Re&fresh"), this);
    connect(refresh_button_, &QPushButton::clicked, this, &RunsPanel::refresh);
    compare_button_ = new QPushButton(tr("&Compare"), this);
    compare_button_->setObjectName(QStringLiteral("compareButton"));
    connect(compare_button_, &QPushButton::clicked, this, &RunsPanel::compareSelected);
    resume_button_ = new QPushButton(tr("&Resume"), this);
    resume_button_->setObjectName(QStringLiteral("resumeRunButton"));
    connect(resume_button_, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedRunIds();
        if (ids.size() == 1) Q_EMIT resumeRequested(ids.first());
    });
    export_button_ = new QPushButton(tr("&Export CSV\u2026"), this);
    export_button_->setObjectName(QStringLiteral("exportCsvButton"));
    connect(export_button_, &QPushButton::clicked, this, &RunsPanel::chooseCsvFile);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("runsStatus"));
    status_->setWordWrap(true);

    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {refresh_button_, compare_button_, resume_button_, export_button_})
        buttons->addWidget(b);
    buttons->addStretch();
    auto* compare = new QSplitter(Qt::Horizontal, this);
    compare->addWidget(comparison_table_);
    compare->addWidget(curves_->view());
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(compare);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(split, 1);
    updateState();
}

RunsPanel::~RunsPanel() = default;

void RunsPanel::setProject(const QString& path)
{
    project_ = path;
    comparison_->clear();
    curves_->clearSeries();
    if (!path.isEmpty()) Q_EMIT commandIssued(runs_list_command(path));
    refresh();
}

void RunsPanel::refresh()
{
    if (project_.isEmpty()) {
        model_->setRuns({});
        status_->setText(tr("Open or create a project to keep and compare training runs."));
        updateState();
        return;
    }
    try {
        model_->setRuns(read_runs(project_));
        status_->setText(tr("%n run(s) in %1", nullptr, static_cast<int>(model_->runs().size()))
                             .arg(QFileInfo(project_).fileName()));
    } catch (...) {
        model_->setRuns({});
        showError(tr("Could not read the runs: %1").arg(describe_failure(std::current_exception())));
    }
    table_->resizeColumnsToContents();
    updateState();
}

QList<qint64> RunsPanel::selectedRunIds() const
{
    QList<qint64> ids;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows())
        ids << model_->run(sorted_->mapToSource(i).row()).id;
    std::sort(ids.begin(), ids.end());
    return ids;
}

void RunsPanel::selectRuns(const QList<qint64>& ids)
{
    table_->clearSelection();
    for (qint64 id : ids) {
        const int row = model_->rowOfRun(id);
        if (row < 0) continue;
        table_->selectionModel()->select(sorted_->mapFromSource(model_->index(row, 0)),
                                         QItemSelectionModel::Select |
                                             QItemSelectionModel::Rows);
    }
}

void RunsPanel::compareSelected()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() != 2) {
        showError(tr("Select two runs to compare (Ctrl+click the second)."));
        return;
    }
    const RunRow& a = model_->run(model_->rowOfRun(ids[0]));
    const RunRow& b = model_->run(model_->rowOfRun(ids[1]));
    comparison_->setRuns(a, b);
    comparison_table_->resizeColumnsToContents();
    curves_->clearSeries();
    try {
        for (const RunRow* r : {&a, &b}) {
            const int train = curves_->addSeries(tr("run %1 train").arg(r->id));
            const int val = curves_->addSeries(tr("run %1 validation").arg(r->id));
            QList<QPointF> train_points, val_points;
            for (const EpochPoint& p : read_run_epochs(project_, r->id)) {
                train_points.append({double(p.epoch), p.train_loss});
                val_points.append({double(p.epoch), p.val_loss});
            }
            curves_->append(train, train_points);
            curves_->append(val, val_points);
        }
        status_->setText(tr("Run %1 and run %2 side by side.").arg(a.id).arg(b.id));
        status_->setStyleSheet(QString());
    } catch (...) {
        showError(tr("Could not read the epochs: %1")
                      .arg(describe_failure(std::current_exception())));
    }
}

bool RunsPanel::exportCsv(const QString& path)
{
    // The file dialog lets the project itself be chosen: the CSV would replace every run.
    if (std::error_code ec; std::filesystem::equivalent(QFile::encodeName(path).toStdString(),
                                                        QFile::encodeName(project_).toStdString(),
                                                        ec)) {
        showError(tr("%1 is this project: choose another file for the runs.").arg(path));
        return false;
    }
    try {
        write_text_atomically(path, QString::fromStdString(report::runs_csv(model_->runs())));
    } catch (...) {
        showError(tr("Could not export the runs: %1")
                      .arg(describe_failure(std::current_exception())));
        return false;
    }
    status_->setText(tr("Wrote %n run(s) to %1", nullptr, static_cast<int>(model_->runs().size()))
                         .arg(path));
    status_->setStyleSheet(QString());
    Q_EMIT commandIssued(runs_list_command(project_, path));
    return true;
}

void RunsPanel::chooseCsvFile()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Export Runs"),
                                                QFileInfo(project_).absolutePath(),
                                                tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".csv");
        // The dialog asked about the name as typed, not this one.
        if (QFileInfo::exists(path) &&
            QMessageBox::question(this, tr("Export Runs"),
                                  tr("%1 already exists. Replace it?")
                                      .arg(QFileInfo(path).fileName())) != QMessageBox::Yes)
            return;
    }
    exportCsv(path);
}

void RunsPanel::showError(const QString& message)
{
    status_->setText(message);
    status_->setStyleSheet(QStringLiteral("color: #c0392b"));
}

void RunsPanel::setTraining(bool training)
{
    training_ = training;
    updateState();
}

void RunsPanel::updateState()
{
    const QList<qint64> ids = selectedRunIds();
    const bool open = !project_.isEmpty();
    refresh_button_->setEnabled(open);
    compare_button_->setEnabled(ids.size() == 2);
    compare_button_->setToolTip(ids.size() == 2 ? tr("Compare the two selected runs")
                                                : tr("Select two runs to compare"));
    bool resumable = false;
    if (ids.size() == 1) {
        const int row = model_->rowOfRun(ids.first());
        resumable = row >= 0 && model_->run(row).resumable;
    }
    resume_button_->setEnabled(resumable && !training_);
    resume_button_->setToolTip(training_    ? tr("A run is training: stop it or wait for it first")
                               : resumable ? tr("Continue the run from its last checkpoint")
                                           : tr("Select a stopped run that has a checkpoint"));
    export_button_->setEnabled(open && !model_->runs().empty());
}

} // namespace gsr::views
