#pragma once
// A fixed set of threads that run index ranges in parallel. Which thread runs which chunk is left
// to chance: callers keep results deterministic by making each chunk's output depend only on the
// chunk (never on the thread) and by combining chunk results in chunk order.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gsr::community {

class WorkerPool {
public:
    /// `threads` counts the calling thread; 0 means one per hardware thread.
    explicit WorkerPool(unsigned threads = 0);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Threads that take part in parallel_for, the caller included.
    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    /// Workers asleep now (idle past their spin and not held).
    unsigned sleeping() const;

    /// body(begin, end, worker) for chunks [begin, end) of [0, count), each at most `grain` long.
    using Body = std::function<void(std::size_t, std::size_t, unsigned)>;

    /// While a Hold lives, idle workers keep polling for the next job instead of going to
    /// sleep after a while: for a caller whose short jobs come between sequential stretches
    /// longer than that while (community detection on a small graph), where waking a
    /// sleeping thread costs more than the job. They still yield the core now and then.
    /// A pool with more threads than the machine has is not held: its polling workers would
    /// starve the thread with the sequential work (s38417 took 59 s at 1024 threads on two
    /// cores, 0.04 s at two).
    class Hold {
    public:
        explicit Hold(WorkerPool& pool) : pool_(pool), held_(fits_the_machine(pool.size()))
        {
            if (held_) pool_.holds_.fetch_add(1);
        }
        ~Hold()
        {
            if (held_) pool_.holds_.fetch_sub(1);
        }
        Hold(const Hold&) = delete;
        Hold& operator=(const Hold&) = delete;
        bool held() const { return held_; }

    private:
        static bool fits_the_machine(unsigned threads)
        {
            const unsigned cores = std::thread::hardware_concurrency(); // 0: unknown
            return cores == 0 || threads <= cores;
        }
        WorkerPool& pool_;
        bool held_;
    };

    /// Runs every chunk once and returns when all are done. `worker` < size() names the thread,
    /// for per-thread scratch space. The first exception a chunk throws is rethrown here; chunks
    /// not yet started are then skipped.
    void parallel_for(std::size_t count, std::size_t grain, const Body& body);

private:
    void worker_loop(unsigned worker);
    void run_chunks(unsigned worker);

    std::vector<std::thread> workers_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    // Written under mutex_; atomic so that idle threads can poll them without it.
    std::atomic<std::uint64_t> generation_{0}; ///< bumped for each job
    std::atomic<bool> stopping_{false};
    std::atomic<unsigned> holds_{0}; ///< live Holds: idle workers do not sleep
    std::atomic<unsigned> finished_{0}; ///< workers that left the current job
    bool job_open_ = false; ///< workers may still join the current job; guarded by mutex_
    unsigned entered_ = 0;  ///< workers that joined the current job; guarded by mutex_
    unsigned sleepers_ = 0; ///< workers waiting on wake_; guarded by mutex_
    const Body* body_ = nullptr;
    std::size_t count_ = 0;
    std::size_t grain_ = 1;
    std::size_t chunks_ = 0;
    std::atomic<std::size_t> next_chunk_{0};
    std::exception_ptr error_;
};

/// The thread count a `threads` option of 0 stands for.
unsigned default_thread_count();

} // namespace gsr::community
