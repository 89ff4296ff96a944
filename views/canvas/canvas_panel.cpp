#include "canvas/canvas_panel.hpp"

#include "canvas/graph_canvas.hpp"
#include "canvas/layout_runner.hpp"
#include "community/worker_pool.hpp"
#include "util/diagnostics.hpp"

#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QStackedLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace gsr::views::canvas {

namespace {

struct Prepared {
    std::shared_ptr<const CanvasScene> scene; ///< null: cancelled or failed
    QString error;
};

Prepared prepare(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit,
                 const std::atomic<bool>* cancel)
{
    Prepared out;
    try {
        SceneOptions o;
        o.cancel = cancel;
        out.scene = circuit ? build_canvas_scene(std::move(circuit), o)
                            : build_canvas_scene(QFile::encodeName(path).toStdString(), o);
    } catch (const Error& e) {
        // The detection's "needs edges" knows no file: the message names the one opened.
        out.error = e.where().file.empty()
                        ? QObject::tr("%1: error: %2").arg(path, QString::fromStdString(e.message()))
                        : QString::fromStdString(e.what());
    } catch (const std::bad_alloc&) {
        out.error = QObject::tr("%1: error: not enough memory for the graph view").arg(path);
    } catch (const std::exception& e) {
        out.error = QObject::tr("%1: error: internal error while preparing the graph: %2")
                        .arg(path, QString::fromUtf8(e.what()));
    }
    return out;
}

QString scene_line(const CanvasScene& s)
{
    return QObject::tr("Graph of %1: %2 nodes, %3 edges, %4 communities (Leiden, seed 1, "
                       "modularity %5)")
        .arg(QFileInfo(QString::fromStdString(s.path)).fileName())
        .arg(s.node_count())
        .arg(s.edge_count())
        .arg(s.communities.community_count)
        .arg(s.communities.modularity, 0, 'f', 3);
}

} // namespace

CanvasPanel::CanvasPanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("canvasPanel"));
    canvas_ = new GraphCanvas(this);
    status_ = new QLabel(tr("No graph yet"), this);
    status_->setAlignment(Qt::AlignCenter);
    pages_ = new QStackedLayout(this);
    pages_->setContentsMargins(0, 0, 0, 0);
    pages_->addWidget(status_);
    pages_->addWidget(canvas_);
}

CanvasPanel::~CanvasPanel() { abandon(); }

layout::ForceAtlas2Options CanvasPanel::layoutOptions()
{
    layout::ForceAtlas2Options o;
    o.seed = 1;
    // Leave a core to the UI thread; the result does not depend on the thread count.
    o.threads = std::max(1u, community::default_thread_count() - 1);
    return o;
}

void CanvasPanel::abandon()
{
    if (cancel_) cancel_->store(true);
    cancel_.reset();
    job_ = 0;
    preparing_.clear();
    pending_ = {};
    ++communities_job_; // a scene being made with other communities is dropped
    if (runner_) {
        canvas_->setLayoutRunner(nullptr);
        runner_->cancel();
        delete runner_;
        runner_ = nullptr;
    }
}

void CanvasPanel::cancel() { abandon(); }

void CanvasPanel::open(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    abandon();
    const std::uint64_t job = next_job_++;
    job_ = job;
    preparing_ = path;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    status_->setText(tr("Preparing the graph of %1\u2026").arg(QFileInfo(path).fileName()));
    pages_->setCurrentWidget(status_);

    auto* watcher = new QFutureWatcher<Prepared>(this);
    connect(watcher, &QFutureWatcher<Prepared>::finished, this, [this, watcher, job, path] {
        const Prepared p = watcher->result();
        watcher->deleteLater();
        if (job != job_) return; // abandoned
        job_ = 0;
        preparing_.clear();
        cancel_.reset();
        if (!p.scene) {
            pending_ = {};
            status_->setText(tr("No graph: %1").arg(p.error));
            if (!p.error.isEmpty()) Q_EMIT failed(path, p.error);
            return;
        }
        show(p.scene, p.scene->placement, true);
        Q_EMIT message(scene_line(*p.scene));
        Q_EMIT sceneReady(path);
        applyPending();
    });
    // The flag is shared: the worker may outlive this panel's interest in it.
    const std::shared_ptr<std::atomic<bool>> flag = cancel_;
    watcher->setFuture(QtConcurrent::run(
        [path, circuit, flag] { return prepare(path, circuit, flag.get()); }));
}

