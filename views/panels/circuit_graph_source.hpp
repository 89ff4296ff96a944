#pragma once
// The circuit graph the panels work on, read off the UI thread. The node ids are build_graph's,
// the same the canvas uses, so a community's node ids can be highlighted there as they are.
#include "graph/circuit_graph.hpp"

#include <QString>

#include <exception>
#include <memory>

namespace gsr::views {

struct LoadedGraph {
    QString path;
    graph::CircuitGraph graph;
};

/// Reads `path` and builds its graph. Throws gsr::Error naming the file.
std::shared_ptr<const LoadedGraph> load_circuit_graph(const QString& path);

/// What went wrong, in words for a user: a gsr::Error's own text, "not enough memory", or an
/// internal error named as such.
QString describe_failure(std::exception_ptr failure);

} // namespace gsr::views
