#pragma once
// A training run of the project store as a report::RunReport, and the runs as the runs table
// (core/report needs no SQLite; this is the one place that copies store rows into the report
// models).
#include "report/run_report.hpp"
#include "report/run_table.hpp"
#include "store/run_store.hpp"

#include <cstdint>
#include <vector>

namespace gsr::store {

/// The run with its epochs and per-layer memory. Throws gsr::Error naming the project and the
/// id when there is no such run, or when a stored JSON column cannot be read.
report::RunReport load_run_report(const RunStore& runs, std::int64_t id);

/// Every run as the runs table shows it (its checkpoints, and whether a training holds it).
std::vector<report::RunTableRow> load_run_table(const RunStore& runs);

} // namespace gsr::store
