#include "store/project_store.hpp"

#include "store/sqlite_connection.hpp"
#include "util/diagnostics.hpp"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#ifndef GSR_VERSION
#define GSR_VERSION "unknown"
#endif

namespace gsr::store {

using detail::Connection;
using detail::Statement;
using detail::Transaction;

namespace {

// ---------------------------------------------------------------------------------------------
// THE SCHEMA: the one place that knows the tables. Migration i takes PRAGMA user_version from
// i to i + 1; it runs in one transaction together with the version bump, so a failure leaves
// the file at the old version.
//
// To change the schema, APPEND one entry, for example
//     {"runs", "CREATE TABLE runs(id INTEGER PRIMARY KEY, netlist_id INTEGER NOT NULL"
//              " REFERENCES netlists(id) ON DELETE CASCADE, started_at TEXT);"},
// and nothing else: latest_schema_version() follows the list. Never edit, reorder or remove a
// shipped entry (files in the field have already run it). Migrations run with foreign keys
// off, so a table can be rebuilt (CREATE new, copy, DROP old, RENAME) the way the SQLite manual
// describes; the rows are checked with PRAGMA foreign_key_check before the commit.
// ---------------------------------------------------------------------------------------------
const std::vector<Migration>& schema()
{
    static const std::vector<Migration> migrations = {
        {"project and netlists tables",
         "CREATE TABLE project(key TEXT PRIMARY KEY, value TEXT);"
         "CREATE TABLE netlists("
         " id INTEGER PRIMARY KEY,"
         " path TEXT NOT NULL,"
         " content_hash TEXT NOT NULL,"
         " format TEXT,"
         " top TEXT,"
         " inputs INTEGER,"
         " outputs INTEGER,"
         " flip_flops INTEGER,"
         " cells INTEGER,"
         " nets INTEGER,"
         " graph_nodes INTEGER,"
         " graph_edges INTEGER,"
         " max_level INTEGER,"
         " warnings INTEGER,"
         " imported_at TEXT,"
         " UNIQUE(path, content_hash));"
         "INSERT INTO project(key, value) VALUES"
         " ('application', 'GSR Studio'),"
         " ('created_with', '" GSR_VERSION "'),"
         " ('created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));"},
        // Training runs (core/store/run_store.hpp). A checkpoint's `optimizer` BLOB is the
        // trainer's state; the Adam moments travel inside `model` (nn::Model::save_state).
        {"training runs",
         "CREATE TABLE runs("
         " id INTEGER PRIMARY KEY,"
         " created_at TEXT NOT NULL,"
         " updated_at TEXT NOT NULL,"
         " config_json TEXT NOT NULL,"
         " status TEXT NOT NULL,"
         " device TEXT,"
         " target TEXT,"
         " model TEXT,"
         " epochs_done INTEGER NOT NULL DEFAULT 0,"
         " best_epoch INTEGER,"
         " best_val_loss REAL,"
         " peak_bytes_analytic INTEGER,"
         " peak_bytes_measured INTEGER,"
         " result_json TEXT);"
         "CREATE TABLE run_epochs("
         " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
         " epoch INTEGER NOT NULL,"
         " train_loss REAL,"
         " val_loss REAL,"
         " metrics_json TEXT,"
         " seconds REAL,"
         " PRIMARY KEY(run_id, epoch));"
         "CREATE TABLE run_layer_memory("
         " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
         " layer INTEGER NOT NULL,"
         " name TEXT,"
         " params INTEGER NOT NULL,"
         " grads INTEGER NOT NULL,"
         " optimizer INTEGER NOT NULL,"
         " activations INTEGER NOT NULL,"
         " workspace INTEGER NOT NULL,"
         " measured INTEGER NOT NULL,"
         " PRIMARY KEY(run_id, layer));"
         "CREATE TABLE checkpoints("
         " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
         " epoch INTEGER NOT NULL,"
         " model BLOB NOT NULL,"
         " optimizer BLOB NOT NULL,"
         " rng BLOB NOT NULL,"
         " created_at TEXT NOT NULL,"
         " PRIMARY KEY(run_id, epoch));"},
        // Kernel tuning sessions (core/store/tune_store.hpp): `json` is to_json(TuneSession);
        // the other columns repeat what a listing shows, so listing parses no JSON.
        {"tune sessions",
         "CREATE TABLE tune_sessions("
         " id INTEGER PRIMARY KEY,"
         " created TEXT NOT NULL,"
         " problem TEXT NOT NULL,"
         " device TEXT NOT NULL,"
         " strategy TEXT,"
         " best_percent_of_sol REAL,"
         " candidates INTEGER NOT NULL DEFAULT 0,"
         " json TEXT NOT NULL);"},
    };
    return migrations;
}

constexpr const char* kNetlistColumns =
    "id, path, content_hash, format, top, inputs, outputs, flip_flops, cells, nets,"
    " graph_nodes, graph_edges, max_level, warnings, imported_at";

Error error_at(const std::string& path, std::string message)
{
    return Error(SourceLocation{path}, std::move(message));
}

std::int64_t read_int(Connection& conn, const char* sql)
{
    Statement st(conn, sql);
    if (!st.step()) {
        throw detail::sqlite_error(conn.path(), SQLITE_INTERNAL, "query returned no row", sql);
    }
    return st.column_int(0);
}

std::string hex32(std::int64_t value)
{
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(value & 0xffffffff));
    return buf;
}

/// Whether the file at `path` is empty or begins as every SQLite database does.
bool empty_or_sqlite(const std::string& path)
{
    static constexpr char kMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                        'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return true; // gone since SQLite opened it: nothing here to keep
    char head[16];
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return n == 0 || (n == sizeof head && std::memcmp(head, kMagic, sizeof head) == 0);
}

/// What a database says of itself: its application id, schema version and object count.
struct Header {
    std::int64_t app_id = 0, version = 0, objects = 0;
    bool blank() const { return app_id == 0 && version == 0 && objects == 0; }
};

Header read_header(Connection& conn)
{
    // The first read of the file: this is where "not a database" and damage show up. One
    // statement, so one snapshot: read one by one, a project another process was creating
    // meanwhile looked foreign (its application_id read before that commit, its tables after).
    Statement header(conn, "SELECT (SELECT application_id FROM pragma_application_id),"
                           " (SELECT user_version FROM pragma_user_version),"
                           " (SELECT count(*) FROM sqlite_master)");
    if (!header.step())
        throw detail::sqlite_error(conn.path(), SQLITE_INTERNAL, "query returned no row",
                                   "the project's header");
    const Header h{header.column_int(0), header.column_int(1), header.column_int(2)};
    header.run(); // done: the read ends here
    return h;
}

/// Refuses files that this build must not touch: other applications' databases and files
/// from newer builds. Returns the file's schema version.
int check_project_header(Connection& conn, OpenMode mode, int latest)
{
    const Header header = read_header(conn);
    const std::int64_t app_id = header.app_id, version = header.version;
    if (header.blank()) {
        // SQLite reads a 1-byte file as an empty one (its size of 1 counts as 0): a file of
        // text that short ("\n") is no database, and no command may make it a project.
        if (!empty_or_sqlite(conn.path()))
            throw error_at(conn.path(), "not a GSR Studio project (not a SQLite database)");
        // An empty (or 0-byte) database becomes a project only where one may be created: a
        // listing or an export given an empty file by mistake must not turn it into one.
        if (mode != OpenMode::CreateOrOpen) {
            throw error_at(conn.path(), "not a GSR Studio project (an empty database)");
        }
        return 0;
    }
    if (app_id != ProjectStore::kApplicationId) {
        throw error_at(conn.path(),
                       "not a GSR Studio project (a SQLite database of another application, "
                       "application_id " + hex32(app_id) + ")");
    }
    if (version < 0) {
        // No build writes one; the migrations are indexed by it.
        throw error_at(conn.path(), "is damaged: its schema version is " +
                                        std::to_string(version) +
                                        ", where a GSR Studio project has 1 to " +
                                        std::to_string(latest));
    }
    if (version > latest) {
        throw error_at(conn.path(), "was written by a newer GSR Studio (schema " +
                                        std::to_string(version) + ", this build knows up to " +
                                        std::to_string(latest) + ")");
    }
    if (version < latest && mode == OpenMode::ReadOnly) {
        throw error_at(conn.path(), "was written by an older GSR Studio (schema " +
                                        std::to_string(version) + ", this build needs " +
                                        std::to_string(latest) +
                                        "): open it once for writing to upgrade it");
    }
    return static_cast<int>(version);
}

void enable_wal(Connection& conn, std::chrono::milliseconds busy_timeout)
{
    // WAL lets the GUI read while an import writes. The mode is stored in the file, so this
    // changes something only the first time. That switch does not wait for a lock as other
    // statements do (SQLite calls no busy handler there): another process creating the same
    // project at this moment holds the file briefly, so wait here as a busy handler would.
    constexpr const char* kSql = "PRAGMA journal_mode=WAL";
    const auto deadline = std::chrono::steady_clock::now() + busy_timeout;
    std::string mode;
    for (;;) {
        sqlite3_stmt* st = nullptr;
        int rc = sqlite3_prepare_v2(conn.handle(), kSql, -1, &st, nullptr);
        if (rc == SQLITE_OK) {
            rc = sqlite3_step(st);
            if (rc == SQLITE_ROW) {
                const unsigned char* text = sqlite3_column_text(st, 0);
                mode = text ? reinterpret_cast<const char*>(text) : "";
                rc = SQLITE_OK;
            }
        }
        sqlite3_finalize(st);
        if ((rc & 0xff) == SQLITE_BUSY && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            continue;
        }
        if (rc != SQLITE_OK) conn.fail(rc, kSql);
        break;
    }
    if (mode != "wal") {
        throw error_at(conn.path(), "cannot use write-ahead logging for this project (journal "
                                    "mode stays '" + mode + "'; is it on a network drive?)");
    }
}

/// Applies migrations[version..] one transaction each; returns the final version.
int migrate(Connection& conn, const std::vector<Migration>& migrations, int version_seen)
{
    const int latest = static_cast<int>(migrations.size());
    // Up to date: take no write lock, so opening never waits for another program's import.
    if (version_seen >= latest) return version_seen;
    for (;;) {
        Transaction tx(conn);
        // Read again under the write lock: another process may have migrated meanwhile.
        const int version = static_cast<int>(read_int(conn, "PRAGMA user_version"));
        if (version >= latest) {
            tx.commit();
            return version;
        }
        const Migration& step = migrations[static_cast<std::size_t>(version)];
        try {
            if (version == 0) {
                // Marks the file as ours, in the same transaction as the first tables.
                conn.exec("PRAGMA application_id = " +
                          std::to_string(ProjectStore::kApplicationId));
            }
            conn.exec(step.sql);
            {
                Statement fk(conn, "PRAGMA foreign_key_check");
                if (fk.step()) {
                    throw error_at(conn.path(), "rows of table '" + fk.column_text(0) +
                                                    "' point at rows that do not exist");
                }
            }
            conn.exec("PRAGMA user_version = " + std::to_string(version + 1));
            tx.commit();
        } catch (const Error& e) {
            throw error_at(conn.path(), "cannot upgrade the project to schema " +
                                            std::to_string(version + 1) + " (" + step.name +
                                            "): " + e.message());
        }
    }
}

void enable_foreign_keys(Connection& conn)
{
    conn.exec("PRAGMA foreign_keys=ON");
    // The pragma is silently ignored by builds without foreign keys: make sure it took.
    if (read_int(conn, "PRAGMA foreign_keys") != 1) {
        throw error_at(conn.path(), "this SQLite library does not enforce foreign keys");
    }
}

NetlistRecord read_netlist(const Statement& st)
{
    NetlistRecord r;
    r.id = st.column_int(0);
    r.path = st.column_text(1);
    r.content_hash = st.column_text(2);
    r.format = st.column_text(3);
    r.top = st.column_text(4);
    r.inputs = st.column_int(5);
    r.outputs = st.column_int(6);
    r.flip_flops = st.column_int(7);
    r.cells = st.column_int(8);
    r.nets = st.column_int(9);
    r.graph_nodes = st.column_int(10);
    r.graph_edges = st.column_int(11);
    r.max_level = st.column_int(12);
    r.warnings = st.column_int(13);
    r.imported_at = st.column_text(14);
    return r;
}

} // namespace

