#pragma once
// The report of one training run: what the project store keeps of it (store/run_store.hpp),
// copied into plain data so core/report needs no SQLite. store/run_report_source.hpp fills it
// from a project; tests may fill it from a trainer's MemoryRunLog.
//
//   RunReport            settings (config_json), final result, epochs, per-layer memory
//   to_json / run_report_from_json   the JSON export, and its inverse (round trip)
//   run_document         settings, final metrics, epoch table, charts (loss, correlations,
//                        per-layer memory when stored)
//   run_csv              one row per epoch; a run without epochs (symgraph), one per split
#include "report/document.hpp"
#include "train/trainer.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gsr::report {

/// A per-layer memory row in bytes (the store's run_layer_memory).
struct LayerMemory {
    std::int64_t layer = 0;
    std::string name;
    std::int64_t params = 0, grads = 0, optimizer = 0, activations = 0, workspace = 0;
    bool measured = false;

    std::int64_t total() const { return params + grads + optimizer + activations + workspace; }
    bool operator==(const LayerMemory&) const = default;
};

struct RunReport {
    std::int64_t id = 0;
    std::string created_at, updated_at, status, device, target, model;
    std::int64_t epochs_done = 0;
    std::int64_t best_epoch = 0; ///< 0: none
    std::optional<double> best_val_loss;
    std::int64_t peak_bytes_analytic = 0, peak_bytes_measured = 0;
    nlohmann::json settings; ///< the run's config_json (train::settings_to_json)
    nlohmann::json result;   ///< train::train_result_json; null while running
    std::vector<train::EpochReport> epochs; ///< ascending
    std::vector<LayerMemory> layers;
};

/// {"kind": "run", "title", "run": {...every field, epochs as epoch_report_json...}}.
nlohmann::json to_json(const RunReport& r);
/// Reads to_json's output (or its "run" object). Throws gsr::Error naming the bad key, and the
/// epoch or layer_memory row it is in ("epoch 3 of 3").
RunReport run_report_from_json(const nlohmann::json& j);

Document run_document(const RunReport& r);
/// epoch, train_loss, then loss, mae, rmse, pearson, spearman, kendall for val and test,
/// seconds, improved. A run without epochs whose result holds the splits' metrics (symgraph):
/// split (train, val, test), count, mae, rmse, pearson, spearman, kendall, bin_accuracy.
/// Undefined values are empty cells.
Table run_csv(const RunReport& r);

} // namespace gsr::report
