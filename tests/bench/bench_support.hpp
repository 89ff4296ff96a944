#pragma once
// Small pieces every benchmark binary needs: elapsed time and the machine's load, which the
// printed tables quote because these machines are shared.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace gsr::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// "0.52 1.10 1.80", or "unknown".
inline std::string load_average()
{
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) != 3) return "unknown";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", l[0], l[1], l[2]);
    return buf;
}

/// What a benchmark's main returns when its body threw (a data file missing or unreadable, a
/// bad argument): the message on stderr and exit code 2, where an uncaught exception aborted.
inline int report_failure(const char* program, const std::exception& e)
{
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
}

} // namespace gsr::bench
