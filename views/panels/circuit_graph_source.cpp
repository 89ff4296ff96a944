#include "panels/circuit_graph_source.hpp"

#include "util/diagnostics.hpp"

#include <QFile>
#include <QObject>

#include <new>

namespace gsr::views {

QStringList circuit_libraries(const graph::LoadedCircuit* circuit)
{
    QStringList out;
    if (circuit)
        for (const std::string& lib : circuit->libraries) out << QFile::decodeName(lib.c_str());
    return out;
}

QStringList LoadedGraph::libraries() const { return circuit_libraries(circuit.get()); }

std::shared_ptr<const LoadedGraph> load_circuit_graph(const QString& path)
{
    return loaded_graph(path, graph::load_circuit(QFile::encodeName(path).toStdString()));
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
