#pragma once
// Reads and summarises netlists off the UI thread. Core's reader cannot be interrupted, so
// cancelling abandons a load: the worker runs to its end and its result is dropped.
#include "graph/circuit_graph.hpp"
#include "report/netlist_summary.hpp"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::views {

/// What one load produced: a summary and, for a netlist, the circuit and graph it was made
/// from (the canvas and the panels use them rather than read the file again); or a message for
/// people (core's "FILE:LINE:COL: error: ..." text when the file is at fault).
struct LoadOutcome {
    QString path;
    std::optional<report::NetlistSummary> summary;
    std::shared_ptr<const graph::LoadedCircuit> circuit; ///< null for a library
    QString error;
};

/// Paths as the file system names them (QFile::encodeName), for core's readers.
std::vector<std::string> local_paths(const QStringList& paths);

/// @brief Reads and summarises `path` on the calling thread, a netlist's instances with the cell
/// `libraries` (Liberty or LEF, as `gsr info --liberty`). Never throws.
LoadOutcome load_netlist(const QString& path, const QStringList& libraries = {});

/// "Netlists (*.bench *.blif ...)": a file dialog's filter for the circuits core reads (not
/// the cell libraries), File > Open Netlist's and the test circuits' alike.
QString netlist_files_filter();

class NetlistLoader : public QObject {
    Q_OBJECT

public:
    explicit NetlistLoader(QObject* parent = nullptr);
    ~NetlistLoader() override;

    bool isLoading() const { return current_job_ != 0; }
    /// The file being loaded, empty when idle.
    QString currentPath() const { return current_path_; }
    /// Loads abandoned (cancelled or superseded) whose workers have not finished yet.
    int abandonedInFlight() const { return abandoned_in_flight_; }

public slots:
    /// @brief Starts loading `path` (with the cell `libraries`) in the thread pool; a load in
    /// flight is abandoned.
    void start(const QString& path, const QStringList& libraries = {});
    /// @brief Abandons the load in flight, if any: cancelled() now, and its result never arrives.
    void cancel();

signals:
    void started(const QString& path);
    /// `circuit` is null for a library (Liberty, LEF).
    void loaded(const gsr::report::NetlistSummary& summary,
                std::shared_ptr<const gsr::graph::LoadedCircuit> circuit);
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);
    /// The worker of an abandoned load finished and its outcome was dropped.
    void abandonedLoadFinished(const QString& path);

private:
    void finish(std::uint64_t job, const LoadOutcome& outcome);
    void abandonCurrent();

    // Loads run in a pool of their own, not Qt's global one that the panels share: an
    // abandoned load runs to its end (a reader has no stop), and the next load must not queue
    // behind it, nor behind the panels' work. Its destructor waits for what still runs.
    QThreadPool pool_;
    std::uint64_t next_job_ = 1;
    std::uint64_t current_job_ = 0; ///< 0: idle
    QString current_path_;
    int abandoned_in_flight_ = 0;
};

} // namespace gsr::views
