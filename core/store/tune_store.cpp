#include "store/tune_store.hpp"

#include "store/sqlite_connection.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace gsr::store {

using detail::Connection;
using detail::Statement;

struct TuneStore::Impl {
    Impl(const std::string& path, int flags) : conn(path, flags) {}
    Connection conn;
};

TuneStore TuneStore::open(const std::string& path, OpenMode mode,
                          std::chrono::milliseconds busy_timeout)
{
    // The project store checks the file and migrates it; this connection reads and writes rows.
    auto impl =
        std::make_unique<Impl>(path, ProjectStore::prepare_for_rows(path, mode, busy_timeout));
    impl->conn.set_busy_timeout(busy_timeout);
    return TuneStore(std::move(impl));
}

TuneStore::TuneStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TuneStore::TuneStore(TuneStore&&) noexcept = default;
TuneStore& TuneStore::operator=(TuneStore&&) noexcept = default;
TuneStore::~TuneStore() = default;

TuneStore::Impl& TuneStore::impl() const
{
    if (!impl_) throw std::logic_error("gsr::store::TuneStore used after it was moved from");
    return *impl_;
}

const std::string& TuneStore::path() const
{
    return impl().conn.path();
}

std::int64_t TuneStore::save(const tune::TuneSession& s)
{
    Connection& c = impl().conn;
    double best = 0;
    if (const tune::CandidateRecord* b = s.best_candidate()) best = tune::percent_of_sol(s, *b);
    Statement q(c, "INSERT INTO tune_sessions(created, problem, device, strategy,"
                   " best_percent_of_sol, candidates, json)"
                   " VALUES(coalesce(?1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), ?2, ?3, ?4, ?5,"
                   " ?6, ?7) RETURNING id");
    q.bind_optional(1, s.created);
    q.bind(2, s.problem);
    q.bind(3, s.device);
    q.bind_optional(4, s.strategy);
    q.bind_real(5, best);
    q.bind(6, static_cast<std::int64_t>(s.candidates.size()));
    q.bind(7, json_text(tune::to_json(s)));
    if (!q.step()) throw detail::sqlite_error(c.path(), SQLITE_INTERNAL, "insert gave no id");
    const std::int64_t id = q.column_int(0);
    q.run();
    return id;
}

std::vector<TuneSessionSummary> TuneStore::sessions() const
{
    Statement q(impl().conn, "SELECT id, created, problem, device, strategy, best_percent_of_sol,"
                             " candidates FROM tune_sessions ORDER BY id");
    std::vector<TuneSessionSummary> out;
    while (q.step()) {
        TuneSessionSummary s;
        s.id = q.column_int(0);
        s.created = q.column_text(1);
        s.problem = q.column_text(2);
        s.device = q.column_text(3);
        s.strategy = q.column_text(4);
        s.best_percent_of_sol = q.column_is_null(5) ? 0.0 : q.column_real(5);
        s.candidates = q.column_int(6);
        out.push_back(std::move(s));
    }
    return out;
}

std::optional<tune::TuneSession> TuneStore::find(std::int64_t id) const
{
    Statement q(impl().conn, "SELECT json, created FROM tune_sessions WHERE id = ?1");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    const std::string text = q.column_text(0);
    const std::string created = q.column_text(1);
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded())
        throw Error(SourceLocation{path()},
                    "tune session " + std::to_string(id) + " holds damaged JSON");
    try {
        tune::TuneSession s = tune::tune_session_from_json(j);
        if (s.created.empty()) s.created = created; // saved without one: the row's time
        return s;
    } catch (const Error& e) {
        throw Error(SourceLocation{path()},
                    "tune session " + std::to_string(id) + " cannot be read: " + e.message());
    }
}

tune::TuneSession TuneStore::load(std::int64_t id) const
{
    std::optional<tune::TuneSession> s = find(id);
    if (!s)
        throw Error(SourceLocation{path()}, "no tune session " + std::to_string(id) +
                                                " in the project (gsr report --list shows "
                                                "what there is)");
    return std::move(*s);
}

