// Tuning sessions in the store (the "tune sessions" migration, save/list/load), and training
// runs read back as report models: from a real run trained into the project.
#include "store/run_report_source.hpp"
#include "store/run_store.hpp"
#include "store/tune_store.hpp"
#include "tune/engine_problems.hpp"
#include "train/run_settings.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include "core/store/raw_database.hpp"

#include <filesystem>
#include <set>
#include <stdexcept>

namespace fs = std::filesystem;
using namespace gsr::store;
namespace tune = gsr::tune;
namespace train = gsr::train;

namespace {

using Raw = gsr::store::testing::RawDatabase;

std::string netlist(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

tune::TuneSession session(const std::string& problem, double best_seconds)
{
    tune::TuneSession s;
    s.problem = problem;
    s.family = "gemm";
    s.device = "H100 SXM";
    s.strategy = "grid";
    s.created = "2026-11-22T10:00:00Z";
    s.t_sol = 1e-3;
    s.flops = 2e12;
    s.bytes = 1e9;
    s.peak_rate = 6.7e13;
    s.bandwidth = 3.35e12;
    s.bound = "compute";
    for (std::size_t i = 0; i < 3; ++i) {
        tune::CandidateRecord c;
        c.id = i;
        c.label = "tile=" + std::to_string(64 << i);
        c.origin = "grid";
        c.seconds = best_seconds * double(i + 1);
        c.best = i == 0;
        s.candidates.push_back(c);
    }
    s.candidates[2].verdict = tune::Verdict::WrongResult;
    s.candidates[2].parent = 0;
    return s;
}

class TuneStoreTest : public ::testing::Test {
protected:
    /// A real run: c432 trained on, c17 tested on, two epochs, logged into the project.
    std::int64_t train_run()
    {
        train::RunSettings settings;
        settings.train = {netlist("iscas85/bench/c432.bench")};
        settings.test = {netlist("iscas85/bench/c17.bench")};
        settings.target = train::Target::Level;
        settings.holdout_validation = 0.2;
        train::TrainConfig& c = settings.config;
        c.model.kind = gsr::nn::ModelKind::Gcn;
        c.model.layers = 2;
        c.model.hidden = 8;
        c.model.threads = 1;
        c.epochs = 2;
        c.patience = 0;
        train::HoldOut h;
        h.validation = 0.2;
        const train::Dataset data =
            train::load_dataset(settings.target, settings.train, {}, settings.test, h);
        RunStore runs = RunStore::open(path_, OpenMode::CreateOrOpen);
        RunRecord rec;
        rec.config_json = train::settings_to_json(settings).dump();
        rec.device = "cpu";
        rec.target = "level";
        rec.model = "gcn";
        const std::int64_t id = runs.create_run(rec);
        StoreRunLog log(runs, id);
        train::Trainer(data, c).run(log);
        return id;
    }

    gsr::test::ScratchDir scratch_{"gsr_tune_store_test"};
    const fs::path dir_ = scratch_.path;
    const std::string path_ = (dir_ / "p.gsr").string();
};

} // namespace

TEST_F(TuneStoreTest, SessionsRoundTripAndListWithTheirBest)
{
    TuneStore store = TuneStore::open(path_, OpenMode::CreateOrOpen);
    EXPECT_TRUE(store.sessions().empty());
    const tune::TuneSession a = session("gemm_1024", 2e-3), b = session("gemm_4096", 4e-3);
    const std::int64_t ia = store.save(a), ib = store.save(b);
    EXPECT_NE(ia, ib);

    const std::vector<TuneSessionSummary> list = store.sessions();
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].id, ia);
    EXPECT_EQ(list[0].problem, "gemm_1024");
    EXPECT_EQ(list[0].device, "H100 SXM");
    EXPECT_EQ(list[0].strategy, "grid");
    EXPECT_EQ(list[0].created, "2026-11-22T10:00:00Z");
    EXPECT_EQ(list[0].candidates, 3);
    EXPECT_DOUBLE_EQ(list[0].best_percent_of_sol, 50.0); // 1 ms of 2 ms
    EXPECT_DOUBLE_EQ(list[1].best_percent_of_sol, 25.0);

    const tune::TuneSession back = store.load(ib);
    EXPECT_EQ(tune::to_json(back), tune::to_json(b));
    ASSERT_TRUE(back.candidates[2].parent);
    EXPECT_EQ(*back.candidates[2].parent, 0u);

    EXPECT_TRUE(store.remove(ia));
    EXPECT_FALSE(store.remove(ia));
    EXPECT_EQ(store.sessions().size(), 1u);
}

