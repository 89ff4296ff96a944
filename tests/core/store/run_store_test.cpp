// Training runs in the store: the migration, and round trips of runs, epochs, memory rows and
// checkpoints, each write in one transaction.
#include "store/run_store.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include "core/store/raw_database.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;
using namespace gsr::store;

namespace {

using Raw = gsr::store::testing::RawDatabase;

class RunStoreTest : public ::testing::Test {
protected:
    static RunRecord run(const std::string& model = "gsr")
    {
        RunRecord r;
        r.config_json = R"({"model":")" + model + R"(","layers":16})";
        r.device = "cpu";
        r.target = "sp";
        r.model = model;
        return r;
    }
    static RunEpochRecord epoch(std::int64_t run, std::int64_t e, double val)
    {
        RunEpochRecord r;
        r.run_id = run;
        r.epoch = e;
        r.train_loss = 1.0 / static_cast<double>(e);
        r.val_loss = val;
        r.metrics_json = R"({"epoch":)" + std::to_string(e) + "}";
        r.seconds = 0.25;
        return r;
    }
    /// c432 trained on (20 % held out), c17 tested on: the signal-probability data of the
    /// small real runs below.
    static const gsr::train::Dataset& c432_data()
    {
        static const gsr::train::Dataset data = [] {
            const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/iscas85/bench/";
            gsr::train::HoldOut h;
            h.validation = 0.2;
            return gsr::train::load_dataset(gsr::train::Target::SignalProbability,
                                            {dir + "c432.bench"}, {}, {dir + "c17.bench"}, h);
        }();
        return data;
    }
    /// A two-layer GCN of width 8, two epochs, no early stopping.
    static gsr::train::TrainConfig small_gcn()
    {
        gsr::train::TrainConfig c;
        c.model.kind = gsr::nn::ModelKind::Gcn;
        c.model.layers = 2;
        c.model.hidden = 8;
        c.model.threads = 1;
        c.epochs = 2;
        c.patience = 0;
        return c;
    }
    static CheckpointRecord checkpoint(std::int64_t run, std::int64_t e)
    {
        CheckpointRecord c;
        c.run_id = run;
        c.epoch = e;
        c.model = {0, 1, 2, static_cast<std::uint8_t>(e), 0, 255};
        c.optimizer = {'{', '}'};
        c.rng = {};
        return c;
    }

    gsr::test::ScratchDir scratch_{"gsr_run_store_test"};
    const fs::path dir_ = scratch_.path;
    const std::string path_ = (dir_ / "p.gsr").string();
};

} // namespace

TEST_F(RunStoreTest, NewProjectHasTheRunTables)
{
    RunStore::open(path_, OpenMode::CreateOrOpen);
    Raw raw(path_);
    for (const char* t : {"runs", "run_epochs", "run_layer_memory", "checkpoints"})
        EXPECT_TRUE(raw.has_table(t)) << t;
    EXPECT_EQ(raw.integer("PRAGMA user_version"), ProjectStore::latest_schema_version());
}

TEST_F(RunStoreTest, AProjectOfTheFirstSchemaIsUpgradedAndKeepsItsNetlists)
{
    {
        ProjectStore p = ProjectStore::open(path_, OpenMode::CreateOrOpen);
        NetlistRecord n;
        n.path = "a.v";
        n.content_hash = "h";
        p.add_netlist(n);
    }
    {
        // Back to schema 1, as a file of the build before the runs migration.
        Raw raw(path_);
        raw.exec("DROP TABLE checkpoints; DROP TABLE run_layer_memory; DROP TABLE run_epochs;"
                 " DROP TABLE runs; DROP TABLE tune_sessions; PRAGMA user_version = 1;");
    }
    EXPECT_THROW(RunStore::open(path_, OpenMode::ReadOnly), gsr::Error); // needs an upgrade
    RunStore store = RunStore::open(path_, OpenMode::OpenExisting);
    EXPECT_EQ(store.create_run(run()), 1);
    EXPECT_EQ(ProjectStore::open(path_, OpenMode::ReadOnly).netlists().size(), 1u);
}

