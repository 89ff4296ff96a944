#include "canvas/layout_runner.hpp"

#include "util/diagnostics.hpp"

#include <QMetaObject>

#include <algorithm>
#include <chrono>

namespace gsr::views::canvas {

namespace {
using Clock = std::chrono::steady_clock;
constexpr double kWorkPerSnapshot = 0.030; ///< seconds of layout work between snapshots
constexpr auto kMinSnapshotInterval = std::chrono::milliseconds(16);
} // namespace

LayoutRunner::LayoutRunner(std::shared_ptr<const CanvasScene> scene,
                           const layout::ForceAtlas2Options& options,
                           std::vector<layout::Point2> initial, QObject* parent)
    : QObject(parent), scene_(std::move(scene)), options_(options), initial_(std::move(initial))
{
}

LayoutRunner::~LayoutRunner() { cancel(); }

layout::LayoutSnapshot LayoutRunner::latest() const
{
    std::lock_guard lock(mutex_);
    return latest_;
}

layout::LayoutSnapshot LayoutRunner::latestProgress() const
{
    std::lock_guard lock(mutex_);
    layout::LayoutSnapshot s;
    s.iteration = latest_.iteration;
    s.swing = latest_.swing;
    s.traction = latest_.traction;
    s.speed = latest_.speed;
    s.displacement = latest_.displacement;
    s.window_movement = latest_.window_movement;
    s.converged = latest_.converged;
    return s;
}

void LayoutRunner::setSettled(const layout::LayoutSnapshot& settled)
{
    std::lock_guard lock(mutex_);
    latest_ = settled;
    finished_ = settled.converged;
}

void LayoutRunner::join()
{
    if (worker_.joinable()) worker_.join();
}

void LayoutRunner::start()
{
    if (finished_.load()) return;
    if (running_.load() && !stop_.load()) return;
    join(); // a worker that was asked to stop may still be leaving
    stop_ = false;
    running_ = true;
    Q_EMIT runningChanged(true);
    worker_ = std::thread([this] { work(); });
}

void LayoutRunner::stop() { stop_ = true; }

void LayoutRunner::cancel()
{
    stop_ = true;
    join();
}

void LayoutRunner::publish(const layout::LayoutSnapshot& s)
{
    {
        std::lock_guard lock(mutex_);
        latest_ = s;
    }
    if (!notify_pending_.exchange(true))
        QMetaObject::invokeMethod(this, [this] {
            notify_pending_ = false;
            Q_EMIT snapshotReady();
        }, Qt::QueuedConnection);
}

void LayoutRunner::work()
{
    bool done = false;
    bool converged = false;
    try {
        if (!layout_)
            layout_ = std::make_unique<layout::ForceAtlas2Layout>(scene_->undirected, options_,
                                                                  initial_);
        bool nothing_shown = false;
        {
            std::lock_guard lock(mutex_);
            nothing_shown = latest_.positions.empty();
        }
        if (layout_->snapshot().iteration == 0 && nothing_shown) publish(layout_->snapshot());
        int batch = 1;
        while (!stop_.load() && !layout_->finished()) {
            const auto t0 = Clock::now();
            const auto s = layout_->step(batch, &stop_);
            if (!s) break; // stopped inside an iteration: the layout is back at the last snapshot
            publish(*s);
            const double took = std::chrono::duration<double>(Clock::now() - t0).count();
            const double per_iteration = took / batch;
            batch = std::clamp(int(kWorkPerSnapshot / std::max(per_iteration, 1e-7)), 1, 100);
            if (Clock::now() - t0 < kMinSnapshotInterval)
                std::this_thread::sleep_until(t0 + kMinSnapshotInterval);
        }
        done = layout_->finished();
        converged = layout_->snapshot().converged;
    } catch (const std::exception& e) {
        // Options are checked before a runner is made; a failure here (an Error, or memory
        // running out on a large graph) means no layout at all, and must not leave the thread.
        qWarning("layout: %s", e.what());
        done = true;
    } catch (...) {
        qWarning("layout: an unexpected failure");
        done = true;
    }
    const bool finished_now = done && !finished_.exchange(done);
    running_ = false;
    // The UI hears the state as it is when the message arrives (a new run may have started).
    QMetaObject::invokeMethod(this, [this, finished_now, converged] {
        Q_EMIT runningChanged(running_.load());
        if (finished_now) Q_EMIT layoutFinished(converged);
    }, Qt::QueuedConnection);
}

} // namespace gsr::views::canvas
