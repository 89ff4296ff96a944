#pragma once
// The project store: a GSR Studio project is one SQLite file (WAL journal, foreign keys on).
// This header includes no SQLite header, so any part of core may include it; it exists only
// where the build found SQLite (GSR_HAVE_STORE). Errors are gsr::Error naming the file.
//
// Contents: OpenMode, Migration, NetlistRecord, ProjectStore, content_hash*.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gsr::store {

namespace detail {
class Connection;
}

enum class OpenMode {
    CreateOrOpen, ///< create the file if it is missing; upgrade an older schema
    OpenExisting, ///< the file must exist; upgrade an older schema
    ReadOnly,     ///< the file must exist at the latest schema; nothing is ever written
};

/// One forward schema step: migration i of a list takes the file from version i to i + 1.
struct Migration {
    std::string name; ///< named in the error when it fails
    std::string sql;  ///< one or more statements
};

/// One imported netlist: a row of the `netlists` table. Empty text and 0 mean "not known".
struct NetlistRecord {
    std::int64_t id = 0; ///< set by the store; ignored by add_netlist
    std::string path;
    std::string content_hash; ///< content_hash_of_file(path) at import
    std::string format;       ///< reader format name, e.g. "verilog"
    std::string top;          ///< top module
    std::int64_t inputs = 0;
    std::int64_t outputs = 0;
    std::int64_t flip_flops = 0;
    std::int64_t cells = 0;
    std::int64_t nets = 0;
    std::int64_t graph_nodes = 0;
    std::int64_t graph_edges = 0;
    std::int64_t max_level = 0;
    std::int64_t warnings = 0;
    std::string imported_at; ///< UTC "YYYY-MM-DDTHH:MM:SSZ"; add_netlist fills in now if empty

    bool operator==(const NetlistRecord&) const = default;
};

/// An open project file. Move-only; one connection, not thread-safe (open one per thread).
/// A moved-from store may only be destroyed or assigned to.
class ProjectStore {
public:
    /// `PRAGMA application_id` of every GSR Studio project: "GSRS" in ASCII.
    static constexpr std::int32_t kApplicationId = 0x47535253;
    /// How long a statement waits for another connection's lock before failing as "locked".
    static constexpr std::chrono::milliseconds kDefaultBusyTimeout{5000};

    /// @brief Opens (or creates) a project and brings its schema up to date.
    /// @throws gsr::Error naming `path` when the file is missing (OpenExisting, ReadOnly), is not
    /// SQLite, is damaged, belongs to another application, was written by a newer build, cannot
    /// be written (CreateOrOpen, OpenExisting), or stays locked past `busy_timeout`.
    static ProjectStore open(const std::string& path, OpenMode mode,
                             std::chrono::milliseconds busy_timeout = kDefaultBusyTimeout);

    /// @brief open() with another schema history in place of this build's. A test hook (for
    /// migration failures and "newer schema" files); the application uses open().
    static ProjectStore open_with_migrations(
        const std::string& path, OpenMode mode, const std::vector<Migration>& migrations,
        std::chrono::milliseconds busy_timeout = kDefaultBusyTimeout);

    /// @brief For the stores with a connection of their own (runs, tune sessions): checks and
    /// migrates the project as open() does, then returns the sqlite3_open_v2 flags for rows.
    static int prepare_for_rows(const std::string& path, OpenMode mode,
                                std::chrono::milliseconds busy_timeout);

    /// @brief The schema version this build writes: the number of migrations it knows.
    static int latest_schema_version();

    /// @brief Whether `path` holds nothing a user could lose: a 0-byte file, or a SQLite
    /// database with no tables (what creating a project leaves when it is killed before its
    /// first commit). New Project and `gsr new`, which never take over a file, may take it.
    /// False for anything else, a missing file included.
    static bool is_blank(const std::string& path);

    /// @brief Whether `path` is there and may not be written: its mode lets no one write it
    /// (root included), or this user may not. A command that only reads opens such a project
    /// ReadOnly; otherwise OpenExisting, which brings an older schema up to date.
    static bool is_read_only_file(const std::string& path);

    ProjectStore(ProjectStore&&) noexcept;
    ProjectStore& operator=(ProjectStore&&) noexcept;
    ProjectStore(const ProjectStore&) = delete;
    ProjectStore& operator=(const ProjectStore&) = delete;
    ~ProjectStore();

    const std::string& path() const;
    /// @brief The file's `PRAGMA user_version` once open() has migrated it.
    int schema_version() const { return schema_version_; }

    /// @brief Inserts `record`, or updates the row with the same (path, content_hash): importing
    /// an unchanged file again refreshes its row instead of adding a second one.
    /// @return The row id.
    std::int64_t add_netlist(const NetlistRecord& record);
    /// @brief All netlists, oldest id first.
    std::vector<NetlistRecord> netlists() const;
    std::optional<NetlistRecord> find_netlist(std::int64_t id) const;
    /// @return false when there was no such row.
    bool remove_netlist(std::int64_t id);

    /// @brief A value of the `project` key/value table ("application", "created_at", ...).
    std::optional<std::string> project_value(std::string_view key) const;
    void set_project_value(std::string_view key, std::string_view value);

    /// @brief Runs `body` as one write transaction: what it writes through this store is kept
    /// only if it returns normally; an exception rolls everything back and propagates.
    void write_transaction(const std::function<void()>& body);

private:
    ProjectStore(std::unique_ptr<detail::Connection> conn, int schema_version);
    detail::Connection& conn() const;

    std::unique_ptr<detail::Connection> conn_;
    int schema_version_ = 0;
};

/// @brief A stable 64-bit hash (FNV-1a) of `bytes` as 16 lowercase hex digits.
std::string content_hash(std::string_view bytes);

/// @brief content_hash() of the file's bytes, read in chunks (netlists can be gigabytes).
/// @throws gsr::Error naming `path` when it cannot be read.
std::string content_hash_of_file(const std::string& path);

} // namespace gsr::store
