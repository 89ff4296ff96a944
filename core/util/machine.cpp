#include "util/machine.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>

#include <unistd.h>

namespace gsr {

namespace {

/// The number a cgroup file holds; 0 for "max", a missing file or anything else.
std::uint64_t limit_in(const std::string& file)
{
    std::ifstream in(file);
    std::string text;
    if (!(in >> text)) return 0;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc{} && end == text.data() + text.size() ? v : 0;
}

/// The memory limit of this process's control group, the lowest of: cgroup v2's memory.max
/// and v1's memory.limit_in_bytes, of its own group (from /proc/self/cgroup) and of the
/// namespace root. 0 when there is none.
std::uint64_t cgroup_limit()
{
    std::uint64_t limit = 0;
    const auto take = [&](std::uint64_t v) {
        if (v > 0) limit = limit ? std::min(limit, v) : v;
    };
    // Lines "0::/path" (v2) and "N:memory:/path" (v1); a container sees its own group as "/".
    // The group and each one above it (a systemd slice's limit is its parent's).
    const auto up_from = [&](const std::string& root, std::string path, const char* file) {
        while (true) {
            take(limit_in(root + (path == "/" ? "" : path) + "/" + file));
            const std::size_t slash = path.find_last_of('/');
            if (path.empty() || path == "/" || slash == std::string::npos) return;
            path = slash == 0 ? "/" : path.substr(0, slash);
        }
    };
    std::ifstream groups("/proc/self/cgroup");
    for (std::string line; std::getline(groups, line);) {
        if (line.rfind("0::", 0) == 0)
            up_from("/sys/fs/cgroup", line.substr(3), "memory.max");
        else if (const auto at = line.find(":memory:"); at != std::string::npos)
            up_from("/sys/fs/cgroup/memory", line.substr(at + 8), "memory.limit_in_bytes");
    }
    take(limit_in("/sys/fs/cgroup/memory.max"));
    take(limit_in("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
    return limit;
}

} // namespace

std::uint64_t physical_memory_bytes()
{
    // Read once: neither the machine's memory nor the group's limit changes under a process,
    // and the GUI's memory verdicts ask on every estimate.
    static const std::uint64_t bytes = [] {
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        const std::uint64_t machine =
            pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
        const std::uint64_t group = cgroup_limit(); // v1 says "no limit" with a huge number
        if (group == 0 || (machine && group >= machine)) return machine;
        return group;
    }();
    return bytes;
}

} // namespace gsr
