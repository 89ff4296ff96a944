#include "report/netlist_summary.hpp"

#include "graph/circuit_graph.hpp"

#include <chrono>
#include <sstream>

namespace gsr::report {

namespace {

void take_warnings(NetlistSummary& s, const Diagnostics& d)
{
    for (const Warning& w : d.warnings()) s.warnings.push_back(w.str());
    s.warnings_suppressed += d.suppressed();
}

} // namespace

NetlistSummary summarize_file(const std::string& path, const std::vector<std::string>& libraries,
                              std::shared_ptr<const graph::LoadedCircuit>* loaded)
{
    if (loaded) loaded->reset();
    const auto t0 = std::chrono::steady_clock::now();
    NetlistSummary s;
    s.path = path;
    const SourceText src = SourceText::read_file(path);
    std::string why;
    const netlist::Format f = netlist::detect_format(path, src.text(), &why);
    if (netlist::is_library_format(f)) {
        netlist::Library lib = f == netlist::Format::Liberty ? netlist::read_liberty(src) : netlist::read_lef(src);
        s.format = lib.format.empty() ? std::string(netlist::format_name(f)) : lib.format;
        s.top = lib.name;
        s.counts = lib.counts;
        if (!s.counts.cells) s.counts.cells = static_cast<std::int64_t>(lib.cells.size());
        take_warnings(s, lib.diagnostics);
    } else {
        netlist::Library lib;
        if (!libraries.empty()) lib = netlist::load_libraries(libraries);
        netlist::LoadOptions opt;
        opt.library = libraries.empty() ? nullptr : &lib;
        auto kept = std::make_shared<graph::LoadedCircuit>();
        kept->path = path;
        kept->libraries = libraries;
        netlist::Circuit& c = kept->circuit;
        c = netlist::load_netlist(src, opt);
        Diagnostics graph_diag;
        kept->graph = graph::build_graph(c, &graph_diag);
        const graph::CircuitGraph& g = kept->graph;
        s.format = c.format;
        s.top = c.top;
        s.counts = c.counts;
        s.graph_nodes = static_cast<std::int64_t>(g.node_count());
        s.graph_edges = static_cast<std::int64_t>(g.edge_count());
        s.max_level = g.max_level;
        s.level_histogram = g.level_histogram();
        if (!libraries.empty()) take_warnings(s, lib.diagnostics);
        take_warnings(s, c.diagnostics);
        take_warnings(s, graph_diag);
        if (loaded) *loaded = std::move(kept);
    }
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
}

nlohmann::ordered_json to_json(const NetlistSummary& s)
{
    using nlohmann::ordered_json;
    auto opt = [](const std::optional<std::int64_t>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    ordered_json j;
    j["file"] = s.path;
    j["format"] = s.format;
    j["top"] = s.top;
    j["inputs"] = opt(s.counts.inputs);
    j["outputs"] = opt(s.counts.outputs);
    j["ports"] = opt(s.counts.ports);
    j["flip_flops"] = opt(s.counts.flip_flops);
    j["cells"] = opt(s.counts.cells);
    j["nets"] = opt(s.counts.nets);
    j["graph_nodes"] = opt(s.graph_nodes);
    j["graph_edges"] = opt(s.graph_edges);
    j["max_level"] = opt(s.max_level);
    j["extra"] = ordered_json::object();
    for (const auto& [k, v] : s.counts.extra) j["extra"][k] = v;
    j["warnings"] = s.warnings;
    if (s.warnings_suppressed) j["warnings_suppressed"] = s.warnings_suppressed;
    j["seconds"] = s.seconds;
    return j;
}

std::string to_text(const NetlistSummary& s)
{
    std::ostringstream o;
    auto line = [&](const char* k, const std::optional<std::int64_t>& v) {
        if (v) o << k << ": " << *v << '\n';
    };
    o << "file: " << s.path << '\n' << "format: " << s.format << '\n' << "top: " << s.top << '\n';
    line("inputs", s.counts.inputs);
    line("outputs", s.counts.outputs);
    line("flip_flops", s.counts.flip_flops);
    line("cells", s.counts.cells);
    line("nets", s.counts.nets);
    line("graph_nodes", s.graph_nodes);
    line("graph_edges", s.graph_edges);
    line("max_level", s.max_level);
    for (const auto& [k, v] : s.counts.extra) o << k << ": " << v << '\n';
    o << "warnings: " << s.warnings.size() + s.warnings_suppressed << '\n';
    return o.str();
}

} // namespace gsr::report
