#pragma once
// The circuit graph the panels work on: the window's load (the circuit it read once), or read
// here off the UI thread. The node ids are build_graph's, the same the canvas uses, so a
// community's node ids can be highlighted there as they are.
#include "graph/circuit_graph.hpp"

#include <QString>
#include <QStringList>

#include <exception>
#include <memory>

namespace gsr::views {

struct LoadedGraph {
    QString path;
    /// The circuit and its graph, never null: shared with the window and the canvas.
    std::shared_ptr<const graph::LoadedCircuit> circuit = std::make_shared<graph::LoadedCircuit>();
    const graph::CircuitGraph& graph() const { return circuit->graph; }
    /// The cell libraries the circuit was read with (the window's at the time), for the
    /// panels' work on it and their `--liberty` flags.
    QStringList libraries() const;
};

/// The cell libraries `circuit` was read with; none for a null one.
QStringList circuit_libraries(const graph::LoadedCircuit* circuit);

/// Reads `path` and builds its graph. Throws gsr::Error naming the file.
std::shared_ptr<const LoadedGraph> load_circuit_graph(const QString& path);
/// The panels' view of a circuit read already (by the window's load).
std::shared_ptr<const LoadedGraph>
loaded_graph(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit);

/// What went wrong, in words for a user: a gsr::Error's own text, "not enough memory", or an
/// internal error named as such.
QString describe_failure(std::exception_ptr failure);

} // namespace gsr::views
