#pragma once
// What the machine has, as the operating system says it.
#include <cstdint>

#include <unistd.h>

namespace gsr {

/// The machine's physical memory in bytes, or 0 where it cannot be told.
inline std::uint64_t physical_memory_bytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

} // namespace gsr
