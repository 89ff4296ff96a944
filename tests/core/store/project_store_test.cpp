// The project store: creation, read-back, upsert, WAL, migrations, and refusing bad files.
#include "store/project_store.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h> // to inspect and forge files behind the store's back

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using gsr::store::Migration;
using gsr::store::NetlistRecord;
using gsr::store::OpenMode;
using gsr::store::ProjectStore;

namespace {

/// A second, raw connection for checks the store's API does not (and should not) offer.
class RawDb {
public:
    explicit RawDb(const fs::path& path, int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    {
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            throw std::runtime_error("raw open failed: " + std::string(sqlite3_errmsg(db_)));
        }
    }
    ~RawDb() { sqlite3_close_v2(db_); }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;

    void exec(const std::string& sql)
    {
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
            throw std::runtime_error("raw exec failed: " + std::string(sqlite3_errmsg(db_)));
        }
    }

    /// The first column of the first row, as text ("" when there is no row).
    std::string text(const std::string& sql)
    {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
            throw std::runtime_error("raw prepare failed: " + std::string(sqlite3_errmsg(db_)));
        }
        std::string out;
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            const unsigned char* t = sqlite3_column_text(st, 0);
            out = t ? reinterpret_cast<const char*>(t) : "";
        } else if (rc != SQLITE_DONE) {
            std::string message = sqlite3_errmsg(db_);
            sqlite3_finalize(st);
            throw std::runtime_error("raw step failed: " + message);
        }
        sqlite3_finalize(st);
        return out;
    }

    long long integer(const std::string& sql) { return std::stoll(text(sql)); }

    bool has_table(const std::string& name)
    {
        return integer("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" +
                       name + "'") == 1;
    }

private:
    sqlite3* db_ = nullptr;
};

class ProjectStoreTest : public ::testing::Test {
protected:
    std::string file(const std::string& name) const { return (dir_ / name).string(); }

    static NetlistRecord record(const std::string& path, const std::string& hash, int cells)
    {
        NetlistRecord r;
        r.path = path;
        r.content_hash = hash;
        r.format = "verilog";
        r.top = "top_" + std::to_string(cells);
        r.inputs = 3;
        r.outputs = 2;
        r.flip_flops = 1;
        r.cells = cells;
        r.nets = cells + 5;
        r.graph_nodes = cells + 6;
        r.graph_edges = 2 * cells;
        r.max_level = 4;
        r.warnings = 1;
        return r;
    }

    /// The gsr::Error message of running `f`; fails the test when `f` does not throw one.
    template <class F>
    static std::string error_of(F&& f)
    {
        try {
            f();
        } catch (const gsr::Error& e) {
            return e.what();
        }
        ADD_FAILURE() << "expected a gsr::Error";
        return {};
    }

    /// What `f` returns (a string), or the message of the gsr::Error it throws, as a user
    /// without root's pass on every permission check: here, or where the test runs as root (as
    /// CI does), in a child process that first hands the scratch folder to `nobody` (65534)
    /// and becomes it.
    template <class F>
    std::string unprivileged(F&& f)
    {
        const auto run = [&]() -> std::string {
            try {
                return f();
            } catch (const gsr::Error& e) {
                return e.what();
            }
        };
        if (::geteuid() != 0) return run();
        constexpr uid_t kNobody = 65534;
        for (auto it = fs::recursive_directory_iterator(dir_);
             it != fs::recursive_directory_iterator(); ++it)
            if (::lchown(it->path().c_str(), kNobody, kNobody) != 0)
                return cannot_switch_user("chown");
        if (::chown(dir_.c_str(), kNobody, kNobody) != 0) return cannot_switch_user("chown");
        int fds[2];
        if (::pipe(fds) != 0) return cannot_switch_user("pipe");
        const pid_t child = ::fork();
        if (child < 0) return cannot_switch_user("fork");
        if (child == 0) {
            ::close(fds[0]);
            const std::string message = ::setgid(kNobody) == 0 && ::setuid(kNobody) == 0
                                            ? run()
                                            : "(the child could not become nobody)";
            const ssize_t written = ::write(fds[1], message.data(), message.size());
            ::_exit(written == static_cast<ssize_t>(message.size()) ? 0 : 1);
        }
        ::close(fds[1]);
        std::string message;
        char buf[4096];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) message.append(buf, n);
        ::close(fds[0]);
        int status = 0;
        ::waitpid(child, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << message;
        return message;
    }

    /// unprivileged() of `f`, which should throw: its message.
    template <class F>
    std::string unprivileged_error_of(F&& f)
    {
        return unprivileged([&]() -> std::string {
            f();
            return "(no gsr::Error)";
        });
    }

