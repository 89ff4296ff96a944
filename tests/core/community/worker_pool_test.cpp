#include "community/worker_pool.hpp"

#include <gtest/gtest.h>

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
    WorkerPool pool(3);
    auto job = [&] {
        std::atomic<int> chunks{0};
        pool.parallel_for(8, 1, [&](std::size_t, std::size_t, unsigned) { ++chunks; });
        EXPECT_EQ(chunks.load(), 8);
    };
    job();
    // Idle past their spin (well under a second), both workers sleep.
    ASSERT_TRUE(sleeping_reaches(pool, 2));
    {
        WorkerPool::Hold hold(pool);
        job(); // wakes them; from here on they poll
        ASSERT_TRUE(sleeping_reaches(pool, 0));
        for (int i = 0; i < 5; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20)); // 100x the spin
            EXPECT_EQ(pool.sleeping(), 0u);
            job();
        }
    }
    // Released, they sleep again once idle.
    EXPECT_TRUE(sleeping_reaches(pool, 2));
    job();
}
