#include "report/predictions.hpp"

#include <stdexcept>
#include <string>

namespace gsr::report {

Table predictions_table(const train::Dataset& data,
                        const std::vector<std::vector<double>>& predictions)
{
    if (predictions.size() != data.circuits.size())
        throw std::invalid_argument("predictions_table: one prediction vector per circuit");
    Table t;
    t.columns = {"circuit", "node", "net", "split", "target", "predicted"};
    t.numeric = {false, true, false, false, true, true};
    constexpr int kDigits = 9; // a float's prediction in full
    for (std::size_t c = 0; c < data.circuits.size(); ++c) {
        const train::CircuitData& circuit = data.circuits[c];
        const std::size_t n = circuit.split.size();
        if (predictions[c].size() != n)
            throw std::invalid_argument("predictions_table: a prediction per node");
        // Rows in the file's order: node v of this numbering is file_node[v] of the file.
        const std::size_t first = t.rows.size();
        t.rows.resize(first + n);
        for (std::size_t v = 0; v < n; ++v) {
            const std::size_t file = circuit.file_node.empty() ? v : circuit.file_node[v];
            const bool labelled = circuit.has_target[v] != 0;
            t.rows[first + file] = {
                circuit.name,
                std::to_string(file),
                file < circuit.net_name.size() ? circuit.net_name[file] : std::string(),
                std::string(train::split_name(circuit.split[v])),
                labelled ? format_number(circuit.target[v], kDigits) : std::string(),
                format_number(predictions[c][v], kDigits)};
        }
    }
    return t;
}

} // namespace gsr::report
