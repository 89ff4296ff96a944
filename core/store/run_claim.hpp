#pragma once
// Which process trains a run. Two trainings of one run (`gsr train --resume 3` in two terminals,
// or the GUI resuming a run the CLI is training) would interleave their epochs and checkpoints
// in the project. A training claims its run first; a second claim is refused. A crashed
// training leaves the run "running" in the project, but its claim went with its process, so
// `held` tells an interrupted run from one being trained.
//
// The claim is a Linux open-file-description lock on one byte of the project file, at an offset
// far past SQLite's own lock bytes (which sit at 1 GiB); the kernel drops it when the process
// ends, however it ends. The file descriptor it needs is opened once per project file and never
// closed: closing any descriptor of a file drops the process's POSIX locks on it, SQLite's too.
// Plain C++ and POSIX: no SQLite here.
#include <cstdint>
#include <string>

namespace gsr::store {

class RunClaim {
public:
    /// Claims run `run_id` of the project at `path` for this object's lifetime. Throws
    /// gsr::Error naming the project when another claim holds the run, in this process or in
    /// another. Where the file cannot be locked (no such file, a file system without locks) the
    /// claim holds nothing and the store's own errors speak for the file.
    static RunClaim take(const std::string& path, std::int64_t run_id);
    /// Whether a claim on the run is held now, by any process.
    static bool held(const std::string& path, std::int64_t run_id);

    RunClaim(RunClaim&& other) noexcept;
    RunClaim& operator=(RunClaim&& other) noexcept;
    RunClaim(const RunClaim&) = delete;
    RunClaim& operator=(const RunClaim&) = delete;
    ~RunClaim();

private:
    RunClaim() = default;
    void release() noexcept;

    int fd_ = -1; ///< the project's shared descriptor; -1: nothing held
    std::uint64_t device_ = 0, inode_ = 0;
    std::int64_t run_id_ = 0;
};

} // namespace gsr::store
