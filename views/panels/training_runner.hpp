#pragma once
// Runs core's Trainer on a worker thread for the Training panel: loads and labels the circuits,
// records the run in the project's store (or in memory when no project is open), reports
// progress and epochs, and stops when asked. Every signal arrives on the UI thread.
//
// Cancel sets the trainer's flag, checked before every step: the run ends after the step in
// progress with status "cancelled" and keeps its last checkpoint, so it can be resumed (from
// the store by run id, or, without a project, from memory while the window stays open).
#include "panels/training_settings.hpp"

#include <QObject>
#include <QPointF>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

class QThread;

namespace gsr::train {
class MemoryRunLog;
}

namespace gsr::views {

/// One finished epoch, for the charts.
struct EpochPoint {
    std::uint32_t epoch = 0;
    double train_loss = train::kUndefined; ///< mean step loss (learning units)
    double val_loss = train::kUndefined;
    double val_pearson = train::kUndefined, val_spearman = train::kUndefined,
           val_kendall = train::kUndefined;
    double test_pearson = train::kUndefined;
    double seconds = 0;
    bool improved = false;
};

/// Where the trainer is, for the progress bar.
struct TrainingProgress {
    std::uint32_t epoch = 1, epochs = 1;
    std::uint32_t first_epoch = 1; ///< > 1 when resumed
    std::size_t step = 0, steps = 0;
    bool evaluating = false;

    /// Share of this session's work done, in [0, 1].
    double fraction() const;
};

struct TrainingOutcome {
    /// "finished", "stopped early", "cancelled" (core's names) or "failed".
    QString status;
    QString error;              ///< plain words, when failed
    std::int64_t run_id = 0;    ///< 0: kept in memory (no project)
    std::uint32_t first_epoch = 1, epochs_done = 0, epochs = 0;
    std::optional<train::EpochReport> best;
    nn::MemoryReport memory;    ///< analytic per layer, measured peak
    std::size_t parameter_count = 0;
    QVector<QPointF> test_scatter; ///< (true, predicted) on test nodes, at most kMaxScatter
    /// The epoch whose model made test_scatter and predictions: the best one (Trainer::run),
    /// unless its checkpoint was lost; 0: none.
    std::uint32_t model_epoch = 0;
    /// For the sp target: the model's signal probability of every node of the first circuit
    /// trained on (`predicted_circuit`), in its graph's node order, for the canvas's
    /// prediction-error colours.
    QString predicted_circuit;
    QVector<float> predictions;
    QStringList notes;          ///< the data set's findings (constant targets, ...)
    bool resumable = false;     ///< cancelled after at least one checkpoint

    static constexpr int kMaxScatter = 4000;
};

class TrainingRunner : public QObject {
    Q_OBJECT

public:
    explicit TrainingRunner(QObject* parent = nullptr);
    /// Cancels a run in flight and waits for its thread (at most one step).
    ~TrainingRunner() override;

    bool isRunning() const { return running_; }
    /// The settings of the latest run started or resumed.
    const TrainingSettings& settings() const { return settings_; }
    /// A cancelled run kept in memory (no project) that resume({}, 0) continues.
    bool canResumeInMemory() const;
    /// The latest run started or resumed is kept in a project (not in memory only, which
    /// closing the window loses).
    bool runIsInProject() const { return in_project_; }

    /// @brief Starts a new run; `project` empty: the run is kept in memory only.
    /// @return false (and nothing starts) when a run is in flight.
    bool start(const TrainingSettings& settings, const QString& project);
    /// @brief Continues run `run_id` of `project` from its last checkpoint, with its own
    /// settings (`epochs` > 0 replaces its epoch count); `project` empty: the in-memory run.
    /// `offload_optimizer` is not a setting of the run (as `gsr train --resume` takes
    /// --offload-optimizer each time): the resumed session offloads when it says so.
    bool resume(const QString& project, std::int64_t run_id, std::uint32_t epochs = 0,
                bool offload_optimizer = false);
    /// @brief Stops after the step in progress; finished() follows with status "cancelled".
    void cancel();

signals:
    void started();
    void runCreated(qint64 run_id);
    void progressed(const gsr::views::TrainingProgress& progress);
    /// The epochs ended since the last such signal, in order (at most 20 a second: a tiny
    /// model ends over a thousand epochs a second); all of a run's come before finished().
    void epochsFinished(const QVector<gsr::views::EpochPoint>& points);
    void finished(const gsr::views::TrainingOutcome& outcome);

private:
    struct Job {
        TrainingSettings settings;
        QString project;
        std::int64_t run_id = 0; ///< resume: the run
        bool resume = false;
        std::uint32_t epochs = 0;
        bool offload_optimizer = false; ///< resume: this session's choice
    };
    bool launch(Job job);
    /// The worker thread's body. Posts its signals to `self` through the event loop.
    static void work(TrainingRunner* self, Job job, std::shared_ptr<std::atomic<bool>> cancel,
                     std::shared_ptr<train::MemoryRunLog> memory_log);

    bool running_ = false;
    TrainingSettings settings_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::shared_ptr<train::MemoryRunLog> memory_log_; ///< the no-project run, for resume
    bool memory_run_resumable_ = false;
    bool in_project_ = false;
    QThread* thread_ = nullptr;
};

} // namespace gsr::views

// Signal arguments: QSignalSpy and queued connections need them known to the meta-type system.
Q_DECLARE_METATYPE(gsr::views::EpochPoint)
Q_DECLARE_METATYPE(gsr::views::TrainingProgress)
Q_DECLARE_METATYPE(gsr::views::TrainingOutcome)