// --- opening ---------------------------------------------------------------------------------

ProjectStore ProjectStore::open(const std::string& path, OpenMode mode,
                                std::chrono::milliseconds busy_timeout)
{
    return open_with_migrations(path, mode, schema(), busy_timeout);
}

ProjectStore ProjectStore::open_with_migrations(const std::string& path, OpenMode mode,
                                                const std::vector<Migration>& migrations,
                                                std::chrono::milliseconds busy_timeout)
{
    namespace fs = std::filesystem;
    // SQLite reads "" as "a private temporary database": never what the caller meant.
    if (path.empty()) throw Error("no project file given");
    // SQLite opens "p/" as the file p (and creates it): a name meant as a folder.
    if (path.back() == '/') throw error_at(path, "ends in '/': a project is a file, not a folder");

    // SQLite's "unable to open database file" does not say why; these cases can be named.
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec && status.type() != fs::file_type::not_found) {
        throw error_at(path, "cannot open the project file: " + ec.message());
    }
    if (fs::is_directory(status)) throw error_at(path, "is a folder, not a project file");
    // A device or a pipe: SQLite would put its journal beside it (/dev/null-journal).
    if (fs::exists(status) && !fs::is_regular_file(status))
        throw error_at(path, "is not a regular file (a device, a pipe or a socket), not a "
                             "project file");
    if (mode != OpenMode::CreateOrOpen && !fs::exists(status)) {
        throw error_at(path, "no such project file");
    }

    int flags = 0;
    switch (mode) {
    case OpenMode::CreateOrOpen: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE; break;
    case OpenMode::OpenExisting: flags = SQLITE_OPEN_READWRITE; break;
    case OpenMode::ReadOnly: flags = SQLITE_OPEN_READONLY; break;
    }
    auto conn = std::make_unique<Connection>(path, flags);

    conn->set_busy_timeout(busy_timeout);

    // SQLite quietly falls back to read-only when the file itself is write-protected; say so
    // now rather than at the first write.
    if (mode != OpenMode::ReadOnly &&
        (detail::write_protected(path) || sqlite3_db_readonly(conn->handle(), "main") == 1)) {
        throw error_at(path, "the project file is read-only: open it read-only, or make it "
                             "writable");
    }
    // WAL's side files, left write-protected by an earlier open (a read-only one by a user
    // who could not write the project then): every write would fail with "readonly
    // database", naming the project, whose own file is fine.
    if (mode != OpenMode::ReadOnly) {
        if (const std::string file = detail::unwritable_side_file(path); !file.empty())
            throw error_at(file, "cannot be written, so neither can the project: make it "
                                 "writable, or remove it while no program has the project "
                                 "open");
    }

    const int latest = static_cast<int>(migrations.size());
    int version = check_project_header(*conn, mode, latest);
    // The header read, SQLite knows page 1: a file format write version past 2 (a damaged
    // byte 18, or a newer SQLite) makes it read-only, which the first write would blame on
    // the file's permissions.
    if (mode != OpenMode::ReadOnly && sqlite3_db_readonly(conn->handle(), "main") == 1)
        throw error_at(path, "is damaged, or was written by a newer SQLite: its header lets it "
                             "be read only (a file format write version over 2)");
    if (mode != OpenMode::ReadOnly) {
        // Only after the header check: a foreign database must not be switched to WAL.
        enable_wal(*conn, busy_timeout);
        // In WAL mode NORMAL cannot corrupt the file; it only may lose the last commits on a
        // power cut, and saves an fsync per transaction.
        conn->exec("PRAGMA synchronous=NORMAL");
        // Foreign keys are still off: migrations may rebuild tables (see schema()).
        version = migrate(*conn, migrations, version);
    }
    enable_foreign_keys(*conn);
    return ProjectStore(std::move(conn), version);
}

