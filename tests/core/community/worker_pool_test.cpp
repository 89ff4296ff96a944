#include "community/worker_pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

using gsr::community::WorkerPool;

TEST(WorkerPool, RunsEveryChunkOnce)
{
    WorkerPool pool(2);
    EXPECT_EQ(pool.size(), 2u);
    std::vector<int> hits(10007, 0);
    pool.parallel_for(hits.size(), 64, [&](std::size_t b, std::size_t e, unsigned w) {
        EXPECT_LT(w, 2u);
        for (std::size_t i = b; i < e; ++i) ++hits[i];
    });
    for (int h : hits) ASSERT_EQ(h, 1);
}

TEST(WorkerPool, ManySmallJobsInARow)
{
    // Back-to-back jobs: a worker waking late must never run a chunk of the wrong job.
    WorkerPool pool(3);
    std::atomic<long> sum{0};
    for (int job = 0; job < 20000; ++job)
        pool.parallel_for(4, 1, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t i = b; i < e; ++i) sum += static_cast<long>(i);
        });
    EXPECT_EQ(sum.load(), 20000L * 6);
}

TEST(WorkerPool, RethrowsAChunksException)
{
    WorkerPool pool(2);
    EXPECT_THROW(pool.parallel_for(1000, 10,
                                   [&](std::size_t b, std::size_t, unsigned) {
                                       if (b == 500) throw std::runtime_error("chunk 50");
                                   }),
                 std::runtime_error);
    int calls = 0; // the pool still works afterwards
    pool.parallel_for(1, 1, [&](std::size_t, std::size_t, unsigned) { ++calls; });
    EXPECT_EQ(calls, 1);
}

TEST(WorkerPool, OneThreadRunsInline)
{
    WorkerPool pool(1);
    EXPECT_EQ(pool.size(), 1u);
    std::size_t total = 0;
    pool.parallel_for(100, 7, [&](std::size_t b, std::size_t e, unsigned w) {
        EXPECT_EQ(w, 0u);
        total += e - b;
    });
    EXPECT_EQ(total, 100u);
}

namespace {
/// Polls `pool.sleeping()` until it equals `want`, for up to two seconds.
bool sleeping_reaches(const WorkerPool& pool, unsigned want)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (pool.sleeping() != want)
        if (std::chrono::steady_clock::now() > deadline) return false;
        else std::this_thread::sleep_for(std::chrono::microseconds(200));
    return true;
}
} // namespace

TEST(WorkerPool, IdleWorkersSleepUnlessHeld)
{
    // Up to three threads, as many as the machine has (a Hold needs them to fit it).
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    WorkerPool pool(std::min(3u, cores));
    const unsigned workers = pool.size() - 1;
    auto job = [&] {
        std::atomic<int> chunks{0};
        pool.parallel_for(8, 1, [&](std::size_t, std::size_t, unsigned) { ++chunks; });
        EXPECT_EQ(chunks.load(), 8);
    };
    job();
    // Idle past their spin (well under a second), the workers sleep.
    ASSERT_TRUE(sleeping_reaches(pool, workers));
    {
        WorkerPool::Hold hold(pool);
        ASSERT_TRUE(hold.held());
        job(); // wakes them; from here on they poll
        ASSERT_TRUE(sleeping_reaches(pool, 0));
        for (int i = 0; i < 5; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20)); // 100x the spin
            EXPECT_EQ(pool.sleeping(), 0u);
            job();
        }
    }
    // Released, they sleep again once idle.
    EXPECT_TRUE(sleeping_reaches(pool, workers));
    job();
}

TEST(WorkerPool, APoolLargerThanTheMachineIsNotHeld)
{
    // Its polling workers would starve the thread with the sequential work: they sleep.
    const unsigned cores = std::thread::hardware_concurrency();
    if (cores == 0) GTEST_SKIP() << "the core count is unknown";
    WorkerPool pool(cores + 1);
    if (pool.size() <= cores) GTEST_SKIP() << "the threads could not all be started";
    WorkerPool::Hold hold(pool);
    EXPECT_FALSE(hold.held());
    std::atomic<int> chunks{0};
    pool.parallel_for(64, 1, [&](std::size_t, std::size_t, unsigned) { ++chunks; });
    EXPECT_EQ(chunks.load(), 64);
    EXPECT_TRUE(sleeping_reaches(pool, cores));
}
