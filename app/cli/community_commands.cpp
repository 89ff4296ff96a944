// `gsr communities` and `gsr layout`: community detection and ForceAtlas2 on a netlist's graph.
#include "cli_commands.hpp"

#include "community/community_detection.hpp"
#include "community/worker_pool.hpp"
#include "layout/force_atlas2.hpp"
#include "layout/initial_positions.hpp"
#include "netlist/readers.hpp"
#include "util/atomic_file.hpp"
#include "report/document.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace gsr::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct LoadedCircuit {
    netlist::Circuit circuit;
    graph::CircuitGraph graph;
};

LoadedCircuit load_circuit(const Args& a, const char* command)
{
    if (a.positionals().size() != 1) throw UsageError(std::string(command) + " takes one FILE");
    netlist::LoadOptions options;
    netlist::Library library;
    if (!a.values("--liberty").empty()) {
        library = netlist::load_libraries(a.values("--liberty"));
        options.library = &library;
    }
    LoadedCircuit c;
    c.circuit = netlist::load_netlist(a.positionals()[0], options);
    if (!a.has("--quiet")) { // e.g. a DEF component off the die, which moves its start
        print_warnings(library.diagnostics);
        print_warnings(c.circuit.diagnostics);
    }
    c.graph = graph::build_graph(c.circuit);
    return c;
}

std::string node_name(const LoadedCircuit& c, std::size_t v)
{
    const std::int64_t id = c.graph.cell_of[v];
    if (id >= 0)
        return std::string(c.circuit.cell_name(c.circuit.cells[static_cast<std::size_t>(id)]));
    const auto& port = c.circuit.ports[static_cast<std::size_t>(-id - 1)];
    return std::string(c.circuit.names.view(port.name));
}

/// The circuit's graph as an undirected weighted one, projected on `threads` threads whose pool
/// ends here: detection and layout start their own.
community::WeightedGraph projected(const LoadedCircuit& c, unsigned threads)
{
    community::WorkerPool pool(threads);
    return community::project_undirected(c.graph, &pool);
}

} // namespace

int cmd_communities(const std::vector<std::string>& argv)
{
    Args a(argv, {"--method", "--resolution", "--seed", "--threads", "--iterations", "--liberty"},
           {"--json", "--quiet"});
    community::CommunityOptions o;
    const std::string method = a.value("--method", "leiden");
    if (method == "leiden")
        o.method = community::Method::Leiden;
    else if (method == "louvain")
        o.method = community::Method::Louvain;
    else
        throw UsageError("--method is leiden or louvain, got '" + method + "'");
    o.resolution = a.number("--resolution", 1.0);
    if (!(o.resolution > 0))
        throw UsageError("--resolution must be positive, got '" + a.value("--resolution") + "'");
    o.seed = a.integer("--seed", 1, 0, ~std::uint64_t{0});
    o.threads = thread_flag(a);
    if (a.has("--iterations")) {
        if (o.method == community::Method::Louvain) // it made one pass without a word
            throw UsageError("--iterations applies to --method leiden only (Louvain makes one "
                             "pass of its levels)");
        const double it = a.number("--iterations", 2);
        if (it != std::floor(it) || it == 0 || std::abs(it) > 1e6)
            throw UsageError("--iterations is a whole number from -1000000 to 1000000, not 0 "
                             "(negative: until stable)");
        o.iterations = static_cast<int>(it);
    }
    const LoadedCircuit c = load_circuit(a, "communities");

    const auto t0 = Clock::now();
    const community::WeightedGraph g = projected(c, o.threads);
    std::optional<community::CommunityResult> r;
    InterruptGuard guard; // Ctrl-C stops the detection between its steps
    o.cancel = InterruptGuard::flag();
    try {
        r = community::detect_communities(g, o);
    } catch (const Error& e) { // what the circuit lacks (nodes, edges): name the file
        if (!e.where().file.empty()) throw;
        throw Error(SourceLocation{a.positionals()[0]}, e.message());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r) {
        std::cerr << "interrupted: community detection stopped; nothing was written\n";
        return 130;
    }

    if (a.has("--json")) {
        nlohmann::ordered_json levels = nlohmann::ordered_json::array();
        for (const auto& l : r->levels)
            levels.push_back({{"communities", l.community_count}, {"modularity", l.modularity}});
        // modularity at resolution 1; objective: at --resolution, what was maximised
        const nlohmann::ordered_json j = {{"communities", r->community_count},
                                          {"modularity", r->modularity},
                                          {"resolution", o.resolution},
                                          {"objective", r->objective},
                                          {"seconds", seconds},
                                          {"largest", r->largest()},
                                          {"smallest", r->smallest()},
                                          {"levels", levels}};
        std::cout << json_text(j, 2) << '\n';
        return 0;
    }
    std::cout << "communities  " << r->community_count << '\n'
              << "modularity   " << r->modularity << '\n';
    if (o.resolution != 1.0) // the value at 20 read as a modularity of -2.29
        std::cout << "objective    " << r->objective << " (modularity at resolution "
                  << o.resolution << ", which the detection maximised)\n";
    std::cout << "largest      " << r->largest() << '\n'
              << "smallest     " << r->smallest() << '\n'
              << "levels      ";
    for (const auto& l : r->levels) std::cout << ' ' << l.community_count;
    std::cout << "\nseconds      " << seconds << '\n';
    return 0;
}

