#pragma once
// A project's training runs as one table: a row per run, the columns the Runs panel shows and
// its Export CSV writes, and `gsr runs list --csv` prints. The rows come from the store's
// records (store::RunRecord, a plain struct: this needs no SQLite), so the window and the
// command line say the same of every run.
//
// Contents: RunColumn, RunTableRow, run_table_row, run_column_title, run_cell_text, runs_csv.
#include "store/run_store.hpp"
#include "train/trainer.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::report {

enum RunColumn : int {
    RunIdColumn, RunCreatedColumn, RunStatusColumn, RunModelColumn, RunShapeColumn,
    RunTargetColumn, RunEpochsColumn, RunBestEpochColumn, RunBestValLossColumn,
    RunTestMaeColumn, RunTestPearsonColumn, RunTestSpearmanColumn, RunTestKendallColumn,
    RunPeakAnalyticColumn, RunPeakMeasuredColumn,
    RunColumnCount
};

struct RunTableRow {
    std::int64_t id = 0;
    std::string created; ///< UTC, as the store keeps it
    std::string status;  ///< the store's ("finished", "cancelled", ...), or "interrupted"
    std::string model, target, device;
    std::string shape;   ///< "4 × 16, 2 groups, top-4"; empty when the settings are unreadable
    std::int64_t epochs = 0; ///< the run's epoch count; 0 when unknown
    std::int64_t epochs_done = 0;
    std::int64_t best_epoch = 0; ///< 0: none
    double best_val_loss = train::kUndefined;
    /// On the test split at the best epoch (NaN while unknown).
    double test_mae = train::kUndefined, test_pearson = train::kUndefined,
           test_spearman = train::kUndefined, test_kendall = train::kUndefined;
    std::int64_t peak_analytic = 0, peak_measured = 0;
    bool resumable = false; ///< stopped before its last epoch, with a checkpoint

    /// "cancelled (resumable)" where it can be continued.
    std::string status_text() const;
};

/// The store's status, or "interrupted" for a "running" (or "created") run that no training
/// holds.
std::string run_status(const store::RunRecord& run, bool training_now);

/// A run as the table shows it. `training_now`: a training holds the run (store::RunClaim);
/// a "running" run that none holds was interrupted (killed, or the machine went down).
RunTableRow run_table_row(const store::RunRecord& run, bool has_checkpoint, bool training_now);

/// A column's heading (the CSV's header too).
std::string_view run_column_title(int column);
/// A cell as text: numbers without thousands separators, undefined ones empty.
std::string run_cell_text(const RunTableRow& run, int column);
/// Every column as CSV (report::to_csv: RFC 4180, the header first).
std::string runs_csv(const std::vector<RunTableRow>& rows);

} // namespace gsr::report
