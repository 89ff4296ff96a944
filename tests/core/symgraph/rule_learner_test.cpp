// Count-threshold rule learning on synthetic bags whose true rule is known.
#include "symgraph/rule_learner.hpp"

#include "train/dataset.hpp"
#include "util/diagnostics.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace gsr::symgraph;

namespace {

/// 600 items with counts of predicates 0..5 drawn from a seeded stream.
Bags random_bags(std::uint64_t seed, std::vector<std::vector<std::uint32_t>>& counts)
{
    gsr::train::SeededStream s(seed);
    Bags bags;
    counts.assign(600, std::vector<std::uint32_t>(6));
    for (auto& c : counts) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
        for (std::uint32_t p = 0; p < 6; ++p) {
            c[p] = static_cast<std::uint32_t>(s.below(p == 4 ? 3 : 4)); // p4 in 0..2, else 0..3
            if (c[p] > 0) e.emplace_back(p, c[p]);
        }
        std::reverse(e.begin(), e.end()); // add_row sorts
        bags.add_row(e);
    }
    return bags;
}

std::vector<std::uint32_t> all_rows(std::size_t n)
{
    std::vector<std::uint32_t> r(n);
    for (std::uint32_t i = 0; i < n; ++i) r[i] = i;
    return r;
}

/// Rows the rule list assigns to each rule (first match), fallback last.
std::vector<std::size_t> coverage(const RuleList& rules, const Bags& bags)
{
    std::vector<std::size_t> n(rules.rules.size() + 1, 0);
    for (std::size_t r = 0; r < bags.rows(); ++r) ++n[rules.first_match(bags, r)];
    return n;
}

} // namespace

TEST(Bags, MergeRepeatedPredicatesAndAnswerCounts)
{
    Bags b;
    b.add_row({{3, 1}, {1, 2}, {3, 4}});
    b.add_row({});
    ASSERT_EQ(b.rows(), 2u);
    EXPECT_EQ(b.count(0, 3), 5u);
    EXPECT_EQ(b.count(0, 1), 2u);
    EXPECT_EQ(b.count(0, 2), 0u);
    EXPECT_EQ(b.count(1, 3), 0u);
    EXPECT_EQ(std::vector<std::uint32_t>(b.predicates(0).begin(), b.predicates(0).end()),
              (std::vector<std::uint32_t>{1, 3}));
}

TEST(RuleLearner, FindsAKnownConjunctionForAClass)
{
    std::vector<std::vector<std::uint32_t>> c;
    const Bags bags = random_bags(5, c);
    std::vector<double> y;
    for (const auto& row : c) y.push_back(row[2] >= 2 && row[4] >= 1 ? 1 : 0);
    LearnOptions o;
    o.task = Task::Classification;
    o.classes = 2;
    const RuleList rules = learn_rules(bags, all_rows(c.size()), y, o);
    // Class 1 is predicted by exactly one rule: count(p2) >= 2 AND count(p4) >= 1.
    std::vector<const Rule*> ones;
    for (const Rule& r : rules.rules)
        if (r.label == 1) ones.push_back(&r);
    ASSERT_EQ(ones.size(), 1u);
    std::vector<Condition> conds = ones[0]->conditions;
    std::sort(conds.begin(), conds.end(),
              [](const Condition& a, const Condition& b) { return a.predicate < b.predicate; });
    EXPECT_EQ(conds, (std::vector<Condition>{{2, 2}, {4, 1}}));
    EXPECT_DOUBLE_EQ(ones[0]->purity, 1.0);
    EXPECT_EQ(rules.fallback.label, 0u);
    std::size_t right = 0;
    for (std::size_t r = 0; r < c.size(); ++r) right += rules.rule_for(bags, r).label == y[r];
    EXPECT_EQ(right, c.size());
}

TEST(RuleLearner, RegressionRulesPredictTheMeanOfWhatTheyCover)
{
    std::vector<std::vector<std::uint32_t>> c;
    const Bags bags = random_bags(11, c);
    std::vector<double> y;
    for (const auto& row : c) y.push_back(row[1] >= 3 ? 0.8 : 0.2);
    LearnOptions o;
    const RuleList rules = learn_rules(bags, all_rows(c.size()), y, o);
    ASSERT_EQ(rules.rules.size(), 1u); // after it, nothing is left to explain
    EXPECT_EQ(rules.rules[0].conditions, (std::vector<Condition>{{1, 3}}));
    EXPECT_NEAR(rules.rules[0].value, 0.8, 1e-12);
    EXPECT_DOUBLE_EQ(rules.rules[0].low, 0.8);
    EXPECT_DOUBLE_EQ(rules.rules[0].high, 0.8);
    EXPECT_NEAR(rules.fallback.value, 0.2, 1e-12);
    std::size_t expected = 0;
    for (const auto& row : c) expected += row[1] >= 3;
    EXPECT_EQ(rules.rules[0].support, expected);
}

