#pragma once
// Runs ForceAtlas2 (core/layout) on a worker thread and hands snapshots to the UI thread, so
// the canvas animates while the window stays responsive. The worker steps a few iterations at
// a time (about 30 ms of work, at least 16 ms apart so small graphs still visibly settle) and
// publishes each result; the UI takes the newest one and never sees a half-written one.
//
// stop() asks the worker to pause after at most one iteration and returns at once; start()
// resumes from where it paused. cancel() stops and waits for the worker: afterwards no thread
// touches the scene, which is what deleting the runner needs.
#include "canvas/canvas_scene.hpp"
#include "layout/force_atlas2.hpp"

#include <QObject>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace gsr::views::canvas {

class LayoutRunner : public QObject {
    Q_OBJECT

public:
    /// `initial`: one position per node (e.g. the DEF placement), or empty for random ones.
    LayoutRunner(std::shared_ptr<const CanvasScene> scene,
                 const layout::ForceAtlas2Options& options,
                 std::vector<layout::Point2> initial = {}, QObject* parent = nullptr);
    ~LayoutRunner() override;

    bool isRunning() const { return running_.load(); }
    /// Converged or at the iteration limit: start() then does nothing.
    bool isFinished() const { return finished_.load(); }
    const layout::ForceAtlas2Options& options() const { return options_; }

    /// The newest snapshot published, if any (positions empty before the first).
    layout::LayoutSnapshot latest() const;
    /// Iteration, movement and convergence of the newest snapshot, without copying positions.
    layout::LayoutSnapshot latestProgress() const;

    /// @brief Says that the starting positions are a layout settled elsewhere (a screenshot
    /// runs it on its own thread): its figures are shown, and a converged one is finished.
    /// Call before start().
    void setSettled(const layout::LayoutSnapshot& settled);

public slots:
    void start();
    void stop();
    /// Stops and waits for the worker to leave.
    void cancel();

signals:
    /// A newer snapshot is ready (queued to this object's thread; coalesced).
    void snapshotReady();
    void runningChanged(bool running);
    /// The layout converged or reached its iteration limit.
    void layoutFinished(bool converged);

private:
    void work();
    void publish(const layout::LayoutSnapshot& s);
    void join();

    std::shared_ptr<const CanvasScene> scene_;
    layout::ForceAtlas2Options options_;
    std::vector<layout::Point2> initial_;
    std::unique_ptr<layout::ForceAtlas2Layout> layout_; ///< made and used by the worker only

    std::thread worker_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> running_{false};
    std::atomic<bool> finished_{false};
    std::atomic<bool> notify_pending_{false};

    mutable std::mutex mutex_;
    layout::LayoutSnapshot latest_; ///< guarded by mutex_
};

} // namespace gsr::views::canvas
