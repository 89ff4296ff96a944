#include "train/run_settings.hpp"

#include "nn/model_config.hpp"
#include "train/subgraph_sampler.hpp"
#include "util/diagnostics.hpp"

namespace gsr::train {

nlohmann::json settings_to_json(const RunSettings& s)
{
    const nn::ModelConfig& m = s.config.model;
    return {{"train", s.train},
            {"val", s.validation},
            {"test", s.test},
            {"target", std::string(target_name(s.target))},
            {"model", std::string(nn::model_kind_name(m.kind))},
            {"layers", m.layers},
            {"hidden", m.hidden},
            {"groups", m.groups},
            {"topk", m.topk},
            {"epochs", s.config.epochs},
            {"lr", s.config.adam.learning_rate},
            {"warmup", s.config.warmup_steps},
            {"batch", s.config.batch_size},
            {"seed", s.config.seed},
            {"patience", s.config.patience},
            {"holdout_validation", s.holdout_validation},
            {"split_seed", s.split_seed},
            {"batching", s.batching},
            {"alpha", s.alpha},
            {"beta", s.beta},
            {"fanout", fanouts_text(s.fanouts)},
            {"order", std::string(node_order_name(s.order))}};
}

RunSettings settings_from_json(const nlohmann::json& j)
{
    RunSettings s;
    try {
        s.train = j.at("train").get<std::vector<std::string>>();
        s.validation = j.at("val").get<std::vector<std::string>>();
        s.test = j.at("test").get<std::vector<std::string>>();
        s.target = parse_target(j.at("target").get<std::string>());
        nn::ModelConfig& m = s.config.model;
        m.kind = nn::parse_model_kind(j.at("model").get<std::string>());
        m.layers = j.at("layers");
        m.hidden = j.at("hidden");
        m.groups = j.at("groups");
        m.topk = j.at("topk");
        s.config.epochs = j.at("epochs");
        s.config.adam.learning_rate = j.at("lr");
        s.config.warmup_steps = j.value("warmup", 0u); // not recorded before warm-up existed
        s.config.batch_size = j.at("batch");
        s.config.seed = j.at("seed");
        m.seed = s.config.seed;
        s.config.patience = j.at("patience");
        s.holdout_validation = j.at("holdout_validation");
        s.split_seed = j.at("split_seed");
        // Runs recorded before mini-batching modes existed: --batch chose random or full.
        s.batching = j.value("batching", s.config.batch_size > 0 ? "random" : "full");
        s.alpha = j.value("alpha", 0.5);
        s.beta = j.value("beta", 1.0);
        const std::string fanout = j.value("fanout", "");
        if (!fanout.empty()) s.fanouts = parse_fanouts(fanout);
        s.order = parse_node_order(j.value("order", "original"));
    } catch (const nlohmann::json::exception& e) {
        // A run written by another version, or edited by hand: say which setting is at fault.
        throw Error(std::string("the run's settings cannot be read (") + e.what() + ")");
    }
    return s;
}

} // namespace gsr::train
