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
    const auto under = [](const std::string& root, const std::string& path) {
        return root + (path == "/" ? "" : path);
    };
    std::ifstream groups("/proc/self/cgroup");
    for (std::string line; std::getline(groups, line);) {
        if (line.rfind("0::", 0) == 0)
            take(limit_in(under("/sys/fs/cgroup", line.substr(3)) + "/memory.max"));
        else if (const auto at = line.find(":memory:"); at != std::string::npos)
            take(limit_in(under("/sys/fs/cgroup/memory", line.substr(at + 8)) +
                          "/memory.limit_in_bytes"));
    }
    take(limit_in("/sys/fs/cgroup/memory.max"));
    take(limit_in("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
    return limit;
}

} // namespace

std::uint64_t physical_memory_bytes()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t machine =
        pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
    const std::uint64_t group = cgroup_limit(); // v1 says "no limit" with a huge number
    if (group == 0 || (machine && group >= machine)) return machine;
    return group;
}

} // namespace gsr
