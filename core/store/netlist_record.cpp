#include "store/netlist_record.hpp"

#include <filesystem>

namespace gsr::store {

NetlistRecord netlist_record_of(const report::NetlistSummary& s)
{
    NetlistRecord r;
    std::error_code ec;
    r.path = std::filesystem::weakly_canonical(s.path, ec).string();
    if (ec) r.path = s.path;
    r.content_hash = content_hash_of_file(s.path);
    r.format = s.format;
    r.top = s.top;
    r.inputs = s.counts.inputs.value_or(0);
    r.outputs = s.counts.outputs.value_or(0);
    r.flip_flops = s.counts.flip_flops.value_or(0);
    r.cells = s.counts.cells.value_or(0);
    r.nets = s.counts.nets.value_or(0);
    r.graph_nodes = s.graph_nodes.value_or(0);
    r.graph_edges = s.graph_edges.value_or(0);
    r.max_level = s.max_level.value_or(0);
    r.warnings = static_cast<std::int64_t>(s.warnings.size() + s.warnings_suppressed);
    return r;
}

} // namespace gsr::store
