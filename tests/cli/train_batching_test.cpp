// `gsr train --batching full|random|commrand|cluster --alpha --beta --batch-size --fanout`, run
// as a user would: the settings are recorded with the run and resumed with it, --batch stays
// the alias of random batches, and every impossible setting names its flag.
#include "run_gsr.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using gsr::test::run_gsr;
using gsr::test::data_arg;
using gsr::test::shell_quote;

namespace {

/// `gsr train c880 --test c432` with a small sage model and `flags`.
gsr::test::RunResult train(const fs::path& db, const std::string& flags)
{
    return run_gsr("train " + data_arg("netlists/iscas85/bench/c880.bench") + " --test " +
                   data_arg("netlists/iscas85/bench/c432.bench") + " --db " +
                   shell_quote(db.string()) + " --model sage --layers 2 --hidden 8 " + flags);
}

nlohmann::json run_config(const fs::path& db, std::size_t index)
{
    const auto r = run_gsr("runs list --json --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out).at(index).at("config");
}

} // namespace

TEST(TrainBatching, CommRandSettingsAreRecordedAndResumed)
{
    const fs::path db = gsr::test::scratch_file("commrand.gsr");
    fs::remove(db);
    const auto r = train(db, "--epochs 2 --batching commrand --alpha 0.75 --beta 4 "
                             "--batch-size 48 --fanout 4,all --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["batching"]["mode"], "commrand");
    EXPECT_EQ(j["batching"]["batch_size"], 48);
    EXPECT_EQ(j["batching"]["alpha"], 0.75);
    EXPECT_EQ(j["batching"]["beta"], 4.0);
    EXPECT_EQ(j["batching"]["fanout"], "4,all");
    EXPECT_EQ(j["batching"]["order"], "community");
    EXPECT_EQ(j["epochs_done"], 2);
    const nlohmann::json config = run_config(db, 0);
    EXPECT_EQ(config["batching"], "commrand");
    EXPECT_EQ(config["alpha"], 0.75);
    EXPECT_EQ(config["fanout"], "4,all");

    // Resume takes the recorded settings (changing one is refused) and continues.
    const auto refused = run_gsr("train --db " + shell_quote(db.string()) +
                                 " --resume 1 --epochs 3 --alpha 0.5");
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("--alpha"), std::string::npos) << refused.err;
    const auto resumed =
        run_gsr("train --db " + shell_quote(db.string()) + " --resume 1 --epochs 4 --json");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    const auto k = nlohmann::json::parse(resumed.out);
    EXPECT_EQ(k["epochs_done"], 4);
    EXPECT_EQ(k["batching"]["alpha"], 0.75);
    EXPECT_EQ(k["batching"]["fanout"], "4,all");
}

TEST(TrainBatching, BatchIsTheAliasOfRandomBatchSize)
{
    const fs::path db = gsr::test::scratch_file("alias.gsr");
    fs::remove(db);
    const auto r = train(db, "--epochs 1 --batch 16 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["batching"]["mode"], "random");
    EXPECT_EQ(j["batching"]["batch_size"], 16);
    EXPECT_EQ(j["batching"]["fanout"], "");
    EXPECT_EQ(j["batching"]["order"], "original");
    EXPECT_EQ(run_config(db, 0)["batch"], 16);
    // No batching flag at all: the full graph.
    const auto full = train(db, "--epochs 1 --json");
    ASSERT_EQ(full.exit_code, 0) << full.err;
    EXPECT_EQ(nlohmann::json::parse(full.out)["batching"]["mode"], "full");
}

TEST(TrainBatching, RandomWithFanoutsAndClusterRun)
{
    const fs::path db = gsr::test::scratch_file("modes.gsr");
    fs::remove(db);
    const auto r = train(db, "--epochs 1 --batching random --batch-size 32 --fanout 3,2 "
                             "--order rcm --json --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["batching"]["order"], "rcm");
    const auto c = train(db, "--epochs 1 --batching cluster --batch-size 64 --json --quiet");
    if (c.exit_code != 0 && c.err.find("METIS") != std::string::npos)
        GTEST_SKIP() << "built without METIS: " << c.err;
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(nlohmann::json::parse(c.out)["batching"]["mode"], "cluster");
}

TEST(TrainBatching, ImpossibleSettingsNameTheirFlag)
{
    const fs::path db = gsr::test::scratch_file("bad.gsr");
    const std::pair<const char*, const char*> cases[] = {
        {"--batching commrand --alpha 1.5", "--alpha"},
        {"--batching commrand --beta 0.5", "--beta"},
        {"--batching commrand --fanout 0", "--fanout"},
        {"--batching commrand --fanout 4,4,4", "--fanout"},
        {"--batching cluster --fanout 4", "--fanout"},
        {"--fanout 4", "--fanout"},
        {"--batching sometimes", "--batching"},
        {"--batch 8 --batch-size 8", "--batch"},
        {"--batching commrand --batch 8", "--batch"},
        {"--batching random --alpha 0.5", "--alpha"},
        {"--batching random --batch-size 0", "--batch-size"},
        {"--batching full --batch-size 8", "--batch-size"},
        {"--batching commrand --order bfs", "--order"},
    };
    for (const auto& [flags, flag] : cases) {
        const auto r = train(db, std::string("--epochs 1 ") + flags);
        EXPECT_EQ(r.exit_code, 1) << flags;
        EXPECT_NE(r.err.find(flag), std::string::npos) << flags << ": " << r.err;
    }
}