TEST_F(TuneStoreTest, ASessionWithoutTimestampGetsTheSaveTime)
{
    TuneStore store = TuneStore::open(path_, OpenMode::CreateOrOpen);
    tune::TuneSession s = session("gemm_1024", 2e-3);
    s.created.clear();
    const std::int64_t id = store.save(s);
    EXPECT_EQ(store.sessions()[0].created.size(), 20u); // YYYY-MM-DDTHH:MM:SSZ
    EXPECT_EQ(store.load(id).created, store.sessions()[0].created);
}

TEST_F(TuneStoreTest, AMissingSessionIsAnErrorNamingTheId)
{
    TuneStore store = TuneStore::open(path_, OpenMode::CreateOrOpen);
    store.save(session("gemm_1024", 2e-3));
    EXPECT_FALSE(store.find(42));
    try {
        store.load(42);
        FAIL() << "load of a missing id must throw";
    } catch (const gsr::Error& e) {
        EXPECT_NE(std::string(e.what()).find("no tune session 42"), std::string::npos)
            << e.what();
        EXPECT_EQ(e.where().file, path_);
    }
}

TEST_F(TuneStoreTest, DamagedSessionJsonIsAnErrorNotACrash)
{
    const std::int64_t id = TuneStore::open(path_, OpenMode::CreateOrOpen)
                                .save(session("gemm_1024", 2e-3));
    Raw(path_).exec("UPDATE tune_sessions SET json = '{\"problem\": 3}' WHERE id = " +
                    std::to_string(id));
    const TuneStore store = TuneStore::open(path_, OpenMode::ReadOnly);
    try {
        store.load(id);
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("tune session " + std::to_string(id) + " cannot be read"),
                  std::string::npos)
            << e.what();
    }
}

/// A session of the engine SpMM (width 64 on 4000 nodes) whose best verified config takes
/// `us` microseconds.
tune::TuneSession engine_spmm_session(double us, const std::string& config)
{
    tune::EngineShape shape;
    shape.model = gsr::nn::ModelKind::Rev;
    shape.hidden = 128;
    shape.groups = 2;
    shape.nodes = 4000;
    shape.edges = 16000;
    tune::Problem p;
    for (const tune::Problem& q : tune::engine_problems(shape))
        if (q.family == tune::OpFamily::Spmm) p = q;
    tune::TuneSession s = session(p.name, us * 1e-6);
    s.problem_spec = tune::problem_json(p);
    s.family = "spmm";
    for (tune::CandidateRecord& c : s.candidates) c.label = config;
    return s;
}

TEST_F(TuneStoreTest, ApplyKeepsTheBestEngineConfigsAndTrainingReadsThem)
{
    TuneStore store = TuneStore::open(path_, OpenMode::CreateOrOpen);
    EXPECT_TRUE(store.applied().empty());
    const std::int64_t slow =
        store.save(engine_spmm_session(80, "family=spmm block=256 tpr=32 vec=1"));
    store.save(session("gemm_1024", 2e-3)); // a suite problem: nothing to apply
    const tune::ApplyChoice first = store.apply({});
    ASSERT_EQ(first.kernels.size(), 1u);
    EXPECT_EQ(store.applied().at(0).session, slow);

    // A faster session applied by id replaces it; applying the slow one again by id would
    // put it back (the user's choice), but applying everything keeps the fastest.
    const std::int64_t fast =
        store.save(engine_spmm_session(40, "family=spmm block=128 tpr=16 vec=4 unroll=4"));
    store.apply({fast});
    ASSERT_EQ(store.applied().size(), 1u);
    EXPECT_EQ(store.applied()[0].session, fast);
    store.apply({});
    EXPECT_EQ(store.applied()[0].session, fast);
    EXPECT_DOUBLE_EQ(store.applied()[0].seconds, 40e-6);
    EXPECT_THROW(store.apply({999}), gsr::Error);
    EXPECT_EQ(store.applied()[0].session, fast) << "a failed apply changes nothing";

    std::vector<std::string> notes;
    const auto kernels = project_tuned_kernels(path_, &notes);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].width, 64u);
    EXPECT_EQ(kernels[0].vec, 4u);
    EXPECT_TRUE(notes.empty());

    store.clear_applied();
    EXPECT_TRUE(store.applied().empty());
    EXPECT_TRUE(project_tuned_kernels(path_, &notes).empty());
}

