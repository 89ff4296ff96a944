#include "panels/circuit_graph_source.hpp"

#include "netlist/readers.hpp"
#include "util/diagnostics.hpp"

#include <QFile>
#include <QObject>

#include <new>

namespace gsr::views {

std::shared_ptr<const LoadedGraph> load_circuit_graph(const QString& path)
{
    auto circuit = std::make_shared<graph::LoadedCircuit>();
    circuit->path = QFile::encodeName(path).toStdString();
    circuit->circuit = netlist::load_netlist(circuit->path);
    circuit->graph = graph::build_graph(circuit->circuit);
    return loaded_graph(path, std::move(circuit));
}

std::shared_ptr<const LoadedGraph>
loaded_graph(const QString& path, std::shared_ptr<const graph::LoadedCircuit> circuit)
{
    auto loaded = std::make_shared<LoadedGraph>();
    loaded->path = path;
    loaded->circuit = std::move(circuit);
    return loaded;
}

QString describe_failure(std::exception_ptr failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    } catch (const std::bad_alloc&) {
        return QObject::tr("There is not enough memory for this. Close other programs, or try a "
                           "smaller circuit or model.");
    } catch (const std::exception& e) {
        return QObject::tr("Internal error (please report it): %1").arg(QString::fromUtf8(e.what()));
    } catch (...) {
        return QObject::tr("Unknown internal error (please report it).");
    }
}

} // namespace gsr::views
