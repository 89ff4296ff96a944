#pragma once
// The Graph tab of the main window: the GraphCanvas, fed off the UI thread. Opening a file
// reads it again, detects communities (Leiden, seed 1) and simulates signal probability in the
// thread pool (build_canvas_scene), then shows the scene coloured by community and starts
// ForceAtlas2 on a LayoutRunner. A newer open or cancel() abandons a preparation in flight.
// Communities found in the Communities panel colour it instead (applyCommunities).
#include "canvas/canvas_scene.hpp"
#include "layout/force_atlas2.hpp"

#include <QString>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>

class QLabel;
class QStackedLayout;

namespace gsr::views::canvas {

class GraphCanvas;
class LayoutRunner;

class CanvasPanel : public QWidget {
    Q_OBJECT

public:
    explicit CanvasPanel(QWidget* parent = nullptr);
    ~CanvasPanel() override;

    GraphCanvas* canvas() const { return canvas_; }
    LayoutRunner* layoutRunner() const { return runner_; }
    bool isPreparing() const { return job_ != 0; }

    /// ForceAtlas2 as the canvas runs it: seed 1, the core defaults otherwise.
    static layout::ForceAtlas2Options layoutOptions();

    /// @brief Prepares `path` in the background, then shows it and starts the layout. With
    /// `circuit` (the file read already, by the window's load) the file is not read again.
    void open(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit = {});
    /// @brief Prepares `path` on the calling thread and runs the layout there for at most
    /// `iterations` (or until it converges), for screenshots and tests. The runner is made,
    /// from the settled positions, but not started. False (after failed()) on error.
    bool openNow(const QString& path, int iterations,
                 std::shared_ptr<const graph::LoadedCircuit> circuit = {});
    /// @brief Abandons the preparation in flight and stops the layout.
    void cancel();
    /// A model's prediction for each node of `path`, when it is the circuit shown (else nothing).
    void applyPredictions(const QString& path, const QVector<float>& predictions);
    /// @brief Colours the graph of `path` by `result` (found by `method` in the Communities
    /// panel) where the canvas shows it, or as soon as its preparation in flight ends: the
    /// scene with those communities is made off the UI thread, then shown without moving a
    /// node (GraphCanvas::setCommunities). A partition the canvas shows already, or one of
    /// another file, changes nothing.
    void applyCommunities(const QString& path,
                          std::shared_ptr<const community::CommunityResult> result,
                          community::Method method);

signals:
    void sceneReady(const QString& path);
    void failed(const QString& path, const QString& message);
    /// One line for the Messages dock.
    void message(const QString& text);

private:
    void show(std::shared_ptr<const CanvasScene> scene, std::vector<layout::Point2> start,
              bool run);
    void abandon();
    /// The communities waiting for the preparation of their file (applyCommunities).
    struct PendingCommunities {
        QString path;
        std::shared_ptr<const community::CommunityResult> result;
        community::Method method = community::Method::Leiden;
    };
    void applyPending();

    GraphCanvas* canvas_ = nullptr;
    LayoutRunner* runner_ = nullptr;
    QLabel* status_ = nullptr;
    QStackedLayout* pages_ = nullptr;
    std::uint64_t job_ = 0, next_job_ = 1;
    QString preparing_; ///< the file of the preparation in flight
    PendingCommunities pending_;
    std::uint64_t communities_job_ = 0; ///< of the last applyCommunities that makes a scene
    std::shared_ptr<std::atomic<bool>> cancel_; ///< of the preparation in flight
};

} // namespace gsr::views::canvas
