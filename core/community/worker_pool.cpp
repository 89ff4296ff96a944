#include "community/worker_pool.hpp"

#include <algorithm>
#include <chrono>
#include <system_error>

namespace gsr::community {
namespace {

/// How long an idle thread keeps polling before it sleeps. Jobs come back to back (a batch of
/// local moving every few hundred microseconds) and waking a sleeping thread can cost as much
/// as a whole job, more so on virtual machines.
constexpr std::chrono::microseconds kSpin{200};

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

/// Polls `done` for up to kSpin, or for as long as `hold` says so (yielding the core every
/// few thousand polls); true if it became true.
template <class Done, class Hold>
bool spin_until(Done done, Hold hold)
{
    const auto deadline = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 1;; ++i) {
        if (done()) return true;
        cpu_relax();
        if ((i & 63) != 0) continue;
        if (!hold()) {
            if (std::chrono::steady_clock::now() > deadline) return false;
        } else if ((i & 4095) == 0) {
            std::this_thread::yield();
        }
    }
}
template <class Done> bool spin_until(Done done)
{
    return spin_until(done, [] { return false; });
}

} // namespace

unsigned default_thread_count()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

WorkerPool::WorkerPool(unsigned threads)
{
    if (threads == 0) threads = default_thread_count();
    workers_.reserve(threads - 1);
    try {
        for (unsigned w = 1; w < threads; ++w)
            workers_.emplace_back([this, w] { worker_loop(w); });
    } catch (const std::system_error&) {
        // The system starts no more threads: the pool works with those it has (size()), where
        // the threads left joinable in workers_ would have ended the process.
    }
}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(mutex_);
        stopping_.store(true);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

unsigned WorkerPool::sleeping() const
{
    std::lock_guard lock(mutex_);
    return sleepers_;
}

void WorkerPool::parallel_for(std::size_t count, std::size_t grain, const Body& body)
{
    if (count == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t chunks = (count + grain - 1) / grain;
    if (workers_.empty() || chunks == 1) {
        for (std::size_t c = 0; c < chunks; ++c)
            body(c * grain, std::min(count, (c + 1) * grain), 0);
        return;
    }
    bool wake_sleepers = false;
    {
        std::lock_guard lock(mutex_);
        body_ = &body;
        count_ = count;
        grain_ = grain;
        chunks_ = chunks;
        next_chunk_.store(0, std::memory_order_relaxed);
        entered_ = 0;
        finished_.store(0, std::memory_order_relaxed);
        error_ = nullptr;
        job_open_ = true;
        generation_.store(generation_.load(std::memory_order_relaxed) + 1,
                          std::memory_order_release);
        wake_sleepers = sleepers_ > 0;
    }
    if (wake_sleepers) wake_.notify_all();
    run_chunks(0);
    unsigned joined = 0;
    {
        // Every chunk is taken. Workers that have not joined yet stay out of this job; those
        // that did are waited for.
        std::lock_guard lock(mutex_);
        job_open_ = false;
        joined = entered_;
    }
    if (!spin_until([&] { return finished_.load(std::memory_order_acquire) == joined; })) {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return finished_.load(std::memory_order_acquire) == joined; });
    }
    std::lock_guard lock(mutex_);
    body_ = nullptr;
    if (error_) {
        std::exception_ptr e = error_;
        error_ = nullptr;
        std::rethrow_exception(e);
    }
}

void WorkerPool::run_chunks(unsigned worker)
{
    for (;;) {
        const std::size_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
        if (c >= chunks_) return;
        try {
            (*body_)(c * grain_, std::min(count_, (c + 1) * grain_), worker);
        } catch (...) {
            next_chunk_.store(chunks_, std::memory_order_relaxed);
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
    }
}

void WorkerPool::worker_loop(unsigned worker)
{
    std::uint64_t seen = 0;
    for (;;) {
        const bool fresh = spin_until(
            [&] {
                return stopping_.load(std::memory_order_relaxed) ||
                       generation_.load(std::memory_order_acquire) != seen;
            },
            [&] { return holds_.load(std::memory_order_relaxed) > 0; });
        {
            std::unique_lock lock(mutex_);
            if (!fresh) {
                ++sleepers_;
                wake_.wait(lock, [&] { return stopping_.load() || generation_.load() != seen; });
                --sleepers_;
            }
            if (stopping_.load()) return;
            seen = generation_.load();
            if (!job_open_) continue;
            ++entered_;
        }
        run_chunks(worker);
        {
            std::lock_guard lock(mutex_);
            finished_.fetch_add(1, std::memory_order_release);
        }
        done_.notify_one();
    }
}

} // namespace gsr::community