    static std::string cannot_switch_user(const char* what)
    {
        ADD_FAILURE() << what << " failed: cannot run the check as another user than root";
        return {};
    }

    gsr::test::ScratchDir scratch_{"gsr_store_test"};
    const fs::path dir_ = scratch_.path;
};

std::string version_list_message(int newer, int known)
{
    return "was written by a newer GSR Studio (schema " + std::to_string(newer) +
           ", this build knows up to " + std::to_string(known) + ")";
}

} // namespace

// --- creating, reading back -------------------------------------------------------------------

TEST_F(ProjectStoreTest, CreatesAndReadsBackAfterReopen)
{
    const std::string path = file("p.gsr");
    std::int64_t id1 = 0, id2 = 0;
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        EXPECT_EQ(store.schema_version(), ProjectStore::latest_schema_version());
        EXPECT_EQ(store.path(), path);
        id1 = store.add_netlist(record("a.v", "0000000000000001", 10));
        id2 = store.add_netlist(record("b.v", "0000000000000002", 20));
        EXPECT_NE(id1, id2);
    }
    ProjectStore store = ProjectStore::open(path, OpenMode::OpenExisting);
    const std::vector<NetlistRecord> all = store.netlists();
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].id, id1);
    EXPECT_EQ(all[1].id, id2);

    NetlistRecord expected = record("a.v", "0000000000000001", 10);
    expected.id = id1;
    expected.imported_at = all[0].imported_at; // filled in by the store
    EXPECT_EQ(all[0], expected);
    EXPECT_EQ(all[0].imported_at.size(), 20u) << all[0].imported_at; // YYYY-MM-DDTHH:MM:SSZ

    ASSERT_TRUE(store.find_netlist(id2).has_value());
    EXPECT_EQ(store.find_netlist(id2)->cells, 20);
    EXPECT_FALSE(store.find_netlist(id2 + 100).has_value());

    EXPECT_EQ(store.project_value("application"), "GSR Studio");
    EXPECT_FALSE(store.project_value("created_at").value_or("").empty());
    EXPECT_FALSE(store.project_value("no such key").has_value());
}

TEST_F(ProjectStoreTest, KeepsGivenImportTimeAndEmptyTextAsNull)
{
    const std::string path = file("p.gsr");
    NetlistRecord r = record("a.v", "h", 1);
    r.format.clear();
    r.top.clear();
    r.imported_at = "2024-01-02T03:04:05Z";
    std::int64_t id = 0;
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        id = store.add_netlist(r);
        r.id = id;
        EXPECT_EQ(store.find_netlist(id), r);
    }
    RawDb raw(path);
    EXPECT_EQ(raw.integer("SELECT count(*) FROM netlists WHERE format IS NULL AND top IS NULL"),
              1);
}

TEST_F(ProjectStoreTest, ReadOnlyModeReadsButDoesNotWrite)
{
    const std::string path = file("p.gsr");
    ProjectStore::open(path, OpenMode::CreateOrOpen).add_netlist(record("a.v", "h", 1));

    {
        ProjectStore store = ProjectStore::open(path, OpenMode::ReadOnly);
        EXPECT_EQ(store.netlists().size(), 1u);
        const std::string message = error_of([&] { store.add_netlist(record("b.v", "h", 2)); });
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find("read-only"), std::string::npos) << message;
        EXPECT_TRUE(fs::exists(path + "-shm")); // WAL while open
    }
    // Reading leaves nothing beside the project once the last connection closes.
    EXPECT_FALSE(fs::exists(path + "-wal"));
    EXPECT_FALSE(fs::exists(path + "-shm"));
    EXPECT_EQ(ProjectStore::open(path, OpenMode::ReadOnly).netlists().size(), 1u);
}

TEST_F(ProjectStoreTest, StoreIsMovable)
{
    ProjectStore a = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    ProjectStore b = std::move(a);
    b.add_netlist(record("a.v", "h", 1));
    ProjectStore c = ProjectStore::open(file("q.gsr"), OpenMode::CreateOrOpen);
    c = std::move(b);
    EXPECT_EQ(c.netlists().size(), 1u);
    EXPECT_EQ(c.path(), file("p.gsr"));
}

// --- upsert, remove ---------------------------------------------------------------------------

