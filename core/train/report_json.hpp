#pragma once
// The JSON of training results, as the store's metrics_json/result_json columns, checkpoints
// and `gsr train --json` write them. NaN and infinities are written as null and read back as
// NaN (JSON has neither).
#include "train/trainer.hpp"

#include <nlohmann/json.hpp>

namespace gsr::train {

/// A number, or null when it is not finite.
nlohmann::json json_number(double value);
/// The number at `key`, or `fallback` when it is missing or null.
double number_at(const nlohmann::json& object, const char* key, double fallback);

/// {"epoch", "train_loss", "seconds", "improved", "train": {...}, "val": {...}, "test": {...}},
/// each split {"loss", "count", "mae", "rmse", "pearson", "spearman", "kendall"}, null where
/// undefined, and "undefined": the reason when the correlations are.
nlohmann::json epoch_report_json(const EpochReport& report);
/// The inverse of epoch_report_json (correlation reasons come back as recorded); gsr::Error
/// saying what is wrong when a value has another type or a split is missing.
EpochReport epoch_report_from_json(const nlohmann::json& json);
/// The result of a run: status, epochs, best and last epoch, parameters, memory.
nlohmann::json train_result_json(const TrainResult& result);

} // namespace gsr::train