int ProjectStore::prepare_for_rows(const std::string& path, OpenMode mode,
                                   std::chrono::milliseconds busy_timeout)
{
    { open(path, mode, busy_timeout); }
    return mode == OpenMode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
}

bool ProjectStore::is_blank(const std::string& path)
{
    std::error_code ec;
    // A 0-byte file reads as a database with no tables; a 1-byte one would too, so its bytes
    // are looked at first.
    if (!std::filesystem::is_regular_file(path, ec) || !empty_or_sqlite(path)) return false;
    try {
        Connection conn(path, SQLITE_OPEN_READONLY);
        return read_header(conn).blank();
    } catch (const Error&) {
        return false; // damaged, locked, unreadable: not known to be blank
    }
}

bool ProjectStore::is_read_only_file(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return false;
    return detail::write_protected(path) || ::access(path.c_str(), W_OK) != 0;
}

int ProjectStore::latest_schema_version()
{
    return static_cast<int>(schema().size());
}

ProjectStore::ProjectStore(std::unique_ptr<Connection> conn, int schema_version)
    : conn_(std::move(conn)), schema_version_(schema_version)
{
}

ProjectStore::ProjectStore(ProjectStore&&) noexcept = default;
ProjectStore& ProjectStore::operator=(ProjectStore&&) noexcept = default;
ProjectStore::~ProjectStore() = default;

