#pragma once
// What one training run is, as the project store keeps it in a run's config_json: the circuits,
// the target, the trainer's settings and the mini-batching. `gsr train` and the GUI's Training
// panel both write and read it through these two functions, so a run started in either can be
// resumed by the other.
//
// Keys: train, val, test (path lists), target, model, layers, hidden, groups, topk, epochs, lr,
// batch, seed, patience, holdout_validation, split_seed, batching, alpha, beta, fanout, order.
// Runs recorded before mini-batching modes existed lack the last five: batching is then
// "random" when batch > 0 and "full" otherwise, and the rest take their defaults.
#include "train/commrand_batcher.hpp"
#include "train/dataset.hpp"
#include "train/trainer.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gsr::train {

struct RunSettings {
    std::vector<std::string> train, validation, test; ///< absolute paths
    /// Absolute paths of the Liberty (or LEF) libraries the circuits are read and labelled
    /// with (`gsr train --liberty`): pin directions, library cells simulated by their
    /// functions, NLDM arrival times. Empty: none (runs recorded before had none).
    std::vector<std::string> liberty;
    Target target = Target::SignalProbability;
    TrainConfig config; ///< config.model.seed is config.seed
    double holdout_validation = 0.0; ///< of the training nodes, when no validation circuits
    std::uint64_t split_seed = 1;
    // Mini-batching; config.batch_size holds the batch size (0 for full).
    std::string batching = "full"; ///< full, random, commrand, cluster
    double alpha = 0.5, beta = 1.0;
    std::vector<std::uint32_t> fanouts; ///< none: whole-circuit steps
    NodeOrderKind order = NodeOrderKind::Original;
};

/// The run's config_json, every key above.
nlohmann::json settings_to_json(const RunSettings& settings);
/// Reads a run's config_json (a discarded value, from parsing damaged text without exceptions,
/// included). Throws gsr::Error naming what is missing or malformed.
RunSettings settings_from_json(const nlohmann::json& json);

/// The run's batcher; renumbers the training circuits first when its order asks for it (and
/// detects their communities for commrand). The same settings always give the same batcher
/// (communities are seeded by the run's seed), so `gsr train` and the GUI resume alike.
/// `notes`, when given, receives what a user should hear (the renumbering and its time).
std::unique_ptr<Batcher> make_run_batcher(const RunSettings& settings, Dataset& data,
                                          std::vector<std::string>* notes = nullptr);

} // namespace gsr::train
