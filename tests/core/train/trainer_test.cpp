// The training loop: learning, batching, early stopping, cancel, and resume from a checkpoint
// giving the same result as a run that was never interrupted.
#include "train_fixtures.hpp"

#include "train/trainer.hpp"

#include "nn/backend.hpp"
#include "nn/gpu_runtime.hpp"
#include "nn/model.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace gsr::train;
using gsr::train::testing::level_dataset;

namespace {

/// c432 trained on (with 20 % of its nodes held out for validation), c17 tested on.
const Dataset& small_dataset()
{
    static const Dataset d = level_dataset({"c432"}, HoldOut{0.2, 0.0, 3});
    return d;
}

TrainConfig small_config(gsr::nn::ModelKind kind = gsr::nn::ModelKind::Gcn)
{
    TrainConfig c;
    c.model.kind = kind;
    c.model.layers = kind == gsr::nn::ModelKind::Gcn ? 2 : 4;
    c.model.hidden = 16;
    c.model.groups = 2;
    c.model.topk = 4;
    c.model.threads = 1;
    c.model.seed = 11;
    c.adam.learning_rate = 1e-2;
    c.epochs = 6;
    c.patience = 0;
    c.seed = 5;
    return c;
}

} // namespace

TEST(Trainer, LearnsAndReportsEveryEpoch)
{
    MemoryRunLog log;
    Trainer trainer(small_dataset(), small_config());
    std::size_t epochs_seen = 0;
    TrainCallbacks cb;
    cb.epoch = [&](const EpochReport&) { ++epochs_seen; };
    const TrainResult r = trainer.run(log, cb);
    EXPECT_EQ(r.status, TrainResult::Status::Finished);
    EXPECT_EQ(r.epochs_done, 6u);
    EXPECT_EQ(epochs_seen, 6u);
    ASSERT_EQ(log.epochs().size(), 6u);
    EXPECT_LT(log.epochs().back().train_loss, log.epochs().front().train_loss);
    const EpochReport& last = log.epochs().back();
    EXPECT_EQ(last.test.metrics.count, 11u); // every c17 node
    EXPECT_EQ(last.validation.metrics.count, small_dataset().node_count(Split::Validation));
    EXPECT_TRUE(last.validation.metrics.pearson.defined());
    EXPECT_GT(last.validation.metrics.pearson.value, 0.3);
    ASSERT_TRUE(r.best);
    EXPECT_EQ(log.status(), "finished");
    EXPECT_EQ(log.result()["epochs_done"], 6);
    // Memory: per layer from the engine's model, and the arena's measured peak.
    EXPECT_FALSE(r.memory.layers.empty());
    EXPECT_GT(r.memory.measured_peak_bytes, 0u);
    EXPECT_LE(r.memory.measured_peak_bytes, r.memory.analytic_peak_bytes);
    // c17, bound last, is far smaller than c432: the peak is the run's, not the last binding's.
    EXPECT_GT(r.memory.measured_peak_bytes, r.memory.analytic_peak_bytes / 2);
    EXPECT_EQ(log.memory().layers.size(), r.memory.layers.size());
    // Measured per layer too (encoder, the layers, head), the row-wise high-water over every
    // circuit bound: the largest's stored activations, as the analytic model has them.
    ASSERT_EQ(r.memory.measured_layers.size(), r.memory.layers.size());
    for (std::size_t i = 0; i < r.memory.layers.size(); ++i) {
        EXPECT_EQ(r.memory.measured_layers[i].name, r.memory.layers[i].name);
        EXPECT_EQ(r.memory.measured_layers[i].parameter_bytes, r.memory.layers[i].parameter_bytes);
        EXPECT_EQ(r.memory.measured_layers[i].activation_bytes,
                  r.memory.layers[i].activation_bytes)
            << r.memory.layers[i].name;
    }
    // Predictions come back in the target's units: levels, not standardised values.
    const std::vector<double> p = trainer.predict(0);
    EXPECT_EQ(p.size(), small_dataset().circuits[0].input.node_count);
}

