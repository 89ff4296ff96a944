#include "panels/training_settings.hpp"

#include "util/diagnostics.hpp"

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

nlohmann::json settings_json(const TrainingSettings& s)
{
    const nn::ModelConfig& m = s.config.model;
    return {{"train", std_strings(s.train)},
            {"val", std_strings(s.validation)},
            {"test", std_strings(s.test)},
            {"target", std::string(train::target_name(s.target))},
            {"model", std::string(nn::model_kind_name(m.kind))},
            {"layers", m.layers},
            {"hidden", m.hidden},
            {"groups", m.groups},
            {"topk", m.topk},
            {"epochs", s.config.epochs},
            {"lr", s.config.adam.learning_rate},
            {"batch", s.config.batch_size},
            {"seed", s.config.seed},
            {"patience", s.config.patience},
            {"holdout_validation", s.holdout_validation},
            {"split_seed", s.split_seed}};
}

TrainingSettings settings_from_json(const nlohmann::json& j)
{
    TrainingSettings s;
    try {
        s.train = qt_strings(j.at("train").get<std::vector<std::string>>());
        s.validation = qt_strings(j.at("val").get<std::vector<std::string>>());
        s.test = qt_strings(j.at("test").get<std::vector<std::string>>());
        s.target = train::parse_target(j.at("target").get<std::string>());
        nn::ModelConfig& m = s.config.model;
        m.kind = nn::parse_model_kind(j.at("model").get<std::string>());
        m.layers = j.at("layers");
        m.hidden = j.at("hidden");
        m.groups = j.at("groups");
        m.topk = j.at("topk");
        s.config.epochs = j.at("epochs");
        s.config.adam.learning_rate = j.at("lr");
        s.config.batch_size = j.at("batch");
        s.config.seed = j.at("seed");
        m.seed = s.config.seed;
        s.config.patience = j.at("patience");
        s.holdout_validation = j.at("holdout_validation");
        s.split_seed = j.at("split_seed");
    } catch (const nlohmann::json::exception& e) {
        // A run written by another version, or edited by hand: say which setting is at fault.
        throw Error(std::string("the run's settings cannot be read (") + e.what() + ")");
    }
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
