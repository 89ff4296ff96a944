#include "bench_support.hpp"
// Community detection: our Leiden against igraph's Leiden (modularity objective), side by side
// in one process on the same graph, best of N runs each. Prints Markdown rows for
// docs/BENCHMARKS.md, with the machine's load average, which the timings depend on.
//   gsr_bench_community [--quick] [--threads T] [--runs N] [--iterations K] [--data DIR] [FILE...]
#include "community/community_detection.hpp"
#include "community/worker_pool.hpp"
#include "netlist/readers.hpp"

#if __has_include(<igraph.h>)
#include "core/community/igraph_reference.hpp"
#define GSR_HAVE_IGRAPH 1
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using gsr::bench::Clock;
using namespace gsr;

namespace {

using bench::load_average;
using bench::seconds_since;

struct Timed {
    double seconds = 1e300;
    double modularity = 0;
    std::uint32_t communities = 0;
};

Timed ours(const community::WeightedGraph& g, unsigned threads, int iterations, int runs)
{
    Timed best;
    for (int r = 0; r < runs; ++r) {
        community::CommunityOptions o;
        o.threads = threads;
        o.iterations = iterations;
        const auto t0 = Clock::now();
        const auto result = community::detect_communities(g, o);
        const double s = seconds_since(t0);
        if (s < best.seconds) best = {s, result->modularity, result->community_count};
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
try {
    bool quick = false;
    unsigned threads = 2;
    int runs = 3, iterations = 2;
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
        else if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--iterations" && i + 1 < argc)
            iterations = std::atoi(argv[++i]);
        else if (!a.empty() && a[0] != '-')
            files.push_back(a);
        else {
            std::fprintf(stderr, "usage: gsr_bench_community [--quick] [--threads T] [--runs N] "
                                 "[--iterations K] [FILE...]\n");
            return 1;
        }
    }
    if (files.empty()) {
        if (quick)
            files = {data + "itc99/b14.bench", data + "iscas85/bench/c6288.bench"};
        else
            files = {data + "epfl/arithmetic/hyp_from_aig.blif",
                     data + "epfl/arithmetic/multiplier.blif", data + "itc99/b14.bench"};
    }
    if (quick) runs = 1;

    std::printf("Leiden, %d iterations on both sides, best of %d; load average before: %s\n\n",
                iterations, runs, load_average().c_str());
    std::printf("| circuit | nodes | edges | projection s | ours 1 thread s | ours %u threads s | "
                "igraph s "
                "| speedup 1 / %u threads | Q ours | Q igraph | communities ours / igraph |\n",
                threads, threads);
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    bool ok = true;
    for (const std::string& file : files) {
        const auto circuit = netlist::load_netlist(file);
        const auto cg = graph::build_graph(circuit);
        community::WorkerPool pool(threads);
        const auto t0 = Clock::now();
        const community::WeightedGraph g = community::project_undirected(cg, &pool);
        const double projection = seconds_since(t0);

        const Timed one = ours(g, 1, iterations, runs);
        const Timed many = ours(g, threads, iterations, runs);
        if (one.modularity != many.modularity) ok = false; // the thread count must not matter
        Timed theirs;
#ifdef GSR_HAVE_IGRAPH
        const test::IgraphGraph ig(g);
        for (int r = 0; r < runs; ++r) {
            const auto t1 = Clock::now();
            const auto result = ig.leiden(1.0, static_cast<std::uint64_t>(r + 1), iterations);
            const double s = seconds_since(t1);
            if (s < theirs.seconds)
                theirs = {s, ig.modularity(result.membership, 1.0),
                          static_cast<std::uint32_t>(result.communities)};
        }
#endif
        const std::string name = file.substr(file.find_last_of('/') + 1);
        if (theirs.seconds < 1e300)
            std::printf("| %s | %zu | %zu | %.3f | %.3f | %.3f | %.3f | %.1fx / %.1fx | %.4f | "
                        "%.4f | %u / %u |\n",
                        name.c_str(), g.node_count(), g.entry_count() / 2, projection, one.seconds,
                        many.seconds, theirs.seconds, theirs.seconds / one.seconds,
                        theirs.seconds / many.seconds, many.modularity, theirs.modularity,
                        many.communities, theirs.communities);
        else
            std::printf("| %s | %zu | %zu | %.3f | %.3f | %.3f | (no igraph) | | %.4f | | %u |\n",
                        name.c_str(), g.node_count(), g.entry_count() / 2, projection, one.seconds,
                        many.seconds, many.modularity, many.communities);
        std::fflush(stdout);
    }
    std::printf("\nload average after: %s\n", load_average().c_str());
    return ok ? 0 : 1;
} catch (const std::exception& e) {
    return gsr::bench::report_failure(argv[0], e);
}