TEST(Trainer, AnalyticMemoryIsTheLargestOverTheCircuitsAsTheMeasuredIs)
{
    // s1238 has the most nodes and edges together (540 + 1059), s1196 the most nodes (561):
    // the analytic figures were s1238's alone and fell short of the arena's high-water mark,
    // which covers every circuit bound. Now both are the largest over the circuits.
    using gsr::train::testing::netlist_path;
    const Dataset d = load_dataset(Target::Level,
                                   {netlist_path("iscas89/bench/s1238.bench"),
                                    netlist_path("iscas89/bench/s1196.bench")},
                                   {}, {netlist_path("iscas85/bench/c17.bench")},
                                   HoldOut{0.2, 0.0, 3});
    for (gsr::nn::ModelKind kind : {gsr::nn::ModelKind::Gcn, gsr::nn::ModelKind::Gsr}) {
        TrainConfig c = small_config(kind);
        c.epochs = 1;
        MemoryRunLog log;
        const TrainResult r = Trainer(d, c).run(log);
        EXPECT_EQ(r.memory.measured_peak_bytes, r.memory.analytic_peak_bytes)
            << gsr::nn::model_kind_name(kind);
        ASSERT_EQ(r.memory.measured_layers.size(), r.memory.layers.size());
        for (std::size_t i = 0; i < r.memory.layers.size(); ++i)
            EXPECT_EQ(r.memory.measured_layers[i].activation_bytes,
                      r.memory.layers[i].activation_bytes)
                << r.memory.layers[i].name;
    }
}

TEST(Trainer, EvaluationLossMatchesTheEngines)
{
    // The trainer computes split losses from one prediction per circuit; they must be the
    // engine's own loss (nn::Model::evaluate) on the same nodes.
    const Dataset& d = small_dataset();
    const TrainConfig c = small_config();
    gsr::nn::Model model(c.model, d.feature_count, c.adam);
    const CircuitData& circuit = d.circuits[0];
    model.bind_graph(circuit.input);
    std::vector<float> t(circuit.target.size());
    for (std::size_t v = 0; v < t.size(); ++v)
        t[v] = static_cast<float>((circuit.target[v] - d.target_mean) / d.target_scale);
    const std::vector<std::uint32_t> nodes = circuit.nodes(Split::Validation);
    const std::vector<float> p = model.predict();
    double sum = 0;
    for (std::uint32_t v : nodes) sum += (double(p[v]) - t[v]) * (double(p[v]) - t[v]);
    EXPECT_NEAR(sum / nodes.size(),
                model.evaluate(nodes, t, gsr::nn::LossKind::MeanSquaredError), 1e-9);
}

TEST(Trainer, RandomBatchesTakeSeveralStepsPerEpoch)
{
    TrainConfig c = small_config();
    c.batch_size = 40;
    c.epochs = 2;
    MemoryRunLog log;
    std::size_t steps = 0, last_total = 0;
    TrainCallbacks cb;
    cb.progress = [&](const Progress& p) {
        if (p.phase == Progress::Phase::Training) {
            ++steps;
            last_total = p.steps;
        }
    };
    Trainer(small_dataset(), c).run(log, cb);
    const std::size_t n = small_dataset().node_count(Split::Train);
    EXPECT_EQ(last_total, (n + 39) / 40);
    EXPECT_EQ(steps, 2 * last_total);
}

TEST(Trainer, BatchesCoverEveryTrainingNodeOnce)
{
    const Dataset& d = small_dataset();
    SeededStream s(9);
    RandomNodeBatcher b(25);
    std::vector<int> seen(d.circuits[0].input.node_count, 0);
    for (const Batch& batch : b.epoch_batches(d, s)) {
        EXPECT_LE(batch.node_count(), 25u);
        for (const BatchPart& part : batch.parts)
            for (std::uint32_t v : part.nodes) ++seen[v];
    }
    for (std::size_t v = 0; v < seen.size(); ++v)
        EXPECT_EQ(seen[v], d.circuits[0].split[v] == Split::Train ? 1 : 0);
}

TEST(Trainer, StopsEarlyWhenValidationStopsImproving)
{
    TrainConfig c = small_config();
    c.patience = 1;
    c.min_delta = 1e9; // only the first epoch counts as an improvement
    MemoryRunLog log;
    const TrainResult r = Trainer(small_dataset(), c).run(log);
    EXPECT_EQ(r.status, TrainResult::Status::StoppedEarly);
    EXPECT_EQ(r.epochs_done, 2u);
    ASSERT_TRUE(r.best);
    EXPECT_EQ(r.best->epoch, 1u);
    EXPECT_EQ(log.status(), "stopped early");
}

