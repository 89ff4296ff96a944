// A run's config_json, as `gsr train` and the GUI both write and read it.
#include "train/run_settings.hpp"

#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gsr::train {
namespace {

RunSettings sample()
{
    RunSettings s;
    s.train = {"/d/a.bench", "/d/b.bench"};
    s.validation = {"/d/v.bench"};
    s.test = {"/d/t.bench"};
    s.liberty = {"/d/cells.lib", "/d/cells.lef"};
    s.target = Target::Arrival;
    s.config.model.kind = nn::ModelKind::Rev;
    s.config.model.layers = 32;
    s.config.model.hidden = 48;
    s.config.model.groups = 3;
    s.config.model.topk = 5;
    s.config.epochs = 7;
    s.config.adam.learning_rate = 0.0025;
    s.config.warmup_steps = 25;
    s.config.batch_size = 512;
    s.config.seed = 99;
    s.config.model.seed = 99;
    s.config.patience = 4;
    s.holdout_validation = 0.0;
    s.split_seed = 99;
    s.batching = "commrand";
    s.alpha = 0.25;
    s.beta = 2.0;
    s.fanouts = {10, 5};
    s.order = NodeOrderKind::Rcm;
    return s;
}

TEST(RunSettings, JsonRoundTripKeepsEverySetting)
{
    const RunSettings s = sample();
    const RunSettings back = settings_from_json(settings_to_json(s));
    EXPECT_EQ(back.train, s.train);
    EXPECT_EQ(back.validation, s.validation);
    EXPECT_EQ(back.test, s.test);
    EXPECT_EQ(back.liberty, s.liberty);
    EXPECT_EQ(back.target, Target::Arrival);
    EXPECT_EQ(back.config.model.kind, nn::ModelKind::Rev);
    EXPECT_EQ(back.config.model.layers, 32u);
    EXPECT_EQ(back.config.model.hidden, 48u);
    EXPECT_EQ(back.config.model.groups, 3u);
    EXPECT_EQ(back.config.model.topk, 5u);
    EXPECT_EQ(back.config.epochs, 7u);
    EXPECT_DOUBLE_EQ(back.config.adam.learning_rate, 0.0025);
    EXPECT_EQ(back.config.batch_size, 512u);
    EXPECT_EQ(back.config.seed, 99u);
    EXPECT_EQ(back.config.model.seed, 99u); // the model's seed is the run's
    EXPECT_EQ(back.config.patience, 4u);
    EXPECT_EQ(back.split_seed, 99u);
    EXPECT_EQ(back.batching, "commrand");
    EXPECT_DOUBLE_EQ(back.alpha, 0.25);
    EXPECT_DOUBLE_EQ(back.beta, 2.0);
    EXPECT_EQ(back.fanouts, (std::vector<std::uint32_t>{10, 5}));
    EXPECT_EQ(back.order, NodeOrderKind::Rcm);
}

TEST(RunSettings, WritesTheStoredKeys)
{
    const nlohmann::json j = settings_to_json(sample());
    std::set<std::string> keys;
    for (const auto& item : j.items()) keys.insert(item.key());
    EXPECT_EQ(keys, (std::set<std::string>{"train", "val", "test", "liberty", "target", "model",
                                           "layers",
                                           "hidden", "groups", "topk", "epochs", "lr", "warmup",
                                           "batch",
                                           "seed", "patience", "holdout_validation",
                                           "split_seed", "batching", "alpha", "beta", "fanout",
                                           "order"}));
    EXPECT_EQ(j.at("target"), "arrival");
    EXPECT_EQ(j.at("model"), "rev");
    EXPECT_EQ(j.at("fanout"), "10,5");
    EXPECT_EQ(j.at("order"), "rcm");
    EXPECT_EQ(j.at("warmup"), 25);
}

TEST(RunSettings, WarmupRoundTripsAndOlderRunsHaveNone)
{
    nlohmann::json j = settings_to_json(sample());
    EXPECT_EQ(settings_from_json(j).config.warmup_steps, 25u);
    j.erase("warmup");
    EXPECT_EQ(settings_from_json(j).config.warmup_steps, 0u);
}

TEST(RunSettings, OlderRunsHaveNoLibraries)
{
    nlohmann::json j = settings_to_json(sample());
    j.erase("liberty");
    EXPECT_TRUE(settings_from_json(j).liberty.empty());
    j["liberty"] = "/d/cells.lib"; // one path, not a list: named
    try {
        (void)settings_from_json(j);
        FAIL() << "read a library path that is not a list";
    } catch (const Error& e) {
        EXPECT_NE(e.message().find("the run's settings cannot be read"), std::string::npos);
    }
}

TEST(RunSettings, RunsFromBeforeMiniBatchingModesReadAsRandomOrFull)
{
    nlohmann::json j = settings_to_json(sample());
    for (const char* k : {"batching", "alpha", "beta", "fanout", "order"}) j.erase(k);
    RunSettings s = settings_from_json(j);
    EXPECT_EQ(s.batching, "random"); // batch 512
    EXPECT_DOUBLE_EQ(s.alpha, 0.5);
    EXPECT_DOUBLE_EQ(s.beta, 1.0);
    EXPECT_TRUE(s.fanouts.empty());
    EXPECT_EQ(s.order, NodeOrderKind::Original);
    j["batch"] = 0;
    EXPECT_EQ(settings_from_json(j).batching, "full");
}

TEST(RunSettings, MissingOrMistypedSettingIsAnErrorNamingIt)
{
    nlohmann::json j = settings_to_json(sample());
    j.erase("layers");
    try {
        settings_from_json(j);
        FAIL() << "a run without layers was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot be read"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("layers"), std::string::npos) << e.what();
    }
    j = settings_to_json(sample());
    j["hidden"] = "wide";
    EXPECT_THROW(settings_from_json(j), Error);
    j = settings_to_json(sample());
    j["model"] = "transformer";
    EXPECT_THROW(settings_from_json(j), Error); // parse_model_kind names --model
}

