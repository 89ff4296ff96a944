// Claims on runs: one training per run, in this process or across processes, released with
// the claim or with the process however it ends, and harmless to SQLite's own locking.
#include "store/run_claim.hpp"
#include "store/run_store.hpp"
#include "util/diagnostics.hpp"
#include "test_files.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace gsr::store;

namespace {

/// A fresh project with two runs.
std::string project(const std::string& name)
{
    const fs::path p = gsr::test::scratch_file(name);
    fs::remove(p);
    auto store = RunStore::open(p.string(), OpenMode::CreateOrOpen);
    RunRecord r;
    r.config_json = "{}";
    r.model = "gcn";
    store.create_run(r);
    store.create_run(r);
    return p.string();
}

/// A child process that claims `run` of `path`, says so through a pipe and then waits to be
/// killed. Returns its pid once the claim is held (or -1 when it could not claim).
pid_t claim_in_child(const std::string& path, std::int64_t run)
{
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        char ok = 'n';
        try {
            static std::optional<RunClaim> held; // kept until the kill
            held.emplace(RunClaim::take(path, run));
            ok = 'y';
        } catch (...) {
        }
        (void)!::write(fds[1], &ok, 1);
        for (;;) ::pause();
    }
    ::close(fds[1]);
    char ok = 'n';
    const bool read_one = ::read(fds[0], &ok, 1) == 1;
    ::close(fds[0]);
    if (!read_one || ok != 'y') {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        return -1;
    }
    return pid;
}

} // namespace

TEST(RunClaim, ASecondClaimOfARunIsRefusedUntilTheFirstEnds)
{
    const std::string p = project("claim_here.gsr");
    EXPECT_FALSE(RunClaim::held(p, 1));
    {
        RunClaim first = RunClaim::take(p, 1);
        EXPECT_TRUE(RunClaim::held(p, 1));
        EXPECT_FALSE(RunClaim::held(p, 2)); // a claim is one run's
        try {
            (void)RunClaim::take(p, 1);
            FAIL() << "a second claim of run 1 was taken";
        } catch (const gsr::Error& e) {
            EXPECT_EQ(e.where().file, p);
            EXPECT_NE(e.message().find("run 1 is being trained now"), std::string::npos)
                << e.message();
        }
        RunClaim other = RunClaim::take(p, 2);
        EXPECT_TRUE(RunClaim::held(p, 2));
        RunClaim moved = std::move(first); // the claim moves with the object
        EXPECT_TRUE(RunClaim::held(p, 1));
    }
    EXPECT_FALSE(RunClaim::held(p, 1));
    EXPECT_FALSE(RunClaim::held(p, 2));
    RunClaim again = RunClaim::take(p, 1);
    EXPECT_TRUE(RunClaim::held(p, 1));
}

TEST(RunClaim, AnotherProcessHoldsItUntilItDiesHoweverItDies)
{
    const std::string p = project("claim_there.gsr");
    const pid_t child = claim_in_child(p, 2);
    ASSERT_GT(child, 0) << "the child could not claim run 2";
    EXPECT_TRUE(RunClaim::held(p, 2));
    EXPECT_FALSE(RunClaim::held(p, 1));
    EXPECT_THROW((void)RunClaim::take(p, 2), gsr::Error);
    RunClaim mine = RunClaim::take(p, 1); // another run meanwhile: no conflict
    // SIGKILL: no destructor runs, the kernel drops the lock with the process.
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    EXPECT_FALSE(RunClaim::held(p, 2));
    RunClaim taken = RunClaim::take(p, 2);
    EXPECT_TRUE(RunClaim::held(p, 2));
}

TEST(RunClaim, TheStoreWritesAndReadsAsUsualWhileAndAfterARunIsClaimed)
{
    // The claim's byte is far from SQLite's lock bytes and its descriptor is never closed, so
    // two connections go on writing and reading through claims taken and released.
    const std::string p = project("claim_store.gsr");
    auto writer = RunStore::open(p, OpenMode::OpenExisting);
    auto reader = RunStore::open(p, OpenMode::ReadOnly);
    for (int round = 0; round < 3; ++round) {
        RunClaim claim = RunClaim::take(p, 1);
        writer.set_status(1, "running");
        EXPECT_EQ(reader.find_run(1)->status, "running");
        writer.set_status(1, "stopped");
    }
    EXPECT_EQ(reader.find_run(1)->status, "stopped");
    EXPECT_EQ(reader.runs().size(), 2u);
}

TEST(RunClaim, AMissingProjectHoldsNothingAndIsNotHeld)
{
    const std::string p = (fs::path(gsr::test::scratch_file("claim_absent.gsr"))).string();
    fs::remove(p);
    EXPECT_FALSE(RunClaim::held(p, 1));
    RunClaim none = RunClaim::take(p, 1); // the store's open names the missing file
    EXPECT_FALSE(RunClaim::held(p, 1));
}