namespace {

/// Callbacks that cancel the run at step `step` of epoch `epoch` (the flag outlives them).
TrainCallbacks cancel_at(std::atomic<bool>& cancel, std::uint32_t epoch, std::size_t step)
{
    TrainCallbacks cb;
    cb.cancel = &cancel;
    cb.progress = [&cancel, epoch, step](const Progress& p) {
        if (p.epoch == epoch && p.step == step) cancel = true;
    };
    return cb;
}

/// The MAE of the trainer's predictions over circuit 0's validation nodes.
double validation_mae(Trainer& trainer)
{
    const CircuitData& c = small_dataset().circuits[0];
    const std::vector<double> p = trainer.predict(0);
    std::vector<double> predicted, target;
    for (std::uint32_t v : c.nodes(Split::Validation)) {
        predicted.push_back(p[v]);
        target.push_back(c.target[v]);
    }
    return evaluate(predicted, target).mae;
}

/// A MemoryRunLog that has lost every checkpoint but the last (or fails to read any other).
class ForgetfulRunLog final : public RunLog {
public:
    void begin(const gsr::nn::MemoryReport& m) override { inner.begin(m); }
    void epoch_done(const EpochReport& r, const Checkpoint& ck) override { inner.epoch_done(r, ck); }
    std::optional<Checkpoint> last_checkpoint() override { return inner.last_checkpoint(); }
    std::optional<Checkpoint> checkpoint_of(std::uint32_t) override
    {
        if (fail) throw std::runtime_error("the device went away");
        return std::nullopt;
    }
    void end(const std::string& s, const nlohmann::json& j) override { inner.end(s, j); }
    MemoryRunLog inner;
    bool fail = false;
};

} // namespace

TEST(Trainer, ARunEndsWithTheBestEpochsWeights)
{
    TrainConfig c = small_config();
    c.patience = 2;
    c.min_delta = 1e9; // only the first epoch counts as an improvement
    MemoryRunLog log;
    Trainer trainer(small_dataset(), c);
    const TrainResult r = trainer.run(log);
    ASSERT_EQ(r.status, TrainResult::Status::StoppedEarly);
    ASSERT_EQ(r.epochs_done, 3u);
    ASSERT_TRUE(r.best && r.last);
    EXPECT_EQ(r.best->epoch, 1u);
    EXPECT_EQ(r.model_epoch, 1u);
    EXPECT_EQ(log.result()["model_epoch"], 1);
    // predict() gives what the best epoch's figures describe, not the last epoch's.
    const double mae = validation_mae(trainer);
    EXPECT_NEAR(mae, r.best->validation.metrics.mae, 1e-12 * (1 + mae));
    EXPECT_GT(std::abs(r.last->validation.metrics.mae - r.best->validation.metrics.mae), 1e-6);

    // A log without the best epoch's checkpoint: the last weights, and model_epoch says so.
    ForgetfulRunLog forgetful;
    Trainer again(small_dataset(), c);
    const TrainResult f = again.run(forgetful);
    EXPECT_EQ(f.model_epoch, 3u);
    const double last_mae = validation_mae(again);
    EXPECT_NEAR(last_mae, f.last->validation.metrics.mae, 1e-12 * (1 + last_mae));

    // A failure while reading the best back (not the project's error: a device's) fails
    // nothing: the run is recorded as it ended, with the last epoch's weights.
    ForgetfulRunLog failing;
    failing.fail = true;
    const TrainResult g = Trainer(small_dataset(), c).run(failing);
    EXPECT_EQ(g.status, TrainResult::Status::StoppedEarly);
    EXPECT_EQ(g.model_epoch, 3u);
    EXPECT_EQ(failing.inner.status(), "stopped early");

    // Cancelled within epoch 3 with the best epoch's checkpoint gone: the weights are those of
    // no epoch, so the last checkpoint's (epoch 2) are loaded.
    ForgetfulRunLog cancelled;
    std::atomic<bool> cancel{false};
    TrainConfig batched = c;
    batched.batch_size = 64; // several steps per epoch
    Trainer third(small_dataset(), batched);
    const TrainResult h = third.run(cancelled, cancel_at(cancel, 3, 1));
    ASSERT_EQ(h.status, TrainResult::Status::Cancelled);
    ASSERT_EQ(h.epochs_done, 2u);
    EXPECT_EQ(h.model_epoch, 2u);
    const double second_mae = validation_mae(third);
    EXPECT_NEAR(second_mae, h.last->validation.metrics.mae, 1e-12 * (1 + second_mae));
}