TEST_F(ProjectStoreTest, UpsertsOnPathAndContentHash)
{
    ProjectStore store = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    const std::int64_t id = store.add_netlist(record("a.v", "h1", 10));

    // Same file, same bytes: the row is refreshed, not duplicated.
    NetlistRecord again = record("a.v", "h1", 99);
    again.warnings = 7;
    EXPECT_EQ(store.add_netlist(again), id);
    ASSERT_EQ(store.netlists().size(), 1u);
    EXPECT_EQ(store.find_netlist(id)->cells, 99);
    EXPECT_EQ(store.find_netlist(id)->warnings, 7);

    // Same path, new bytes: a new row; the old import stays.
    const std::int64_t changed = store.add_netlist(record("a.v", "h2", 11));
    EXPECT_NE(changed, id);
    // Same bytes under another path: also a new row.
    const std::int64_t copied = store.add_netlist(record("copy/a.v", "h1", 10));
    EXPECT_NE(copied, id);
    EXPECT_EQ(store.netlists().size(), 3u);
}

TEST_F(ProjectStoreTest, RemovesNetlists)
{
    ProjectStore store = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    const std::int64_t id = store.add_netlist(record("a.v", "h1", 10));
    EXPECT_TRUE(store.remove_netlist(id));
    EXPECT_FALSE(store.remove_netlist(id));
    EXPECT_TRUE(store.netlists().empty());
}

TEST_F(ProjectStoreTest, RefusesRecordWithoutPathOrHash)
{
    ProjectStore store = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    EXPECT_THROW(store.add_netlist(record("", "h", 1)), gsr::Error);
    EXPECT_THROW(store.add_netlist(record("a.v", "", 1)), gsr::Error);
}

// --- file format: WAL, application id, versions -----------------------------------------------

TEST_F(ProjectStoreTest, FileIsWalWithApplicationIdAndVersion)
{
    const std::string path = file("p.gsr");
    ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
    RawDb raw(path);
    EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
    EXPECT_EQ(raw.integer("PRAGMA application_id"), ProjectStore::kApplicationId);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), ProjectStore::latest_schema_version());
    EXPECT_TRUE(raw.has_table("project"));
    EXPECT_TRUE(raw.has_table("netlists"));
}

TEST_F(ProjectStoreTest, MigratesEmptyFileToLatest)
{
    const std::string path = file("empty.gsr");
    std::ofstream(path, std::ios::binary).close();
    ASSERT_EQ(fs::file_size(path), 0u);

    // Only an open that may create a project makes one of it: `gsr report --list` given an
    // empty file by mistake turned it into a project.
    for (OpenMode mode : {OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        const std::string message = error_of([&] { ProjectStore::open(path, mode); });
        EXPECT_EQ(message, path + ": error: not a GSR Studio project (an empty database)");
        EXPECT_EQ(fs::file_size(path), 0u);
    }
    ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
    EXPECT_EQ(store.schema_version(), ProjectStore::latest_schema_version());
    EXPECT_TRUE(store.netlists().empty());
    RawDb raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), ProjectStore::latest_schema_version());
    EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
}

TEST_F(ProjectStoreTest, AOneByteFileIsNoDatabaseAndStaysAsItIs)
{
    // SQLite takes a 1-byte file for an empty one (a size of 1 counts as 0): `gsr import` and
    // `gsr train` turned a file holding "\n" into a project, its text gone.
    for (const std::string text : {"\n", "x"}) {
        const std::string path = file("one.gsr");
        {
            std::ofstream out(path, std::ios::binary);
            out << text;
        }
        for (OpenMode mode : {OpenMode::CreateOrOpen, OpenMode::OpenExisting, OpenMode::ReadOnly}) {
            const std::string message = error_of([&] { ProjectStore::open(path, mode); });
            EXPECT_EQ(message, path + ": error: not a GSR Studio project (not a SQLite database)");
            EXPECT_EQ(gsr::test::read_text(path), text);
        }
        EXPECT_FALSE(ProjectStore::is_blank(path));
        fs::remove(path);
    }
}

