#include "community/worker_pool.hpp"

#include <algorithm>

namespace gsr::community {

unsigned default_thread_count()
{
    return std::max(1u, std::thread::hardware_concurrency());
}

WorkerPool::WorkerPool(unsigned threads)
{
    if (threads == 0) threads = default_thread_count();
    workers_.reserve(threads - 1);
    for (unsigned w = 1; w < threads; ++w) workers_.emplace_back([this, w] { worker_loop(w); });
}

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
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
    {
        std::lock_guard lock(mutex_);
        body_ = &body;
        count_ = count;
        grain_ = grain;
        chunks_ = chunks;
        next_chunk_.store(0, std::memory_order_relaxed);
        entered_ = finished_ = 0;
        error_ = nullptr;
        job_open_ = true;
        ++generation_;
    }
    wake_.notify_all();
    run_chunks(0);
    std::unique_lock lock(mutex_);
    // Every chunk is taken. Workers that have not joined yet stay out of this job; those that
    // did are waited for.
    job_open_ = false;
    done_.wait(lock, [this] { return finished_ == entered_; });
    body_ = nullptr;
    if (error_) {
        std::exception_ptr e = error_;
        error_ = nullptr;
        lock.unlock();
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
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            if (!job_open_) continue;
            ++entered_;
        }
        run_chunks(worker);
        {
            std::lock_guard lock(mutex_);
            ++finished_;
        }
        done_.notify_one();
    }
}

} // namespace gsr::community
