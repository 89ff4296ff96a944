#include "labels/net_levels.hpp"

#include <algorithm>

namespace gsr::labels {

NetLevels compute_net_levels(const NetStructure& s)
{
    NetLevels r;
    const std::size_t nets = s.net_count();
    r.level.assign(nets, 0);
    r.rev_level.assign(nets, 0);
    for (NetId n = 0; n < nets; ++n) {
        const CellId d = s.driver[n];
        if (d != kNoCell && s.combinational[d]) r.level[n] = s.cell_level[d];
        r.max_level = std::max(r.max_level, r.level[n]);
    }

    // Readers come later in the levelized order, so walking it backwards finds them done.
    std::vector<std::uint32_t> cell_rev(s.cell_count(), 0);
    auto from_sinks = [&](NetId n) {
        std::uint32_t rev = 0;
        for (CellId c : s.sinks(n))
            if (s.combinational[c]) rev = std::max(rev, cell_rev[c] + 1);
        return rev;
    };
    for (auto it = s.order.rbegin(); it != s.order.rend(); ++it) {
        std::uint32_t rev = 0;
        for (NetId n : s.outputs(*it)) {
            if (s.driver[n] == *it) r.rev_level[n] = from_sinks(n);
            rev = std::max(rev, r.rev_level[n]);
        }
        cell_rev[*it] = rev;
    }
    for (NetId n = 0; n < nets; ++n) {
        const CellId d = s.driver[n];
        if (d == kNoCell || !s.combinational[d]) r.rev_level[n] = from_sinks(n);
    }
    return r;
}

} // namespace gsr::labels
