#pragma once
// SymGraph on circuits: a node model of count-threshold rules over structural hashes and ego
// roles, learned without gradients on the CPU, for the targets of a train::Dataset (the same
// data sets, splits and metrics as the GNNs).
//
//   fit:  for every granularity candidate (fan bins, depth bins, K, and the support a predicate
//         needs), hash the training and validation circuits (ego networks and features cached
//         per circuit), build the vocabulary from the training nodes, learn a rule list, and
//         keep the rule-list prefix with the best validation score minus rule_penalty per
//         rule; the best candidate wins.
//   use:  assign() gives each node the index of the rule that covers it (the GUI highlights a
//         rule's nodes with it), predict() the value.
//
// Regression: a rule predicts the mean target of its training nodes (with their 10-90 %
// interval). Classification: the target is cut into equal bins ([0, 1] for signal
// probability, else the training range) and a rule predicts a bin; as a value, its centre.
// Validation score: Pearson r for regression (0 for a constant prediction), accuracy for
// classification.
//
// Contents: NodeFeatures, FeatureCache, Binning, SymGraphOptions, CandidateReport,
// SymGraphModel, neighbour_states, SplitScore, evaluate_split, bin_accuracy.
#include "graph/circuit_graph.hpp"
#include "symgraph/ego_roles.hpp"
#include "symgraph/node_states.hpp"
#include "symgraph/rule_learner.hpp"
#include "symgraph/vocabulary.hpp"
#include "train/dataset.hpp"
#include "train/metrics.hpp"
#include "util/diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace gsr::symgraph {

/// Per-node hashes of one circuit at one granularity.
struct NodeFeatures {
    std::vector<std::uint64_t> state, wl, role;
    std::vector<std::uint32_t> ego_size, classes;
    std::unordered_map<std::uint64_t, std::string> state_label;
};

NodeFeatures node_features(const graph::CircuitGraph& g, const Granularity& gr,
                           const EgoNetworks& ego);

/// Ego networks per (circuit, K) and features per (circuit, granularity), computed once: the
/// search tries several granularities over the same circuits.
class FeatureCache {
public:
    explicit FeatureCache(std::size_t max_ego = 256) : max_ego_(max_ego) {}
    const NodeFeatures& get(std::size_t circuit, const graph::CircuitGraph& g,
                            const Granularity& gr);
    std::size_t max_ego() const { return max_ego_; }
    std::size_t ego_builds() const { return ego_builds_; } ///< how many EgoNetworks were built

private:
    std::size_t max_ego_;
    std::size_t ego_builds_ = 0;
    std::map<std::pair<std::size_t, std::uint32_t>, std::unique_ptr<EgoNetworks>> ego_;
    /// (circuit, fine_fan, depth_bins, hops, polarity) -> features
    using FeatureKey = std::tuple<std::size_t, bool, std::uint32_t, std::uint32_t, bool>;
    std::map<FeatureKey, NodeFeatures> features_;
};

/// Equal-width bins over [lo, hi]; values outside go to the end bins.
struct Binning {
    double lo = 0, hi = 1;
    std::uint32_t bins = 10;

    std::uint32_t of(double y) const;
    double low(std::uint32_t k) const { return lo + (hi - lo) * k / bins; }
    double high(std::uint32_t k) const { return lo + (hi - lo) * (k + 1) / bins; }
    double centre(std::uint32_t k) const { return 0.5 * (low(k) + high(k)); }
};

/// Share of items whose predicted value falls in the same bin as the target.
double bin_accuracy(std::span<const double> prediction, std::span<const double> target,
                    const Binning& binning);

/// fan fine/coarse x depth 0/3 x K 1/2.
std::vector<Granularity> default_candidates();

struct SymGraphOptions {
    Task task = Task::Regression;
    std::uint32_t bins = 10; ///< classification, and the bin accuracy of regression
    std::vector<Granularity> candidates = default_candidates();
    std::uint32_t max_rules = 64;
    std::uint32_t max_conditions = 3;
    std::size_t min_support = 0; ///< 0: max(5, training nodes / 500)
    /// Also searched: a predicate enters the vocabulary, and a rule is kept, only with
    /// min_support x factor training nodes (coarser vocabularies generalise further).
    std::vector<std::uint32_t> support_factors = {1, 2, 4};
    double rule_penalty = 0.001; ///< validation score given up per rule
    std::size_t max_ego = 256;   ///< larger ego networks are not refined (ego_roles.hpp)
    /// Set to stop: checked before each candidate of the search, which then throws
    /// FitCancelled.
    const std::atomic<bool>* cancel = nullptr;
};

