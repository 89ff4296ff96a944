#pragma once
// Data sets shared by the training tests: public circuits by their path under the data set, and
// level targets prepared for the batchers (renumbered by community), each made once per binary.
#include "train/commrand_batcher.hpp"
#include "train/dataset.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::train::testing {

inline std::string netlist_path(const std::string& rel)
{
    return std::string(GSR_DATA_DIR) + "/netlists/" + rel;
}

/// A data set with its community plan applied.
struct Prepared {
    Dataset data;
    PreparedCommunities communities;
};

/// Logic levels of the ISCAS-85 circuits `train` (names such as "c432") trained on, with
/// `hold_out` of their nodes held out, and c17 tested on.
inline Dataset level_dataset(const std::vector<std::string>& train, const HoldOut& hold_out)
{
    std::vector<std::string> paths;
    for (const std::string& name : train)
        paths.push_back(netlist_path("iscas85/bench/" + name + ".bench"));
    return load_dataset(Target::Level, paths, {}, {netlist_path("iscas85/bench/c17.bench")},
                        hold_out);
}

/// level_dataset() renumbered by community: Leiden on one thread with `plan_seed`.
inline Prepared prepare_level(const std::vector<std::string>& train, const HoldOut& hold_out,
                              std::uint64_t plan_seed = 1)
{
    Prepared r;
    r.data = level_dataset(train, hold_out);
    CommunityPlan plan;
    plan.seed = plan_seed;
    plan.threads = 1;
    r.communities = prepare_communities(r.data, plan);
    return r;
}

/// c6288's hold-out in c6288(): 20 % of its nodes, seed 4.
inline constexpr HoldOut kC6288HoldOut{0.2, 0.0, 4};

/// c6288 (2,448 nodes) trained on, 20 % held out; c17 tested on; renumbered by community.
inline const Prepared& c6288()
{
    static const Prepared p = prepare_level({"c6288"}, kC6288HoldOut, 3);
    return p;
}

} // namespace gsr::train::testing
