#include "store/run_store.hpp"

#include "store/sqlite_connection.hpp"
#include "train/report_json.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <stdexcept>

namespace gsr::store {

using detail::Connection;
using detail::Statement;
using detail::Transaction;

namespace {

constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')";

constexpr const char* kRunColumns =
    "id, created_at, updated_at, config_json, status, device, target, model, epochs_done,"
    " best_epoch, best_val_loss, peak_bytes_analytic, peak_bytes_measured, result_json";

RunRecord read_run(const Statement& q)
{
    RunRecord r;
    r.id = q.column_int(0);
    r.created_at = q.column_text(1);
    r.updated_at = q.column_text(2);
    r.config_json = q.column_text(3);
    r.status = q.column_text(4);
    r.device = q.column_text(5);
    r.target = q.column_text(6);
    r.model = q.column_text(7);
    r.epochs_done = q.column_int(8);
    r.best_epoch = q.column_int(9);
    if (!q.column_is_null(10)) r.best_val_loss = q.column_real(10);
    r.peak_bytes_analytic = q.column_int(11);
    r.peak_bytes_measured = q.column_int(12);
    r.result_json = q.column_text(13);
    return r;
}

std::int64_t as_int(std::size_t v)
{
    return static_cast<std::int64_t>(std::min<std::size_t>(v, INT64_MAX));
}

} // namespace

struct RunStore::Impl {
    Impl(const std::string& path, int flags) : conn(path, flags) {}
    Connection conn;
};

// --- opening ---------------------------------------------------------------------------------

RunStore RunStore::open(const std::string& path, OpenMode mode,
                        std::chrono::milliseconds busy_timeout)
{
    // The project store checks the file and brings the schema up to date; this connection
    // then only reads and writes rows.
    auto impl =
        std::make_unique<Impl>(path, ProjectStore::prepare_for_rows(path, mode, busy_timeout));
    impl->conn.set_busy_timeout(busy_timeout);
    impl->conn.exec("PRAGMA foreign_keys=ON");
    return RunStore(std::move(impl));
}

RunStore::RunStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;
RunStore::~RunStore() = default;

const std::string& RunStore::path() const
{
    if (!impl_) throw std::logic_error("gsr::store::RunStore used after it was moved from");
    return impl_->conn.path();
}

// --- runs ------------------------------------------------------------------------------------

std::int64_t RunStore::create_run(const RunRecord& run)
{
    Connection& c = impl_->conn;
    Statement q(c, std::string("INSERT INTO runs(created_at, updated_at, config_json, status,"
                           " device, target, model, epochs_done, best_epoch, best_val_loss,"
                           " peak_bytes_analytic, peak_bytes_measured, result_json) VALUES(") +
                   kNow + ", " + kNow + ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
                   " RETURNING id");
    q.bind(1, run.config_json);
    q.bind(2, run.status.empty() ? std::string_view("created") : std::string_view(run.status));
    q.bind_optional(3, run.device);
    q.bind_optional(4, run.target);
    q.bind_optional(5, run.model);
    q.bind(6, run.epochs_done);
    if (run.best_epoch > 0) q.bind(7, run.best_epoch);
    else q.bind_null(7);
    if (run.best_val_loss) q.bind_real(8, *run.best_val_loss);
    else q.bind_null(8);
    q.bind(9, run.peak_bytes_analytic);
    q.bind(10, run.peak_bytes_measured);
    q.bind_optional(11, run.result_json);
    if (!q.step()) throw detail::sqlite_error(c.path(), SQLITE_INTERNAL, "insert gave no id");
    const std::int64_t id = q.column_int(0);
    q.run();
    return id;
}

std::optional<RunRecord> RunStore::find_run(std::int64_t id) const
{
    Statement q(impl_->conn, std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
    q.bind(1, id);
    if (!q.step()) return std::nullopt;
    return read_run(q);
}

std::vector<RunRecord> RunStore::runs() const
{
    Statement q(impl_->conn, std::string("SELECT ") + kRunColumns + " FROM runs ORDER BY id");
    std::vector<RunRecord> out;
    while (q.step()) out.push_back(read_run(q));
    return out;
}

void RunStore::set_status(std::int64_t id, std::string_view status,
                          std::string_view result_json)
{
    Statement q(impl_->conn, std::string("UPDATE runs SET status = ?2,"
                                     " result_json = coalesce(?3, result_json), updated_at = ") +
                             kNow + " WHERE id = ?1");
    q.bind(1, id);
    q.bind(2, status);
    q.bind_optional(3, result_json);
    q.run();
    if (sqlite3_changes64(impl_->conn.handle()) == 0)
        throw Error(SourceLocation{path()}, "no run " + std::to_string(id) + " in the project");
}

void RunStore::set_config(std::int64_t id, std::string_view config_json)
{
    Statement q(impl_->conn, std::string("UPDATE runs SET config_json = ?2, updated_at = ") +
                                 kNow + " WHERE id = ?1");
    q.bind(1, id);
    q.bind(2, config_json);
    q.run();
    if (sqlite3_changes64(impl_->conn.handle()) == 0)
        throw Error(SourceLocation{path()}, "no run " + std::to_string(id) + " in the project");
}

bool RunStore::remove_run(std::int64_t id)
{
    Statement q(impl_->conn, "DELETE FROM runs WHERE id = ?1"); // the rest goes by ON DELETE CASCADE
    q.bind(1, id);
    q.run();
    return sqlite3_changes64(impl_->conn.handle()) > 0;
}

void RunStore::finish_run(std::int64_t id, std::string_view status,
                          std::string_view result_json, std::int64_t peak_bytes_measured)
{
    // One statement: a reader never sees the final status without its numbers.
    Statement q(impl_->conn, std::string("UPDATE runs SET status = ?2, result_json = ?3,"
                                     " peak_bytes_measured = ?4, updated_at = ") +
                             kNow + " WHERE id = ?1");
    q.bind(1, id);
    q.bind(2, status);
    q.bind_optional(3, result_json);
    q.bind(4, peak_bytes_measured);
    q.run();
    if (sqlite3_changes64(impl_->conn.handle()) == 0)
        throw Error(SourceLocation{path()}, "no run " + std::to_string(id) + " in the project");
}

void RunStore::write_transaction(const std::function<void()>& body)
{
    Transaction tx(impl_->conn);
    body();
    tx.commit();
}

// --- memory ----------------------------------------------------------------------------------

void RunStore::set_layer_memory(std::int64_t run_id, const std::vector<LayerMemoryRecord>& rows,
                                std::int64_t peak_bytes_analytic,
                                std::int64_t peak_bytes_measured)
{
    Connection& c = impl_->conn;
    Transaction tx(c);
    {
        Statement del(c, "DELETE FROM run_layer_memory WHERE run_id = ?1");
        del.bind(1, run_id);
        del.run();
    }
    for (const LayerMemoryRecord& r : rows) {
        Statement q(c, "INSERT INTO run_layer_memory(run_id, layer, name, params, grads,"
                   " optimizer, activations, workspace, measured)"
                   " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
        q.bind(1, run_id);
        q.bind(2, r.layer);
        q.bind_optional(3, r.name);
        q.bind(4, r.params);
        q.bind(5, r.grads);
        q.bind(6, r.optimizer);
        q.bind(7, r.activations);
        q.bind(8, r.workspace);
        q.bind(9, std::int64_t{r.measured ? 1 : 0});
        q.run();
    }
    Statement up(c, std::string("UPDATE runs SET peak_bytes_analytic = ?2, peak_bytes_measured = ?3,"
                            " updated_at = ") + kNow + " WHERE id = ?1");
    up.bind(1, run_id);
    up.bind(2, peak_bytes_analytic);
    up.bind(3, peak_bytes_measured);
    up.run();
    if (sqlite3_changes64(c.handle()) == 0) {
        throw Error(SourceLocation{path()},
                    "no run " + std::to_string(run_id) + " in the project");
    }
    tx.commit();
}

std::vector<LayerMemoryRecord> RunStore::layer_memory(std::int64_t run_id) const
{
    Statement q(impl_->conn, "SELECT layer, name, params, grads, optimizer, activations, workspace,"
                         " measured FROM run_layer_memory WHERE run_id = ?1 ORDER BY layer");
    q.bind(1, run_id);
    std::vector<LayerMemoryRecord> out;
    while (q.step()) {
        LayerMemoryRecord r;
        r.layer = q.column_int(0);
        r.name = q.column_text(1);
        r.params = q.column_int(2);
        r.grads = q.column_int(3);
        r.optimizer = q.column_int(4);
        r.activations = q.column_int(5);
        r.workspace = q.column_int(6);
        r.measured = q.column_int(7) != 0;
        out.push_back(std::move(r));
    }
    return out;
}

// --- epochs and checkpoints ------------------------------------------------------------------

void RunStore::record_epoch(const RunEpochRecord& e, const CheckpointRecord& ck, bool improved,
                            std::size_t keep_checkpoints)
{
    if (keep_checkpoints < 1) throw std::invalid_argument("record_epoch: keep at least one");
    if (ck.run_id != e.run_id) throw std::invalid_argument("record_epoch: two different runs");
    Connection& c = impl_->conn;
    Transaction tx(c);
    {
        Statement q(c, "INSERT OR REPLACE INTO run_epochs(run_id, epoch, train_loss, val_loss,"
                   " metrics_json, seconds) VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
        q.bind(1, e.run_id);
        q.bind(2, e.epoch);
        q.bind_real(3, e.train_loss);
        q.bind_real(4, e.val_loss);
        q.bind_optional(5, e.metrics_json);
        q.bind_real(6, e.seconds);
        q.run();
    }
    {
        Statement q(c, std::string("INSERT OR REPLACE INTO checkpoints(run_id, epoch, model,"
                               " optimizer, rng, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ") +
                       kNow + ")");
        q.bind(1, ck.run_id);
        q.bind(2, ck.epoch);
        q.bind_blob(3, ck.model);
        q.bind_blob(4, ck.optimizer);
        q.bind_blob(5, ck.rng);
        q.run();
    }
    {
        Statement q(c, std::string("UPDATE runs SET epochs_done = ?2, status = 'running',"
                               " best_epoch = CASE WHEN ?3 THEN ?2 ELSE best_epoch END,"
                               " best_val_loss = CASE WHEN ?3 THEN ?4 ELSE best_val_loss END,"
                               " updated_at = ") + kNow + " WHERE id = ?1");
        q.bind(1, e.run_id);
        q.bind(2, e.epoch);
        q.bind(3, std::int64_t{improved ? 1 : 0});
        q.bind_real(4, e.val_loss);
        q.run();
        if (sqlite3_changes64(c.handle()) == 0)
            throw Error(SourceLocation{path()},
                        "no run " + std::to_string(e.run_id) + " in the project");
    }
    {
        // After the run's best epoch is up to date: its checkpoint stays too.
        Statement q(c, "DELETE FROM checkpoints WHERE run_id = ?1 AND epoch NOT IN (SELECT epoch"
                   " FROM checkpoints WHERE run_id = ?1 ORDER BY epoch DESC LIMIT ?2)"
                   " AND epoch IS NOT (SELECT best_epoch FROM runs WHERE id = ?1)");
        q.bind(1, ck.run_id);
        q.bind(2, as_int(keep_checkpoints));
        q.run();
    }
    tx.commit();
}

std::vector<RunEpochRecord> RunStore::epochs(std::int64_t run_id) const
{
    Statement q(impl_->conn, "SELECT run_id, epoch, train_loss, val_loss, metrics_json, seconds"
                         " FROM run_epochs WHERE run_id = ?1 ORDER BY epoch");
    q.bind(1, run_id);
    std::vector<RunEpochRecord> out;
    while (q.step()) {
        RunEpochRecord r;
        r.run_id = q.column_int(0);
        r.epoch = q.column_int(1);
        r.train_loss = q.column_real(2);
        r.val_loss = q.column_real(3);
        r.metrics_json = q.column_text(4);
        r.seconds = q.column_real(5);
        out.push_back(std::move(r));
    }
    return out;
}

namespace {

std::optional<CheckpointRecord> read_checkpoint(Statement& q)
{
    if (!q.step()) return std::nullopt;
    CheckpointRecord r;
    r.run_id = q.column_int(0);
    r.epoch = q.column_int(1);
    r.model = q.column_blob(2);
    r.optimizer = q.column_blob(3);
    r.rng = q.column_blob(4);
    r.created_at = q.column_text(5);
    return r;
}

} // namespace

std::optional<CheckpointRecord> RunStore::last_checkpoint(std::int64_t run_id) const
{
    Statement q(impl_->conn, "SELECT run_id, epoch, model, optimizer, rng, created_at FROM"
                         " checkpoints WHERE run_id = ?1 ORDER BY epoch DESC LIMIT 1");
    q.bind(1, run_id);
    return read_checkpoint(q);
}

std::optional<CheckpointRecord> RunStore::checkpoint(std::int64_t run_id, std::int64_t epoch) const
{
    Statement q(impl_->conn, "SELECT run_id, epoch, model, optimizer, rng, created_at FROM"
                         " checkpoints WHERE run_id = ?1 AND epoch = ?2");
    q.bind(1, run_id);
    q.bind(2, epoch);
    return read_checkpoint(q);
}

std::vector<std::int64_t> RunStore::checkpoint_epochs(std::int64_t run_id) const
{
    Statement q(impl_->conn, "SELECT epoch FROM checkpoints WHERE run_id = ?1 ORDER BY epoch");
    q.bind(1, run_id);
    std::vector<std::int64_t> out;
    while (q.step()) out.push_back(q.column_int(0));
    return out;
}

// --- the trainer's log -----------------------------------------------------------------------

std::vector<LayerMemoryRecord> layer_memory_rows(const nn::MemoryReport& report)
{
    std::vector<LayerMemoryRecord> rows;
    for (std::size_t i = 0; i < report.layers.size(); ++i) {
        const nn::LayerMemory& l = report.layers[i];
        LayerMemoryRecord r;
        r.layer = as_int(i);
        r.name = l.name;
        r.params = as_int(l.parameter_bytes);
        r.grads = as_int(l.gradient_bytes);
        r.optimizer = as_int(l.optimizer_bytes);
        r.activations = as_int(l.activation_bytes);
        r.workspace = as_int(l.workspace_bytes);
        rows.push_back(std::move(r));
    }
    return rows;
}

StoreRunLog::StoreRunLog(RunStore& store, std::int64_t run_id, std::size_t keep_checkpoints)
    : store_(store), run_id_(run_id), keep_(std::max<std::size_t>(1, keep_checkpoints))
{
}

void StoreRunLog::begin(const nn::MemoryReport& memory)
{
    const std::vector<LayerMemoryRecord> rows = layer_memory_rows(memory);
    store_.write_transaction([&] {
        // The run as this session found it: a resume that fails before it keeps an epoch
        // puts it back (fail()).
        before_ = store_.find_run(run_id_);
        store_.set_layer_memory(run_id_, rows, as_int(memory.analytic_peak_bytes),
                                before_ ? before_->peak_bytes_measured : 0);
        store_.set_status(run_id_, "running");
    });
    begun_ = true;
}

void StoreRunLog::epoch_done(const train::EpochReport& report, const train::Checkpoint& ck)
{
    RunEpochRecord e;
    e.run_id = run_id_;
    e.epoch = report.epoch;
    e.train_loss = report.train_loss;
    e.val_loss = report.validation.loss;
    e.metrics_json = json_text(train::epoch_report_json(report));
    e.seconds = report.seconds;
    CheckpointRecord c;
    c.run_id = run_id_;
    c.epoch = ck.epoch;
    c.model = ck.model;
    c.optimizer = ck.optimizer;
    c.rng = ck.rng;
    store_.record_epoch(e, c, report.improved, keep_);
    kept_epoch_ = true;
}

namespace {

train::Checkpoint trainer_checkpoint(CheckpointRecord&& r, std::uint32_t epoch)
{
    train::Checkpoint ck;
    ck.epoch = epoch;
    ck.model = std::move(r.model);
    ck.optimizer = std::move(r.optimizer);
    ck.rng = std::move(r.rng);
    return ck;
}

} // namespace

std::optional<train::Checkpoint> StoreRunLog::checkpoint_of(std::uint32_t epoch)
{
    std::optional<CheckpointRecord> r = store_.checkpoint(run_id_, epoch);
    if (!r) return std::nullopt;
    return trainer_checkpoint(std::move(*r), epoch);
}

std::optional<train::Checkpoint> StoreRunLog::last_checkpoint()
{
    std::optional<CheckpointRecord> r = store_.last_checkpoint(run_id_);
    if (!r) return std::nullopt;
    // An epoch no run can reach is damage: resuming would count on from it.
    if (r->epoch < 1 || r->epoch > std::int64_t{train::kMaxEpochs})
        throw Error(SourceLocation{store_.path()},
                    "run " + std::to_string(run_id_) + ": its last checkpoint is of epoch " +
                        std::to_string(r->epoch) + ", where an epoch is 1 to " +
                        std::to_string(train::kMaxEpochs));
    return trainer_checkpoint(std::move(*r), static_cast<std::uint32_t>(r->epoch));
}

void StoreRunLog::end(const std::string& status, const nlohmann::json& result)
{
    const std::int64_t measured =
        result.contains("memory") && result["memory"].is_object()
            ? result["memory"].value("measured_peak_bytes", std::int64_t{0})
            : std::int64_t{0};
    // A resume that kept no epoch (none was left to train, or it was stopped at once) leaves a
    // run that had ended as it was: its result and measured peak are those of its training,
    // where this session's would say it measured only the weights.
    if (begun_ && !kept_epoch_ && before_ && before_->status != "created" &&
        before_->status != "running") {
        const bool had_ended = before_->status == "finished" || before_->status == "stopped early";
        if (had_ended || status == "cancelled") return put_back();
        // A cancelled or failed run that has no epoch left (--epochs lowered to the epochs
        // done) ends now, with its training's result and peak under the new status.
        nlohmann::json kept = nlohmann::json::parse(before_->result_json, nullptr, false);
        if (!kept.is_object() || !kept.contains("best")) kept = result; // a failure's {"error"}
        kept["status"] = status;
        kept.erase("error");
        const std::int64_t peak =
            before_->peak_bytes_measured > 0 ? before_->peak_bytes_measured : measured;
        store_.finish_run(run_id_, status, json_text(kept), peak);
        return;
    }
    store_.finish_run(run_id_, status, json_text(result), measured);
}

void StoreRunLog::put_back()
{
    store_.finish_run(run_id_, before_->status, before_->result_json,
                      before_->peak_bytes_measured);
}

bool StoreRunLog::fail(const std::string& error, bool resumed)
{
    if (resumed && !begun_) return false;
    if (resumed && before_) {
        if (!kept_epoch_) { // nothing of this session was kept: the run as it was
            put_back();
            return false;
        }
        // Its earlier result (best epoch, test metrics, memory) stays, with the error added.
        nlohmann::json result = nlohmann::json::parse(before_->result_json, nullptr, false);
        if (!result.is_object()) result = nlohmann::json::object();
        result["error"] = error;
        store_.finish_run(run_id_, "failed", json_text(result), before_->peak_bytes_measured);
        return true;
    }
    store_.finish_run(run_id_, "failed", json_text({{"error", error}}), 0);
    return true;
}

} // namespace gsr::store
