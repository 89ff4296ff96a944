#pragma once
// A training run of the project store as a report::RunReport (core/report needs no SQLite;
// this is the one place that copies store rows into the report model).
#include "report/run_report.hpp"
#include "store/run_store.hpp"

#include <cstdint>

namespace gsr::store {

/// The run with its epochs and per-layer memory. Throws gsr::Error naming the project and the
/// id when there is no such run, or when a stored JSON column cannot be read.
report::RunReport load_run_report(const RunStore& runs, std::int64_t id);

} // namespace gsr::store
