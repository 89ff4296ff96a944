#pragma once
// What one training run of the GUI is: the circuits, the target and the trainer's settings, in
// the very form `gsr train` stores as a run's config_json, so a run started in the GUI can be
// resumed by `gsr train --resume` and the other way round. Also the model presets the Training
// panel offers.
//
// Contents: TrainingSettings, settings_json / settings_from_json, ModelPreset, model_presets.
#include "train/run_settings.hpp"
#include "train/trainer.hpp"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

#include <vector>

namespace gsr::views {

struct TrainingSettings {
    QStringList train;      ///< absolute paths: the circuits trained on
    QStringList validation; ///< absolute paths; empty: 10 % of the training nodes held out
    QStringList test;       ///< absolute paths: circuits only tested on
    /// Absolute paths of the cell libraries the circuits are read with (`gsr train
    /// --liberty`): the window's (File > Cell Libraries) for a new run, a stored run's own
    /// on resume.
    QStringList liberty;
    train::Target target = train::Target::SignalProbability;
    train::TrainConfig config; ///< model, epochs, learning rate, batch, seed, patience
    double holdout_validation = 0.1; ///< as `gsr train`: 0.1 without validation circuits
    std::uint64_t split_seed = 1;    ///< as `gsr train`: the seed
    /// The mini-batching of a run started by `gsr train` (commrand, cluster, fan-outs, a node
    /// order), kept so that the GUI resumes it as the CLI would. The panel's own runs leave
    /// them be: their batching is random with a batch size, else the full graph.
    std::string batching = "full";
    double alpha = 0.5, beta = 1.0;
    std::vector<std::uint32_t> fanouts;
    train::NodeOrderKind order = train::NodeOrderKind::Original;

    /// Applies the rules `gsr train` applies to its flags: the model's seed and the split seed
    /// are the run's seed, and the hold-out is 10 % exactly when there are no validation
    /// circuits. Call it after editing the fields.
    void normalize();
};

/// The run as `gsr train` has it: batching "random" or "full" from the batch size unless the
/// settings came from a run with another mode.
train::RunSettings run_settings(const TrainingSettings& settings);
/// The run's config_json, through train::settings_to_json (as `gsr train` writes it).
nlohmann::json settings_json(const TrainingSettings& settings);
/// Reads a run's config_json (the GUI's or the CLI's) through train::settings_from_json, every
/// key kept. Throws gsr::Error saying what is missing.
TrainingSettings settings_from_json(const nlohmann::json& json);

/// A starting point for the Training panel's form; every field stays editable.
struct ModelPreset {
    QString name;
    nn::ModelKind kind = nn::ModelKind::Gsr;
    std::uint32_t layers = 16, hidden = 64, groups = 4, topk = 8;
    QString description;
};

/// Tiny first (it trains in well under a second on the sample circuit).
const std::vector<ModelPreset>& model_presets();

} // namespace gsr::views