TEST_F(RunStoreTest, RunsRoundTrip)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t a = store.create_run(run("gsr"));
    const std::int64_t b = store.create_run(run("gcn"));
    EXPECT_NE(a, b);
    const std::optional<RunRecord> r = store.find_run(a);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, "created");
    EXPECT_EQ(r->config_json, run("gsr").config_json);
    EXPECT_EQ(r->device, "cpu");
    EXPECT_EQ(r->model, "gsr");
    EXPECT_EQ(r->created_at.size(), 20u); // YYYY-MM-DDTHH:MM:SSZ
    EXPECT_FALSE(r->best_val_loss);
    EXPECT_EQ(store.runs().size(), 2u);
    EXPECT_EQ(store.runs()[1].model, "gcn");

    store.finish_run(a, "finished", R"({"status":"finished"})", 4096);
    EXPECT_EQ(store.find_run(a)->status, "finished");
    EXPECT_EQ(store.find_run(a)->peak_bytes_measured, 4096);
    EXPECT_EQ(store.find_run(a)->result_json, R"({"status":"finished"})");
    EXPECT_THROW(store.set_status(99, "running"), gsr::Error);
    EXPECT_FALSE(store.find_run(99));
}

TEST_F(RunStoreTest, EpochsAndCheckpointsRoundTripAndOnlyTheLastAreKept)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run());
    store.record_epoch(epoch(id, 1, 0.5), checkpoint(id, 1), true, 2);
    store.record_epoch(epoch(id, 2, 0.7), checkpoint(id, 2), false, 2);
    store.record_epoch(epoch(id, 3, std::nan("")), checkpoint(id, 3), false, 2);

    const std::vector<RunEpochRecord> e = store.epochs(id);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_EQ(e[1].epoch, 2);
    EXPECT_DOUBLE_EQ(e[1].train_loss, 0.5);
    EXPECT_DOUBLE_EQ(e[1].val_loss, 0.7);
    EXPECT_TRUE(std::isnan(e[2].val_loss)); // stored as NULL
    EXPECT_EQ(e[0].metrics_json, R"({"epoch":1})");
    EXPECT_DOUBLE_EQ(e[0].seconds, 0.25);

    // The newest two, and epoch 1's: the best (improved) epoch's model is what a run ends with.
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{1, 2, 3}));
    const std::optional<CheckpointRecord> best = store.checkpoint(id, 1);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->epoch, 1);
    EXPECT_EQ(best->model, checkpoint(id, 1).model);
    EXPECT_FALSE(store.checkpoint(id, 4));
    EXPECT_FALSE(store.checkpoint(id + 1, 1));
    const std::optional<CheckpointRecord> last = store.last_checkpoint(id);
    ASSERT_TRUE(last);
    EXPECT_EQ(last->epoch, 3);
    EXPECT_EQ(last->model, checkpoint(id, 3).model); // bytes with zeros survive
    EXPECT_EQ(last->optimizer, checkpoint(id, 3).optimizer);
    EXPECT_TRUE(last->rng.empty());

    const RunRecord r = *store.find_run(id);
    EXPECT_EQ(r.epochs_done, 3);
    EXPECT_EQ(r.best_epoch, 1);
    EXPECT_DOUBLE_EQ(r.best_val_loss.value(), 0.5);
    EXPECT_EQ(r.status, "running");
    EXPECT_FALSE(store.last_checkpoint(id + 1));
}

TEST_F(RunStoreTest, AFailedEpochWriteLeavesNothingBehind)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run());
    store.record_epoch(epoch(id, 1, 0.5), checkpoint(id, 1), true);
    // A checkpoint of another run in the same call is refused before anything is written;
    // a run that does not exist fails inside the transaction and rolls it back.
    EXPECT_THROW(store.record_epoch(epoch(id, 2, 0.4), checkpoint(id + 1, 2), true),
                 std::invalid_argument);
    EXPECT_THROW(store.record_epoch(epoch(id + 7, 2, 0.4), checkpoint(id + 7, 2), true),
                 gsr::Error);
    EXPECT_EQ(store.epochs(id).size(), 1u);
    Raw raw(path_);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM run_epochs"), 1);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM checkpoints"), 1);
}