bool TuneStore::remove(std::int64_t id)
{
    Statement q(impl().conn, "DELETE FROM tune_sessions WHERE id = ?1");
    q.bind(1, id);
    q.run();
    return sqlite3_changes64(impl().conn.handle()) > 0;
}

namespace {

std::optional<std::string> stored_applied(Connection& c)
{
    Statement q(c, "SELECT value FROM project WHERE key = ?1");
    q.bind(1, tune::kAppliedKernelsKey);
    if (!q.step()) return std::nullopt;
    return q.column_text(0);
}

} // namespace

std::vector<tune::AppliedKernel> TuneStore::applied() const
{
    Connection& c = impl().conn;
    const std::optional<std::string> text = stored_applied(c);
    if (!text) return {};
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    try {
        if (j.is_discarded()) throw Error("not JSON");
        return tune::applied_from_json(j);
    } catch (const Error& e) {
        throw Error(c.path() + ": the applied kernels cannot be read (" + e.message() +
                    "); `gsr kernels apply --clear --project " + c.path() + "` forgets them");
    }
}

tune::ApplyChoice TuneStore::apply(const std::vector<std::int64_t>& ids)
{
    std::vector<tune::SessionRef> refs;
    if (ids.empty()) {
        for (const TuneSessionSummary& s : sessions()) refs.push_back({s.id, load(s.id)});
    } else {
        for (std::int64_t id : ids) refs.push_back({id, load(id)});
    }
    tune::ApplyChoice choice = tune::choose_applied(refs);
    Connection& c = impl().conn;
    detail::Transaction tx(c);
    const std::vector<tune::AppliedKernel> merged =
        tune::merge_applied(applied(), choice.kernels);
    Statement q(c, "INSERT INTO project(key, value) VALUES(?1, ?2)"
                   " ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    q.bind(1, tune::kAppliedKernelsKey);
    q.bind(2, json_text(tune::applied_json(merged)));
    q.run();
    tx.commit();
    return choice;
}

void TuneStore::clear_applied()
{
    Statement q(impl().conn, "DELETE FROM project WHERE key = ?1");
    q.bind(1, tune::kAppliedKernelsKey);
    q.run();
}

std::vector<nn::TunedKernel> project_tuned_kernels(const std::string& path,
                                                   std::vector<std::string>* notes)
{
    const TuneStore store = TuneStore::open(path, OpenMode::OpenExisting);
    return tune::tuned_kernels(store.applied(), notes);
}

namespace {
constexpr std::string_view kCalibrationKey = "calibration";
}

void store_calibration(ProjectStore& project, const sol::Calibration& calibration)
{
    project.set_project_value(kCalibrationKey, json_text(sol::calibration_json(calibration)));
}

std::optional<sol::Calibration> stored_calibration(const ProjectStore& project)
{
    const std::optional<std::string> saved = project.project_value(kCalibrationKey);
    if (!saved) return std::nullopt;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(*saved);
    } catch (const nlohmann::json::exception& e) {
        throw Error(SourceLocation{project.path()},
                    "its stored calibration is not valid JSON (" + json_error_text(e) +
                        "): run `gsr kernels calibrate --project` again");
    }
    sol::Calibration c;
    try {
        c = sol::calibration_from_json(j);
    } catch (const Error& e) {
        throw Error(SourceLocation{project.path()},
                    "its stored calibration cannot be used (" + e.message() +
                        "): run `gsr kernels calibrate --project` again");
    }
    c.source = project.path(); // an error about it names the project that keeps it
    // Peaks past what its GPU can do are refused now, naming the project, not where a bound
    // is computed.
    if (const sol::DeviceSpec* row = sol::find_device(c.device_name))
        (void)sol::calibrated_peaks(*row, c);
    return c;
}

} // namespace gsr::store
