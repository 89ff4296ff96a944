#pragma once
// The predicate vocabulary (SymGraph step 4): what a count-threshold condition counts, and how
// a condition reads in words.
//
// A predicate is (scope, kind, hash): the node itself, its fan-ins, its fan-outs, or all nodes
// of a graph (scope), whose state, K-round WL class or ego role (kind) equals the hash. A node's
// bag counts, for instance, how many of its fan-ins have role R3. States are named by their
// text ("NAND2 fo1"); WL classes and roles by their rank in the training data ("W3", "R3": the
// third most common), with a description of an example in the legend.
//
// Contents: Scope, Kind, Predicate, predicate_key, Vocabulary.
#include "symgraph/rule_learner.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gsr::symgraph {

enum class Scope : std::uint8_t { Self, Fanin, Fanout, Graph };
enum class Kind : std::uint8_t { State, WlClass, Role };

std::string_view scope_name(Scope s); ///< "self", "fanin", "fanout", "graph"
std::string_view kind_name(Kind k);   ///< "state", "class", "role"

struct Predicate {
    Scope scope = Scope::Self;
    Kind kind = Kind::State;
    std::uint64_t hash = 0;
    std::string name;            ///< "NAND2 fo1", "W3", "R3"
    std::string describe;        ///< classes and roles: an example in words; empty for states
    std::size_t support = 0;     ///< training items whose count is >= 1
    int fanin = -1, fanout = -1; ///< self states: the exact degrees the state implies, or -1

    bool operator==(const Predicate&) const = default;
};

/// The 64-bit key of a predicate in a bag.
std::uint64_t predicate_key(Scope scope, Kind kind, std::uint64_t hash);

/// Predicates by id, and the key -> id index for building bags.
class Vocabulary {
public:
    std::uint32_t add(Predicate p);
    std::size_t size() const { return predicates_.size(); }
    const Predicate& operator[](std::uint32_t id) const { return predicates_[id]; }
    const std::vector<Predicate>& predicates() const { return predicates_; }
    /// The id of a key, or ~0u when it is not in the vocabulary.
    std::uint32_t find(std::uint64_t key) const;

    /// "NAND2 fo1 whose 2 fan-ins are both in role R3": the conditions of a rule in words.
    std::string describe(const std::vector<Condition>& conditions) const;
    /// The legend of the classes and roles among the predicates: (name, describe), each name
    /// once ("W3" counted at a node and at its fan-in is one entry), in the predicates' order.
    /// SymGraphModel::text() and the run report print it after the rules, headed "where".
    std::vector<std::pair<std::string, std::string>> legend() const;
    /// The vocabulary restricted to the predicates `rules` use, in order of first use, with the
    /// rules' predicate ids rewritten to match.
    Vocabulary restricted_to(RuleList& rules) const;

    nlohmann::ordered_json to_json() const;
    /// Throws gsr::Error naming the field at fault.
    static Vocabulary from_json(const nlohmann::json& j);

private:
    std::vector<Predicate> predicates_;
    std::unordered_map<std::uint64_t, std::uint32_t> index_;
};

/// "0x0123456789abcdef" and back (JSON numbers cannot hold every 64-bit value).
std::string hex64(std::uint64_t v);
std::uint64_t parse_hex64(const std::string& text);

} // namespace gsr::symgraph
