// What opening a netlist costs the window before the canvas and the Communities table show it,
// for docs/BENCHMARKS.md "Opening a netlist in the window": the work of MainWindow's load, as
// it runs, against the work it did while each part read the file itself.
//   build/release/bin/gsr_bench_window_load [--runs N] [--quick] [FILE]
// (default EPFL hyp, 214,591 graph nodes; --quick: the bundled sample, one run.)
//   shared  summarize_file keeps the circuit; then, at once as the window starts them, the
//           canvas scene from that circuit and the panels' graph from it with the Communities
//           panel's detection at its defaults (detect_shared: one detection for both)
//   apart   summarize_file; then the canvas scene from the file (read again, detected) and the
//           panels' graph read again with its own detection
// Wall time of each (best of N, the two ways alternating in one process), and how many
// detections ran.
#include "canvas/canvas_scene.hpp"
#include "loading/shared_detection.hpp"
#include "panels/circuit_graph_source.hpp"
#include "bench/bench_support.hpp"

#include "community/community_detection.hpp"
#include "community/weighted_graph.hpp"
#include "report/netlist_summary.hpp"
#include "util/resources.hpp"

#include <QString>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

using gsr::bench::Clock;
using gsr::bench::seconds_since;
namespace community = gsr::community;

namespace {

struct Timing {
    double seconds = 1e300;
    std::size_t detections = 0;
    std::size_t communities = 0;
};

/// One load as the window runs it; `shared`: the circuit read once and the detection shared.
Timing load(const std::string& path, bool shared)
{
    const std::size_t runs_before = gsr::views::shared_detection_runs();
    const auto t0 = Clock::now();
    std::shared_ptr<const gsr::graph::LoadedCircuit> circuit;
    gsr::report::summarize_file(path, {}, shared ? &circuit : nullptr);
    std::shared_ptr<const gsr::views::canvas::CanvasScene> scene;
    std::optional<community::CommunityResult> listed;
    std::thread canvas([&] {
        scene = shared ? gsr::views::canvas::build_canvas_scene(circuit)
                       : gsr::views::canvas::build_canvas_scene(path);
    });
    std::thread panels([&] {
        // As the Communities panel does it: shared, it projects only if it detects.
        if (shared) {
            listed = gsr::views::detect_shared(circuit, nullptr, {});
        } else {
            const auto graph = gsr::views::load_circuit_graph(QString::fromStdString(path));
            listed = community::detect_communities(
                community::project_undirected(graph->graph()), {});
        }
        community::release_detection_memory();
    });
    canvas.join();
    panels.join();
    Timing t;
    t.seconds = seconds_since(t0);
    // Apart: the canvas's and the panel's, each its own.
    t.detections = shared ? gsr::views::shared_detection_runs() - runs_before : 2;
    if (!scene || !listed || scene->communities.membership != listed->membership) {
        std::fprintf(stderr, "gsr_bench_window_load: the canvas and the table disagree\n");
        std::exit(1);
    }
    t.communities = listed->community_count;
    return t;
}

} // namespace

int main(int argc, char** argv)
try {
    int runs = 3;
    std::string file = std::string(GSR_DATA_DIR) + "/netlists/epfl/arithmetic/hyp_from_aig.blif";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else if (a == "--quick") {
            file = gsr::bundled_sample_path();
            runs = 1;
        } else if (!a.empty() && a[0] != '-') {
            file = a;
        } else {
            std::fprintf(stderr, "usage: gsr_bench_window_load [--runs N] [--quick] [FILE]\n");
            return 1;
        }
    }
    std::printf("opening %s, best of %d; load average before: %s\n\n", file.c_str(), runs,
                gsr::bench::load_average().c_str());
    Timing shared, apart;
    for (int r = 0; r < runs; ++r) {
        const Timing a = load(file, false);
        const Timing s = load(file, true);
        if (a.seconds < apart.seconds) apart = a;
        if (s.seconds < shared.seconds) shared = s;
    }
    std::printf("| way | wall s | detections | communities |\n|---|---:|---:|---:|\n");
    std::printf("| apart (each part reads the file) | %.3f | %zu | %zu |\n", apart.seconds,
                apart.detections, apart.communities);
    std::printf("| shared (read once, one detection) | %.3f | %zu | %zu |\n", shared.seconds,
                shared.detections, shared.communities);
    std::printf("\napart / shared: %.2fx; load average after: %s\n",
                apart.seconds / shared.seconds, gsr::bench::load_average().c_str());
    return shared.detections == 1 ? 0 : 1;
} catch (const std::exception& e) {
    return gsr::bench::report_failure(argv[0], e);
}