TEST(RuleLearner, ARulesIntervalHoldsAtLeastEightyPercentOfItsTargets)
{
    // Rows with no predicate: nothing to split on, so the fallback covers them all. Its
    // interval is the 10th to 90th percentile by nearest rank, the ceil(p n)-th smallest.
    const auto fallback_of = [](const std::vector<double>& y) {
        Bags bags;
        for (std::size_t i = 0; i < y.size(); ++i) bags.add_row({});
        return learn_rules(bags, all_rows(y.size()), y, LearnOptions{}).fallback;
    };
    // Two targets: [0, 1], both (floor(0.9 (n - 1)) gave the smaller for the 90th, [0, 0]).
    const Rule two = fallback_of({1.0, 0.0});
    EXPECT_DOUBLE_EQ(two.low, 0.0);
    EXPECT_DOUBLE_EQ(two.high, 1.0);
    EXPECT_DOUBLE_EQ(two.value, 0.5);
    // Twelve, 0..11: the 2nd and the 11th smallest, 10 of 12 within (floor gave 9 of 12).
    std::vector<double> twelve;
    for (int i = 11; i >= 0; --i) twelve.push_back(i);
    const Rule r = fallback_of(twelve);
    EXPECT_DOUBLE_EQ(r.low, 1.0);
    EXPECT_DOUBLE_EQ(r.high, 10.0);
    // One target: itself at both ends.
    const Rule one = fallback_of({0.25});
    EXPECT_DOUBLE_EQ(one.low, 0.25);
    EXPECT_DOUBLE_EQ(one.high, 0.25);
}

TEST(RuleLearner, RulesCoverExactlyTheItemsTheyClaim)
{
    std::vector<std::vector<std::uint32_t>> c;
    const Bags bags = random_bags(23, c);
    std::vector<double> y;
    for (const auto& row : c) y.push_back(0.1 * row[0] + 0.05 * row[3] * row[5] + 0.01 * row[2]);
    LearnOptions o;
    o.max_rules = 12;
    const RuleList rules = learn_rules(bags, all_rows(c.size()), y, o);
    ASSERT_GE(rules.rules.size(), 4u);
    const std::vector<std::size_t> n = coverage(rules, bags);
    for (std::size_t i = 0; i < rules.rules.size(); ++i) {
        EXPECT_EQ(n[i], rules.rules[i].support) << "rule " << i;
        // The value is the mean of the items that reach the rule.
        double sum = 0;
        for (std::size_t r = 0; r < c.size(); ++r)
            if (rules.first_match(bags, r) == i) sum += y[r];
        EXPECT_NEAR(rules.rules[i].value, sum / static_cast<double>(n[i]), 1e-12);
        EXPECT_GE(rules.rules[i].support, o.min_support);
    }
    EXPECT_EQ(n.back(), rules.fallback.support);
    // A prefix keeps its rules and takes the fallback fitted to what they leave.
    const RuleList p = rules.prefix(2);
    ASSERT_EQ(p.rules.size(), 2u);
    EXPECT_EQ(coverage(p, bags).back(), p.fallback.support);
    EXPECT_EQ(p.fallback.support, c.size() - rules.rules[0].support - rules.rules[1].support);
}

TEST(RuleLearner, IsDeterministic)
{
    std::vector<std::vector<std::uint32_t>> c;
    const Bags bags = random_bags(42, c);
    std::vector<double> y;
    for (const auto& row : c) y.push_back(static_cast<double>((row[0] + 2 * row[1] + row[5]) % 4));
    LearnOptions o;
    o.task = Task::Classification;
    o.classes = 4;
    const RuleList a = learn_rules(bags, all_rows(c.size()), y, o);
    const RuleList b = learn_rules(bags, all_rows(c.size()), y, o);
    ASSERT_EQ(a.rules.size(), b.rules.size());
    for (std::size_t i = 0; i < a.rules.size(); ++i) {
        EXPECT_EQ(a.rules[i].conditions, b.rules[i].conditions);
        EXPECT_EQ(a.rules[i].label, b.rules[i].label);
        EXPECT_EQ(a.rules[i].support, b.rules[i].support);
    }
}

TEST(RuleLearner, RefusesBadInput)
{
    Bags b;
    b.add_row({{0, 1}});
    const std::vector<double> y{3};
    LearnOptions o;
    o.task = Task::Classification;
    o.classes = 2;
    EXPECT_THROW(learn_rules(b, std::vector<std::uint32_t>{0}, y, o), gsr::Error);
    EXPECT_THROW(learn_rules(b, std::vector<std::uint32_t>{}, y, o), gsr::Error);
    EXPECT_THROW(learn_rules(b, std::vector<std::uint32_t>{1}, y, LearnOptions{}), gsr::Error);
}