TEST_F(RunStoreTest, LayerMemoryIsReplacedAndRemovingARunRemovesItsRows)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run());
    std::vector<LayerMemoryRecord> rows(3);
    for (int i = 0; i < 3; ++i) {
        rows[i].layer = i;
        rows[i].name = "layer " + std::to_string(i);
        rows[i].params = 100 * i;
        rows[i].grads = 100 * i;
        rows[i].optimizer = 200 * i;
        rows[i].activations = 1000 + i;
        rows[i].workspace = 64;
    }
    store.set_layer_memory(id, rows, 123456, 0);
    rows.pop_back();
    rows[1].measured = true;
    store.set_layer_memory(id, rows, 654321, 600000);
    EXPECT_EQ(store.layer_memory(id), rows);
    EXPECT_EQ(store.find_run(id)->peak_bytes_analytic, 654321);
    EXPECT_EQ(store.find_run(id)->peak_bytes_measured, 600000);

    store.record_epoch(epoch(id, 1, 0.5), checkpoint(id, 1), true);
    EXPECT_TRUE(store.remove_run(id));
    EXPECT_FALSE(store.remove_run(id));
    Raw raw(path_);
    for (const char* t : {"run_epochs", "run_layer_memory", "checkpoints"})
        EXPECT_EQ(raw.integer(std::string("SELECT count(*) FROM ") + t), 0) << t;
}

TEST_F(RunStoreTest, ReadOnlyStoresRefuseWrites)
{
    RunStore::open(path_, OpenMode::CreateOrOpen).create_run(run());
    RunStore ro = RunStore::open(path_, OpenMode::ReadOnly);
    EXPECT_EQ(ro.runs().size(), 1u);
    EXPECT_THROW(ro.create_run(run()), gsr::Error);
}

TEST_F(RunStoreTest, TheTrainersLogWritesThroughTheStore)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run());
    StoreRunLog log(store, id, 1);

    gsr::nn::MemoryReport memory;
    memory.layers.resize(2);
    memory.layers[0].name = "encoder";
    memory.layers[0].parameter_bytes = 512;
    memory.layers[1].name = "head";
    memory.layers[1].activation_bytes = 64;
    memory.analytic_peak_bytes = 4096;
    log.begin(memory);
    EXPECT_EQ(store.find_run(id)->status, "running");
    ASSERT_EQ(store.layer_memory(id).size(), 2u);
    EXPECT_EQ(store.layer_memory(id)[0].params, 512);
    EXPECT_EQ(store.layer_memory(id)[1].name, "head");

    EXPECT_FALSE(log.last_checkpoint());
    for (std::uint32_t e = 1; e <= 2; ++e) {
        gsr::train::EpochReport report;
        report.epoch = e;
        report.train_loss = 0.5 / e;
        report.validation.loss = 0.25 / e;
        report.improved = true;
        gsr::train::Checkpoint ck;
        ck.epoch = e;
        ck.model = {1, 2, static_cast<std::uint8_t>(e)};
        ck.optimizer = {3};
        ck.rng = {4, 5};
        log.epoch_done(report, ck);
    }
    const std::optional<gsr::train::Checkpoint> ck = log.last_checkpoint();
    ASSERT_TRUE(ck);
    EXPECT_EQ(ck->epoch, 2u);
    EXPECT_EQ(ck->model, (std::vector<std::uint8_t>{1, 2, 2}));
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{2})); // keep 1
    const std::vector<RunEpochRecord> epochs = store.epochs(id);
    ASSERT_EQ(epochs.size(), 2u);
    EXPECT_DOUBLE_EQ(epochs[1].val_loss, 0.125);
    const auto parsed = nlohmann::json::parse(epochs[1].metrics_json);
    EXPECT_EQ(gsr::train::epoch_report_from_json(parsed).epoch, 2u);

    log.end("finished", {{"status", "finished"}, {"memory", {{"measured_peak_bytes", 777}}}});
    const RunRecord r = *store.find_run(id);
    EXPECT_EQ(r.status, "finished");
    EXPECT_EQ(r.peak_bytes_measured, 777);
    EXPECT_EQ(r.best_epoch, 2);
}

