#pragma once
// A thin RAII layer over the SQLite C API, private to core/store (the GPU machine has no
// sqlite3.h, so no header outside this folder may include this one). Every sqlite3 return code
// is checked, and every failure becomes a gsr::Error that names the project file.
#include "util/diagnostics.hpp"

#include <sqlite3.h>

#include <cstdint>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::store::detail {

/// @brief The user-facing error for SQLite result code `rc`: a plain-words reason first, then
/// SQLite's own message, then (for errors that only a developer can act on) the SQL that failed.
Error sqlite_error(const std::string& path, int rc, std::string_view sqlite_message,
                   std::string_view sql = {});

/// The first of the project's WAL side files (-wal, -shm) that is there but cannot be written,
/// or "" when none is.
std::string unwritable_side_file(const std::string& path);

/// Whether the file at `path` is there and its mode lets no one write it. Root passes every
/// access() check, yet such a mode says "keep" (the atomic writer reads it so too): the
/// project is then neither written nor checkpointed, for root as for anyone.
bool write_protected(const std::string& path);

/// One open database connection. Owns the sqlite3 handle; not thread-safe.
class Connection {
public:
    /// @brief Opens `path` with sqlite3_open_v2 `flags`; throws gsr::Error if that fails.
    Connection(const std::string& path, int flags);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    sqlite3* handle() const { return db_; }
    const std::string& path() const { return path_; }

    /// @brief Waits up to `timeout` for another connection's lock instead of failing at once.
    void set_busy_timeout(std::chrono::milliseconds timeout);
    /// @brief Runs one or more statements that return no rows we need.
    void exec(std::string_view sql);
    /// @brief Throws the gsr::Error for `rc`, using the connection's latest error message.
    [[noreturn]] void fail(int rc, std::string_view sql = {}) const;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

/// A prepared statement. Parameters are 1-based (as in SQLite), columns 0-based.
class Statement {
public:
    Statement(Connection& conn, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(int index, std::int64_t value);
    void bind(int index, std::string_view text);
    /// @brief Binds NULL when `text` is empty: optional text columns hold NULL, not "".
    void bind_optional(int index, std::string_view text);
    void bind_null(int index);
    /// @brief Binds a double; NaN and infinities are stored as NULL.
    void bind_real(int index, double value);
    void bind_blob(int index, const std::vector<std::uint8_t>& bytes);

    /// @brief Advances; true while there is a row to read, false once the statement is done.
    bool step();
    /// @brief Steps a statement that must produce no row (or whose rows are not wanted).
    void run();

    bool column_is_null(int col) const;
    std::int64_t column_int(int col) const;
    /// @brief The column as text; NULL reads as "".
    std::string column_text(int col) const;
    /// @brief The column as a double; NULL reads as NaN.
    double column_real(int col) const;
    std::vector<std::uint8_t> column_blob(int col) const;

private:
    Connection& conn_;
    sqlite3_stmt* stmt_ = nullptr;
};

/// A write transaction: BEGIN IMMEDIATE here, COMMIT in commit(), ROLLBACK in the destructor
/// when commit() was not reached (an exception, an early return). IMMEDIATE takes the write lock
/// up front, so a busy database fails at the start instead of half-way through. Inside another
/// transaction it becomes a SAVEPOINT, so helpers that open their own transaction compose.
class Transaction {
public:
    explicit Transaction(Connection& conn);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit();

private:
    Connection& conn_;
    bool nested_ = false;
    bool open_ = false;
};

} // namespace gsr::store::detail
