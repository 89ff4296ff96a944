#pragma once
// The one mapping from a netlist summary to its row in the project store, used by the CLI's
// `gsr import` and the GUI's Import into Project alike.
#include "report/netlist_summary.hpp"
#include "store/project_store.hpp"

namespace gsr::store {

/// The row for a summarised file: canonical path, content hash of the file, counts. Figures
/// the format does not define are stored as 0.
NetlistRecord netlist_record_of(const report::NetlistSummary& summary);

} // namespace gsr::store
