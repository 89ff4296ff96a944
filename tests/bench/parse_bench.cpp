// Parser throughput, scaling and peak memory on generated netlists, and a side-by-side run with
// `yosys -p read_verilog` on the same 5 MB file. Prints a Markdown table for docs/BENCHMARKS.md.
//   gsr_bench_parse [--quick] [--sizes MB,MB,...] [--dir DIR] [--yosys-mb N] [--no-yosys]
#include "bench_support.hpp"
#include "netlist/readers.hpp"
#include "netlist_generator.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct Measurement {
    double read_s = 0, parse_s = 0;
    std::uint64_t cells = 0;
    double peak_mb = 0; ///< max resident set of the measuring process
    bool ok = false;
};

/// Reads and parses `path` in a fresh child process, so that its peak memory is its own.
Measurement measure(const std::string& path, bool verilog)
{
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        Measurement m;
        try {
            const auto t0 = Clock::now();
            const gsr::SourceText src = gsr::SourceText::read_file(path);
            const auto t1 = Clock::now();
            const gsr::netlist::Circuit c = verilog ? gsr::netlist::read_verilog(src) : gsr::netlist::read_blif(src);
            const auto t2 = Clock::now();
            m.read_s = std::chrono::duration<double>(t1 - t0).count();
            m.parse_s = std::chrono::duration<double>(t2 - t1).count();
            m.cells = c.cells.size();
            m.ok = true;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
        }
        if (write(fds[1], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    Measurement m;
    if (read(fds[0], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) m.ok = false;
    close(fds[0]);
    int status = 0;
    struct rusage ru {};
    wait4(pid, &status, 0, &ru);
    m.peak_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
    return m;
}

Measurement best_of(const std::string& path, bool verilog, int runs)
{
    Measurement best;
    for (int i = 0; i < runs; ++i) {
        Measurement m = measure(path, verilog);
        if (!m.ok) return m;
        if (!best.ok || m.parse_s < best.parse_s) {
            const double peak = std::max(best.peak_mb, m.peak_mb);
            best = m;
            best.peak_mb = peak;
        }
    }
    return best;
}

double seconds_of(const std::string& cmd)
{
    const auto t0 = Clock::now();
    const int rc = std::system(cmd.c_str());
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    return rc == 0 ? s : -1.0;
}

std::vector<double> parse_sizes(const std::string& s)
{
    std::vector<double> v;
    std::size_t b = 0;
    while (b < s.size()) {
        std::size_t e = s.find(',', b);
        if (e == std::string::npos) e = s.size();
        v.push_back(std::stod(s.substr(b, e - b)));
        b = e + 1;
    }
    return v;
}

} // namespace

int main(int argc, char** argv)
try {
    bool quick = false, yosys = true;
    std::vector<double> sizes = {10, 100};
    double yosys_mb = 5;
    fs::path dir = fs::temp_directory_path() / ("gsr_bench_" + std::to_string(getpid()));
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") quick = true;
        else if (a == "--no-yosys") yosys = false;
        else if (a == "--sizes" && i + 1 < argc) sizes = parse_sizes(argv[++i]);
        else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
        else if (a == "--yosys-mb" && i + 1 < argc) yosys_mb = std::stod(argv[++i]);
        else {
            std::fprintf(stderr, "usage: gsr_bench_parse [--quick] [--sizes MB,...] [--dir DIR] [--yosys-mb N] [--no-yosys]\n");
            return 1;
        }
    }
    if (quick) {
        sizes = {1, 10};
        yosys = false;
    }
    fs::create_directories(dir);
    const int runs = quick ? 1 : 3;
    bool all_ok = true;

    std::printf("| format | file MB | cells | parse s | parse MB/s | read+parse MB/s | peak RSS MB | peak / file |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const bool verilog : {true, false}) {
        std::vector<std::pair<double, double>> scaling; // (MB, parse s)
        for (double mb : sizes) {
            const fs::path file = dir / (std::string("gen_") + std::to_string(static_cast<int>(mb)) + (verilog ? ".v" : ".blif"));
            const auto bytes = static_cast<std::uint64_t>(mb * 1e6);
            if (verilog) gsr::bench::write_verilog_netlist(file, bytes, 42);
            else gsr::bench::write_blif_netlist(file, bytes, 42);
            const double real_mb = static_cast<double>(fs::file_size(file)) / 1e6;
            // Short runs are the noisiest on a shared machine: take the best of more of them.
            const int repeats = mb < 50 ? runs * 3 : runs;
            const Measurement m = best_of(file, verilog, repeats);
            if (!m.ok) { all_ok = false; continue; }
            std::printf("| %s | %.1f | %llu | %.3f | %.0f | %.0f | %.0f | %.2fx |\n", verilog ? "verilog" : "blif", real_mb,
                        static_cast<unsigned long long>(m.cells), m.parse_s, real_mb / m.parse_s,
                        real_mb / (m.parse_s + m.read_s), m.peak_mb, m.peak_mb / real_mb);
            scaling.emplace_back(real_mb, m.parse_s);
            fs::remove(file);
        }
        if (scaling.size() >= 2) {
            const auto& [mb0, s0] = scaling.front();
            const auto& [mb1, s1] = scaling.back();
            std::printf("\n%s scaling: %.1fx the input took %.2fx the time (linear target: <= %.1fx)\n\n",
                        verilog ? "verilog" : "blif", mb1 / mb0, s1 / s0, 1.1 * mb1 / mb0);
        }
    }

    if (yosys && std::system("command -v yosys >/dev/null 2>&1") == 0) {
        const fs::path file = dir / "yosys_side_by_side.v";
        gsr::bench::write_verilog_netlist(file, static_cast<std::uint64_t>(yosys_mb * 1e6), 7);
        const double real_mb = static_cast<double>(fs::file_size(file)) / 1e6;
        const Measurement ours = best_of(file, true, 3);
        const double ys = seconds_of("yosys -q -p 'read_verilog " + file.string() + "' >/dev/null 2>&1");
        if (ours.ok && ys > 0) {
            const double our_s = ours.read_s + ours.parse_s;
            std::printf("side by side on the same %.1f MB Verilog file: yosys read_verilog %.3f s, gsr read+parse %.4f s: %.0fx\n",
                        real_mb, ys, our_s, ys / our_s);
        } else {
            std::printf("yosys side-by-side failed (yosys %s)\n", ys > 0 ? "ok" : "failed");
        }
        fs::remove(file);
    }
    fs::remove_all(dir);
    return all_ok ? 0 : 1;
} catch (const std::exception& e) {
    return gsr::bench::report_failure(argv[0], e);
}
