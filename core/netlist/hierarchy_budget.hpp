#pragma once
// How large a hierarchical netlist may become once flattened, shared by the readers that
// flatten (Verilog, BLIF, SPICE): a few lines whose modules instantiate the one below twice
// describe 2^30 cells, and must end in an error at a line rather than in exhausted memory.
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gsr::netlist {

/// Pins, cells or bits a file of `file_size` bytes may expand to. Generous: real netlists need
/// about one per 5 bytes of text, and a small file still gets a few million.
inline std::uint64_t flattening_budget(std::size_t file_size)
{
    return 8 * static_cast<std::uint64_t>(file_size) + (std::uint64_t{1} << 22);
}

/// a + b, stopping at 2^62 so that sums over a hierarchy that multiplies cannot wrap around.
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b)
{
    constexpr std::uint64_t kSaturated = std::uint64_t{1} << 62;
    return std::min(std::min(a, kSaturated) + std::min(b, kSaturated), kSaturated);
}

} // namespace gsr::netlist
