#pragma once
// The one memory block of a backend, handed out by bump allocation. Offsets, never pointers:
// the block may move when it grows (CPU) or live on a device (CUDA). Scratch is taken as a
// stack: mark(), allocate, release(mark). The high-water mark is the measured peak.
#include <cstddef>

namespace gsr::nn {

class Arena {
public:
    static constexpr std::size_t kAlignment = 64;

    static constexpr std::size_t align_up(std::size_t bytes)
    {
        return (bytes + kAlignment - 1) / kAlignment * kAlignment;
    }

    /// Offset of `bytes` fresh bytes; gsr::Error naming the arena size when they do not fit.
    std::size_t allocate(std::size_t bytes);
    std::size_t mark() const { return used_; }
    /// Frees everything allocated after `mark`.
    void release(std::size_t mark);

    std::size_t capacity() const { return capacity_; }
    void set_capacity(std::size_t bytes) { capacity_ = bytes; }
    std::size_t used() const { return used_; }
    std::size_t peak() const { return peak_; }
    void reset_peak() { peak_ = used_; }

private:
    std::size_t capacity_ = 0;
    std::size_t used_ = 0;
    std::size_t peak_ = 0;
};

/// Releases an arena to the mark it was constructed at, when it goes out of scope.
class ArenaScope {
public:
    explicit ArenaScope(Arena& arena) : arena_(arena), mark_(arena.mark()) {}
    ~ArenaScope() { arena_.release(mark_); }
    ArenaScope(const ArenaScope&) = delete;
    ArenaScope& operator=(const ArenaScope&) = delete;

private:
    Arena& arena_;
    std::size_t mark_;
};

} // namespace gsr::nn
