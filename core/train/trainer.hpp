#pragma once
// Training a GNN (core/nn) on a Dataset: epochs of optimiser steps over the batches a Batcher
// draws, metrics on the train/val/test nodes after every epoch, early stopping on the
// validation loss, a checkpoint after every epoch, resume from the last one.
//
// Steps: each part of a batch runs on its whole circuit with the loss on its nodes, or, when
// the batcher samples (Batcher::step_graph), forward and backward on the mini-batch subgraph
// only. Sampling draws from the same checkpointed stream as the batches.
//
// Units: the model learns the target scaled as (y - mean) / scale (Dataset::target_mean and
// target_scale) with the mean squared error, or the raw target in [0, 1] with binary cross-
// entropy on logits. Losses are in those learning units; metrics (MAE, RMSE, correlations) are
// in the target's own units.
//
// Resume: a checkpoint holds the model (parameters, Adam moments and step count, as
// nn::Model::save_state writes them), the trainer's state (early stopping, best epoch) and the
// batch stream's state, taken at the end of an epoch. A resumed run therefore continues exactly
// where the uninterrupted one would be; an interrupted run loses at most the epoch in progress.
//
// The best epoch: a run ends (finished, stopped early or cancelled) with the weights of the
// epoch of the lowest validation loss, read back from its checkpoint, so predict() gives what
// the best epoch's figures describe.
//
// Threads: run() blocks. A GUI runs it on a worker thread, watches it through the callbacks
// (called on that thread) and stops it with the cancel flag, checked before every step and
// between the circuits of an evaluation.
//
// Contents: TrainConfig, SplitResult, EpochReport, Progress, Checkpoint, RunLog, MemoryRunLog,
// TrainResult, Trainer, device choice. JSON of the results: train/report_json.hpp.
#include "nn/memory_model.hpp"
#include "nn/model_config.hpp"
#include "nn/tuned_kernel.hpp"
#include "train/batcher.hpp"
#include "train/dataset.hpp"
#include "train/metrics.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::train {

/// The most epochs a run may ask for (and so the largest epoch a checkpoint can hold).
inline constexpr std::uint32_t kMaxEpochs = 1u << 24;

struct TrainConfig {
    nn::ModelConfig model;
    nn::AdamConfig adam;
    /// Adam's learning rate rises linearly over the first this many steps (step s of them
    /// uses s / warmup_steps of adam.learning_rate); 0: the full rate from the first step.
    /// Deep stacks take their first steps without the jolt that a full-rate Adam step gives.
    std::uint32_t warmup_steps = 0;
    nn::LossKind loss = nn::LossKind::MeanSquaredError;
    std::uint32_t epochs = 100;
    /// Stop after this many epochs without a better validation loss; 0: never stop early.
    std::uint32_t patience = 10;
    /// An improvement must lower the best validation loss by more than this.
    double min_delta = 0.0;
    /// Training nodes per step; 0: the full graph (one step per epoch).
    std::size_t batch_size = 0;
    /// The batch stream (the model's weights and dropout come from model.seed).
    std::uint64_t seed = 1;
    /// "cpu" or "gpu" (what choose_device() decided): the backend the model runs on.
    std::string device = "cpu";
    /// Generated kernels the GPU backend runs instead of its own (the kernel lab's Apply,
    /// tune/applied_kernels.hpp). Not a setting of the run: the results do not depend on it
    /// beyond float rounding.
    std::vector<nn::TunedKernel> tuned_kernels;
};

/// Throws gsr::Error naming the flag at fault (--epochs, --lr, --batch, --model, ...).
void validate(const TrainConfig& config, Target target);

/// Loss and metrics of one split, over all its circuits' nodes together.
struct SplitResult {
    double loss = kUndefined; ///< NaN when the split has no nodes
    Metrics metrics;
};

struct EpochReport {
    std::uint32_t epoch = 0;  ///< 1-based
    double train_loss = kUndefined; ///< mean of the epoch's step losses (training mode)
    SplitResult train, validation, test; ///< eval mode, after the epoch's last step
    double seconds = 0;       ///< wall time of the epoch, evaluation included
    double train_seconds = 0; ///< of which drawing the batches and the optimiser steps
    /// Nodes of the graphs the steps ran on, summed over the steps (whole circuits for steps
    /// without a subgraph). Not recorded in checkpoints.
    std::size_t step_nodes = 0;
    bool improved = false;    ///< the best validation loss so far
};

/// Where the trainer is, for a progress bar.
struct Progress {
    enum class Phase : std::uint8_t { Training, Evaluating };
    Phase phase = Phase::Training;
    std::uint32_t epoch = 1, epochs = 1;
    std::size_t step = 0, steps = 0; ///< steps done of this epoch / circuits evaluated
    double loss = kUndefined;        ///< the latest step's loss
};

struct Checkpoint {
    std::uint32_t epoch = 0;             ///< the last finished epoch
    std::vector<std::uint8_t> model;     ///< nn::Model::save_state: parameters, Adam, step
    std::vector<std::uint8_t> optimizer; ///< trainer state: early stopping, best epoch report
    std::vector<std::uint8_t> rng;       ///< the batch stream's state
};