int cmd_layout(const std::vector<std::string>& argv)
{
    Args a(argv, {"--iterations", "--seed", "--threads", "--out", "--liberty"}, {"--quiet"});
    if (!a.has("--out"))
        throw UsageError("layout needs --out positions.csv");
    std::vector<std::string> inputs = a.values("--liberty");
    inputs.insert(inputs.end(), a.positionals().begin(), a.positionals().end());
    refuse_out_over_inputs(a, inputs);
    layout::ForceAtlas2Options o;
    o.max_iterations = static_cast<int>(a.integer(
        "--iterations", static_cast<std::uint64_t>(o.max_iterations), 0, 10'000'000));
    o.seed = a.integer("--seed", 1, 0, ~std::uint64_t{0});
    o.threads = thread_flag(a);
    const LoadedCircuit c = load_circuit(a, "layout");

    const auto t0 = Clock::now();
    const community::WeightedGraph g = projected(c, o.threads);
    if (g.node_count() == 0)
        throw Error(SourceLocation{a.positionals()[0]},
                    "the circuit has no nodes to lay out (no ports, cells or nets)");
    auto initial = layout::placement_positions(c.circuit, c.graph,
                                               layout::default_extent(g.node_count()), o.seed);
    const bool from_placement = !initial.empty();
    layout::ForceAtlas2Layout fa2(g, o, std::move(initial));
    InterruptGuard guard; // Ctrl-C stops the layout between its iterations
    // In steps, so that a long layout (minutes for hyp) says every second how far it is.
    std::optional<layout::LayoutSnapshot> s = fa2.snapshot();
    auto reported = Clock::now();
    while (!fa2.finished()) {
        s = fa2.step(10, InterruptGuard::flag());
        if (!s) break;
        if (a.has("--quiet") || Clock::now() - reported < std::chrono::seconds(1)) continue;
        reported = Clock::now();
        std::cerr << "layout: iteration " << s->iteration << " of at most " << o.max_iterations;
        if (s->window_movement > 0) // measured once the first window of iterations is done
            std::cerr << ", movement " << s->window_movement << " (it settles below "
                      << o.tolerance << ')';
        std::cerr << std::endl;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!s) {
        std::cerr << "interrupted: the layout stopped after iteration "
                  << fa2.snapshot().iteration << "; " << a.value("--out") << " was not written\n";
        return 130;
    }

    std::string csv = "node,name,x,y\n";
    char number[64];
    for (std::size_t v = 0; v < s->positions.size(); ++v) {
        csv += std::to_string(v);
        csv += ',';
        csv += report::csv_field(node_name(c, v));
        std::snprintf(number, sizeof number, ",%.9g,%.9g\n", s->positions[v].x, s->positions[v].y);
        csv += number;
    }
    write_output(a.value("--out"), csv);
    std::ostream& summary = is_standard_output(a.value("--out")) ? std::cerr : std::cout;
    if (!a.has("--quiet"))
        summary << "nodes        " << s->positions.size() << '\n'
                  << "start        " << (from_placement ? "DEF placement" : "random") << '\n'
                  << "iterations   " << s->iteration
                  << (s->converged ? " (converged)"
                                   : " (the --iterations limit, before it converged: a higher "
                                     "limit lets it settle)")
                  << '\n'
                  << "seconds      " << seconds << '\n'
                  << "wrote        " << a.value("--out") << '\n';
    return 0;
}

} // namespace gsr::cli
