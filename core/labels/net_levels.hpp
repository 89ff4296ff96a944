#pragma once
// Logic levels of nets, as the label data set defines them (shared/data/labels/README.md):
//   level     0 for primary inputs, flip-flop outputs, constants and undriven nets; otherwise
//             1 + the deepest level among the inputs of its driver.
//   rev_level 0 when the net reads into no combinational cell (only outputs, flip-flop data
//             pins or nothing); otherwise 1 + the largest rev_level of the cells it feeds,
//             where a cell's rev_level is that of its output net (the largest, for several).
// Both follow the levelized order of NetStructure: iterative, no recursion.
#include "labels/net_structure.hpp"

#include <cstdint>
#include <vector>

namespace gsr::labels {

struct NetLevels {
    std::vector<std::uint32_t> level;     ///< per net id
    std::vector<std::uint32_t> rev_level; ///< per net id
    std::uint32_t max_level = 0;
};

NetLevels compute_net_levels(const NetStructure& structure);

} // namespace gsr::labels
