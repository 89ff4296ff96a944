#pragma once
// Runs tune::search on a worker thread for the Profiling panel: each finished trial is posted
// to the UI thread as it lands (candidateFinished), and the whole session at the end
// (finished). Every signal arrives on the UI thread.
//
// Cancel: search() has no stop flag of its own, so the evaluator it is given is a wrapper.
// After cancel() the wrapper answers every further trial at once, without running it, and
// search() runs out of trials quickly (grid and random spend their budget in microseconds; SOL
// stops as "stagnant" after its patience). Those unrun trials are cut from the result, which
// then holds exactly the trials that ran, with stop reason "cancelled". The trial in flight
// when cancel() is called finishes first (a GPU kernel cannot be interrupted half-way).
#include "panels/tune_includes.hpp"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

class QThread;

namespace gsr::views {

/// Makes the evaluator of a problem (the GPU worker in the app, a FunctionEvaluator in tests
/// and the demo); null, with the reason in `why_not`, when it cannot.
/// It is called on the UI thread; the evaluator it makes is then used on the worker thread
/// only, one trial at a time.
/// `device` is the panel's, and `bounds` the problem's analysis on it (calibrated where the
/// project keeps a calibration of that GPU): its T_SOL and gaming bound are the search's.
using EvaluatorFactory = std::function<std::unique_ptr<tune::Evaluator>(
    const tune::Problem&, const sol::DeviceSpec& device, const sol::SolAnalysis& bounds,
    std::string* why_not)>;

class TuneRunner : public QObject {
    Q_OBJECT

public:
    explicit TuneRunner(QObject* parent = nullptr);
    /// Cancels a search in flight and waits for its thread (at most the trial in flight).
    ~TuneRunner() override;

    bool isRunning() const { return running_; }
    /// The problem of the latest search started.
    const std::string& problemName() const { return problem_; }

    /// @brief Searches `problem`'s config space on `device` with `evaluator`, judged by
    /// `bounds` (the problem's analysis on `device`).
    /// @return false (and nothing starts) when a search is in flight.
    bool start(const tune::Problem& problem, const sol::DeviceSpec& device,
               const sol::SolAnalysis& bounds, const tune::SearchOptions& options,
               std::unique_ptr<tune::Evaluator> evaluator);
    /// @brief Stops between trials; finished() follows with cancelled = true.
    void cancel();

signals:
    /// Emitted by start() itself, before it returns (as TrainingRunner::started): the work
    /// exists from now on, though started() comes only after the baseline is timed.
    void launched();
    /// The search began: its empty session (bounds) and the trials it plans at most.
    void started(const gsr::tune::TuneSession& session, qulonglong planned);
    /// One trial ran (verdict "gaming" already applied, as search() applies it).
    void candidateFinished(const gsr::tune::CandidateRecord& candidate, qulonglong done,
                           qulonglong planned);
    /// The search ended: every trial that ran. `error` is set when it failed.
    void finished(const gsr::tune::TuneSession& session, bool cancelled, const QString& error);

private:
    struct Job {
        tune::Problem problem;
        sol::DeviceSpec device;
        sol::SolAnalysis bounds;
        tune::SearchOptions options;
    };
    static void work(TuneRunner* self, Job job, std::shared_ptr<tune::Evaluator> evaluator,
                     std::shared_ptr<std::atomic<bool>> cancel);

    bool running_ = false;
    std::string problem_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    QThread* thread_ = nullptr;
};

} // namespace gsr::views

Q_DECLARE_METATYPE(gsr::tune::TuneSession)
Q_DECLARE_METATYPE(gsr::tune::CandidateRecord)
