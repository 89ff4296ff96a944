#pragma once
// Count-threshold rules (SymGraph steps 4-5). Every item (a node, or a whole graph) is a bag of
// predicate counts; a condition says "count of predicate p >= theta"; a rule is an AND of
// conditions with a prediction; a model is an ordered list of rules (first match wins) and a
// fallback. The rules predicting one class form an OR of ANDs.
//
// Learning is sequential covering: grow one rule greedily (add the condition that best separates
// the items it covers from the rest of the uncovered items: between-group squared error for a
// value, Gini impurity for a class), take the items it covers away, repeat. No gradients and no
// randomness: the same bags and targets give the same rules, bit for bit (fixed loop order,
// ties go to the lower predicate and threshold).
//
// Contents: Bags, Condition, Rule, Task, LearnOptions, RuleList, learn_rules.
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace gsr::symgraph {

/// Sparse bags of predicate counts, one row per item, each row sorted by predicate.
class Bags {
public:
    std::size_t rows() const { return offsets_.size() - 1; }
    /// Adds a row from (predicate, count) pairs in any order; repeated predicates add up.
    void add_row(std::vector<std::pair<std::uint32_t, std::uint32_t>> entries);
    std::uint32_t count(std::size_t row, std::uint32_t predicate) const;

    std::span<const std::uint32_t> predicates(std::size_t row) const
    {
        return {predicate_.data() + offsets_[row], predicate_.data() + offsets_[row + 1]};
    }
    std::span<const std::uint32_t> counts(std::size_t row) const
    {
        return {count_.data() + offsets_[row], count_.data() + offsets_[row + 1]};
    }

private:
    std::vector<std::uint64_t> offsets_{0};
    std::vector<std::uint32_t> predicate_;
    std::vector<std::uint32_t> count_;
};

struct Condition {
    std::uint32_t predicate = 0;
    std::uint32_t at_least = 1; ///< count(predicate) >= at_least (always >= 1)

    bool operator==(const Condition&) const = default;
};

enum class Task : std::uint8_t {
    Regression,     ///< a rule predicts a value (the mean of the training items it covers)
    Classification, ///< a rule predicts a class (the majority of the items it covers)
};

struct Rule {
    std::vector<Condition> conditions; ///< empty: the fallback
    double value = 0;                  ///< regression: mean target of the covered training items
    std::uint32_t label = 0;           ///< classification: the predicted class
    double low = 0, high = 0; ///< regression: 10th and 90th percentile of the covered targets
    double purity = 0;        ///< classification: share of covered training items of `label`
    std::size_t support = 0;  ///< training items this rule covers (those no earlier rule took)

    bool matches(const Bags& bags, std::size_t row) const;
};

struct LearnOptions {
    Task task = Task::Regression;
    std::uint32_t classes = 2; ///< classification: targets are 0 .. classes-1
    std::uint32_t max_rules = 64;
    std::uint32_t max_conditions = 3; ///< conditions per rule
    std::size_t min_support = 5;      ///< training items a rule must cover
    /// A rule must lower the impurity of the training items by this share of the initial one.
    double min_gain_share = 1e-4;
};

struct RuleList {
    Task task = Task::Regression;
    std::uint32_t classes = 0;
    std::vector<Rule> rules;
    Rule fallback;

    /// Index of the first rule that matches, or rules.size() for the fallback.
    std::uint32_t first_match(const Bags& bags, std::size_t row) const;
    const Rule& rule_for(const Bags& bags, std::size_t row) const;
    /// The first `m` rules, with the fallback the learner fitted to the items they leave.
    RuleList prefix(std::size_t m) const;

    /// fallbacks[m]: the fallback when only the first m rules are kept (size rules.size() + 1).
    std::vector<Rule> fallbacks;
};

/// Learns rules over the given training rows. `target` is indexed by row of `bags` (a class
/// index for classification). Throws gsr::Error when `train_rows` is empty or a class is out
/// of range.
RuleList learn_rules(const Bags& bags, std::span<const std::uint32_t> train_rows,
                     std::span<const double> target, const LearnOptions& options);

} // namespace gsr::symgraph
