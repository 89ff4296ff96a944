#include "store/sqlite_connection.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <limits>

#include <sys/statvfs.h>
#include <unistd.h>

namespace gsr::store::detail {

namespace {

/// Why a result code matters to the user, in their words; empty for codes that only a developer
/// can act on (those get the failing SQL appended instead).
std::string_view reason_for(int rc)
{
    switch (rc) {
    // WAL needs the -wal and -shm files beside the project: a writable file is not enough.
    case SQLITE_READONLY_DIRECTORY:
    case SQLITE_READONLY_CANTINIT:
        return "the project's folder is not writable, and a project needs files beside it";
    default: break;
    }
    switch (rc & 0xff) {
    case SQLITE_NOTADB: return "not a GSR Studio project";
    case SQLITE_CORRUPT: return "the project file is damaged";
    case SQLITE_BUSY: return "the project is in use by another program or window";
    case SQLITE_LOCKED: return "the project is locked";
    case SQLITE_READONLY: return "the project is open read-only, or its file cannot be written";
    case SQLITE_CANTOPEN:
        return "cannot open the project file, its folder may be missing or not writable";
    case SQLITE_PERM: return "no permission to use the project file";
    case SQLITE_FULL: return "the disk is full";
    case SQLITE_IOERR: return "could not read or write the project file";
    case SQLITE_NOMEM: return "out of memory";
    default: return {};
    }
}

int checked_length(std::string_view text)
{
    // SQLite takes lengths as int; a longer string is a bug upstream, not a user error.
    if (text.size() > static_cast<std::size_t>(INT_MAX)) return -1;
    return static_cast<int>(text.size());
}

} // namespace

Error sqlite_error(const std::string& path, int rc, std::string_view sqlite_message,
                   std::string_view sql)
{
    std::string message;
    std::string_view reason = reason_for(rc);
    if (!reason.empty()) {
        message = std::string(reason) + " (" + std::string(sqlite_message) + ")";
    } else {
        message = "database error: " + std::string(sqlite_message);
        if (!sql.empty()) {
            constexpr std::size_t kMaxSql = 80;
            std::string shown(sql.substr(0, kMaxSql));
            if (sql.size() > kMaxSql) shown += "...";
            message += " (in: " + shown + ")";
        }
    }
    return Error(SourceLocation{path}, std::move(message));
}

// --- Connection ------------------------------------------------------------------------------

std::string unwritable_side_file(const std::string& path)
{
    for (const char* side : {"-wal", "-shm"}) {
        const std::string file = path + side;
        if (::access(file.c_str(), F_OK) == 0 && ::access(file.c_str(), W_OK) != 0) return file;
    }
    return {};
}

bool write_protected(const std::string& path)
{
    namespace fs = std::filesystem;
    constexpr fs::perms kAnyWrite =
        fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    return !ec && fs::exists(status) && (status.permissions() & kAnyWrite) == fs::perms::none;
}

namespace {

/// The folder `path` lies in ("." for a bare name).
std::string folder_of(const std::string& path)
{
    const std::filesystem::path folder = std::filesystem::path(path).parent_path();
    return folder.empty() ? "." : folder.string();
}

/// Whether the file at `path`, its folder and any WAL side files beside it can be written.
bool writable_with_side_files(const std::string& path)
{
    if (write_protected(path) || ::access(path.c_str(), W_OK) != 0) return false;
    const std::string where = folder_of(path);
    // A folder with no write bit says "keep" to root as well.
    if (::access(where.c_str(), W_OK) != 0 || write_protected(where)) return false;
    return unwritable_side_file(path).empty();
}

/// Whether no one (root aside) can change the file at `path` while it is read, nor make the
/// WAL side files a writer would need: the file or its folder has no write bit at all, or
/// it lies on a file system mounted read-only (a disc, a read-only share).
bool unchangeable(const std::string& path)
{
    const std::string where = folder_of(path);
    struct statvfs fs_info {};
    if (::statvfs(where.c_str(), &fs_info) == 0 && (fs_info.f_flag & ST_RDONLY) != 0) return true;
    return write_protected(path) || write_protected(where);
}

/// `path` as an SQLite URI that opens it immutable. "file://" with an empty authority keeps a
/// path that starts with "//" a path; '%', '?' and '#' would end or escape it, so they are
/// written as %HH. "" when the path cannot be made absolute (the working folder is gone).
std::string immutable_uri(const std::string& path)
{
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
    if (ec) return {};
    std::string uri = "file://";
    for (const char c : absolute.string()) {
        if (c == '%' || c == '?' || c == '#') {
            constexpr char kHex[] = "0123456789ABCDEF";
            const auto byte = static_cast<unsigned char>(c);
            uri += '%';
            uri += kHex[byte >> 4];
            uri += kHex[byte & 0xf];
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

} // namespace

Connection::Connection(const std::string& path, int flags) : path_(path)
{
    // A read-only connection to a WAL project leaves its -wal and -shm files behind: only one
    // that may write checkpoints and removes them at the last close. So where everything can
    // be written, reading happens on a read-write connection that refuses every change
    // (PRAGMA query_only). Where no one can write the project or its folder and no -wal is
    // there (nothing committed past the file), it is read as immutable: no locks and no side
    // files, which a write-protected folder or a read-only disc could not take anyway. SQLite's
    // read-only connection reads the rest (a -wal left to read, a project another user may
    // write).
    std::string uri;
    const bool query_only = flags == SQLITE_OPEN_READONLY && writable_with_side_files(path);
    if (query_only) {
        flags = SQLITE_OPEN_READWRITE;
    } else if (std::error_code ec; flags == SQLITE_OPEN_READONLY &&
                                   !std::filesystem::exists(path + "-wal", ec) && !ec &&
                                   unchangeable(path)) {
        uri = immutable_uri(path);
        if (!uri.empty()) flags |= SQLITE_OPEN_URI;
    }
    int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        // open_v2 hands back a handle even on failure (except out of memory); it carries the
        // message and must still be closed.
        std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw sqlite_error(path_, rc, message);
    }
    rc = sqlite3_extended_result_codes(db_, 1);
    if (rc == SQLITE_OK && query_only)
        rc = sqlite3_exec(db_, "PRAGMA query_only=ON", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        Error error = sqlite_error(path_, rc, sqlite3_errmsg(db_));
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw error;
    }
}

Connection::~Connection()
{
    // Every Statement finalizes itself before its Connection goes, so close cannot be busy; a
    // destructor has no one to report a failure to anyway.
    if (db_) sqlite3_close_v2(db_);
}

void Connection::set_busy_timeout(std::chrono::milliseconds timeout)
{
    const auto ms = std::clamp<std::int64_t>(timeout.count(), 0, INT_MAX);
    const int rc = sqlite3_busy_timeout(db_, static_cast<int>(ms));
    if (rc != SQLITE_OK) fail(rc);
}

void Connection::exec(std::string_view sql)
{
    std::string text(sql); // sqlite3_exec wants a NUL-terminated string
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) fail(rc, sql);
}

void Connection::fail(int rc, std::string_view sql) const
{
    throw sqlite_error(path_, rc, sqlite3_errmsg(db_), sql);
}

// --- Statement -------------------------------------------------------------------------------

Statement::Statement(Connection& conn, std::string_view sql) : conn_(conn)
{
    int rc = sqlite3_prepare_v2(conn_.handle(), sql.data(), checked_length(sql), &stmt_, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(stmt_); // a harmless no-op on nullptr
        stmt_ = nullptr;
        conn_.fail(rc, sql);
    }
    if (!stmt_) {
        // Only whitespace or comments: a bug in the caller's SQL, reported like one.
        throw sqlite_error(conn_.path(), SQLITE_MISUSE, "empty statement", sql);
    }
}

Statement::~Statement()
{
    // finalize repeats the latest step error, which step() has already thrown.
    sqlite3_finalize(stmt_);
}

void Statement::bind(int index, std::int64_t value)
{
    int rc = sqlite3_bind_int64(stmt_, index, static_cast<sqlite3_int64>(value));
    if (rc != SQLITE_OK) conn_.fail(rc, sqlite3_sql(stmt_));
}

void Statement::bind(int index, std::string_view text)
{
    // SQLITE_TRANSIENT: SQLite copies the text, so the caller's buffer may go away before step.
    int rc = sqlite3_bind_text(stmt_, index, text.data(), checked_length(text), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) conn_.fail(rc, sqlite3_sql(stmt_));
}

void Statement::bind_optional(int index, std::string_view text)
{
    if (text.empty()) {
        bind_null(index);
    } else {
        bind(index, text);
    }
}

void Statement::bind_null(int index)
{
    int rc = sqlite3_bind_null(stmt_, index);
    if (rc != SQLITE_OK) conn_.fail(rc, sqlite3_sql(stmt_));
}

void Statement::bind_real(int index, double value)
{
    if (!std::isfinite(value)) return bind_null(index);
    int rc = sqlite3_bind_double(stmt_, index, value);
    if (rc != SQLITE_OK) conn_.fail(rc, sqlite3_sql(stmt_));
}

void Statement::bind_blob(int index, const std::vector<std::uint8_t>& bytes)
{
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) conn_.fail(SQLITE_TOOBIG, sqlite3_sql(stmt_));
    // A zero-length blob needs a non-null pointer, or SQLite stores NULL.
    static const std::uint8_t kEmpty = 0;
    int rc = sqlite3_bind_blob(stmt_, index, bytes.empty() ? &kEmpty : bytes.data(),
                               static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) conn_.fail(rc, sqlite3_sql(stmt_));
}

bool Statement::step()
{
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    conn_.fail(rc, sqlite3_sql(stmt_));
}

void Statement::run()
{
    while (step()) {
    }
}

bool Statement::column_is_null(int col) const
{
    return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

std::int64_t Statement::column_int(int col) const
{
    return static_cast<std::int64_t>(sqlite3_column_int64(stmt_, col));
}

std::string Statement::column_text(int col) const
{
    const unsigned char* text = sqlite3_column_text(stmt_, col);
    if (!text) {
        // NULL, or the conversion ran out of memory: tell the two apart.
        if (sqlite3_column_type(stmt_, col) == SQLITE_NULL) return {};
        conn_.fail(SQLITE_NOMEM);
    }
    int bytes = sqlite3_column_bytes(stmt_, col);
    return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(bytes));
}

// --- Transaction -----------------------------------------------------------------------------

Transaction::Transaction(Connection& conn) : conn_(conn)
{
    // autocommit is off exactly while a transaction is open on this connection.
    nested_ = sqlite3_get_autocommit(conn_.handle()) == 0;
    conn_.exec(nested_ ? "SAVEPOINT gsr_nested" : "BEGIN IMMEDIATE");
    open_ = true;
}

Transaction::~Transaction()
{
    if (!open_) return;
    // Errors here cannot be thrown; if ROLLBACK fails, SQLite has already rolled back (that is
    // when it refuses), or closing the connection will.
    if (nested_) {
        sqlite3_exec(conn_.handle(), "ROLLBACK TO gsr_nested; RELEASE gsr_nested", nullptr,
                     nullptr, nullptr);
    } else if (sqlite3_get_autocommit(conn_.handle()) == 0) {
        sqlite3_exec(conn_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit()
{
    // A failed COMMIT leaves the transaction open, so the destructor still rolls it back.
    conn_.exec(nested_ ? "RELEASE gsr_nested" : "COMMIT");
    open_ = false;
}

double Statement::column_real(int col) const
{
    if (column_is_null(col)) return std::numeric_limits<double>::quiet_NaN();
    return sqlite3_column_double(stmt_, col);
}

std::vector<std::uint8_t> Statement::column_blob(int col) const
{
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_, col));
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::vector<std::uint8_t>(p, p + n) : std::vector<std::uint8_t>{};
}

} // namespace gsr::store::detail
