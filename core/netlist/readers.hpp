#pragma once
// One entry point per format, and `load_netlist`, which detects the format and resolves pin
// directions against libraries. Each reader throws gsr::Error("FILE:LINE:COL: error: ...") on
// malformed input and records recoverable oddities as warnings.
#include "netlist/circuit.hpp"
#include "netlist/format.hpp"
#include "netlist/library.hpp"
#include "util/source_text.hpp"

#include <string>
#include <vector>

namespace gsr::netlist {

Circuit read_bench(const SourceText& src);
Circuit read_blif(const SourceText& src);
Circuit read_aiger(const SourceText& src);
Circuit read_verilog(const SourceText& src);
Circuit read_def(const SourceText& src);
Circuit read_spice(const SourceText& src);
Library read_liberty(const SourceText& src);
Library read_lef(const SourceText& src);

/// Reads Liberty and LEF files (detected by content) into one library.
Library load_libraries(const std::vector<std::string>& paths);

struct LoadOptions {
    const Library* library = nullptr; ///< pin directions for cell instances (may be null)
};

/// Reads a netlist of any circuit format, then gives every instance pin a direction: from the
/// library, else by its name (with a warning). Throws Error for library formats and unknown input.
Circuit load_netlist(const std::string& path, const LoadOptions& options = {});
/// The same, for text in memory.
Circuit load_netlist(const SourceText& src, const LoadOptions& options = {});

/// Direction of a pin of a cell type that no library describes, guessed from its name
/// (Y, Z, ZN, Q, QN, CO, S, SUM, OUT... are outputs). Unknown when no rule matches.
/// `cell_type` tells a multiplexer's select pin S (an input) from an adder's sum S.
Direction guess_pin_direction(std::string_view pin, std::string_view cell_type = {});

} // namespace gsr::netlist
