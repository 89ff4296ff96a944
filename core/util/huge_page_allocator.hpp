#pragma once
// An allocator for large, randomly accessed tables (hash indexes): blocks of 4 MiB or more are
// aligned to 2 MiB and marked for transparent huge pages, which removes most TLB misses of
// random probes. Smaller blocks come from the ordinary heap.
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gsr {

template <class T>
struct HugePageAllocator {
    using value_type = T;
    static constexpr std::size_t kHuge = std::size_t{2} << 20;

    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

    T* allocate(std::size_t n)
    {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < 2 * kHuge) {
            void* p = std::malloc(bytes);
            if (!p) throw std::bad_alloc();
            return static_cast<T*>(p);
        }
        const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
        void* p = std::aligned_alloc(kHuge, rounded);
        if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        ::madvise(p, rounded, MADV_HUGEPAGE); // a hint: failure only costs speed
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }

    template <class U>
    bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

} // namespace gsr
