#pragma once
// Synthetic netlists of a chosen size for parser benchmarks: a random standard-cell circuit
// written as structural Verilog (yosys/OpenROAD style) and as BLIF.
#include <cstdint>
#include <string>

namespace gsr::bench {

/// Writes a standard-cell Verilog netlist of about `bytes` bytes to `path`. Returns its cell count.
std::uint64_t write_verilog_netlist(const std::string& path, std::uint64_t bytes, std::uint64_t seed);
/// Writes a BLIF netlist of about `bytes` bytes to `path`. Returns its .names count.
std::uint64_t write_blif_netlist(const std::string& path, std::uint64_t bytes, std::uint64_t seed);

} // namespace gsr::bench
