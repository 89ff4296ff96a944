#pragma once
// The one memory block of a backend, handed out by bump allocation. Offsets, never pointers:
// the block may move when it grows (CPU) or live on a device (CUDA). Scratch is taken as a
// stack: mark(), allocate, release(mark). The high-water mark is the measured peak.
// A window (begin_window / end_window) measures the high-water mark over a stretch of work,
// e.g. one layer's pass, without touching the overall peak; windows nest.
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

    /// What begin_window hands out: the enclosing window's high-water mark, restored (raised
    /// to the inner one's) by end_window.
    struct Window {
        std::size_t start = 0;       ///< used() when the window began
        std::size_t outer_peak = 0;
    };
    /// Starts a window: its high-water mark begins at used().
    Window begin_window()
    {
        const Window w{used_, window_peak_};
        window_peak_ = used_;
        return w;
    }
    /// The highest used() since the innermost open window began (absolute bytes).
    std::size_t window_peak() const { return window_peak_; }
    /// Closes `w` (the innermost open window); returns its high-water mark (absolute bytes).
    std::size_t end_window(const Window& w)
    {
        const std::size_t inner = window_peak_;
        window_peak_ = inner > w.outer_peak ? inner : w.outer_peak;
        return inner;
    }

private:
    std::size_t capacity_ = 0;
    std::size_t used_ = 0;
    std::size_t peak_ = 0;
    std::size_t window_peak_ = 0; ///< high-water mark of the innermost window
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