TEST(Trainer, AResumedRunEndsWithTheBestEpochsWeightsToo)
{
    TrainConfig c = small_config();
    c.epochs = 4;
    c.patience = 0;
    c.min_delta = 1e9; // the best epoch is 1, long before the interruption
    MemoryRunLog straight;
    Trainer a(small_dataset(), c);
    const TrainResult ra = a.run(straight);
    ASSERT_EQ(ra.model_epoch, 1u);

    MemoryRunLog interrupted;
    std::atomic<bool> cancel{false};
    Trainer first(small_dataset(), c);
    const TrainResult rf = first.run(interrupted, cancel_at(cancel, 3, 1));
    ASSERT_EQ(rf.status, TrainResult::Status::Cancelled);
    EXPECT_EQ(rf.model_epoch, 1u); // a cancelled run ends with the best weights as well
    Trainer b(small_dataset(), c);
    const TrainResult rb = b.run(interrupted, {}, true);
    EXPECT_EQ(rb.first_epoch, 3u);
    EXPECT_EQ(rb.model_epoch, 1u);
    EXPECT_EQ(b.predict(0), a.predict(0));
    EXPECT_EQ(first.predict(0), a.predict(0));
}

TEST(Trainer, CancelStopsWithinAnEpoch)
{
    TrainConfig c = small_config();
    c.batch_size = 10; // many steps per epoch
    std::atomic<bool> cancel{false};
    std::size_t steps_after = 0;
    TrainCallbacks cb;
    cb.cancel = &cancel;
    cb.progress = [&](const Progress& p) {
        if (cancel) ++steps_after;
        if (p.epoch == 2 && p.step == 3) cancel = true;
    };
    MemoryRunLog log;
    const TrainResult r = Trainer(small_dataset(), c).run(log, cb);
    EXPECT_EQ(r.status, TrainResult::Status::Cancelled);
    EXPECT_EQ(steps_after, 0u); // the next step never started
    EXPECT_EQ(r.epochs_done, 1u);
    EXPECT_EQ(log.epochs().size(), 1u); // the epoch in progress is lost, no more
    EXPECT_EQ(log.last_checkpoint()->epoch, 1u);
    EXPECT_EQ(log.status(), "cancelled");
}

TEST(Trainer, AResumedRunEndsExactlyWhereAnUninterruptedOneDoes)
{
    // Reversible blocks with dropout and random batches: weights, Adam moments, the dropout
    // stream and the batch stream must all come back from the checkpoint.
    TrainConfig c = small_config(gsr::nn::ModelKind::Gsr);
    c.model.dropout = 0.1;
    c.batch_size = 64;
    c.epochs = 5;
    c.patience = 3;
    c.warmup_steps = 12; // the ramp goes on across the interruption

    MemoryRunLog straight;
    const TrainResult a = Trainer(small_dataset(), c).run(straight);

    MemoryRunLog interrupted;
    std::atomic<bool> cancel{false};
    const TrainResult first =
        Trainer(small_dataset(), c).run(interrupted, cancel_at(cancel, 3, 1));
    ASSERT_EQ(first.status, TrainResult::Status::Cancelled);
    ASSERT_EQ(interrupted.last_checkpoint()->epoch, 2u);

    const TrainResult b = Trainer(small_dataset(), c).run(interrupted, {}, true);
    EXPECT_EQ(b.first_epoch, 3u);
    EXPECT_EQ(b.epochs_done, a.epochs_done);
    ASSERT_EQ(interrupted.epochs().size(), straight.epochs().size());
    for (std::size_t e = 0; e < straight.epochs().size(); ++e) {
        EXPECT_EQ(interrupted.epochs()[e].train_loss, straight.epochs()[e].train_loss) << e;
        EXPECT_EQ(interrupted.epochs()[e].validation.loss, straight.epochs()[e].validation.loss);
    }
    ASSERT_TRUE(a.best && b.best);
    EXPECT_EQ(b.best->epoch, a.best->epoch);
    EXPECT_EQ(b.last->test.metrics.rmse, a.last->test.metrics.rmse);
}

