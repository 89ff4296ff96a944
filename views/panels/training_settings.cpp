#include "panels/training_settings.hpp"

#include "train/run_settings.hpp"

#include <QObject>

namespace gsr::views {

namespace {

std::vector<std::string> std_strings(const QStringList& list)
{
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(list.size()));
    for (const QString& s : list) out.push_back(s.toStdString());
    return out;
}

QStringList qt_strings(const std::vector<std::string>& list)
{
    QStringList out;
    for (const std::string& s : list) out << QString::fromStdString(s);
    return out;
}

} // namespace

void TrainingSettings::normalize()
{
    config.model.seed = config.seed;
    split_seed = config.seed;
    holdout_validation = validation.isEmpty() ? 0.1 : 0.0;
}

train::RunSettings run_settings(const TrainingSettings& s)
{
    train::RunSettings run;
    run.train = std_strings(s.train);
    run.validation = std_strings(s.validation);
    run.test = std_strings(s.test);
    run.liberty = std_strings(s.liberty);
    run.target = s.target;
    run.config = s.config;
    run.holdout_validation = s.holdout_validation;
    run.split_seed = s.split_seed;
    // The panel's batch size picks random batches, as --batch does for `gsr train`; a resumed
    // CLI run keeps its mode.
    const bool panel_mode = s.batching == "full" || s.batching == "random";
    run.batching = !panel_mode ? s.batching : s.config.batch_size > 0 ? "random" : "full";
    run.alpha = s.alpha;
    run.beta = s.beta;
    run.fanouts = s.fanouts;
    run.order = s.order;
    return run;
}

nlohmann::json settings_json(const TrainingSettings& s)
{
    return train::settings_to_json(run_settings(s));
}

TrainingSettings settings_from_json(const nlohmann::json& j)
{
    const train::RunSettings run = train::settings_from_json(j);
    TrainingSettings s;
    s.train = qt_strings(run.train);
    s.validation = qt_strings(run.validation);
    s.test = qt_strings(run.test);
    s.liberty = qt_strings(run.liberty);
    s.target = run.target;
    s.config = run.config;
    s.holdout_validation = run.holdout_validation;
    s.split_seed = run.split_seed;
    s.batching = run.batching;
    s.alpha = run.alpha;
    s.beta = run.beta;
    s.fanouts = run.fanouts;
    s.order = run.order;
    return s;
}

const std::vector<ModelPreset>& model_presets()
{
    static const std::vector<ModelPreset> presets = {
        {QObject::tr("Tiny GSR (4 \u00d7 16)"), nn::ModelKind::Gsr, 4, 16, 2, 4,
         QObject::tr("A quick first look: trains in a moment on small circuits")},
        {QObject::tr("Deep GSR (16 \u00d7 64)"), nn::ModelKind::Gsr, 16, 64, 4, 8,
         QObject::tr("Grouped, sparse, reversible: memory flat in depth")},
        {QObject::tr("Deep reversible (16 \u00d7 64)"), nn::ModelKind::Rev, 16, 64, 4, 8,
         QObject::tr("Grouped reversible with dense activations")},
        {QObject::tr("Deep residual (16 \u00d7 64)"), nn::ModelKind::Res, 16, 64, 4, 8,
         QObject::tr("Stores every layer's activations: memory grows with depth")},
        {QObject::tr("GraphSAGE (3 \u00d7 64)"), nn::ModelKind::Sage, 3, 64, 4, 8,
         QObject::tr("A shallow baseline")},
        {QObject::tr("GCN (3 \u00d7 64)"), nn::ModelKind::Gcn, 3, 64, 4, 8,
         QObject::tr("A shallow baseline with symmetric normalisation")},
    };
    return presets;
}

} // namespace gsr::views
