#pragma once
// Kernel tuning sessions in the project store: one row of the `tune_sessions` table (the
// "tune sessions" migration in project_store.cpp, the one place that knows the schema) per
// tune::TuneSession, kept whole as its JSON beside the columns a listing shows. Like the other
// store headers it includes no SQLite header and exists only with GSR_HAVE_STORE.
//
// Contents: TuneSessionSummary, TuneStore (save, sessions, load, find, remove; the applied
// kernels of the kernel lab's Apply, kept as JSON under the project key
// tune::kAppliedKernelsKey), project_tuned_kernels, and the project's kernel calibration
// (store_calibration, stored_calibration: the key "calibration").
#include "sol/device_table.hpp"
#include "store/project_store.hpp"
#include "tune/applied_kernels.hpp"
#include "tune/tune_session.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::store {

/// What a listing shows of a stored session.
struct TuneSessionSummary {
    std::int64_t id = 0;
    std::string created; ///< the session's own `created` (UTC ISO 8601)
    std::string problem;
    std::string device;
    std::string strategy;
    double best_percent_of_sol = 0; ///< of the best verified candidate; 0 when there is none
    std::int64_t candidates = 0;
};

/// The tuning sessions of one project file, on a connection of its own (like RunStore).
/// Move-only, not thread-safe.
class TuneStore {
public:
    /// Opens the project as ProjectStore::open does (creating it or upgrading its schema
    /// unless ReadOnly). Throws gsr::Error naming the file.
    static TuneStore open(const std::string& path, OpenMode mode,
                          std::chrono::milliseconds busy_timeout =
                              ProjectStore::kDefaultBusyTimeout);

    TuneStore(TuneStore&&) noexcept;
    TuneStore& operator=(TuneStore&&) noexcept;
    TuneStore(const TuneStore&) = delete;
    TuneStore& operator=(const TuneStore&) = delete;
    ~TuneStore();

    const std::string& path() const;

    /// Stores the session (one statement); returns its id. An empty `created` is now.
    std::int64_t save(const tune::TuneSession& session);
    /// Every stored session, oldest id first.
    std::vector<TuneSessionSummary> sessions() const;
    std::optional<tune::TuneSession> find(std::int64_t id) const;
    /// find() that throws gsr::Error naming the project and the id when there is no such
    /// session (or its JSON cannot be read).
    tune::TuneSession load(std::int64_t id) const;
    /// false when there was no such session.
    bool remove(std::int64_t id);

    /// The applied kernels kept in the project (empty when none). gsr::Error naming the
    /// project when the stored JSON cannot be read.
    std::vector<tune::AppliedKernel> applied() const;
    /// Chooses the best verified configuration of each engine problem from the sessions `ids`
    /// (every session when empty) and keeps it, replacing the same problem's earlier choice,
    /// in one transaction. gsr::Error naming an id that is not there.
    tune::ApplyChoice apply(const std::vector<std::int64_t>& ids);
    /// Forgets every applied kernel; the next run uses the backend's own kernels.
    void clear_applied();

    struct Impl; ///< the connection; defined in tune_store.cpp

private:
    explicit TuneStore(std::unique_ptr<Impl> impl);
    Impl& impl() const;
    std::unique_ptr<Impl> impl_;
};

/// The applied kernels of the project at `path` as the GPU backend takes them
/// (tune::tuned_kernels); those it cannot run are described in *notes. Empty when the project
/// has none. Training calls this (the CLI and the Training panel) when it runs on the GPU.
std::vector<nn::TunedKernel> project_tuned_kernels(const std::string& path,
                                                   std::vector<std::string>* notes);

/// Keeps `calibration` in the project (`gsr kernels calibrate --project`), replacing the one
/// before.
void store_calibration(ProjectStore& project, const sol::Calibration& calibration);
/// The calibration the project keeps, its `source` the project's path; nullopt when there is
/// none. gsr::Error naming the project when the stored one cannot be read, or when a peak is
/// past what the device table's row of its GPU allows (sol::calibrated_peaks).
std::optional<sol::Calibration> stored_calibration(const ProjectStore& project);

} // namespace gsr::store
