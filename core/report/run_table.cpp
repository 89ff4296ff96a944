#include "report/run_table.hpp"

#include "report/document.hpp"
#include "train/report_json.hpp"
#include "train/run_settings.hpp"
#include "util/diagnostics.hpp"
#include "util/number_text.hpp"

#include <charconv>
#include <cmath>

namespace gsr::report {

namespace {

/// `digits` decimals; an undefined metric is an empty cell.
std::string fixed(double v, int digits) { return fixed_text(v, digits, ""); }

} // namespace

std::string RunTableRow::status_text() const
{
    return resumable ? status + " (resumable)" : status;
}

std::string run_status(const store::RunRecord& run, bool training_now)
{
    // "created": killed after it made its run, before the first epoch began.
    const bool started = run.status == "running" || run.status == "created";
    return started && !training_now ? "interrupted" : run.status;
}

RunTableRow run_table_row(const store::RunRecord& r, bool has_checkpoint, bool training_now)
{
    RunTableRow row;
    row.id = r.id;
    row.created = r.created_at;
    row.status = run_status(r, training_now);
    row.model = r.model;
    row.target = r.target;
    row.device = r.device;
    row.epochs_done = r.epochs_done;
    row.best_epoch = r.best_epoch;
    row.best_val_loss = r.best_val_loss.value_or(train::kUndefined);
    row.peak_analytic = r.peak_bytes_analytic;
    row.peak_measured = r.peak_bytes_measured;
    const nlohmann::json config = nlohmann::json::parse(r.config_json, nullptr, false);
    if (config.is_object()) {
        try {
            const train::RunSettings s = train::settings_from_json(config);
            const nn::ModelConfig& m = s.config.model;
            row.epochs = s.config.epochs;
            row.shape = std::to_string(m.layers) + " \u00d7 " + std::to_string(m.hidden);
            if (m.kind == nn::ModelKind::Rev || m.kind == nn::ModelKind::Gsr)
                row.shape += ", " + std::to_string(m.groups) + " groups";
            if (m.kind == nn::ModelKind::Gsr) row.shape += ", top-" + std::to_string(m.topk);
        } catch (const Error&) {
            // Settings of another version: the row shows what the store's columns hold.
        }
    }
    const nlohmann::json result = nlohmann::json::parse(r.result_json, nullptr, false);
    // The test figures: a GNN's at its best epoch ("best"), a rule model's at the top ("test").
    // find, not operator[]: a const json's operator[] on a missing key is undefined behaviour.
    const nlohmann::json* scores = nullptr;
    if (result.is_object()) {
        const auto best = result.find("best");
        scores = best != result.end() && best->is_object() ? &*best : &result;
    }
    if (scores) {
        const auto test = scores->find("test");
        if (test != scores->end() && test->is_object()) {
            row.test_mae = train::number_at(*test, "mae", train::kUndefined);
            row.test_pearson = train::number_at(*test, "pearson", train::kUndefined);
            row.test_spearman = train::number_at(*test, "spearman", train::kUndefined);
            row.test_kendall = train::number_at(*test, "kendall", train::kUndefined);
        }
    }
    const bool ended = row.status == "finished" || row.status == "stopped early";
    row.resumable = !ended && !training_now && has_checkpoint &&
                    (row.epochs == 0 || row.epochs_done < row.epochs);
    return row;
}

std::string_view run_column_title(int column)
{
    switch (column) {
    case RunIdColumn: return "Run";
    case RunCreatedColumn: return "Created (UTC)";
    case RunStatusColumn: return "Status";
    case RunModelColumn: return "Model";
    case RunShapeColumn: return "Layers \u00d7 width";
    case RunTargetColumn: return "Target";
    case RunEpochsColumn: return "Epochs";
    case RunBestEpochColumn: return "Best epoch";
    case RunBestValLossColumn: return "Best val loss";
    case RunTestMaeColumn: return "Test MAE";
    case RunTestPearsonColumn: return "Test r";
    case RunTestSpearmanColumn: return "Test \u03c1";
    case RunTestKendallColumn: return "Test \u03c4";
    case RunPeakAnalyticColumn: return "Peak bytes (analytic)";
    case RunPeakMeasuredColumn: return "Peak bytes (measured)";
    default: return {};
    }
}

std::string run_cell_text(const RunTableRow& r, int column)
{
    switch (column) {
    case RunIdColumn: return std::to_string(r.id);
    case RunCreatedColumn: return r.created;
    case RunStatusColumn: return r.status_text();
    case RunModelColumn: return r.model;
    case RunShapeColumn: return r.shape;
    case RunTargetColumn: return r.target;
    case RunEpochsColumn:
        return r.epochs ? std::to_string(r.epochs_done) + "/" + std::to_string(r.epochs)
                        : std::to_string(r.epochs_done);
    case RunBestEpochColumn: return r.best_epoch ? std::to_string(r.best_epoch) : std::string();
    case RunBestValLossColumn: return fixed(r.best_val_loss, 4);
    case RunTestMaeColumn: return fixed(r.test_mae, 4);
    case RunTestPearsonColumn: return fixed(r.test_pearson, 3);
    case RunTestSpearmanColumn: return fixed(r.test_spearman, 3);
    case RunTestKendallColumn: return fixed(r.test_kendall, 3);
    case RunPeakAnalyticColumn: // a rule model has none
        return r.peak_analytic ? std::to_string(r.peak_analytic) : std::string();
    case RunPeakMeasuredColumn:
        return r.peak_measured ? std::to_string(r.peak_measured) : std::string();
    default: return {};
    }
}

std::string runs_csv(const std::vector<RunTableRow>& rows)
{
    Table table;
    for (int c = 0; c < RunColumnCount; ++c) table.columns.emplace_back(run_column_title(c));
    for (const RunTableRow& r : rows) {
        std::vector<std::string>& cells = table.rows.emplace_back();
        for (int c = 0; c < RunColumnCount; ++c) cells.push_back(run_cell_text(r, c));
    }
    return to_csv(table);
}

} // namespace gsr::report
