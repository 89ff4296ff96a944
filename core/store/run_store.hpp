#pragma once
// Training runs in the project store: the runs, their epochs, per-layer memory and checkpoints
// (tables of the "training runs" migration in project_store.cpp, the one place that knows the
// schema). Every write is one transaction. Like project_store.hpp, it includes no SQLite header
// and exists only where the build found SQLite (GSR_HAVE_STORE).
//
// Contents: RunRecord, RunEpochRecord, LayerMemoryRecord, CheckpointRecord, RunStore,
// StoreRunLog (the trainer's RunLog, written into a RunStore).
#include "store/project_store.hpp"
#include "train/trainer.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::store {

/// A row of `runs`. Timestamps are UTC "YYYY-MM-DDTHH:MM:SSZ", set by the store.
struct RunRecord {
    std::int64_t id = 0;
    std::string created_at;
    std::string updated_at;
    std::string config_json;   ///< the run's settings, enough to resume it
    std::string status;        ///< "created", "running", "finished", "stopped early", ...
    std::string device;        ///< "cpu", ...
    std::string target;        ///< "sp", "toggle", "level", "arrival"
    std::string model;         ///< "gcn", "sage", "res", "rev", "gsr"
    std::int64_t epochs_done = 0;
    std::int64_t best_epoch = 0;               ///< 0: none yet
    std::optional<double> best_val_loss;
    std::int64_t peak_bytes_analytic = 0;
    std::int64_t peak_bytes_measured = 0;      ///< 0: not measured (yet)
    std::string result_json;                   ///< the final result; empty while running
};

/// A row of `run_epochs`. NaN losses are stored as NULL and read back as NaN.
struct RunEpochRecord {
    std::int64_t run_id = 0;
    std::int64_t epoch = 0;
    double train_loss = 0;
    double val_loss = 0;
    std::string metrics_json;
    double seconds = 0;
};

/// A row of `run_layer_memory`, in bytes. `measured`: from the engine's arena rather than its
/// analytic model.
struct LayerMemoryRecord {
    std::int64_t layer = 0;
    std::string name;
    std::int64_t params = 0;
    std::int64_t grads = 0;
    std::int64_t optimizer = 0;
    std::int64_t activations = 0;
    std::int64_t workspace = 0;
    bool measured = false;

    bool operator==(const LayerMemoryRecord&) const = default;
};

/// A row of `checkpoints`.
struct CheckpointRecord {
    std::int64_t run_id = 0;
    std::int64_t epoch = 0;
    std::vector<std::uint8_t> model;
    std::vector<std::uint8_t> optimizer;
    std::vector<std::uint8_t> rng;
    std::string created_at;
};

/// The runs of one project file: its own connection beside any ProjectStore on the same file
/// (WAL lets a GUI read runs while a training writes them). Move-only, not thread-safe.
class RunStore {
public:
    /// How long a training waits for the write lock at each epoch: a database browser or a
    /// window that holds it for seconds must not end hours of training. Commands a user
    /// waits on keep ProjectStore's 5 s.
    static constexpr std::chrono::milliseconds kTrainingBusyTimeout{60000};

    /// Opens the project as ProjectStore::open does (creating it or upgrading its schema
    /// unless ReadOnly). Throws gsr::Error naming the file.
    static RunStore open(const std::string& path, OpenMode mode,
                         std::chrono::milliseconds busy_timeout =
                             ProjectStore::kDefaultBusyTimeout);

    RunStore(RunStore&&) noexcept;
    RunStore& operator=(RunStore&&) noexcept;
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;
    ~RunStore();

    const std::string& path() const;

    /// Adds a run (id and timestamps are set here; an empty status is "created").
    std::int64_t create_run(const RunRecord& run);
    std::optional<RunRecord> find_run(std::int64_t id) const;
    /// All runs, oldest first.
    std::vector<RunRecord> runs() const;
    void set_status(std::int64_t id, std::string_view status,
                    std::string_view result_json = {});
    /// Replaces the run's config_json (a resume's new epoch count).
    void set_config(std::int64_t id, std::string_view config_json);
    /// The final status, result and measured peak, in one statement.
    void finish_run(std::int64_t id, std::string_view status, std::string_view result_json,
                    std::int64_t peak_bytes_measured);
    /// Deletes the run with its epochs, memory rows and checkpoints; false if there was none.
    bool remove_run(std::int64_t id);
    /// Runs `body` as one write transaction (the store's own writes nest inside it).
    void write_transaction(const std::function<void()>& body);

    /// Replaces the run's memory rows.
    void set_layer_memory(std::int64_t run_id, const std::vector<LayerMemoryRecord>& rows,
                          std::int64_t peak_bytes_analytic, std::int64_t peak_bytes_measured);
    std::vector<LayerMemoryRecord> layer_memory(std::int64_t run_id) const;

    /// Records a finished epoch and its checkpoint in one transaction, updates the run's
    /// progress (epochs_done, best epoch when `improved`) and keeps only the newest
    /// `keep_checkpoints` (>= 1) checkpoints of the run and the best epoch's (its model is
    /// what the run ends with: train::Trainer). An epoch recorded again replaces the old row.
    void record_epoch(const RunEpochRecord& epoch, const CheckpointRecord& checkpoint,
                      bool improved, std::size_t keep_checkpoints = 2);
    std::vector<RunEpochRecord> epochs(std::int64_t run_id) const;

    /// The newest checkpoint of the run.
    std::optional<CheckpointRecord> last_checkpoint(std::int64_t run_id) const;
    /// The run's checkpoint of that epoch, if kept.
    std::optional<CheckpointRecord> checkpoint(std::int64_t run_id, std::int64_t epoch) const;
    /// Epochs that have a checkpoint, ascending.
    std::vector<std::int64_t> checkpoint_epochs(std::int64_t run_id) const;

    struct Impl; ///< the connection; defined in run_store.cpp

private:
    explicit RunStore(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// The trainer's RunLog, written into a run of a RunStore.
class StoreRunLog final : public train::RunLog {
public:
    StoreRunLog(RunStore& store, std::int64_t run_id, std::size_t keep_checkpoints = 2);

    void begin(const nn::MemoryReport& memory) override;
    void epoch_done(const train::EpochReport& report,
                    const train::Checkpoint& checkpoint) override;
    std::optional<train::Checkpoint> last_checkpoint() override;
    std::optional<train::Checkpoint> checkpoint_of(std::uint32_t epoch) override;
    void end(const std::string& status, const nlohmann::json& result) override;

    /// This session ended in `error` (the trainer threw). A new run is marked "failed" with the
    /// error as its result. A resumed run is changed only once this session has kept an epoch
    /// of it: one that fails before (a damaged checkpoint, settings or circuits that changed
    /// since, the disk full at its first epoch) is put back as it was, status, result and
    /// measured peak; after, it is "failed" with its earlier result kept and the error added.
    /// Returns whether the run was changed.
    bool fail(const std::string& error, bool resumed);

private:
    /// Writes the run back as begin() found it: status, result and measured peak.
    void put_back();

    RunStore& store_;
    std::int64_t run_id_;
    std::size_t keep_;
    bool begun_ = false;
    bool kept_epoch_ = false;          ///< this session recorded an epoch
    std::optional<RunRecord> before_; ///< the run when begin() found it
};

/// The memory report as rows, one per layer. The engine measures only the arena's total
/// high-water mark (RunRecord::peak_bytes_measured), so every row is analytic (measured false).
std::vector<LayerMemoryRecord> layer_memory_rows(const nn::MemoryReport& report);

} // namespace gsr::store