TEST_F(RunStoreTest, ATrainingRunResumesFromTheStoresCheckpoint)
{
    using namespace gsr::train;
    const std::string dir = std::string(GSR_DATA_DIR) + "/netlists/iscas85/bench/";
    HoldOut h;
    h.validation = 0.2;
    const Dataset data =
        load_dataset(Target::SignalProbability, {dir + "c432.bench"}, {}, {dir + "c17.bench"}, h,
                     [] {
                         LabelOptions o;
                         o.vectors = 4096;
                         return o;
                     }());
    TrainConfig c;
    c.model.kind = gsr::nn::ModelKind::Rev;
    c.model.layers = 3;
    c.model.hidden = 8;
    c.model.groups = 2;
    c.model.threads = 1;
    c.adam.learning_rate = 1e-2;
    c.batch_size = 50;
    c.epochs = 4;
    c.patience = 0;

    MemoryRunLog straight;
    Trainer(data, c).run(straight);

    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run("rev"));
    {
        StoreRunLog log(store, id);
        std::atomic<bool> cancel{false};
        TrainCallbacks cb;
        cb.cancel = &cancel;
        cb.progress = [&](const Progress& p) {
            if (p.epoch == 3 && p.step == 2) cancel = true;
        };
        EXPECT_EQ(Trainer(data, c).run(log, cb).status, TrainResult::Status::Cancelled);
    }
    EXPECT_EQ(store.find_run(id)->status, "cancelled");
    EXPECT_EQ(store.find_run(id)->epochs_done, 2);
    EXPECT_FALSE(store.layer_memory(id).empty());
    {
        // A new session, as after a crash: everything comes from the file.
        RunStore again = RunStore::open(path_, OpenMode::OpenExisting);
        StoreRunLog log(again, id);
        const TrainResult r = Trainer(data, c).run(log, {}, true);
        EXPECT_EQ(r.first_epoch, 3u);
        EXPECT_EQ(r.status, TrainResult::Status::Finished);
    }
    const std::vector<RunEpochRecord> epochs = store.epochs(id);
    ASSERT_EQ(epochs.size(), 4u);
    for (std::size_t e = 0; e < 4; ++e) {
        EXPECT_EQ(epochs[e].train_loss, straight.epochs()[e].train_loss) << e;
        EXPECT_EQ(epochs[e].val_loss, straight.epochs()[e].validation.loss) << e;
    }
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{3, 4}));
    const RunRecord done = *store.find_run(id);
    EXPECT_EQ(done.status, "finished");
    EXPECT_GT(done.peak_bytes_measured, 0);
    EXPECT_EQ(nlohmann::json::parse(done.result_json)["epochs_done"], 4);
}

TEST_F(RunStoreTest, TheBestEpochsCheckpointStaysUntilABetterEpochComes)
{
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run());
    const std::int64_t other = store.create_run(run());
    store.record_epoch(epoch(other, 1, 0.1), checkpoint(other, 1), true, 1);
    for (std::int64_t e = 1; e <= 3; ++e)
        store.record_epoch(epoch(id, e, 0.5), checkpoint(id, e), e == 1, 1);
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{1, 3}));
    // A better epoch 4: epoch 1's goes, and so does 3 (no longer the newest).
    store.record_epoch(epoch(id, 4, 0.25), checkpoint(id, 4), true, 1);
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{4}));
    store.record_epoch(epoch(id, 5, 0.5), checkpoint(id, 5), false, 1);
    EXPECT_EQ(store.checkpoint_epochs(id), (std::vector<std::int64_t>{4, 5}));
    EXPECT_EQ(store.checkpoint(id, 4)->model, checkpoint(id, 4).model);
    // Another run's best is its own.
    EXPECT_EQ(store.checkpoint_epochs(other), (std::vector<std::int64_t>{1}));

    // Through the trainer's log.
    StoreRunLog log(store, id, 1);
    EXPECT_EQ(log.checkpoint_of(4)->model, checkpoint(id, 4).model);
    EXPECT_EQ(log.checkpoint_of(4)->epoch, 4u);
    EXPECT_FALSE(log.checkpoint_of(3));
}