TEST_F(TuneStoreTest, DamagedAppliedKernelsAreAnErrorNamingTheProject)
{
    TuneStore::open(path_, OpenMode::CreateOrOpen).apply({});
    Raw(path_).exec("INSERT INTO project(key, value) VALUES('applied_kernels', '[{\"x\": 1}]')"
                    " ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    try {
        TuneStore::open(path_, OpenMode::ReadOnly).applied();
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find(path_), std::string::npos) << e.message();
        EXPECT_NE(e.message().find("'problem'"), std::string::npos) << e.message();
        EXPECT_NE(e.message().find("--clear"), std::string::npos) << e.message();
    }
}

TEST_F(TuneStoreTest, AProjectOfTheRunsSchemaIsUpgradedAndKeepsItsRuns)
{
    const std::int64_t run = train_run();
    {
        // Back to schema 2, as written by the build before tune sessions: drop every table a
        // later migration made.
        Raw raw(path_);
        const std::set<std::string> v2 = {"project", "netlists", "runs", "run_epochs",
                                          "run_layer_memory", "checkpoints"};
        for (const std::string& t : raw.tables())
            if (!v2.count(t)) raw.exec("DROP TABLE " + t);
        raw.exec("PRAGMA user_version = 2");
    }
    EXPECT_THROW(TuneStore::open(path_, OpenMode::ReadOnly), gsr::Error); // needs an upgrade

    TuneStore store = TuneStore::open(path_, OpenMode::OpenExisting);
    EXPECT_EQ(Raw(path_).integer("PRAGMA user_version"), ProjectStore::latest_schema_version());
    EXPECT_EQ(store.save(session("gemm_1024", 2e-3)), 1);

    const RunStore runs = RunStore::open(path_, OpenMode::ReadOnly);
    ASSERT_EQ(runs.runs().size(), 1u);
    const gsr::report::RunReport r = load_run_report(runs, run);
    EXPECT_EQ(r.epochs.size(), 2u);
    EXPECT_EQ(r.status, "finished");
}

TEST_F(TuneStoreTest, AFailedUpgradeLeavesTheProjectAsItWas)
{
    train_run();
    {
        // A schema-2 file that already has a conflicting `tune_sessions` table: the migration's
        // CREATE TABLE fails and must roll back whole.
        Raw raw(path_);
        const std::set<std::string> v2 = {"project", "netlists", "runs", "run_epochs",
                                          "run_layer_memory", "checkpoints"};
        for (const std::string& t : raw.tables())
            if (!v2.count(t)) raw.exec("DROP TABLE " + t);
        raw.exec("CREATE TABLE tune_sessions(x INTEGER); PRAGMA user_version = 2");
    }
    try {
        TuneStore::open(path_, OpenMode::OpenExisting);
        FAIL() << "the upgrade must fail";
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("(tune sessions)"), std::string::npos) << e.what();
    }
    Raw raw(path_);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 2);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM run_epochs"), 2);
}