Connection& ProjectStore::conn() const
{
    if (!conn_) throw std::logic_error("gsr::store::ProjectStore used after it was moved from");
    return *conn_;
}

const std::string& ProjectStore::path() const
{
    return conn().path();
}

// --- netlists --------------------------------------------------------------------------------

std::int64_t ProjectStore::add_netlist(const NetlistRecord& record)
{
    if (record.path.empty() || record.content_hash.empty()) {
        throw error_at(conn().path(), "cannot add a netlist without a path and a content hash");
    }
    // One statement, so it is atomic without an explicit transaction; RETURNING gives the id of
    // the inserted or the updated row alike.
    Statement st(conn(),
                 "INSERT INTO netlists(path, content_hash, format, top, inputs, outputs,"
                 " flip_flops, cells, nets, graph_nodes, graph_edges, max_level, warnings,"
                 " imported_at)"
                 " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
                 " coalesce(?14, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))"
                 " ON CONFLICT(path, content_hash) DO UPDATE SET"
                 " format = excluded.format, top = excluded.top, inputs = excluded.inputs,"
                 " outputs = excluded.outputs, flip_flops = excluded.flip_flops,"
                 " cells = excluded.cells, nets = excluded.nets,"
                 " graph_nodes = excluded.graph_nodes, graph_edges = excluded.graph_edges,"
                 " max_level = excluded.max_level, warnings = excluded.warnings,"
                 " imported_at = excluded.imported_at"
                 " RETURNING id");
    st.bind(1, record.path);
    st.bind(2, record.content_hash);
    st.bind_optional(3, record.format);
    st.bind_optional(4, record.top);
    st.bind(5, record.inputs);
    st.bind(6, record.outputs);
    st.bind(7, record.flip_flops);
    st.bind(8, record.cells);
    st.bind(9, record.nets);
    st.bind(10, record.graph_nodes);
    st.bind(11, record.graph_edges);
    st.bind(12, record.max_level);
    st.bind(13, record.warnings);
    st.bind_optional(14, record.imported_at);
    if (!st.step()) {
        throw detail::sqlite_error(conn().path(), SQLITE_INTERNAL, "upsert returned no id");
    }
    const std::int64_t id = st.column_int(0);
    st.run(); // finish the statement so the write is complete before we return
    return id;
}