TEST_F(RunStoreTest, AResumeWithNothingLeftToTrainKeepsTheRunsResult)
{
    using namespace gsr::train;
    const Dataset& data = c432_data();
    TrainConfig c = small_gcn();
    RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
    const std::int64_t id = store.create_run(run("gcn"));
    {
        StoreRunLog log(store, id);
        ASSERT_EQ(Trainer(data, c).run(log).status, TrainResult::Status::Finished);
    }
    const RunRecord before = *store.find_run(id);
    ASSERT_GT(before.peak_bytes_measured, 0);
    StoreRunLog log(store, id);
    Trainer again(data, c);
    const TrainResult r = again.run(log, {}, true);
    EXPECT_EQ(r.first_epoch, 3u); // nothing to train
    EXPECT_EQ(r.model_epoch, r.best->epoch); // the best epoch's weights, for predictions
    // This session measured only the weights: the run keeps its training's figures.
    EXPECT_LT(r.memory.measured_peak_bytes, std::size_t(before.peak_bytes_measured));
    const RunRecord after = *store.find_run(id);
    EXPECT_EQ(after.status, "finished");
    EXPECT_EQ(after.result_json, before.result_json);
    EXPECT_EQ(after.peak_bytes_measured, before.peak_bytes_measured);
    EXPECT_EQ(after.epochs_done, 2);

    // A run cancelled after epoch 1, resumed with --epochs 1: nothing is left, and it ends
    // now, "finished", with its training's result and peak (it stayed "cancelled" for good).
    const std::int64_t cancelled_id = store.create_run(run("gcn"));
    {
        StoreRunLog first(store, cancelled_id);
        std::atomic<bool> cancel{false};
        TrainCallbacks cb;
        cb.cancel = &cancel;
        cb.epoch = [&](const EpochReport&) { cancel = true; };
        ASSERT_EQ(Trainer(data, c).run(first, cb).status, TrainResult::Status::Cancelled);
    }
    const RunRecord stopped = *store.find_run(cancelled_id);
    ASSERT_EQ(stopped.status, "cancelled");
    ASSERT_EQ(stopped.epochs_done, 1);
    c.epochs = 1;
    StoreRunLog resumed(store, cancelled_id);
    EXPECT_EQ(Trainer(data, c).run(resumed, {}, true).status, TrainResult::Status::Finished);
    const RunRecord ended = *store.find_run(cancelled_id);
    EXPECT_EQ(ended.status, "finished");
    EXPECT_EQ(ended.peak_bytes_measured, stopped.peak_bytes_measured);
    const auto result = nlohmann::json::parse(ended.result_json);
    EXPECT_EQ(result["status"], "finished");
    EXPECT_EQ(result["best"], nlohmann::json::parse(stopped.result_json)["best"]);
}

