#pragma once
// Graph-level SymGraph: a whole graph is a bag of counts (how many of its nodes have each state,
// K-round WL class and ego role), and count-threshold rules classify it ("a graph with at least
// 3 nodes in role R2 -> class 1"). The graphs are StructureGraphs with caller-given states, so
// any labelled graph collection (molecules, circuits) fits.
//
// Contents: GraphClassifierOptions, GraphRuleClassifier.
#include "symgraph/ego_roles.hpp"
#include "symgraph/rule_learner.hpp"
#include "symgraph/vocabulary.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gsr::symgraph {

struct GraphClassifierOptions {
    std::uint32_t hops = 1; ///< K
    std::uint32_t max_rules = 32;
    std::uint32_t max_conditions = 3;
    std::size_t min_support = 2; ///< training graphs a rule must cover
    std::size_t max_ego = 256;
};

class GraphRuleClassifier {
public:
    /// Learns rules from graphs and their classes (0 .. classes-1). Throws gsr::Error when the
    /// sizes differ, a class is out of range or there are no graphs.
    static GraphRuleClassifier fit(const std::vector<StructureGraph>& graphs,
                                   const std::vector<std::uint32_t>& labels, std::uint32_t classes,
                                   const GraphClassifierOptions& options = {});

    std::uint32_t predict(const StructureGraph& g) const;
    /// Index of the rule that decides `g`, or rules().rules.size() for the fallback.
    std::uint32_t rule_of(const StructureGraph& g) const;
    const RuleList& rules() const { return rules_; }
    const Vocabulary& vocabulary() const { return vocabulary_; }
    std::string text() const;

private:
    std::vector<std::pair<std::uint32_t, std::uint32_t>> bag(const StructureGraph& g) const;
    std::vector<std::pair<std::uint32_t, std::uint32_t>>
    entries(const std::map<std::pair<Kind, std::uint64_t>, std::uint32_t>& counts) const;

    GraphClassifierOptions options_;
    Vocabulary vocabulary_;
    RuleList rules_;
};

} // namespace gsr::symgraph
