#include "bench_support.hpp"
// ForceAtlas2 with Barnes-Hut: iterations per second at circuit sizes up to EPFL hyp (214,591
// nodes), on 1 and T threads, and the iterations a smaller circuit needs to converge. Prints
// Markdown rows for docs/BENCHMARKS.md, with the machine's load average.
//   gsr_bench_layout [--quick] [--threads T] [--iterations N] [--data DIR] [FILE...]
#include "community/weighted_graph.hpp"
#include "layout/force_atlas2.hpp"
#include "netlist/readers.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using gsr::bench::Clock;
using namespace gsr;

namespace {

using bench::load_average;
using bench::seconds_since;

community::WeightedGraph load(const std::string& file)
{
    return community::project_undirected(graph::build_graph(netlist::load_netlist(file)));
}

} // namespace

int main(int argc, char** argv)
try {
    bool quick = false;
    unsigned threads = 2;
    int iterations = 30;
    std::vector<std::string> files;
    std::string data = std::string(GSR_DATA_DIR) + "/netlists/";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--data" && i + 1 < argc)
            data = std::string(argv[++i]) + "/";
        else if (a == "--threads" && i + 1 < argc)
            threads = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (a == "--iterations" && i + 1 < argc)
            iterations = std::max(1, std::atoi(argv[++i]));
        else if (!a.empty() && a[0] != '-')
            files.push_back(a);
        else {
            std::fprintf(stderr, "usage: gsr_bench_layout [--quick] [--threads T] [--iterations "
                                 "N] [--data DIR] [FILE...]\n");
            return 1;
        }
    }
    if (files.empty()) {
        if (quick)
            files = {data + "itc99/b14.bench"};
        else
            files = {data + "epfl/arithmetic/hyp_from_aig.blif",
                     data + "epfl/arithmetic/multiplier.blif", data + "itc99/b14.bench"};
    }
    if (quick) iterations = std::min(iterations, 10);

    std::printf("ForceAtlas2 + Barnes-Hut (theta 1.2), random start, %d timed iterations after 3; "
                "load average before: %s\n\n",
                iterations, load_average().c_str());
    std::printf(
        "| circuit | nodes | threads | iterations/s | s/iteration |\n|---|---:|---:|---:|---:|\n");
    bool ok = true;
    for (const std::string& file : files) {
        const community::WeightedGraph g = load(file);
        std::vector<layout::Point2> last;
        for (unsigned t : {1u, threads}) {
            layout::ForceAtlas2Options o;
            o.threads = t;
            o.tolerance = 0; // time iterations, not convergence
            layout::ForceAtlas2Layout fa2(g, o);
            fa2.step(3);
            const auto t0 = Clock::now();
            const auto s = fa2.step(iterations);
            const double seconds = seconds_since(t0);
            const std::string name = file.substr(file.find_last_of('/') + 1);
            std::printf("| %s | %zu | %u | %.1f | %.4f |\n", name.c_str(), g.node_count(), t,
                        iterations / seconds, seconds / iterations);
            std::fflush(stdout);
            if (!last.empty()) // the thread count must not change the layout
                for (std::size_t i = 0; i < last.size(); ++i)
                    if (last[i].x != s->positions[i].x || last[i].y != s->positions[i].y)
                        ok = false;
            last = s->positions;
            if (t == threads) break;
        }
    }

    // Convergence: how long the layout of a small circuit takes to settle by itself.
    std::printf(
        "\n| circuit | nodes | iterations to converge | seconds |\n|---|---:|---:|---:|\n");
    for (const char* rel : {"iscas85/bench/c880.bench", "iscas89/bench/s1196.bench"}) {
        if (!std::filesystem::exists(data + rel)) {
            std::printf("| %s | (missing) | | |\n", rel);
            continue;
        }
        const community::WeightedGraph g = load(data + rel);
        layout::ForceAtlas2Options o;
        o.threads = threads;
        layout::ForceAtlas2Layout fa2(g, o);
        const auto t0 = Clock::now();
        const auto s = fa2.run();
        std::printf("| %s | %zu | %d%s | %.3f |\n", rel, g.node_count(), s->iteration,
                    s->converged ? "" : " (not converged)", seconds_since(t0));
        if (!s->converged) ok = false;
    }
    std::printf("\nload average after: %s\n", load_average().c_str());
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    return gsr::bench::report_failure(argv[0], e);
}