TEST_F(RunStoreTest, AResumeThatFailsBeforeItBeginsLeavesTheRunAsItWas)
{
    using namespace gsr::train;
    const Dataset& data = c432_data();
    TrainConfig c = small_gcn();
    std::int64_t id = 0;
    {
        RunStore store = RunStore::open(path_, OpenMode::CreateOrOpen);
        id = store.create_run(run("gcn"));
        StoreRunLog log(store, id);
        ASSERT_EQ(Trainer(data, c).run(log).status, TrainResult::Status::Finished);
    }
    const fs::path pristine = dir_ / "pristine.gsr";
    fs::copy_file(path_, pristine);
    const RunRecord before = *RunStore::open(path_, OpenMode::ReadOnly).find_run(id);
    c.epochs = 4;

    // Each damage, on a fresh copy of the project: what the resume says, and the run kept.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"UPDATE checkpoints SET rng = x'00'",
         "the checkpoint of epoch 2 cannot be read: its random state is damaged or of another "
         "version"},
        {"UPDATE checkpoints SET model = x'0102'",
         "the checkpoint of epoch 2 cannot be read: model state: too short to be a state"},
        {"UPDATE checkpoints SET optimizer = CAST(json_set(CAST(optimizer AS TEXT), "
         "'$.bad_epochs', 'x') AS BLOB)",
         "the checkpoint of epoch 2 cannot be read: type must be number, but is string"},
        {"UPDATE checkpoints SET optimizer = CAST('{\"format\": 1}' AS BLOB)",
         "the checkpoint of epoch 2 has no trainer state this build can read"},
        {"UPDATE checkpoints SET epoch = 16777217",
         path_ + ": error: run 1: its last checkpoint is of epoch 16777217, where an epoch is "
                 "1 to 16777216"}};
    for (const auto& [damage, expected] : cases) {
        fs::copy_file(pristine, path_, fs::copy_options::overwrite_existing);
        Raw(path_).exec(damage + " WHERE epoch = 2");
        RunStore store = RunStore::open(path_, OpenMode::OpenExisting);
        StoreRunLog log(store, id);
        try {
            Trainer(data, c).run(log, {}, true);
            ADD_FAILURE() << "resumed from damage: " << damage;
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().file.empty() ? e.message() : std::string(e.what()), expected);
            EXPECT_FALSE(log.fail(e.what(), true)) << damage;
        }
        const RunRecord after = *store.find_run(id);
        EXPECT_EQ(after.status, "finished") << damage;
        EXPECT_EQ(after.result_json, before.result_json) << damage;
        EXPECT_EQ(after.updated_at, before.updated_at) << damage;
        EXPECT_EQ(after.epochs_done, 2) << damage;
    }

    // A resume that has begun but kept no epoch (the disk full at its first, say) is put
    // back as it was: it replaced the finished run's result and measured peak with the error.
    fs::copy_file(pristine, path_, fs::copy_options::overwrite_existing);
    RunStore store = RunStore::open(path_, OpenMode::OpenExisting);
    ASSERT_GT(before.peak_bytes_measured, 0);
    {
        StoreRunLog log(store, id);
        log.begin(gsr::nn::MemoryReport{});
        EXPECT_EQ(store.find_run(id)->status, "running");
        EXPECT_FALSE(log.fail("error: disk full", true));
        const RunRecord after = *store.find_run(id);
        EXPECT_EQ(after.status, "finished");
        EXPECT_EQ(after.result_json, before.result_json);
        EXPECT_EQ(after.peak_bytes_measured, before.peak_bytes_measured);
    }
    // One that kept an epoch is failed, its earlier result kept with the error added.
    {
        StoreRunLog log(store, id);
        log.begin(gsr::nn::MemoryReport{});
        EpochReport report;
        report.epoch = 3;
        Checkpoint ck;
        ck.epoch = 3;
        ck.model = {1, 2, 3};
        log.epoch_done(report, ck);
        EXPECT_TRUE(log.fail("error: out of memory", true));
        const RunRecord after = *store.find_run(id);
        EXPECT_EQ(after.status, "failed");
        EXPECT_EQ(after.peak_bytes_measured, before.peak_bytes_measured);
        nlohmann::json want = nlohmann::json::parse(before.result_json);
        want["error"] = "error: out of memory";
        EXPECT_EQ(nlohmann::json::parse(after.result_json), want);
    }
    const std::int64_t fresh = store.create_run(run("gcn"));
    EXPECT_TRUE(StoreRunLog(store, fresh).fail("error: no such file", false));
    EXPECT_EQ(store.find_run(fresh)->status, "failed");
}