TEST_F(TuneStoreTest, StoredRunsBecomeReportModels)
{
    const std::int64_t id = train_run();
    const RunStore runs = RunStore::open(path_, OpenMode::ReadOnly);
    const gsr::report::RunReport r = load_run_report(runs, id);
    const std::vector<RunEpochRecord> rows = runs.epochs(id);
    ASSERT_EQ(r.epochs.size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(r.epochs[i].epoch, static_cast<std::uint32_t>(rows[i].epoch));
        EXPECT_DOUBLE_EQ(r.epochs[i].train_loss, rows[i].train_loss);
        EXPECT_DOUBLE_EQ(r.epochs[i].validation.loss, rows[i].val_loss);
        EXPECT_EQ(r.epochs[i].test.metrics.count, 11u); // c17's nodes
    }
    EXPECT_EQ(r.layers.size(), runs.layer_memory(id).size());
    EXPECT_FALSE(r.layers.empty());
    EXPECT_EQ(r.settings["model"], "gcn");
    EXPECT_EQ(r.result["epochs_done"], 2);
    EXPECT_EQ(r.model, "gcn");
    try {
        load_run_report(runs, id + 5);
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("no run " + std::to_string(id + 5)), std::string::npos);
    }
}

TEST_F(TuneStoreTest, ARunWhoseResultHasDamagedFinalFiguresIsAnErrorNamingProjectAndRun)
{
    // The report failed later with "an epoch's figures cannot be read: key 'test' not found",
    // naming neither the project, the run nor the result's "best".
    const std::int64_t id = train_run();
    Raw(path_).exec(R"(UPDATE runs SET result_json = '{"best":{"train":{},"val":{}},"last":null}')"
                    " WHERE id = " + std::to_string(id));
    const RunStore runs = RunStore::open(path_, OpenMode::ReadOnly);
    try {
        (void)load_run_report(runs, id);
        FAIL() << "a damaged result_json 'best' must be refused";
    } catch (const gsr::Error& e) {
        EXPECT_EQ(e.where().file, path_);
        EXPECT_EQ(e.message(), "run " + std::to_string(id) +
                                   ", result_json \"best\": an epoch's figures cannot be read: "
                                   "key 'test' not found");
    }
    // A result whose figures are null (a run without a best epoch) is read.
    Raw(path_).exec(R"(UPDATE runs SET result_json = '{"best":null,"last":null}' WHERE id = )" +
                    std::to_string(id));
    EXPECT_TRUE(load_run_report(runs, id).result["best"].is_null());
}

TEST_F(TuneStoreTest, TheCalibrationIsKeptAndADamagedOneIsAnErrorNamingTheProject)
{
    auto project = ProjectStore::open(path_, OpenMode::CreateOrOpen);
    EXPECT_FALSE(stored_calibration(project).has_value());
    gsr::sol::Calibration c;
    c.device_name = "NVIDIA H100 80GB HBM3";
    c.date = "2026-11-29T10:00:00Z";
    c.copy_bandwidth = 2.9e12;
    c.gemm_rate = 5.1e13;
    c.fp32_fma_rate = 5.9e13;
    store_calibration(project, c);
    const auto back = stored_calibration(ProjectStore::open(path_, OpenMode::ReadOnly));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->device_name, c.device_name);
    EXPECT_EQ(back->date, c.date);
    EXPECT_DOUBLE_EQ(back->copy_bandwidth, 2.9e12);
    EXPECT_DOUBLE_EQ(back->gemm_rate, 5.1e13);
    EXPECT_DOUBLE_EQ(back->fp32_fma_rate, 5.9e13);
    EXPECT_EQ(back->source, path_); // errors about its peaks name the project

    // Peaks past the row of its GPU (an H100 SXM copies at 3.35 TB/s at most) are refused
    // where the calibration is read, naming the project.
    c.copy_bandwidth = 6e12;
    store_calibration(project, c);
    try {
        stored_calibration(project);
        FAIL() << "an implausible copy bandwidth";
    } catch (const gsr::Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path_), std::string::npos) << what;
        EXPECT_NE(what.find("copy_bandwidth"), std::string::npos) << what;
    }

    for (const char* bad : {"{\"device_name\": ", "{\"date\": \"2026\"}"}) {
        project.set_project_value("calibration", bad);
        try {
            stored_calibration(project);
            FAIL() << bad;
        } catch (const gsr::Error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(path_), std::string::npos) << what;
            EXPECT_NE(what.find("gsr kernels calibrate --project"), std::string::npos) << what;
        }
    }
}
