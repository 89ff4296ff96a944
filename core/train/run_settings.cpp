#include "train/run_settings.hpp"

#include "train/cluster_batcher.hpp"

#include "nn/model_config.hpp"
#include "train/subgraph_sampler.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <cstdio>
#include <limits>
#include <optional>

namespace gsr::train {

namespace {

/// The whole number at `key` (or `fallback` where the key is absent, for settings added
/// later), from 0 to `most` (json_whole).
std::uint64_t whole(const nlohmann::json& j, const char* key, std::uint64_t most,
                    std::optional<std::uint64_t> fallback = std::nullopt)
{
    if (fallback && !j.contains(key)) return *fallback;
    const nlohmann::json& v = j.at(key);
    if (const std::optional<std::uint64_t> n = json_whole(v, most)) return *n;
    throw Error(std::string("the run's settings cannot be read (") + key + " is " + json_text(v) +
                ", expected a whole number from 0 to " + std::to_string(most) + ")");
}

constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

} // namespace

nlohmann::json settings_to_json(const RunSettings& s)
{
    const nn::ModelConfig& m = s.config.model;
    return {{"train", s.train},
            {"val", s.validation},
            {"test", s.test},
            {"liberty", s.liberty},
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
    if (!j.is_object()) throw Error("the run's settings cannot be read (not a JSON object)");
    try {
        s.train = j.at("train").get<std::vector<std::string>>();
        s.validation = j.at("val").get<std::vector<std::string>>();
        s.test = j.at("test").get<std::vector<std::string>>();
        if (j.contains("liberty")) s.liberty = j.at("liberty").get<std::vector<std::string>>();
        s.target = parse_target(j.at("target").get<std::string>());
        nn::ModelConfig& m = s.config.model;
        m.kind = nn::parse_model_kind(j.at("model").get<std::string>());
        m.layers = static_cast<std::uint32_t>(whole(j, "layers", kMax32));
        m.hidden = static_cast<std::uint32_t>(whole(j, "hidden", kMax32));
        m.groups = static_cast<std::uint32_t>(whole(j, "groups", kMax32));
        m.topk = static_cast<std::uint32_t>(whole(j, "topk", kMax32));
        s.config.epochs = static_cast<std::uint32_t>(whole(j, "epochs", kMaxEpochs));
        s.config.adam.learning_rate = j.at("lr");
        // Not recorded before warm-up existed.
        s.config.warmup_steps = static_cast<std::uint32_t>(whole(j, "warmup", kMax32, 0));
        s.config.batch_size = whole(j, "batch", kMax64);
        s.config.seed = whole(j, "seed", kMax64);
        m.seed = s.config.seed;
        s.config.patience = static_cast<std::uint32_t>(whole(j, "patience", kMaxEpochs));
        s.holdout_validation = j.at("holdout_validation");
        s.split_seed = whole(j, "split_seed", kMax64);
        // Runs recorded before mini-batching modes existed: --batch chose random or full.
        s.batching = j.value("batching", s.config.batch_size > 0 ? "random" : "full");
        s.alpha = j.value("alpha", 0.5);
        s.beta = j.value("beta", 1.0);
        const std::string fanout = j.value("fanout", "");
        if (!fanout.empty()) s.fanouts = parse_fanouts(fanout);
        s.order = parse_node_order(j.value("order", "original"));
    } catch (const nlohmann::json::exception& e) {
        // A run written by another version, or edited by hand: say which setting is at fault.
        throw Error("the run's settings cannot be read (" + json_error_text(e) + ")");
    }
    return s;
}

std::unique_ptr<Batcher> make_run_batcher(const RunSettings& s, Dataset& data,
                                          std::vector<std::string>* notes)
{
    const bool commrand = s.batching == "commrand";
    PreparedCommunities communities;
    if (commrand || s.order != NodeOrderKind::Original) {
        CommunityPlan plan;
        plan.seed = s.config.seed;
        plan.order = s.order;
        plan.detect = commrand;
        communities = prepare_communities(data, plan);
        if (notes) {
            std::size_t count = 0;
            for (std::uint32_t c : communities.community_count) count += c;
            // --order original keeps the file's numbering (prepare_communities renumbers
            // nothing then).
            std::string n = s.order == NodeOrderKind::Original
                                ? std::string("training circuits kept in file order")
                                : "training circuits renumbered in " +
                                      std::string(node_order_name(s.order)) + " order";
            if (commrand) n += ", " + std::to_string(count) + " communities (Leiden)";
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, ", %.2f s", communities.seconds);
            notes->push_back(n + seconds);
        }
    }
    if (notes && s.fanouts.empty() && (commrand || s.batching == "random"))
        notes->push_back(std::string("without --fanout every step runs the whole circuit with "
                                     "the loss on its batch; --fanout F1,F2 trains on sampled "
                                     "subgraphs") +
                         (commrand && s.beta != 1.0
                              ? " (and --beta, which weights the sampled neighbours, changes "
                                "nothing)"
                              : ""));
    if (s.batching == "full") return std::make_unique<FullGraphBatcher>();
    if (s.batching == "random")
        return std::make_unique<RandomNodeBatcher>(s.config.batch_size, s.fanouts);
    if (s.batching == "cluster") {
        ClusterOptions o;
        o.batch_size = s.config.batch_size;
        o.seed = s.config.seed;
        return std::make_unique<ClusterBatcher>(o);
    }
    if (!commrand) throw Error("unknown batching mode '" + s.batching + "'");
    CommRandOptions o;
    o.batch_size = s.config.batch_size;
    o.alpha = s.alpha;
    o.beta = s.beta;
    o.fanouts = s.fanouts;
    return std::make_unique<CommRandBatcher>(o, std::move(communities.membership));
}

} // namespace gsr::train
