#include "loading/netlist_loader.hpp"

#include "util/diagnostics.hpp"

#include <QFile>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <new>

namespace gsr::views {

std::vector<std::string> local_paths(const QStringList& paths)
{
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(paths.size()));
    for (const QString& p : paths) out.push_back(QFile::encodeName(p).toStdString());
    return out;
}

LoadOutcome load_netlist(const QString& path, const QStringList& libraries)
{
    LoadOutcome out;
    out.path = path;
    try {
        out.summary = report::summarize_file(QFile::encodeName(path).toStdString(),
                                             local_paths(libraries), &out.circuit);
    } catch (const Error& e) {
        out.error = QString::fromStdString(e.what());
    } catch (const std::bad_alloc&) {
        out.error = QObject::tr("%1: error: not enough memory to load this file").arg(path);
    } catch (const std::exception& e) {
        // Not a user-facing gsr::Error: a bug or a system failure. Say so rather than crash.
        out.error = QObject::tr("%1: error: internal error while loading: %2")
                        .arg(path, QString::fromUtf8(e.what()));
    } catch (...) {
        out.error = QObject::tr("%1: error: unknown internal error while loading").arg(path);
    }
    return out;
}

QString netlist_files_filter()
{
    return QObject::tr("Netlists (*.bench *.blif *.aag *.aig *.v *.vg *.sv *.def *.cir *.sp "
                       "*.spi *.spice *.cdl *.gz)");
}

NetlistLoader::NetlistLoader(QObject* parent) : QObject(parent)
{
    // Room for a few abandoned loads beside the current one; a thread idles out after 30 s.
    constexpr int kLoadThreads = 8;
    pool_.setMaxThreadCount(kLoadThreads);
}

// Watchers are children and go with this object; a worker still running keeps its own copy of
// the shared future state, so it finishes harmlessly with nobody listening (pool_ waits for it).
NetlistLoader::~NetlistLoader() = default;

void NetlistLoader::start(const QString& path, const QStringList& libraries)
{
    abandonCurrent();
    const std::uint64_t job = next_job_++;
    current_job_ = job;
    current_path_ = path;

    auto* watcher = new QFutureWatcher<LoadOutcome>(this);
    connect(watcher, &QFutureWatcher<LoadOutcome>::finished, this, [this, watcher, job] {
        const LoadOutcome outcome = watcher->result();
        watcher->deleteLater();
        finish(job, outcome);
    });
    watcher->setFuture(
        QtConcurrent::run(&pool_, [path, libraries] { return load_netlist(path, libraries); }));
    Q_EMIT started(path);
}

void NetlistLoader::cancel()
{
    if (!isLoading()) return;
    const QString path = current_path_;
    abandonCurrent();
    Q_EMIT cancelled(path);
}

void NetlistLoader::abandonCurrent()
{
    if (!isLoading()) return;
    ++abandoned_in_flight_;
    current_job_ = 0;
    current_path_.clear();
}

void NetlistLoader::finish(std::uint64_t job, const LoadOutcome& outcome)
{
    if (job != current_job_) {
        --abandoned_in_flight_;
        Q_EMIT abandonedLoadFinished(outcome.path);
        return;
    }
    current_job_ = 0;
    current_path_.clear();
    if (outcome.summary) Q_EMIT loaded(*outcome.summary, outcome.circuit);
    else Q_EMIT failed(outcome.path, outcome.error);
}

} // namespace gsr::views
