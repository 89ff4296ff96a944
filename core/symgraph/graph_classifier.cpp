#include "symgraph/graph_classifier.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace gsr::symgraph {

namespace {

/// (kind, hash) -> number of nodes, for one graph.
std::map<std::pair<Kind, std::uint64_t>, std::uint32_t>
node_counts(const StructureGraph& g, std::uint32_t hops, std::size_t max_ego)
{
    const std::vector<std::uint64_t> wl = wl_hashes(g, hops);
    const RoleSignatures roles = role_signatures(g, EgoNetworks(g, hops, max_ego));
    std::map<std::pair<Kind, std::uint64_t>, std::uint32_t> m;
    for (std::size_t v = 0; v < g.node_count(); ++v) {
        ++m[{Kind::State, g.state[v]}];
        ++m[{Kind::WlClass, wl[v]}];
        ++m[{Kind::Role, roles.signature[v]}];
    }
    return m;
}

} // namespace

GraphRuleClassifier GraphRuleClassifier::fit(const std::vector<StructureGraph>& graphs,
                                             const std::vector<std::uint32_t>& labels,
                                             std::uint32_t classes,
                                             const GraphClassifierOptions& o)
{
    if (graphs.empty()) throw Error("symgraph: no graphs to learn from");
    if (graphs.size() != labels.size())
        throw Error("symgraph: " + std::to_string(graphs.size()) + " graphs but " +
                    std::to_string(labels.size()) + " labels");
    if (o.hops < 1 || o.hops > 2) throw Error("symgraph: K (hops) must be 1 or 2");
    GraphRuleClassifier model;
    model.options_ = o;
    std::vector<std::map<std::pair<Kind, std::uint64_t>, std::uint32_t>> counts;
    std::map<std::pair<Kind, std::uint64_t>, std::size_t> support;
    for (const StructureGraph& g : graphs) {
        counts.push_back(node_counts(g, o.hops, o.max_ego));
        for (const auto& [key, n] : counts.back()) ++support[key];
    }
    // Names by rank of support (ties by hash): S1, W1, R1 are the most common.
    std::vector<std::pair<std::pair<Kind, std::uint64_t>, std::size_t>> kept;
    for (const auto& [key, s] : support)
        if (s >= o.min_support) kept.emplace_back(key, s);
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
        if (a.first.first != b.first.first) return a.first.first < b.first.first;
        if (a.second != b.second) return a.second > b.second;
        return a.first.second < b.first.second;
    });
    std::map<Kind, std::size_t> rank;
    for (const auto& [key, s] : kept) {
        Predicate p;
        p.scope = Scope::Graph;
        p.kind = key.first;
        p.hash = key.second;
        p.support = s;
        const char* prefix = key.first == Kind::State     ? "S"
                             : key.first == Kind::WlClass ? "W"
                                                          : "R";
        // append(): GCC 12 warns falsely (-Wrestrict) on "x" + std::to_string(n).
        p.name = std::string(prefix).append(std::to_string(++rank[key.first]));
        if (key.first == Kind::State) p.name = "state " + p.name;
        model.vocabulary_.add(std::move(p));
    }
    Bags bags;
    std::vector<double> target;
    std::vector<std::uint32_t> rows;
    for (std::size_t i = 0; i < graphs.size(); ++i) {
        if (labels[i] >= classes)
            throw Error("symgraph: graph " + std::to_string(i) + " has class " +
                        std::to_string(labels[i]) + " of " + std::to_string(classes));
        bags.add_row(model.entries(counts[i]));
        target.push_back(labels[i]);
        rows.push_back(static_cast<std::uint32_t>(i));
    }
    LearnOptions lo;
    lo.task = Task::Classification;
    lo.classes = classes;
    lo.max_rules = o.max_rules;
    lo.max_conditions = o.max_conditions;
    lo.min_support = o.min_support;
    model.rules_ = learn_rules(bags, rows, target, lo);
    model.vocabulary_ = model.vocabulary_.restricted_to(model.rules_);
    return model;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>>
GraphRuleClassifier::bag(const StructureGraph& g) const
{
    return entries(node_counts(g, options_.hops, options_.max_ego));
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> GraphRuleClassifier::entries(
    const std::map<std::pair<Kind, std::uint64_t>, std::uint32_t>& counts) const
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
    for (const auto& [key, n] : counts)
        if (const std::uint32_t id =
                vocabulary_.find(predicate_key(Scope::Graph, key.first, key.second));
            id != ~0u)
            e.emplace_back(id, n);
    return e;
}

std::uint32_t GraphRuleClassifier::rule_of(const StructureGraph& g) const
{
    Bags b;
    b.add_row(bag(g));
    return rules_.first_match(b, 0);
}

std::uint32_t GraphRuleClassifier::predict(const StructureGraph& g) const
{
    const std::uint32_t i = rule_of(g);
    return (i < rules_.rules.size() ? rules_.rules[i] : rules_.fallback).label;
}

std::string GraphRuleClassifier::text() const
{
    std::string s;
    for (std::size_t i = 0; i <= rules_.rules.size(); ++i) {
        const Rule& r = i < rules_.rules.size() ? rules_.rules[i] : rules_.fallback;
        s += (i < rules_.rules.size()
                  ? std::to_string(i + 1) + ". " + vocabulary_.describe(r.conditions)
                  : std::string("   otherwise")) +
             " -> class " + std::to_string(r.label) + " (" + std::to_string(r.support) +
             " training graphs)\n";
    }
    return s;
}

} // namespace gsr::symgraph
