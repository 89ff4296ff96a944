#pragma once
// A persistent set of threads that runs numbered tasks. Which thread runs a task is left to
// chance, so callers make a task's output depend only on its number (row blocks, fixed slabs)
// and combine task results in task order: results never depend on the thread count.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace gsr::nn {

class RowParallel {
public:
    /// `threads` counts the calling thread; 0 means one per hardware thread.
    explicit RowParallel(unsigned threads = 0);
    ~RowParallel();
    RowParallel(const RowParallel&) = delete;
    RowParallel& operator=(const RowParallel&) = delete;

    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    /// task(i) for i in [0, tasks); returns when all are done; rethrows the first exception.
    template <class Task> void run(std::size_t tasks, Task&& task)
    {
        if (tasks == 0) return;
        if (tasks == 1 || workers_.empty()) {
            for (std::size_t i = 0; i < tasks; ++i) task(i);
            return;
        }
        using T = std::remove_reference_t<Task>;
        run_tasks(tasks, [](void* ctx, std::size_t i) { (*static_cast<T*>(ctx))(i); },
                  const_cast<void*>(static_cast<const void*>(&task)));
    }

private:
    using TaskFn = void (*)(void*, std::size_t);
    struct Job {
        TaskFn fn = nullptr;
        void* ctx = nullptr;
        std::size_t tasks = 0;
    };

    void run_tasks(std::size_t tasks, TaskFn fn, void* ctx);
    void worker_loop();
    void work_on(const Job& job);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable idle_;
    Job job_;                         ///< guarded by mutex_
    std::size_t generation_ = 0;      ///< guarded by mutex_
    unsigned active_ = 0;             ///< workers inside a job; guarded by mutex_
    bool stopping_ = false;           ///< guarded by mutex_
    std::atomic<std::size_t> next_{0};
    std::atomic<std::size_t> pending_{0};
    std::exception_ptr error_;        ///< guarded by mutex_
};

} // namespace gsr::nn