TEST(Trainer, WarmupRampsTheLearningRateOverTheFirstSteps)
{
    // Full-graph batches: one step per epoch. With a warm-up of 4 steps the first step is a
    // step at a quarter of the rate, bit for bit; the second (half the rate) is no longer
    // what the full rate gives.
    const auto run = [](double lr, std::uint32_t warmup, std::uint32_t epochs) {
        TrainConfig c = small_config(gsr::nn::ModelKind::Rev);
        c.adam.learning_rate = lr;
        c.warmup_steps = warmup;
        c.epochs = epochs;
        MemoryRunLog log;
        Trainer(small_dataset(), c).run(log);
        std::vector<double> losses;
        for (const EpochReport& e : log.epochs()) losses.push_back(e.validation.loss);
        return losses;
    };
    const double lr = small_config().adam.learning_rate;
    const auto ramp = run(lr, 4, 2), quarter = run(lr / 4, 0, 1), full = run(lr, 0, 2);
    ASSERT_EQ(ramp.size(), 2u);
    EXPECT_EQ(ramp[0], quarter[0]);
    EXPECT_NE(ramp[0], full[0]);
    EXPECT_NE(ramp[1], full[1]);
}

TEST(Trainer, ResumeRefusesOtherSettings)
{
    TrainConfig c = small_config();
    c.epochs = 1;
    MemoryRunLog log;
    Trainer(small_dataset(), c).run(log);
    c.model.hidden = 32;
    c.epochs = 2;
    try {
        Trainer(small_dataset(), c).run(log, {}, true);
        FAIL();
    } catch (const gsr::Error& e) {
        EXPECT_NE(e.message().find("hidden was 16, is 32"), std::string::npos) << e.message();
    }
}

TEST(Trainer, ImpossibleConfigurationsNameTheFlag)
{
    auto message = [](TrainConfig c, Target t = Target::Level) {
        try {
            validate(c, t);
        } catch (const gsr::Error& e) {
            return e.message();
        }
        return std::string();
    };
    TrainConfig c = small_config();
    c.epochs = 0;
    EXPECT_NE(message(c).find("--epochs"), std::string::npos);
    c = small_config();
    c.adam.learning_rate = -1;
    EXPECT_NE(message(c).find("--lr"), std::string::npos);
    c = small_config();
    c.loss = gsr::nn::LossKind::BinaryCrossEntropyWithLogits;
    EXPECT_NE(message(c, Target::Arrival).find("--loss bce"), std::string::npos);
    EXPECT_EQ(message(c, Target::SignalProbability), "");
    c = small_config(gsr::nn::ModelKind::Gsr);
    c.model.topk = 99;
    EXPECT_NE(message(c).find("--topk"), std::string::npos);
}

TEST(Trainer, ADivergedRunSaysSoInsteadOfFailingInTheMetrics)
{
    // A learning rate of 1e12 sends the outputs to inf or NaN: the run failed with "metrics: NaN
    // at position 0", which named neither the epoch nor the cause.
    TrainConfig c = small_config();
    c.adam.learning_rate = 1e12;
    MemoryRunLog log;
    Trainer trainer(small_dataset(), c);
    try {
        trainer.run(log);
        FAIL() << "a learning rate of 1e12 trained";
    } catch (const gsr::Error& e) {
        const std::string m = e.message();
        EXPECT_EQ(m.rfind("epoch ", 0), 0u) << m;
        EXPECT_NE(m.find(": training diverged (the model's predictions are not finite): lower "
                         "the learning rate (--lr)"),
                  std::string::npos)
            << m;
    }
}

TEST(Trainer, DeviceChoice)
{
    EXPECT_EQ(choose_device("cpu").device, "cpu");
    EXPECT_TRUE(choose_device("cpu").note.empty());
    EXPECT_EQ(choose_device("auto").device, "cpu");
    EXPECT_NE(choose_device("auto").note.find("CPU"), std::string::npos);
    EXPECT_THROW(choose_device("gpu"), gsr::Error);
    EXPECT_THROW(choose_device("tpu"), gsr::Error);
}

