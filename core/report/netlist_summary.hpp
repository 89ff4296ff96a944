#pragma once
// What `gsr info` prints and the GUI shows for a file: its counts by the MANIFEST definitions,
// its graph's size and depth, and its warnings. One place, so the CLI and the GUI agree.
#include "netlist/readers.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gsr::graph {
struct LoadedCircuit;
}

namespace gsr::report {

struct NetlistSummary {
    std::string path;
    std::string format;
    std::string top;
    netlist::CircuitCounts counts;
    std::optional<std::int64_t> graph_nodes, graph_edges, max_level;
    std::vector<std::size_t> level_histogram;
    std::vector<std::string> warnings; ///< "FILE:LINE:COL: warning: ..." lines
    std::size_t warnings_suppressed = 0;
    double seconds = 0.0; ///< time to read and build the graph
};

/// Reads any supported file (a netlist, or a Liberty/LEF library) and summarises it.
/// `libraries` give pin directions for cell instances. Throws gsr::Error on bad input.
/// With `loaded`, a netlist's circuit and graph are kept there for the caller (a library
/// leaves it null), so that nothing reads the file again.
NetlistSummary summarize_file(const std::string& path,
                              const std::vector<std::string>& libraries = {},
                              std::shared_ptr<const graph::LoadedCircuit>* loaded = nullptr);

/// The JSON object of `gsr info --json`: format, top, inputs, outputs, flip_flops, cells, nets,
/// graph_nodes, graph_edges, max_level, warnings (+ ports and format-specific extras).
nlohmann::ordered_json to_json(const NetlistSummary& s);

/// The plain-text form, one "key: value" per line.
std::string to_text(const NetlistSummary& s);

} // namespace gsr::report