TEST_F(ProjectStoreTest, OnlyAFileWithNothingToLoseIsBlank)
{
    // New Project and `gsr new` never take over a file, but a blank one holds nothing: a
    // creation killed before its first commit left one, which `gsr new` then refused.
    const std::string zero = file("zero.gsr");
    std::ofstream(zero, std::ios::binary).close();
    EXPECT_TRUE(ProjectStore::is_blank(zero));
    const std::string tables_none = file("wal_only.gsr");
    { RawDb(tables_none).exec("PRAGMA journal_mode=WAL"); } // what the kill left: 4 KiB
    EXPECT_GT(fs::file_size(tables_none), 0u);
    EXPECT_TRUE(ProjectStore::is_blank(tables_none));
    const std::string project = file("p.gsr");
    ProjectStore::open(project, OpenMode::CreateOrOpen);
    EXPECT_FALSE(ProjectStore::is_blank(project));
    const std::string foreign = file("other.db");
    { RawDb(foreign).exec("CREATE TABLE t(x)"); }
    EXPECT_FALSE(ProjectStore::is_blank(foreign));
    const std::string text = file("notes.gsr");
    {
        std::ofstream out(text, std::ios::binary);
        out << "my notes, not a database at all\n";
    }
    EXPECT_FALSE(ProjectStore::is_blank(text));
    EXPECT_FALSE(ProjectStore::is_blank(file("missing.gsr")));
    EXPECT_FALSE(ProjectStore::is_blank(dir_.string()));
}

TEST_F(ProjectStoreTest, ADamagedWriteVersionIsNamedNotBlamedOnPermissions)
{
    // Header byte 18 past 2 makes SQLite read the file only: every write then failed with
    // "the project is open read-only, or its file cannot be written", of a writable file.
    const std::string path = file("p.gsr");
    ProjectStore::open(path, OpenMode::CreateOrOpen);
    std::string bytes = gsr::test::read_text(path);
    ASSERT_GT(bytes.size(), 100u);
    bytes[18] = static_cast<char>(0xfd);
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    }
    const std::string message =
        error_of([&] { ProjectStore::open(path, OpenMode::OpenExisting); });
    EXPECT_EQ(message, path + ": error: is damaged, or was written by a newer SQLite: its header "
                              "lets it be read only (a file format write version over 2)");
    EXPECT_EQ(gsr::test::read_text(path), bytes);
    EXPECT_TRUE(ProjectStore::open(path, OpenMode::ReadOnly).netlists().empty());
}

TEST_F(ProjectStoreTest, UpgradesOlderSchemaOnOpen)
{
    // A file at schema 1 of a longer history comes up to date, keeping its rows.
    const std::string path = file("p.gsr");
    std::vector<Migration> history = {
        {"one", "CREATE TABLE one(x INTEGER PRIMARY KEY); INSERT INTO one VALUES (42);"},
        {"two", "CREATE TABLE two(y INTEGER REFERENCES one(x));"},
    };
    ProjectStore::open_with_migrations(path, OpenMode::CreateOrOpen, {history[0]});
    ProjectStore store =
        ProjectStore::open_with_migrations(path, OpenMode::OpenExisting, history);
    EXPECT_EQ(store.schema_version(), 2);
    RawDb raw(path);
    EXPECT_TRUE(raw.has_table("two"));
    EXPECT_EQ(raw.integer("SELECT x FROM one"), 42);
}

TEST_F(ProjectStoreTest, MigrationBreakingForeignKeysIsRolledBack)
{
    // Migrations run with foreign keys off (to allow table rebuilds); the check before the
    // commit must still catch dangling references.
    const std::string path = file("p.gsr");
    const std::vector<Migration> history = {
        {"one", "CREATE TABLE one(x INTEGER PRIMARY KEY);"},
        {"two", "CREATE TABLE two(y INTEGER REFERENCES one(x)); INSERT INTO two VALUES (7);"},
    };
    const std::string message = error_of(
        [&] { ProjectStore::open_with_migrations(path, OpenMode::CreateOrOpen, history); });
    EXPECT_NE(message.find("rows of table 'two' point at rows that do not exist"),
              std::string::npos)
        << message;
    RawDb raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
    EXPECT_FALSE(raw.has_table("two"));
}

TEST_F(ProjectStoreTest, ReadOnlyRefusesOlderSchema)
{
    const std::string path = file("p.gsr");
    ProjectStore::open_with_migrations(path, OpenMode::CreateOrOpen,
                                       {{"one", "CREATE TABLE one(x);"}});
    const std::string message = error_of([&] {
        ProjectStore::open_with_migrations(path, OpenMode::ReadOnly,
                                           {{"one", "CREATE TABLE one(x);"},
                                            {"two", "CREATE TABLE two(x);"}});
    });
    EXPECT_NE(message.find("older GSR Studio (schema 1, this build needs 2)"),
              std::string::npos)
        << message;
}