bool CanvasPanel::openNow(const QString& path, int iterations,
                          std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    abandon();
    const Prepared p = prepare(path, std::move(circuit), nullptr);
    if (!p.scene) {
        status_->setText(tr("No graph: %1").arg(p.error));
        Q_EMIT failed(path, p.error);
        return false;
    }
    layout::ForceAtlas2Options o = layoutOptions();
    o.max_iterations = iterations;
    layout::ForceAtlas2Layout fa2(p.scene->undirected, o, p.scene->placement);
    const auto settled = fa2.run();
    show(p.scene, settled ? settled->positions : p.scene->placement, false);
    if (settled) runner_->setSettled(*settled);
    Q_EMIT message(scene_line(*p.scene));
    Q_EMIT sceneReady(path);
    return true;
}

void CanvasPanel::applyPredictions(const QString& path, const QVector<float>& predictions)
{
    const std::shared_ptr<const CanvasScene> scene = canvas_->sharedScene();
    if (!scene || scene->path != QFile::encodeName(path).toStdString() ||
        std::size_t(predictions.size()) != scene->node_count())
        return;
    canvas_->setPredictions({predictions.begin(), predictions.end()});
}

void CanvasPanel::applyCommunities(const QString& path,
                                   std::shared_ptr<const community::CommunityResult> result,
                                   community::Method method)
{
    if (!result) return;
    if (job_ != 0 && preparing_ == path) { // shown once the preparation ends
        pending_ = {path, std::move(result), method};
        return;
    }
    const std::shared_ptr<const CanvasScene> scene = canvas_->sharedScene();
    if (!scene || scene->path != QFile::encodeName(path).toStdString()) return;
    if (scene->communities.membership == result->membership && scene->community_method == method)
        return;
    const std::uint64_t job = ++communities_job_;
    auto* watcher = new QFutureWatcher<std::shared_ptr<const CanvasScene>>(this);
    connect(watcher, &QFutureWatcher<std::shared_ptr<const CanvasScene>>::finished, this,
            [this, watcher, job, scene, method] {
                const std::shared_ptr<const CanvasScene> next = watcher->result();
                watcher->deleteLater();
                // Dropped when another file was opened, or other communities came since.
                if (job != communities_job_ || canvas_->sharedScene() != scene || !next) return;
                canvas_->setCommunities(next);
                Q_EMIT message(tr("Graph of %1: coloured by %2 communities from the Communities "
                                  "panel (%3, modularity %4)")
                                   .arg(QFileInfo(QString::fromStdString(next->path)).fileName())
                                   .arg(next->communities.community_count)
                                   .arg(QLatin1String(community::method_name(method)))
                                   .arg(next->communities.modularity, 0, 'f', 3));
            });
    watcher->setFuture(QtConcurrent::run(
        [scene, result, method]() -> std::shared_ptr<const CanvasScene> {
            try {
                return with_communities(*scene, *result, method);
            } catch (const std::invalid_argument&) {
                return nullptr; // a partition of another graph: nothing to show
            } catch (const std::exception& e) { // memory ran out copying the scene, say
                qWarning("communities on the canvas: %s", e.what());
                return nullptr;
            }
        }));
}

void CanvasPanel::applyPending()
{
    PendingCommunities p = std::move(pending_);
    pending_ = {};
    if (p.result) applyCommunities(p.path, std::move(p.result), p.method);
}

void CanvasPanel::show(std::shared_ptr<const CanvasScene> scene,
                       std::vector<layout::Point2> start, bool run)
{
    canvas_->setScene(scene);
    canvas_->setColourMode(ColourMode::Community);
    if (!start.empty()) canvas_->setPositions(start);
    pages_->setCurrentWidget(canvas_);
    runner_ = new LayoutRunner(scene, layoutOptions(), std::move(start), this);
    connect(runner_, &LayoutRunner::layoutFinished, this, [this](bool converged) {
        const auto s = runner_->latestProgress();
        Q_EMIT message(converged ? tr("Layout converged after %1 iterations").arg(s.iteration)
                                 : tr("Layout stopped at the iteration limit (%1)")
                                       .arg(s.iteration));
    });
    canvas_->setLayoutRunner(runner_);
    if (run) runner_->start();
}

} // namespace gsr::views::canvas
