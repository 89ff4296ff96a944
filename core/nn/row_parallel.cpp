#include "nn/row_parallel.hpp"

#include <algorithm>
#include <system_error>

namespace gsr::nn {

RowParallel::RowParallel(unsigned threads)
{
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    try {
        for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
    } catch (const std::system_error&) {
        // The system starts no more threads: the rows go to those started (and the caller).
    }
}

RowParallel::~RowParallel()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
}

void RowParallel::work_on(const Job& job)
{
    for (;;) {
        const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
        if (i >= job.tasks) return;
        try {
            job.fn(job.ctx, i);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_) error_ = std::current_exception();
        }
        if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard lock(mutex_);
            idle_.notify_all();
        }
    }
}

void RowParallel::run_tasks(std::size_t tasks, TaskFn fn, void* ctx)
{
    Job job{fn, ctx, tasks};
    {
        std::unique_lock lock(mutex_);
        // A worker still inside the previous job would take numbers of this one.
        idle_.wait(lock, [&] { return active_ == 0; });
        job_ = job;
        error_ = nullptr;
        next_.store(0, std::memory_order_relaxed);
        pending_.store(tasks, std::memory_order_relaxed);
        ++generation_;
    }
    wake_.notify_all();
    work_on(job);
    std::exception_ptr error;
    {
        std::unique_lock lock(mutex_);
        idle_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
        error = error_;
    }
    if (error) std::rethrow_exception(error);
}

void RowParallel::worker_loop()
{
    std::size_t seen = 0;
    for (;;) {
        Job job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
            if (stopping_) return;
            seen = generation_;
            job = job_;
            ++active_;
        }
        work_on(job);
        {
            std::lock_guard lock(mutex_);
            if (--active_ == 0) idle_.notify_all();
        }
    }
}

} // namespace gsr::nn