TEST_F(ProjectStoreTest, RefusesNewerSchema)
{
    const std::string path = file("future.gsr");
    // Written by a "future build": this build's history plus one more migration.
    const int latest = ProjectStore::latest_schema_version();
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        store.add_netlist(record("a.v", "h", 1));
    }
    RawDb(path).exec("PRAGMA user_version = " + std::to_string(latest + 1));

    for (OpenMode mode : {OpenMode::CreateOrOpen, OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        const std::string message = error_of([&] { ProjectStore::open(path, mode); });
        EXPECT_EQ(message.rfind(path + ": error: ", 0), 0u) << message;
        EXPECT_NE(message.find(version_list_message(latest + 1, latest)), std::string::npos)
            << message;
    }
    // Refusing must not have touched the file.
    EXPECT_EQ(RawDb(path).integer("PRAGMA user_version"), latest + 1);
}

TEST_F(ProjectStoreTest, RefusesNegativeSchemaVersion)
{
    const std::string path = file("negative.gsr");
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        store.add_netlist(record("a.v", "h", 1));
    }
    RawDb(path).exec("PRAGMA user_version = -1");
    const std::string expected = path + ": error: is damaged: its schema version is -1, " +
                                 "where a GSR Studio project has 1 to " +
                                 std::to_string(ProjectStore::latest_schema_version());
    for (OpenMode mode : {OpenMode::CreateOrOpen, OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        EXPECT_EQ(error_of([&] { ProjectStore::open(path, mode); }), expected);
    }
    EXPECT_EQ(RawDb(path).integer("PRAGMA user_version"), -1); // left as it was
}

// --- files that are not (sound) projects ------------------------------------------------------

TEST_F(ProjectStoreTest, ProcessesCreatingOneProjectAtOnceAllOpenIt)
{
    // Sweeps start several trainings on a project not made yet. One used to read the header
    // half before and half after another's first commit, and call the file foreign; or find
    // the file locked as it switched it to WAL, where SQLite does not wait.
    constexpr int kRounds = 25, kOpeners = 4;
    for (int round = 0; round < kRounds; ++round) {
        const std::string path = file("race_" + std::to_string(round) + ".gsr");
        std::vector<std::string> errors(kOpeners);
        std::vector<std::thread> threads;
        std::atomic<int> ready{0};
        for (int t = 0; t < kOpeners; ++t)
            threads.emplace_back([&, t] {
                ++ready;
                while (ready < kOpeners) std::this_thread::yield(); // start together
                try {
                    ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
                    store.add_netlist(record("n" + std::to_string(t) + ".v", "h", t + 1));
                } catch (const std::exception& e) {
                    errors[t] = e.what();
                }
            });
        for (std::thread& t : threads) t.join();
        for (const std::string& e : errors) ASSERT_EQ(e, "") << "round " << round;
        EXPECT_EQ(ProjectStore::open(path, OpenMode::ReadOnly).netlists().size(),
                  std::size_t(kOpeners));
    }
}