/// What fit throws when its options' cancel flag was set.
struct FitCancelled : Error {
    FitCancelled() : Error("symgraph: the search was cancelled") {}
};

/// One row of the search: what a granularity scored.
struct CandidateReport {
    Granularity granularity;
    std::size_t min_support = 0;
    std::size_t vocabulary = 0; ///< predicates with enough training support
    std::size_t rules_learned = 0;
    std::size_t rules_kept = 0;  ///< the prefix the penalty chose
    double validation_score = 0; ///< Pearson r or accuracy of the kept prefix
    double objective = 0;        ///< validation_score - rule_penalty * rules_kept
    double seconds = 0;
};

class SymGraphModel {
public:
    /// Throws gsr::Error when the data set has no training nodes or the options are invalid.
    /// For --target level and arrival the candidates' depth bins are left out (a node's
    /// depth bin is a coarse copy of its level: the answer as an input). Rules are chosen on
    /// the validation nodes where their score is defined, else on the training nodes; notes()
    /// says when either happened.
    static SymGraphModel fit(const train::Dataset& data, const SymGraphOptions& options,
                             std::vector<CandidateReport>* search = nullptr);

    train::Target target() const { return target_; }
    Task task() const { return rules_.task; }
    const Granularity& granularity() const { return granularity_; }
    const Binning& binning() const { return binning_; }
    const Vocabulary& vocabulary() const { return vocabulary_; }
    const RuleList& rules() const { return rules_; }

    /// Per node: the index of the rule that covers it, or rules().rules.size() for the
    /// fallback. `features` may come from a FeatureCache at this model's granularity.
    std::vector<std::uint32_t> assign(const graph::CircuitGraph& g,
                                      const NodeFeatures* features = nullptr) const;
    /// Per node: the predicted value (a bin's centre for classification).
    std::vector<double> predict(const graph::CircuitGraph& g,
                                const NodeFeatures* features = nullptr) const;
    /// Per node: the predicted bin (classification), or the bin of the predicted value.
    std::vector<std::uint32_t> predict_bin(const graph::CircuitGraph& g,
                                           const NodeFeatures* features = nullptr) const;

    /// Rule i in words, with its prediction; i == rules().rules.size(): the fallback.
    std::string rule_text(std::size_t i) const;
    /// Every rule, the fallback and the legend of the classes and roles they name.
    std::string text() const;
    /// What fit() did that the user did not ask for, in words (not saved with the rules).
    const std::vector<std::string>& notes() const { return notes_; }
    nlohmann::ordered_json to_json() const;
    /// Throws gsr::Error naming what is missing or malformed.
    static SymGraphModel from_json(const nlohmann::json& j);

private:
    train::Target target_ = train::Target::SignalProbability;
    Granularity granularity_;
    std::size_t max_ego_ = 256;
    Binning binning_;
    Vocabulary vocabulary_;
    RuleList rules_;
    std::vector<std::string> notes_;
};

/// The bag of node v (fan-ins and fan-outs counted) over the vocabulary's predicates.
std::vector<std::pair<std::uint32_t, std::uint32_t>> node_bag(const graph::CircuitGraph& g,
                                                              const NodeFeatures& f,
                                                              std::uint32_t v,
                                                              const Vocabulary& vocabulary);

/// Node v's fan-ins (c = g.fanin) or fan-outs (c = g.fanout) by state, counted:
/// "2x AND2 fo1, !PI fo2", '!' marking an inverted edge when `polarity` is on; "none" when v
/// has none. The legend's example of a class or role.
std::string neighbour_states(const NodeFeatures& f, const graph::Csr& c, std::uint32_t v,
                             bool polarity);

/// Metrics of one split over all circuits of a data set.
struct SplitScore {
    train::Metrics metrics;
    double bin_accuracy = train::kUndefined; ///< NaN when the split is empty
};

/// Scores predictions (one vector per circuit of `data`, per node) on the nodes of `which`.
SplitScore evaluate_split(const train::Dataset& data,
                          const std::vector<std::vector<double>>& predictions, train::Split which,
                          const Binning& binning);

/// The binning of a target: [0, 1] for signal probability and toggle rate, else the range of
/// the training nodes.
Binning target_binning(const train::Dataset& data, std::uint32_t bins);

} // namespace gsr::symgraph