/// Where a run's history goes. The store's implementation (store/run_store.hpp) writes each
/// call in one transaction; MemoryRunLog keeps it in memory.
class RunLog {
public:
    virtual ~RunLog() = default;
    /// Once, before the first epoch of this session (again on resume).
    virtual void begin(const nn::MemoryReport& memory) = 0;
    /// A finished epoch and the checkpoint taken after it, together: a run that resumes starts
    /// after the last epoch recorded.
    virtual void epoch_done(const EpochReport& report, const Checkpoint& checkpoint) = 0;
    /// The checkpoint to resume from, if any.
    virtual std::optional<Checkpoint> last_checkpoint() = 0;
    /// The checkpoint of that epoch, if the log holds it. A log holds at least the last
    /// epoch's and the one of the latest epoch reported `improved` (the best): the trainer
    /// reads the best epoch's model back from it at the end of a run.
    virtual std::optional<Checkpoint> checkpoint_of(std::uint32_t epoch) = 0;
    /// At the end: "finished", "stopped early", "cancelled" or "failed", with the result JSON.
    virtual void end(const std::string& status, const nlohmann::json& result) = 0;
};

class MemoryRunLog final : public RunLog {
public:
    void begin(const nn::MemoryReport& memory) override { memory_ = memory; }
    void epoch_done(const EpochReport& report, const Checkpoint& checkpoint) override
    {
        epochs_.push_back(report);
        checkpoint_ = checkpoint;
        if (report.improved) best_ = checkpoint;
    }
    std::optional<Checkpoint> last_checkpoint() override { return checkpoint_; }
    std::optional<Checkpoint> checkpoint_of(std::uint32_t epoch) override
    {
        if (checkpoint_ && checkpoint_->epoch == epoch) return checkpoint_;
        if (best_ && best_->epoch == epoch) return best_;
        return std::nullopt;
    }
    void end(const std::string& status, const nlohmann::json& result) override
    {
        status_ = status;
        result_ = result;
    }

    const std::vector<EpochReport>& epochs() const { return epochs_; }
    const nn::MemoryReport& memory() const { return memory_; }
    const std::string& status() const { return status_; }
    const nlohmann::json& result() const { return result_; }

private:
    nn::MemoryReport memory_;
    std::vector<EpochReport> epochs_;
    std::optional<Checkpoint> checkpoint_, best_;
    std::string status_;
    nlohmann::json result_;
};

struct TrainResult {
    enum class Status : std::uint8_t { Finished, StoppedEarly, Cancelled };
    Status status = Status::Finished;
    std::uint32_t first_epoch = 1; ///< > 1 when resumed
    std::uint32_t epochs_done = 0; ///< the last finished epoch
    std::optional<EpochReport> best; ///< the epoch with the lowest validation loss
    std::optional<EpochReport> last;
    /// The epoch whose weights the model holds after run(), which predict() uses: the best
    /// epoch's, read back from the log's checkpoint (the run's last weights when the log no
    /// longer holds it); 0 when they are those of no finished epoch (cancelled in the first).
    std::uint32_t model_epoch = 0;
    /// Analytic, on the largest circuit; measured_peak_bytes: the arena's high-water mark
    /// over every circuit of this session.
    nn::MemoryReport memory;
    std::size_t parameter_count = 0;
    /// What the backend said about config.tuned_kernels, one line each.
    std::vector<std::string> kernel_notes;
    /// Launches of tuned kernels during the run.
    std::uint64_t tuned_launches = 0;
};

std::string_view status_name(TrainResult::Status status); ///< "finished", "stopped early", ...

struct TrainCallbacks {
    std::function<void(const Progress&)> progress;     ///< after every step and evaluation
    std::function<void(const EpochReport&)> epoch;     ///< after every epoch
    const std::atomic<bool>* cancel = nullptr;         ///< set to stop; checked before each step
};

class Trainer {
public:
    /// Checks the configuration against the data (gsr::Error naming the flag). `data` must
    /// outlive the trainer.
    Trainer(const Dataset& data, const TrainConfig& config);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// Replaces the batcher that config.batch_size chose (a COMM-RAND batcher, say). Its
    /// name() and settings() are part of the settings a checkpoint must match. Throws
    /// gsr::Error naming the flag when it cannot train this model (Batcher::check).
    void set_batcher(std::unique_ptr<Batcher> batcher);

    /// Trains; with `resume`, continues from log.last_checkpoint() when there is one (the
    /// checkpoint must come from the same configuration: gsr::Error otherwise).
    TrainResult run(RunLog& log, const TrainCallbacks& callbacks = {}, bool resume = false);

    /// Predictions for every node of data.circuits[circuit], in the target's units, by the
    /// model of TrainResult::model_epoch (after run).
    std::vector<double> predict(std::size_t circuit);

private:
    struct State;
    /// Loads the best epoch's weights from its checkpoint in `log`, where it can.
    void restore_best(RunLog& log);
    const Dataset& data_;
    TrainConfig config_;
    std::unique_ptr<Batcher> batcher_;
    std::unique_ptr<State> state_;
};

/// Which backend runs a model. `asked` is "auto", "cpu" or "gpu": auto takes the GPU when the
/// build has the CUDA backend and the machine a usable GPU, and otherwise says why it falls
/// back to the CPU; gpu without a usable GPU is an error that says why.
struct DeviceChoice {
    std::string device; ///< "cpu" or "gpu"
    std::string name;   ///< "CPU" or the GPU's name
    std::string note;   ///< why, when it is not what was asked for; empty otherwise
};
/// Throws gsr::Error naming --device when the device is unknown or cannot be used. With
/// `hidden` (the model's width, once known) a GPU whose backend takes no model that wide is
/// an error for "gpu" and the CPU, with a note, for "auto".
DeviceChoice choose_device(std::string_view asked, std::uint32_t hidden = 0);

} // namespace gsr::train