TEST_F(ProjectStoreTest, RefusesNonSqliteFile)
{
    const std::string path = file("garbage.gsr");
    {
        std::ofstream out(path, std::ios::binary);
        std::mt19937 rng(7);
        for (int i = 0; i < 8192; ++i) out.put(static_cast<char>(rng() & 0xff));
    }
    for (OpenMode mode : {OpenMode::CreateOrOpen, OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        const std::string message = error_of([&] { ProjectStore::open(path, mode); });
        EXPECT_EQ(message.rfind(path + ": error: ", 0), 0u) << message;
        EXPECT_NE(message.find("file is not a database"), std::string::npos) << message;
    }
    EXPECT_EQ(fs::file_size(path), 8192u); // left as it was
}

TEST_F(ProjectStoreTest, RefusesTruncatedProject)
{
    const std::string path = file("cut.gsr");
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        // Enough rows to span several pages, so half the file loses real content.
        store.write_transaction([&] {
            for (int i = 0; i < 2000; ++i) {
                store.add_netlist(record("dir/netlist_" + std::to_string(i) + ".v",
                                         std::to_string(i), i));
            }
        });
    }
    ASSERT_FALSE(fs::exists(path + "-wal")); // closing checkpointed everything into the file
    const auto size = fs::file_size(path);
    fs::resize_file(path, size / 2);

    for (OpenMode mode : {OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        const std::string message = error_of([&] {
            ProjectStore store = ProjectStore::open(path, mode);
            store.netlists();
        });
        EXPECT_EQ(message.rfind(path + ": error: ", 0), 0u) << message;
        EXPECT_NE(message.find("damaged"), std::string::npos) << message;
    }
}

TEST_F(ProjectStoreTest, RefusesForeignSqliteDatabase)
{
    const std::string plain = file("plain.db");
    RawDb(plain).exec("CREATE TABLE customers(name TEXT); INSERT INTO customers VALUES ('x');");
    const std::string message =
        error_of([&] { ProjectStore::open(plain, OpenMode::CreateOrOpen); });
    EXPECT_EQ(message.rfind(plain + ": error: not a GSR Studio project", 0), 0u) << message;
    // Not converted to WAL, not given tables.
    RawDb check(plain);
    EXPECT_EQ(check.text("PRAGMA journal_mode"), "delete");
    EXPECT_FALSE(check.has_table("netlists"));

    const std::string other = file("other.db");
    RawDb(other).exec("PRAGMA application_id = 1234; CREATE TABLE t(x);");
    const std::string message2 = error_of([&] { ProjectStore::open(other, OpenMode::ReadOnly); });
    EXPECT_NE(message2.find("another application, application_id 0x000004d2"),
              std::string::npos)
        << message2;
}

TEST_F(ProjectStoreTest, FailedMigrationIsRolledBack)
{
    const std::string path = file("p.gsr");
    const std::vector<Migration> bogus = {
        {"first", "CREATE TABLE first_table(x INTEGER);"},
        // The table is created, then the next statement fails: both must vanish.
        {"second", "CREATE TABLE second_table(y INTEGER); INSERT INTO no_such_table VALUES (1);"},
    };
    const std::string message = error_of(
        [&] { ProjectStore::open_with_migrations(path, OpenMode::CreateOrOpen, bogus); });
    EXPECT_NE(message.find("cannot upgrade the project to schema 2 (second)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("no such table: no_such_table"), std::string::npos) << message;

    {
        RawDb raw(path);
        EXPECT_EQ(raw.integer("PRAGMA user_version"), 1);
        EXPECT_EQ(raw.integer("PRAGMA application_id"), ProjectStore::kApplicationId);
        EXPECT_TRUE(raw.has_table("first_table"));
        EXPECT_FALSE(raw.has_table("second_table"));
    }
    // The file is still a sound project at version 1.
    ProjectStore store = ProjectStore::open_with_migrations(path, OpenMode::OpenExisting,
                                                            {bogus[0]});
    EXPECT_EQ(store.schema_version(), 1);
}

TEST_F(ProjectStoreTest, FailedFirstMigrationLeavesBlankFile)
{
    const std::string path = file("p.gsr");
    EXPECT_THROW(ProjectStore::open_with_migrations(path, OpenMode::CreateOrOpen,
                                                    {{"broken", "CREATE TABLE t(x); BOGUS;"}}),
                 gsr::Error);
    RawDb raw(path);
    EXPECT_EQ(raw.integer("PRAGMA user_version"), 0);
    EXPECT_EQ(raw.integer("PRAGMA application_id"), 0); // not yet marked as ours
    EXPECT_FALSE(raw.has_table("t"));
}

TEST_F(ProjectStoreTest, ADeviceIsNoProjectAndGetsNoJournalBeside)
{
    // `gsr import F --db /dev/null` left /dev/null-journal behind.
    for (OpenMode mode : {OpenMode::CreateOrOpen, OpenMode::OpenExisting, OpenMode::ReadOnly})
        EXPECT_EQ(error_of([&] { ProjectStore::open("/dev/null", mode); }),
                  "/dev/null: error: is not a regular file (a device, a pipe or a socket), not a "
                  "project file");
    EXPECT_FALSE(fs::exists("/dev/null-journal"));
    EXPECT_FALSE(fs::exists("/dev/null-wal"));
}

TEST_F(ProjectStoreTest, MissingFileIsNotCreatedUnlessAsked)
{
    const std::string path = file("missing.gsr");
    for (OpenMode mode : {OpenMode::OpenExisting, OpenMode::ReadOnly}) {
        const std::string message = error_of([&] { ProjectStore::open(path, mode); });
        EXPECT_EQ(message, path + ": error: no such project file");
    }
    EXPECT_FALSE(fs::exists(path));
}

TEST_F(ProjectStoreTest, RefusesFolderAndMissingFolder)
{
    const std::string folder = file("sub");
    fs::create_directories(folder);
    EXPECT_EQ(error_of([&] { ProjectStore::open(folder, OpenMode::CreateOrOpen); }),
              folder + ": error: is a folder, not a project file");

    const std::string nowhere = file("no/such/folder/p.gsr");
    const std::string message =
        error_of([&] { ProjectStore::open(nowhere, OpenMode::CreateOrOpen); });
    EXPECT_EQ(message.rfind(nowhere + ": error: cannot open the project file", 0), 0u)
        << message;
}

TEST_F(ProjectStoreTest, RefusesReadOnlyLocation)
{
    const std::string path = file("p.gsr");
    ProjectStore::open(path, OpenMode::CreateOrOpen);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string before = gsr::test::read_text(path);
    // Refused for root too (who passes SQLite's access checks: the file was written as if its
    // mode said nothing), as the atomic writer refuses a write-protected file.
    const std::string message =
        error_of([&] { ProjectStore::open(path, OpenMode::OpenExisting); });
    EXPECT_EQ(message, path + ": error: the project file is read-only: open it read-only, or "
                              "make it writable");
    EXPECT_EQ(gsr::test::read_text(path), before);
    // Read-only opening still works.
    EXPECT_TRUE(ProjectStore::open(path, OpenMode::ReadOnly).netlists().empty());

    // A new project in a folder that cannot be written (root may: checked as `nobody`).
    const fs::path locked_dir = dir_ / "ro";
    fs::create_directories(locked_dir);
    fs::permissions(locked_dir, fs::perms::owner_read | fs::perms::owner_exec);
    const std::string inside = (locked_dir / "p.gsr").string();
    const std::string message2 =
        unprivileged_error_of([&] { ProjectStore::open(inside, OpenMode::CreateOrOpen); });
    EXPECT_EQ(message2.rfind(inside + ": error: cannot open the project file", 0), 0u)
        << message2;
}

TEST_F(ProjectStoreTest, AReaderLeavesAWriteProtectedProjectAsItIs)
{
    // Root's read-only opens used a read-write connection that refuses changes, whose last
    // close checkpoints: a write-protected project's bytes changed under `gsr netlists`.
    const std::string path = file("p.gsr");
    { ProjectStore::open(path, OpenMode::CreateOrOpen); }
    {
        sqlite3* db = nullptr; // a writer that ends without its checkpoint, as a killed one
        ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
        sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
        ASSERT_EQ(sqlite3_exec(db, "INSERT INTO project(key, value) VALUES ('k', 'v')", nullptr,
                               nullptr, nullptr),
                  SQLITE_OK);
        sqlite3_close(db);
    }
    ASSERT_GT(fs::file_size(path + "-wal"), 0u);
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string before = gsr::test::read_text(path);
    EXPECT_EQ(ProjectStore::open(path, OpenMode::ReadOnly).project_value("k"), "v");
    EXPECT_EQ(gsr::test::read_text(path), before);
    EXPECT_TRUE(ProjectStore::is_read_only_file(path));
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    EXPECT_FALSE(ProjectStore::is_read_only_file(path));
    EXPECT_FALSE(ProjectStore::is_read_only_file(file("missing.gsr")));
}

TEST_F(ProjectStoreTest, AProjectNoOneCanWriteIsReadWithoutSideFiles)
{
    // A project in a folder with no write bit (or on a read-only disc) could not be read: WAL
    // needs its -shm beside it. And a read-only open of a write-protected project left 0444
    // side files, which then blocked every write once the project was made writable again.
    // Both are now read as immutable. The name needs URI escapes.
    const fs::path folder = dir_ / "kept";
    fs::create_directories(folder);
    const std::string path = (folder / "a?b#c%41 d.gsr").string();
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::CreateOrOpen);
        store.set_project_value("k", "v");
    }
    ASSERT_TRUE(fs::exists(path));
    ASSERT_FALSE(fs::exists(path + "-wal"));
    const auto side_files_absent = [&] {
        return !fs::exists(path + "-wal") && !fs::exists(path + "-shm");
    };

    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    EXPECT_EQ(ProjectStore::open(path, OpenMode::ReadOnly).project_value("k"), "v");
    EXPECT_TRUE(side_files_absent());
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    { ProjectStore::open(path, OpenMode::OpenExisting).set_project_value("k", "w"); }
    EXPECT_TRUE(side_files_absent());

    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
    {
        ProjectStore store = ProjectStore::open(path, OpenMode::ReadOnly);
        EXPECT_EQ(store.project_value("k"), "w");
        EXPECT_TRUE(side_files_absent());
        EXPECT_THROW(store.set_project_value("k", "x"), gsr::Error);
    }
    EXPECT_TRUE(side_files_absent());
    fs::permissions(folder, fs::perms::owner_all);
    EXPECT_EQ(ProjectStore::open(path, OpenMode::ReadOnly).project_value("k"), "w");

    // As a user who cannot write the folder (root can), which is where it could not be read.
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(unprivileged([&] {
                  return ProjectStore::open(path, OpenMode::ReadOnly).project_value("k").value();
              }),
              "w");
    EXPECT_TRUE(side_files_absent());
}

TEST_F(ProjectStoreTest, AWriteProtectedSideFileIsNamed)
{
    // A -shm left read-only by an earlier read-only open: every write failed with "attempt to
    // write a readonly database", naming the project, whose own file is writable.
    const std::string path = file("p.gsr");
    ProjectStore::open(path, OpenMode::CreateOrOpen);
    const std::string shm = path + "-shm";
    std::ofstream(shm, std::ios::binary) << std::string(32768, '\0');
    fs::permissions(shm, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    // Root may write it: checked as `nobody` then.
    const std::string message =
        unprivileged_error_of([&] { ProjectStore::open(path, OpenMode::OpenExisting); });
    EXPECT_EQ(message.rfind(shm + ": error: cannot be written, so neither can the project", 0),
              0u)
        << message;
    fs::permissions(shm, fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(ProjectStoreTest, LockedDatabaseGivesErrorAfterTimeout)
{
    const std::string path = file("p.gsr");
    ProjectStore::open(path, OpenMode::CreateOrOpen);

    RawDb other(path);
    other.exec("BEGIN IMMEDIATE; INSERT INTO project VALUES ('held', 'by another writer');");
    const std::string message = error_of([&] {
        ProjectStore store = ProjectStore::open(path, OpenMode::OpenExisting,
                                                std::chrono::milliseconds(50));
        store.add_netlist(record("a.v", "h", 1));
    });
    EXPECT_EQ(message.rfind(path + ": error: ", 0), 0u) << message;
    EXPECT_NE(message.find("database is locked"), std::string::npos) << message;
    other.exec("ROLLBACK");

    // Once the other writer is gone, writing works again.
    ProjectStore store = ProjectStore::open(path, OpenMode::OpenExisting);
    store.add_netlist(record("a.v", "h", 1));
}

// --- transactions ------------------------------------------------------------------------------

TEST_F(ProjectStoreTest, ThrowingTransactionWritesNothing)
{
    ProjectStore store = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    EXPECT_THROW(store.write_transaction([&] {
        store.add_netlist(record("a.v", "h1", 1));
        store.set_project_value("name", "half done");
        throw std::runtime_error("import failed half-way");
    }),
                 std::runtime_error);
    EXPECT_TRUE(store.netlists().empty());
    EXPECT_FALSE(store.project_value("name").has_value());

    // The store is still usable, and a transaction that returns keeps its writes.
    store.write_transaction([&] {
        store.add_netlist(record("a.v", "h1", 1));
        store.add_netlist(record("b.v", "h2", 2));
    });
    EXPECT_EQ(store.netlists().size(), 2u);
}

TEST_F(ProjectStoreTest, NestedTransactionRollsBackOnlyItself)
{
    ProjectStore store = ProjectStore::open(file("p.gsr"), OpenMode::CreateOrOpen);
    store.write_transaction([&] {
        store.add_netlist(record("outer.v", "h1", 1));
        try {
            store.write_transaction([&] {
                store.add_netlist(record("inner.v", "h2", 2));
                throw std::runtime_error("inner fails");
            });
        } catch (const std::runtime_error&) {
        }
    });
    const std::vector<NetlistRecord> all = store.netlists();
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].path, "outer.v");
}

// --- content hash ------------------------------------------------------------------------------

TEST(ContentHash, MatchesFnv1a64)
{
    // Published FNV-1a 64-bit test vectors.
    EXPECT_EQ(gsr::store::content_hash(""), "cbf29ce484222325");
    EXPECT_EQ(gsr::store::content_hash("a"), "af63dc4c8601ec8c");
    EXPECT_EQ(gsr::store::content_hash("foobar"), "85944171f73967e8");
}

TEST_F(ProjectStoreTest, HashOfFileEqualsHashOfItsBytes)
{
    // Longer than the read buffer, so chunking must not change the result.
    std::string bytes;
    for (int i = 0; i < 200000; ++i) bytes.push_back(static_cast<char>((i * 31) & 0xff));
    const std::string path = file("big.v");
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));

    const std::string hash = gsr::store::content_hash_of_file(path);
    EXPECT_EQ(hash.size(), 16u);
    EXPECT_EQ(hash, gsr::store::content_hash(bytes));
    EXPECT_EQ(hash, gsr::store::content_hash_of_file(path)); // stable
}

TEST_F(ProjectStoreTest, HashOfMissingFileNamesIt)
{
    const std::string path = file("missing.v");
    const std::string message = error_of([&] { gsr::store::content_hash_of_file(path); });
    EXPECT_EQ(message.rfind(path + ": error: cannot read the file", 0), 0u) << message;
}