std::vector<NetlistRecord> ProjectStore::netlists() const
{
    Statement st(conn(), std::string("SELECT ") + kNetlistColumns + " FROM netlists ORDER BY id");
    std::vector<NetlistRecord> out;
    while (st.step()) out.push_back(read_netlist(st));
    return out;
}

std::optional<NetlistRecord> ProjectStore::find_netlist(std::int64_t id) const
{
    Statement st(conn(),
                 std::string("SELECT ") + kNetlistColumns + " FROM netlists WHERE id = ?1");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_netlist(st);
}

bool ProjectStore::remove_netlist(std::int64_t id)
{
    Statement st(conn(), "DELETE FROM netlists WHERE id = ?1");
    st.bind(1, id);
    st.run();
    return sqlite3_changes64(conn().handle()) > 0;
}

// --- project key/values, transactions --------------------------------------------------------

std::optional<std::string> ProjectStore::project_value(std::string_view key) const
{
    Statement st(conn(), "SELECT value FROM project WHERE key = ?1");
    st.bind(1, key);
    if (!st.step()) return std::nullopt;
    return st.column_text(0);
}

void ProjectStore::set_project_value(std::string_view key, std::string_view value)
{
    Statement st(conn(), "INSERT INTO project(key, value) VALUES(?1, ?2)"
                         " ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    st.bind(1, key);
    st.bind(2, value);
    st.run();
}

void ProjectStore::write_transaction(const std::function<void()>& body)
{
    Transaction tx(conn());
    body();
    tx.commit();
}

// --- content hash ----------------------------------------------------------------------------

namespace {

constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

std::uint64_t fnv1a(std::uint64_t h, const unsigned char* data, std::size_t size)
{
    for (std::size_t i = 0; i < size; ++i) {
        h ^= data[i];
        h *= kFnvPrime;
    }
    return h;
}

std::string hex64(std::uint64_t h)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = kDigits[h & 0xf];
    return out;
}

} // namespace

std::string content_hash(std::string_view bytes)
{
    return hex64(fnv1a(kFnvOffset, reinterpret_cast<const unsigned char*>(bytes.data()),
                       bytes.size()));
}

std::string content_hash_of_file(const std::string& path)
{
    struct Closer {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
    if (!file) throw error_at(path, std::string("cannot read the file: ") + std::strerror(errno));

    std::vector<unsigned char> buffer(1 << 16);
    std::uint64_t h = kFnvOffset;
    for (;;) {
        const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), file.get());
        h = fnv1a(h, buffer.data(), n);
        if (n < buffer.size()) break;
    }
    if (std::ferror(file.get())) {
        throw error_at(path, std::string("cannot read the file: ") + std::strerror(errno));
    }
    return hex64(h);
}

} // namespace gsr::store