TEST(Trainer, AModelWiderThanTheGpuBackendTakesTrainsOnTheCpu)
{
    // A GPU whose backend takes --hidden up to 1024: a wider model stopped in its first step
    // with an internal shape error; auto now trains it on the CPU and says why.
    gsr::nn::GpuRuntime fake;
    fake.probe = [] {
        gsr::nn::GpuStatus s;
        s.available = true;
        s.name = "Test GPU";
        s.max_hidden = 1024;
        return s;
    };
    const gsr::nn::GpuRuntime before = gsr::nn::install_gpu_runtime(fake);
    const DeviceChoice fits = choose_device("auto", 1024);
    const DeviceChoice wide = choose_device("auto", 2048);
    const DeviceChoice unknown = choose_device("gpu"); // the width not yet known
    std::string refused;
    try {
        choose_device("gpu", 2048);
    } catch (const gsr::Error& e) {
        refused = e.message();
    }
    gsr::nn::install_gpu_runtime(before);
    EXPECT_EQ(fits.device, "gpu");
    EXPECT_EQ(fits.name, "Test GPU");
    EXPECT_TRUE(fits.note.empty());
    EXPECT_EQ(unknown.device, "gpu");
    EXPECT_EQ(wide.device, "cpu");
    EXPECT_EQ(wide.note, "no GPU used: the GPU backend takes --hidden up to 1024, this model has "
                         "2048; training on the CPU");
    EXPECT_EQ(refused, "--device gpu: the GPU backend takes --hidden up to 1024, this model has "
                       "2048; use --device cpu or auto");
}

TEST(Trainer, EpochReportJsonRoundTrips)
{
    EpochReport r;
    r.epoch = 4;
    r.train_loss = 0.125;
    r.validation.loss = 0.5;
    r.validation.metrics.count = 3;
    r.validation.metrics.pearson.value = 0.75;
    r.test.metrics.kendall.undefined = "the target has no variance (every value is 1)";
    const nlohmann::json j = epoch_report_json(r);
    EXPECT_TRUE(j["train"]["loss"].is_null());
    EXPECT_EQ(j["test"]["undefined"], r.test.metrics.kendall.undefined);
    const EpochReport back = epoch_report_from_json(j);
    EXPECT_EQ(back.epoch, 4u);
    EXPECT_EQ(back.train_loss, 0.125);
    EXPECT_EQ(back.validation.metrics.pearson.value, 0.75);
    // A correlation with a value reads back as defined (no left-over "not computed").
    EXPECT_TRUE(back.validation.metrics.pearson.defined());
    EXPECT_EQ(back.test.metrics.kendall.undefined, r.test.metrics.kendall.undefined);
    EXPECT_TRUE(std::isnan(back.train.loss));
}

namespace {

/// A stand-in for a community batcher: the training nodes in halves, low ids first.
class HalvesBatcher final : public Batcher {
public:
    std::vector<Batch> epoch_batches(const Dataset& data, SeededStream& random) override
    {
        random.next(); // draws like a real one, so the stream is checkpointed with meaning
        std::vector<std::uint32_t> nodes = data.circuits[0].nodes(Split::Train);
        const std::size_t half = nodes.size() / 2;
        Batch a, b;
        a.parts.push_back({0, {nodes.begin(), nodes.begin() + half}});
        b.parts.push_back({0, {nodes.begin() + half, nodes.end()}});
        ++epochs;
        return {a, b};
    }
    std::string name() const override { return "halves"; }
    int epochs = 0;
};

} // namespace

TEST(Trainer, AnotherBatcherPlugsIn)
{
    TrainConfig c = small_config();
    c.epochs = 3;
    Trainer trainer(small_dataset(), c);
    auto batcher = std::make_unique<HalvesBatcher>();
    HalvesBatcher* seen = batcher.get();
    trainer.set_batcher(std::move(batcher));
    std::size_t steps = 0;
    TrainCallbacks cb;
    cb.progress = [&](const Progress& p) { steps += p.phase == Progress::Phase::Training; };
    MemoryRunLog log;
    trainer.run(log, cb);
    EXPECT_EQ(seen->epochs, 3);
    EXPECT_EQ(steps, 6u);
    // Its checkpoints cannot be resumed with the default batcher.
    c.epochs = 4;
    EXPECT_THROW(Trainer(small_dataset(), c).run(log, {}, true), gsr::Error);
}
