#include "panels/runs_table_model.hpp"

#include "panels/memory_estimates.hpp"
#include "train/report_json.hpp"
#include "util/atomic_file.hpp"
#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_report_source.hpp"
#include "store/run_store.hpp"
#endif

#include <QFile>

#include <cmath>

namespace gsr::views {

namespace {

std::string native(const QString& path) { return QFile::encodeName(path).toStdString(); }

} // namespace

std::vector<RunRow> read_runs(const QString& project)
{
#ifdef GSR_HAVE_STORE
    return store::load_run_table(
        store::RunStore::open(native(project), store::OpenMode::ReadOnly));
#else
    throw Error(SourceLocation{native(project)},
                "this build has no project store (SQLite was not found when it was built)");
#endif
}

std::vector<EpochPoint> read_run_epochs(const QString& project, qint64 run_id)
{
    std::vector<EpochPoint> points;
#ifdef GSR_HAVE_STORE
    const auto store = store::RunStore::open(native(project), store::OpenMode::ReadOnly);
    for (const store::RunEpochRecord& e : store.epochs(run_id)) {
        EpochPoint p;
        p.epoch = static_cast<std::uint32_t>(e.epoch);
        p.train_loss = e.train_loss;
        p.val_loss = e.val_loss;
        p.seconds = e.seconds;
        const nlohmann::json j = nlohmann::json::parse(e.metrics_json, nullptr, false);
        if (j.is_object()) {
            const train::EpochReport r = train::epoch_report_from_json(j);
            p.val_pearson = r.validation.metrics.pearson.value;
            p.val_spearman = r.validation.metrics.spearman.value;
            p.val_kendall = r.validation.metrics.kendall.value;
            p.test_pearson = r.test.metrics.pearson.value;
            p.improved = r.improved;
        }
        points.push_back(p);
    }
#else
    (void)project;
    (void)run_id;
#endif
    return points;
}

void write_text_atomically(const QString& path, const QString& text)
{
    // The command line's own writer: a link stays a link, the file keeps its permissions.
    const QByteArray bytes = text.toUtf8();
    write_file_atomically(native(path), std::string_view(bytes.constData(), bytes.size()));
}

// ---- RunsTableModel ------------------------------------------------------------------------

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setRuns(std::vector<RunRow> rows)
{
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
}

int RunsTableModel::rowOfRun(qint64 id) const
{
    for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].id == id) return static_cast<int>(i);
    return -1;
}

QString RunsTableModel::columnTitle(int column)
{
    const std::string_view title = report::run_column_title(column);
    return QString::fromUtf8(title.data(), static_cast<qsizetype>(title.size()));
}

QString RunsTableModel::cellText(const RunRow& r, int column)
{
    return QString::fromStdString(report::run_cell_text(r, column));
}

int RunsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRow& r = rows_[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    if (role == SortRole) {
        // Numbers sort as numbers; undefined metrics sort below every defined one.
        auto num = [](double v) { return std::isfinite(v) ? QVariant(v) : QVariant(-1e300); };
        switch (c) {
        case IdColumn: return qint64(r.id);
        case EpochsColumn: return qint64(r.epochs_done);
        case BestEpochColumn: return qint64(r.best_epoch);
        case BestValLossColumn: return num(r.best_val_loss);
        case TestMaeColumn: return num(r.test_mae);
        case TestPearsonColumn: return num(r.test_pearson);
        case TestSpearmanColumn: return num(r.test_spearman);
        case TestKendallColumn: return num(r.test_kendall);
        case PeakAnalyticColumn: return qint64(r.peak_analytic);
        case PeakMeasuredColumn: return qint64(r.peak_measured);
        default: return cellText(r, c);
        }
    }
    if (role == Qt::DisplayRole) {
        if (c == PeakAnalyticColumn) return human_bytes(static_cast<std::size_t>(r.peak_analytic));
        if (c == PeakMeasuredColumn)
            return r.peak_measured ? human_bytes(static_cast<std::size_t>(r.peak_measured))
                                   : QString();
        return cellText(r, c);
    }
    if (role == Qt::ToolTipRole && c == StatusColumn && r.resumable)
        return tr("Stopped at epoch %1 with a checkpoint: Resume continues it").arg(r.epochs_done);
    if (role == Qt::TextAlignmentRole && c != CreatedColumn && c != StatusColumn &&
        c != ModelColumn && c != ShapeColumn && c != TargetColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return columnTitle(section);
}

// ---- RunComparisonModel --------------------------------------------------------------------

RunComparisonModel::RunComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunComparisonModel::setRuns(const RunRow& a, const RunRow& b)
{
    beginResetModel();
    runs_ = {a, b};
    endResetModel();
}

void RunComparisonModel::clear()
{
    beginResetModel();
    runs_.clear();
    endResetModel();
}

int RunComparisonModel::rowCount(const QModelIndex& parent) const
{
    // Every column of the runs table but the id, which heads the columns here.
    return parent.isValid() || runs_.empty() ? 0 : RunsTableModel::ColumnCount - 1;
}

int RunComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

QVariant RunComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole) return {};
    return RunsTableModel::cellText(runs_[static_cast<std::size_t>(index.column())],
                                    index.row() + 1);
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation,
                                        int role) const
{
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= RunsTableModel::ColumnCount - 1) return {};
        return RunsTableModel::columnTitle(section + 1);
    }
    if (section < 0 || section >= static_cast<int>(runs_.size())) return {};
    return tr("Run %1").arg(runs_[static_cast<std::size_t>(section)].id);
}

} // namespace gsr::views
