#pragma once
// What the machine has, as the operating system says it.
#include <cstdint>

namespace gsr {

/// The memory this process may use, in bytes: the machine's physical memory, or its control
/// group's limit (a container's, a systemd slice's) where that is lower; 0 where neither can
/// be told. A container limit under the host's memory is what the kernel kills at.
std::uint64_t physical_memory_bytes();

} // namespace gsr
