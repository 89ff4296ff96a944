// `gsr train --resume RUN` on a project whose run cannot be resumed: the error names the
// project and the run, exits 2, and the run keeps its status and results.
#include "run_gsr.hpp"
#include "test_files.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_claim.hpp"
#include "store/run_store.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using gsr::test::data_arg;
using gsr::test::run_gsr;
using gsr::test::shell_quote;

namespace {

/// The run `index` of `gsr runs list --json`.
nlohmann::json listed_run(const fs::path& db, std::size_t index)
{
    const auto r = run_gsr("runs list --json --db " + shell_quote(db.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out).at(index);
}

/// A fresh scratch project `name` with run 1: gcn on c432, tested on c17, two epochs.
fs::path project_with_a_run(const std::string& name)
{
    const fs::path db = gsr::test::scratch_file(name);
    fs::remove(db);
    const auto first = run_gsr("train " + data_arg("netlists/iscas85/bench/c432.bench") +
                               " --test " + data_arg("netlists/iscas85/bench/c17.bench") +
                               " --db " + shell_quote(db.string()) +
                               " --model gcn --layers 2 --hidden 8 --epochs 2 --device cpu "
                               "--quiet");
    EXPECT_EQ(first.exit_code, 0) << first.err;
    return db;
}

} // namespace

TEST(TrainResume, ARunThatCannotBeResumedIsLeftAsItWas)
{
    const fs::path db = project_with_a_run("resume_damaged.gsr");
    const std::string project = shell_quote(db.string());
    const nlohmann::json before = listed_run(db, 0);
    ASSERT_EQ(before.at("status"), "finished");

    {
        // Epoch 3 recorded with a random state of another build, and a second run whose
        // settings were edited by hand.
        auto store = gsr::store::RunStore::open(db.string(), gsr::store::OpenMode::OpenExisting);
        gsr::store::RunEpochRecord e;
        e.run_id = 1;
        e.epoch = 3;
        e.metrics_json = "{}";
        gsr::store::CheckpointRecord ck = *store.last_checkpoint(1);
        ck.epoch = 3;
        ck.rng = {1, 2, 3};
        store.record_epoch(e, ck, false);
        store.set_status(1, "finished"); // recording an epoch marks a run running
        gsr::store::RunRecord edited = *store.find_run(1);
        nlohmann::json config = nlohmann::json::parse(edited.config_json);
        config["layers"] = -1;
        edited.config_json = config.dump();
        ASSERT_EQ(store.create_run(edited), 2);
    }
    const nlohmann::json recorded = listed_run(db, 0);

    const auto resumed = run_gsr("train --db " + project + " --resume 1 --epochs 4 --quiet");
    EXPECT_EQ(resumed.exit_code, 2);
    EXPECT_EQ(resumed.err, db.string() + ": error: run 1 cannot be resumed (it is left as it "
                                         "was): the checkpoint of epoch 3 cannot be read: its "
                                         "random state is damaged or of another version\n");
    EXPECT_EQ(listed_run(db, 0), recorded); // status, results and times as they were
    EXPECT_EQ(recorded.at("status"), "finished");

    const auto edited = run_gsr("train --db " + project + " --resume 2 --quiet");
    EXPECT_EQ(edited.exit_code, 2);
    EXPECT_EQ(edited.err, db.string() + ": error: run 2: the run's settings cannot be read "
                                        "(layers is -1, expected a whole number from 0 to "
                                        "4294967295)\n");
}

TEST(TrainResume, ResumingWithMoreEpochsRecordsThem)
{
    // A run resumed with --epochs 3 kept "epochs": 2 in its settings: the report showed 2
    // for a 3-epoch run, and a later --resume without --epochs aimed at 2 again.
    const fs::path db = project_with_a_run("resume_epochs.gsr");
    const std::string project = shell_quote(db.string());
    const auto resumed = run_gsr("train --db " + project + " --resume 1 --epochs 3 --quiet");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    {
        auto store = gsr::store::RunStore::open(db.string(), gsr::store::OpenMode::ReadOnly);
        const gsr::store::RunRecord run = *store.find_run(1);
        EXPECT_EQ(nlohmann::json::parse(run.config_json).at("epochs"), 3);
        EXPECT_EQ(run.epochs_done, 3);
        EXPECT_EQ(run.status, "finished");
    }
    // Damaged settings: `runs list --json` printed "<discarded>", which is no JSON.
    gsr::store::RunStore::open(db.string(), gsr::store::OpenMode::OpenExisting)
        .set_config(1, "{broken");
    const auto listed = run_gsr("runs list --json --db " + project);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    ASSERT_TRUE(nlohmann::json::accept(listed.out)) << listed.out;
    const nlohmann::json run = nlohmann::json::parse(listed.out).at(0);
    EXPECT_TRUE(run.at("config").is_null());
    EXPECT_EQ(run.at("damaged"), nlohmann::json::array({"config"}));
    EXPECT_TRUE(run.at("result").is_object());
}

TEST(TrainResume, ARunBeingTrainedIsNotResumedAgainAndAKilledOneIsInterrupted)
{
    // Two trainings of one run wrote their epochs and checkpoints over each other.
    const fs::path db = project_with_a_run("resume_claimed.gsr");
    const std::string project = shell_quote(db.string());
    gsr::store::RunStore::open(db.string(), gsr::store::OpenMode::OpenExisting)
        .set_status(1, "running"); // as a training leaves it when it is killed
    {
        // This process trains run 1 (as the GUI would): `gsr train --resume 1` is refused.
        const gsr::store::RunClaim training = gsr::store::RunClaim::take(db.string(), 1);
        const nlohmann::json before = listed_run(db, 0);
        EXPECT_EQ(before.at("training_now"), true);
        const auto second = run_gsr("train --db " + project + " --resume 1 --epochs 4 --quiet");
        EXPECT_EQ(second.exit_code, 2) << second.err;
        EXPECT_EQ(second.err, db.string() + ": error: run 1 is being trained now by another "
                                            "training (in this or another process); wait for it "
                                            "to finish or stop it, then resume the run\n");
        EXPECT_EQ(listed_run(db, 0), before);
        const auto text = run_gsr("runs list --db " + project);
        EXPECT_EQ(text.out.rfind("1\trunning\t", 0), 0u) << text.out;
    }
    // No training holds it now: listed as interrupted, and it resumes.
    EXPECT_EQ(listed_run(db, 0).at("training_now"), false);
    const auto text = run_gsr("runs list --db " + project);
    EXPECT_EQ(text.out.rfind("1\tinterrupted\t", 0), 0u) << text.out;
    const auto resumed = run_gsr("train --db " + project + " --resume 1 --epochs 3 --quiet");
    EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_EQ(listed_run(db, 0).at("status"), "finished");
}

TEST(TrainResume, ARunWhoseCircuitChangedSaysSo)
{
    // The user's own copy of c432, trained on, then edited: one NAND's inputs changed.
    const fs::path dir = gsr::test::scratch_file("resume_changed");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path netlist = dir / "mine.bench";
    std::string text = gsr::test::read_text(std::string(GSR_DATA_DIR) +
                                            "/netlists/iscas85/bench/c432.bench");
    const fs::path db = dir / "p.gsr";
    const std::string project = shell_quote(db.string());
    std::ofstream(netlist) << text;
    const auto first = run_gsr("train " + shell_quote(netlist.string()) + " --test " +
                               data_arg("netlists/iscas85/bench/c17.bench") + " --db " + project +
                               " --model gcn --layers 2 --hidden 8 --epochs 2 --device cpu "
                               "--quiet");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const nlohmann::json before = listed_run(db, 0);
    const std::size_t gate = text.find("= NAND(118, 4)");
    ASSERT_NE(gate, std::string::npos);
    text.replace(gate, 14, "= NAND(118, 118)");
    std::ofstream(netlist, std::ios::trunc) << text;

    const auto resumed = run_gsr("train --db " + project + " --resume 1 --epochs 4 --quiet");
    EXPECT_EQ(resumed.exit_code, 2);
    EXPECT_EQ(resumed.err.rfind(db.string() + ": error: run 1 cannot be resumed (it is left as "
                                              "it was): the run's circuits changed since it "
                                              "began (target_mean was ", 0),
              0u)
        << resumed.err;
    EXPECT_EQ(listed_run(db, 0), before);
}
#endif
