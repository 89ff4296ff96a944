#include "panels/training_runner.hpp"

#include "loading/netlist_loader.hpp"
#include "panels/circuit_graph_source.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#ifdef GSR_HAVE_STORE
#include "store/run_claim.hpp"
#include "store/run_store.hpp"
#include "store/tune_store.hpp"
#endif

#include <QFile>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <chrono>

namespace gsr::views {

namespace {

EpochPoint point_of(const train::EpochReport& r)
{
    EpochPoint p;
    p.epoch = r.epoch;
    p.train_loss = r.train_loss;
    p.val_loss = r.validation.loss;
    p.val_pearson = r.validation.metrics.pearson.value;
    p.val_spearman = r.validation.metrics.spearman.value;
    p.val_kendall = r.validation.metrics.kendall.value;
    p.test_pearson = r.test.metrics.pearson.value;
    p.seconds = r.seconds;
    p.improved = r.improved;
    return p;
}

/// (true, predicted) of every test node, thinned evenly to at most kMaxScatter points.
QVector<QPointF> test_scatter(train::Trainer& trainer, const train::Dataset& data)
{
    QVector<QPointF> all;
    for (std::size_t c = 0; c < data.circuits.size(); ++c) {
        const train::CircuitData& circuit = data.circuits[c];
        if (std::none_of(circuit.split.begin(), circuit.split.end(),
                         [](train::Split s) { return s == train::Split::Test; }))
            continue;
        const std::vector<double> predicted = trainer.predict(c);
        for (std::size_t v = 0; v < circuit.split.size(); ++v)
            if (circuit.split[v] == train::Split::Test)
                all.append(QPointF(circuit.target[v], predicted[v]));
    }
    if (all.size() <= TrainingOutcome::kMaxScatter) return all;
    QVector<QPointF> thinned;
    thinned.reserve(TrainingOutcome::kMaxScatter);
    for (int i = 0; i < TrainingOutcome::kMaxScatter; ++i)
        thinned.append(all[static_cast<int>(qint64(i) * all.size() / TrainingOutcome::kMaxScatter)]);
    return thinned;
}

} // namespace

double TrainingProgress::fraction() const
{
    const double total = epochs >= first_epoch ? double(epochs - first_epoch + 1) : 1.0;
    const double share = steps ? double(step) / double(steps) : 0.0;
    // Evaluation (one forward pass per circuit) is a small part of an epoch's work.
    const double within = evaluating ? 0.9 + 0.1 * share : 0.9 * share;
    const double done = double(epoch) - double(first_epoch) + within;
    return std::clamp(done / total, 0.0, 1.0);
}

TrainingRunner::TrainingRunner(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<EpochPoint>();
    qRegisterMetaType<TrainingProgress>();
    qRegisterMetaType<TrainingOutcome>();
}

TrainingRunner::~TrainingRunner()
{
    if (thread_) {
        if (cancel_) *cancel_ = true;
        thread_->wait();
        delete thread_;
    }
}

bool TrainingRunner::canResumeInMemory() const
{
    return memory_log_ && memory_run_resumable_ && !running_;
}

bool TrainingRunner::start(const TrainingSettings& settings, const QString& project)
{
    Job job;
    job.settings = settings;
    job.settings.normalize();
    job.project = project;
    return launch(std::move(job));
}

bool TrainingRunner::resume(const QString& project, std::int64_t run_id, std::uint32_t epochs,
                            bool offload_optimizer)
{
    Job job;
    job.project = project;
    job.run_id = run_id;
    job.resume = true;
    job.epochs = epochs;
    job.offload_optimizer = offload_optimizer;
    // Without a project the settings are the in-memory run's own.
    if (project.isEmpty()) {
        if (!canResumeInMemory()) return false;
        job.settings = settings_;
        if (epochs > 0) job.settings.config.epochs = epochs;
    }
    return launch(std::move(job));
}

bool TrainingRunner::launch(Job job)
{
    if (running_) return false;
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    running_ = true;
    if (!job.resume) settings_ = job.settings;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    if (job.project.isEmpty() && !job.resume) memory_log_ = std::make_shared<train::MemoryRunLog>();
    memory_run_resumable_ = false;
    in_project_ = !job.project.isEmpty();
    thread_ = QThread::create(&TrainingRunner::work, this, std::move(job), cancel_, memory_log_);
    thread_->setObjectName(QStringLiteral("gsr-training"));
    thread_->start();
    Q_EMIT started();
    return true;
}

void TrainingRunner::cancel()
{
    if (running_ && cancel_) *cancel_ = true;
}

namespace {

/// Stop pressed (or the window closed) while the circuits load or the model is built: nothing
/// was trained, and a run being resumed stays as it was.
struct StoppedBeforeTraining {};

} // namespace

void TrainingRunner::work(TrainingRunner* self, Job job,
                          std::shared_ptr<std::atomic<bool>> cancel,
                          std::shared_ptr<train::MemoryRunLog> memory_log)
{
    auto post = [self](auto&& body) {
        QMetaObject::invokeMethod(self, std::forward<decltype(body)>(body), Qt::QueuedConnection);
    };
    TrainingOutcome out;
    out.run_id = job.run_id;
    QVector<EpochPoint> epochs; // ended and not posted yet
    const auto post_epochs = [&] {
        if (!epochs.isEmpty())
            post([self, batch = std::exchange(epochs, {})] { Q_EMIT self->epochsFinished(batch); });
    };
#ifdef GSR_HAVE_STORE
    std::optional<store::RunStore> store;
    std::unique_ptr<store::StoreRunLog> store_log; // the run's log once there is one
    std::optional<store::RunClaim> claim;          // no other training of the run meanwhile
#endif
    try {
        // The GPU when there is a usable one (the status bar names it), else the CPU.
        train::DeviceChoice device = train::choose_device("auto");
        TrainingSettings settings = job.settings;
        if (!job.project.isEmpty()) {
#ifdef GSR_HAVE_STORE
            // OpenExisting: the window made the project; one moved or deleted since must not
            // come back empty at the old path with this run in it.
            store.emplace(store::RunStore::open(QFile::encodeName(job.project).toStdString(),
                                                store::OpenMode::OpenExisting,
                                                store::RunStore::kTrainingBusyTimeout));
            if (job.resume) {
                const std::optional<store::RunRecord> run = store->find_run(job.run_id);
                if (!run)
                    throw Error(SourceLocation{store->path()},
                                "the project has no run " + std::to_string(job.run_id) +
                                    " to resume");
                claim = store::RunClaim::take(store->path(), job.run_id);
                try {
                    settings = settings_from_json(
                        nlohmann::json::parse(run->config_json, nullptr, false));
                } catch (const Error& e) { // named as `gsr train --resume` names it
                    throw Error(SourceLocation{store->path()},
                                "run " + std::to_string(job.run_id) + ": " + e.message());
                }
                if (job.epochs > 0) settings.config.epochs = job.epochs;
            }
#else
            throw Error("this build has no project store (SQLite was not found when it was "
                        "built): open no project to train in memory");
#endif
        }
        if (job.resume) {
            settings.config.model.offload_optimizer = job.offload_optimizer;
            post([self, settings] { self->settings_ = settings; });
        }
        out.epochs = settings.config.epochs;

        train::HoldOut hold_out;
        hold_out.validation = settings.holdout_validation;
        hold_out.seed = settings.split_seed;
        // The run's cell libraries (the window's, or a CLI run's), as `gsr train` reads them.
        const train::RunLibraries libraries(local_paths(settings.liberty));
        train::Dataset data = train::load_dataset(
            settings.target, local_paths(settings.train), local_paths(settings.validation),
            local_paths(settings.test), hold_out, libraries.label_options());
        for (const std::string& n : data.notes) out.notes << QString::fromStdString(n);
        if (*cancel) throw StoppedBeforeTraining{};
        // Again with the model's width: a model wider than the GPU backend takes trains on
        // the CPU, with a note.
        if (device.device == "gpu") {
            device = train::choose_device("auto", settings.config.model.hidden);
            if (!device.note.empty()) out.notes << QString::fromStdString(device.note);
        }
        settings.config.device = device.device;
#ifdef GSR_HAVE_STORE
        if (store && device.device == "gpu") {
            // The kernels applied in the project (Profiling panel, Apply) replace the backend's.
            std::vector<std::string> skipped;
            settings.config.tuned_kernels = store::project_tuned_kernels(store->path(), &skipped);
            for (const std::string& n : skipped) out.notes << QString::fromStdString(n);
        }
#endif
        train::Trainer trainer(data, settings.config);
        // The batcher `gsr train` makes from the same settings: a CLI run's commrand, cluster,
        // fan-outs and node order resume here as they would there.
        std::vector<std::string> batcher_notes;
        trainer.set_batcher(train::make_run_batcher(run_settings(settings), data, &batcher_notes));
        for (const std::string& n : batcher_notes) out.notes << QString::fromStdString(n);
        if (*cancel) throw StoppedBeforeTraining{};

        train::RunLog* log = memory_log.get();
#ifdef GSR_HAVE_STORE
        if (store) {
            if (!job.resume) {
                store::RunRecord record;
                record.config_json = json_text(settings_json(settings));
                record.device = device.device;
                record.target = std::string(train::target_name(settings.target));
                record.model = std::string(nn::model_kind_name(settings.config.model.kind));
                out.run_id = store->create_run(record);
                claim = store::RunClaim::take(store->path(), out.run_id);
                post([self, id = out.run_id] { Q_EMIT self->runCreated(id); });
            }
            store_log = std::make_unique<store::StoreRunLog>(*store, out.run_id);
            log = store_log.get();
        }
#endif
        if (!log) throw Error("nothing to resume: the run was not kept");

        train::TrainCallbacks callbacks;
        callbacks.cancel = cancel.get();
        auto last_post = std::chrono::steady_clock::now() - std::chrono::seconds(1);
        auto last_epochs_post = last_post;
        std::uint32_t first_epoch = 0;
        callbacks.progress = [&](const train::Progress& p) {
            if (first_epoch == 0) first_epoch = p.epoch;
            // A tiny model steps thousands of times a second: post at most 20 updates a second.
            const auto now = std::chrono::steady_clock::now();
            // Epochs held back by the rate (one ended soon after another) go out now, during
            // the next epoch, not at its end, which may be minutes away.
            if (!epochs.isEmpty() && now - last_epochs_post >= std::chrono::milliseconds(50)) {
                last_epochs_post = now;
                post_epochs();
            }
            const bool last = p.step == p.steps;
            if (!last && now - last_post < std::chrono::milliseconds(50)) return;
            last_post = now;
            TrainingProgress tp;
            tp.epoch = p.epoch;
            tp.epochs = p.epochs;
            tp.first_epoch = first_epoch;
            tp.step = p.step;
            tp.steps = p.steps;
            tp.evaluating = p.phase == train::Progress::Phase::Evaluating;
            post([self, tp] { Q_EMIT self->progressed(tp); });
        };
        callbacks.epoch = [&](const train::EpochReport& r) {
            epochs.append(point_of(r));
            const auto now = std::chrono::steady_clock::now();
            if (now - last_epochs_post < std::chrono::milliseconds(50)) return;
            last_epochs_post = now;
            post_epochs();
        };

        const train::TrainResult result = trainer.run(*log, callbacks, job.resume);
        out.status = QString::fromLatin1(train::status_name(result.status).data());
        out.first_epoch = result.first_epoch;
        out.epochs_done = result.epochs_done;
        out.best = result.best;
        out.model_epoch = result.model_epoch;
        out.memory = result.memory;
        out.parameter_count = result.parameter_count;
        for (const std::string& n : result.kernel_notes) out.notes << QString::fromStdString(n);
        out.resumable = result.status == train::TrainResult::Status::Cancelled &&
                        result.epochs_done > 0;
        // The model holds the best epoch's weights whenever an epoch ended, a stopped run's
        // too (`gsr train --predictions` writes them after Ctrl-C as well).
        if (result.model_epoch > 0) {
            out.test_scatter = test_scatter(trainer, data);
            if (settings.target == train::Target::SignalProbability && !settings.train.isEmpty()) {
                // The canvas draws the file's graph: renumbered circuits (commrand, an
                // --order) are put back in its order.
                for (double p : data.circuits[0].in_file_order(trainer.predict(0)))
                    out.predictions.append(float(p));
                // As the canvas names its file: a run `gsr train` began names it as typed.
                out.predicted_circuit = QFileInfo(settings.train.front()).absoluteFilePath();
            }
        }
    } catch (const StoppedBeforeTraining&) {
        out.status = QStringLiteral("cancelled");
        out.resumable = job.resume; // untouched: as resumable as it was
    } catch (...) {
        out.status = QStringLiteral("failed");
        out.error = describe_failure(std::current_exception());
#ifdef GSR_HAVE_STORE
        // A resume that failed before training began (the run's settings, circuits or
        // checkpoint) leaves the run as it was.
        if (store_log) {
            try {
                store_log->fail(out.error.toStdString(), job.resume);
            } catch (...) {
                // The run stays "running" in the store; the error shown says what failed.
            }
        }
#endif
    }
#ifdef GSR_HAVE_STORE
    claim.reset(); // before the window hears of the end: its runs table reads the run free
#endif
    post_epochs();
    post([self, out, in_memory = job.project.isEmpty()] {
        self->running_ = false;
        self->memory_run_resumable_ = in_memory && out.resumable;
        Q_EMIT self->finished(out);
    });
}

} // namespace gsr::views