TEST(RunSettings, CountsMustBeWholeNumbersInRange)
{
    // nlohmann alone would read -1 layers as 4294967295 and cast 1e300 epochs undefined.
    const auto message = [](const char* key, const nlohmann::json& value) {
        nlohmann::json j = settings_to_json(sample());
        j[key] = value;
        try {
            settings_from_json(j);
        } catch (const Error& e) {
            return e.message();
        }
        return std::string("read");
    };
    EXPECT_EQ(message("layers", -1), "the run's settings cannot be read (layers is -1, expected "
                                     "a whole number from 0 to 4294967295)");
    EXPECT_EQ(message("epochs", 1e300), "the run's settings cannot be read (epochs is 1e+300, "
                                        "expected a whole number from 0 to 16777216)");
    EXPECT_EQ(message("epochs", 16777217), "the run's settings cannot be read (epochs is "
                                           "16777217, expected a whole number from 0 to "
                                           "16777216)");
    EXPECT_EQ(message("hidden", 2.5), "the run's settings cannot be read (hidden is 2.5, "
                                      "expected a whole number from 0 to 4294967295)");
    EXPECT_EQ(message("warmup", "x"), "the run's settings cannot be read (warmup is \"x\", "
                                      "expected a whole number from 0 to 4294967295)");
    EXPECT_EQ(message("seed", 18446744073709551615u), "read");
    EXPECT_EQ(message("epochs", 7), "read"); // a signed 7, as a hand-made JSON has it
    EXPECT_EQ(message("lr", "fast"),
              "the run's settings cannot be read (type must be number, but is string)");
    // Text that is no JSON at all, parsed without exceptions as the callers do.
    try {
        settings_from_json(nlohmann::json::parse("{\"train\": [", nullptr, false));
        FAIL() << "damaged text was read";
    } catch (const Error& e) {
        EXPECT_EQ(e.message(), "the run's settings cannot be read (not a JSON object)");
    }
}

} // namespace
} // namespace gsr::train
