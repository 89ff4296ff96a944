#pragma once
// A trained model's predictions as a table: a row per node of every circuit of a data set, in
// each file's node order, with the net the node drives, its split, the target and the
// prediction, in the target's units. `gsr train --predictions FILE` writes it as CSV (to_csv).
#include "report/document.hpp"
#include "train/dataset.hpp"

#include <vector>

namespace gsr::report {

/// `predictions[c]`: per node of data.circuits[c] in its numbering (train::Trainer::predict).
/// Columns: circuit, node (the file graph's node id), net ("" where the node drives none),
/// split ("none" where it has no target), target ("" where none), predicted. Throws
/// std::invalid_argument when the counts do not match the data set's.
Table predictions_table(const train::Dataset& data,
                        const std::vector<std::vector<double>>& predictions);

} // namespace gsr::report
