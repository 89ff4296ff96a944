#include "panels/runs_table_model.hpp"

#include "panels/memory_estimates.hpp"
#include "panels/training_settings.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_claim.hpp"
#include "store/run_store.hpp"
#endif

#include <QFile>
#include <QLocale>
#include <QSaveFile>

#include <cmath>

namespace gsr::views {

namespace {

std::string native(const QString& path) { return QFile::encodeName(path).toStdString(); }

QString number_text(double v, int digits)
{
    return std::isfinite(v) ? QString::number(v, 'f', digits) : QString();
}

QString csv_field(const QString& s)
{
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
        !s.contains(QLatin1Char('\n')) && !s.contains(QLatin1Char('\r')))
        return s;
    QString q = s;
    q.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + q + QLatin1Char('"');
}

#ifdef GSR_HAVE_STORE
/// `training_now`: a training holds the run (store::RunClaim), here or in another process.
RunRow row_of(const store::RunRecord& r, bool has_checkpoint, bool training_now)
{
    RunRow row;
    row.id = r.id;
    row.created = QString::fromStdString(r.created_at);
    row.status = QString::fromStdString(r.status);
    // "running" with no training holding it: killed, or the machine went down.
    if (r.status == "running" && !training_now) row.status = QStringLiteral("interrupted");
    row.model = QString::fromStdString(r.model);
    row.target = QString::fromStdString(r.target);
    row.device = QString::fromStdString(r.device);
    row.epochs_done = r.epochs_done;
    row.best_epoch = r.best_epoch;
    row.best_val_loss = r.best_val_loss.value_or(train::kUndefined);
    row.peak_analytic = r.peak_bytes_analytic;
    row.peak_measured = r.peak_bytes_measured;
    const nlohmann::json config = nlohmann::json::parse(r.config_json, nullptr, false);
    if (config.is_object()) {
        try {
            const TrainingSettings s = settings_from_json(config);
            const nn::ModelConfig& m = s.config.model;
            row.epochs = s.config.epochs;
            row.shape = QStringLiteral("%1 \u00d7 %2").arg(m.layers).arg(m.hidden);
            if (m.kind == nn::ModelKind::Rev || m.kind == nn::ModelKind::Gsr)
                row.shape += QObject::tr(", %1 groups").arg(m.groups);
            if (m.kind == nn::ModelKind::Gsr) row.shape += QObject::tr(", top-%1").arg(m.topk);
        } catch (const Error&) {
            // Settings of another version: the row shows what the store's columns hold.
        }
    }
    const nlohmann::json result = nlohmann::json::parse(r.result_json, nullptr, false);
    const auto best = result.is_object() ? result.find("best") : result.end();
    // find, not operator[]: a const json's operator[] on a missing key is undefined behaviour.
    if (best != result.end() && best->is_object()) {
        const auto test = best->find("test");
        if (test != best->end() && test->is_object()) {
            row.test_mae = train::number_at(*test, "mae", train::kUndefined);
            row.test_pearson = train::number_at(*test, "pearson", train::kUndefined);
            row.test_spearman = train::number_at(*test, "spearman", train::kUndefined);
            row.test_kendall = train::number_at(*test, "kendall", train::kUndefined);
        }
    }
    const bool ended = row.status == QLatin1String("finished") ||
                       row.status == QLatin1String("stopped early");
    row.resumable = !ended && !training_now && has_checkpoint &&
                    (row.epochs == 0 || row.epochs_done < row.epochs);
    return row;
}
#endif

} // namespace

QString RunRow::statusText() const
{
    return resumable ? QObject::tr("%1 (resumable)").arg(status) : status;
}

std::vector<RunRow> read_runs(const QString& project)
{
#ifdef GSR_HAVE_STORE
    const auto store = store::RunStore::open(native(project), store::OpenMode::ReadOnly);
    std::vector<RunRow> rows;
    for (const store::RunRecord& r : store.runs())
        rows.push_back(row_of(r, !store.checkpoint_epochs(r.id).empty(),
                              store::RunClaim::held(store.path(), r.id)));
    return rows;
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

QString runs_csv(const std::vector<RunRow>& rows)
{
    QStringList header;
    for (int c = 0; c < RunsTableModel::ColumnCount; ++c)
        header << csv_field(RunsTableModel::columnTitle(c));
    QString out = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (const RunRow& r : rows) {
        QStringList fields;
        for (int c = 0; c < RunsTableModel::ColumnCount; ++c)
            fields << csv_field(RunsTableModel::cellText(r, c));
        out += fields.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

void write_text_atomically(const QString& path, const QString& text)
{
    QSaveFile file(path); // writes a temporary file and renames it over `path` on commit
    const QByteArray bytes = text.toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
        throw Error(SourceLocation{native(path)},
                    "cannot write the file: " + file.errorString().toStdString());
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
    switch (column) {
    case IdColumn: return tr("Run");
    case CreatedColumn: return tr("Created (UTC)");
    case StatusColumn: return tr("Status");
    case ModelColumn: return tr("Model");
    case ShapeColumn: return tr("Layers \u00d7 width");
    case TargetColumn: return tr("Target");
    case EpochsColumn: return tr("Epochs");
    case BestEpochColumn: return tr("Best epoch");
    case BestValLossColumn: return tr("Best val loss");
    case TestMaeColumn: return tr("Test MAE");
    case TestPearsonColumn: return tr("Test r");
    case TestSpearmanColumn: return tr("Test \u03c1");
    case TestKendallColumn: return tr("Test \u03c4");
    case PeakAnalyticColumn: return tr("Peak bytes (analytic)");
    case PeakMeasuredColumn: return tr("Peak bytes (measured)");
    default: return {};
    }
}

QString RunsTableModel::cellText(const RunRow& r, int column)
{
    switch (column) {
    case IdColumn: return QString::number(r.id);
    case CreatedColumn: return r.created;
    case StatusColumn: return r.statusText();
    case ModelColumn: return r.model;
    case ShapeColumn: return r.shape;
    case TargetColumn: return r.target;
    case EpochsColumn:
        return r.epochs ? QStringLiteral("%1/%2").arg(r.epochs_done).arg(r.epochs)
                        : QString::number(r.epochs_done);
    case BestEpochColumn: return r.best_epoch ? QString::number(r.best_epoch) : QString();
    case BestValLossColumn: return number_text(r.best_val_loss, 4);
    case TestMaeColumn: return number_text(r.test_mae, 4);
    case TestPearsonColumn: return number_text(r.test_pearson, 3);
    case TestSpearmanColumn: return number_text(r.test_spearman, 3);
    case TestKendallColumn: return number_text(r.test_kendall, 3);
    case PeakAnalyticColumn: return QString::number(r.peak_analytic);
    case PeakMeasuredColumn: return r.peak_measured ? QString::number(r.peak_measured) : QString();
    default: return {};
    }
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
        case IdColumn: return r.id;
        case EpochsColumn: return r.epochs_done;
        case BestEpochColumn: return r.best_epoch;
        case BestValLossColumn: return num(r.best_val_loss);
        case TestMaeColumn: return num(r.test_mae);
        case TestPearsonColumn: return num(r.test_pearson);
        case TestSpearmanColumn: return num(r.test_spearman);
        case TestKendallColumn: return num(r.test_kendall);
        case PeakAnalyticColumn: return r.peak_analytic;
        case PeakMeasuredColumn: return r.peak_measured;
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
