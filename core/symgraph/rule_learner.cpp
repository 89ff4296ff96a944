#include "symgraph/rule_learner.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gsr::symgraph {

void Bags::add_row(std::vector<std::pair<std::uint32_t, std::uint32_t>> entries)
{
    std::sort(entries.begin(), entries.end());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i > 0 && entries[i].first == entries[i - 1].first) {
            count_.back() += entries[i].second;
            continue;
        }
        predicate_.push_back(entries[i].first);
        count_.push_back(entries[i].second);
    }
    offsets_.push_back(predicate_.size());
}

std::uint32_t Bags::count(std::size_t row, std::uint32_t predicate) const
{
    const auto p = predicates(row);
    const auto it = std::lower_bound(p.begin(), p.end(), predicate);
    if (it == p.end() || *it != predicate) return 0;
    return count_[offsets_[row] + static_cast<std::size_t>(it - p.begin())];
}

bool Rule::matches(const Bags& bags, std::size_t row) const
{
    for (const Condition& c : conditions)
        if (bags.count(row, c.predicate) < c.at_least) return false;
    return true;
}

std::uint32_t RuleList::first_match(const Bags& bags, std::size_t row) const
{
    for (std::size_t i = 0; i < rules.size(); ++i)
        if (rules[i].matches(bags, row)) return static_cast<std::uint32_t>(i);
    return static_cast<std::uint32_t>(rules.size());
}

const Rule& RuleList::rule_for(const Bags& bags, std::size_t row) const
{
    const std::uint32_t i = first_match(bags, row);
    return i < rules.size() ? rules[i] : fallback;
}

RuleList RuleList::prefix(std::size_t m) const
{
    RuleList out;
    out.task = task;
    out.classes = classes;
    m = std::min(m, rules.size());
    out.rules.assign(rules.begin(), rules.begin() + static_cast<std::ptrdiff_t>(m));
    out.fallback = m < fallbacks.size() ? fallbacks[m] : fallback;
    out.fallbacks.assign(fallbacks.begin(),
                         fallbacks.begin() +
                             static_cast<std::ptrdiff_t>(std::min(m + 1, fallbacks.size())));
    return out;
}

namespace {

/// A rule's prediction from the training targets it covers.
Rule summarise(std::vector<double> ys, const LearnOptions& o, const Rule& empty_default)
{
    Rule r;
    r.support = ys.size();
    if (ys.empty()) {
        r.value = empty_default.value;
        r.label = empty_default.label;
        r.low = r.high = empty_default.value;
        return r;
    }
    if (o.task == Task::Regression) {
        double sum = 0;
        for (double y : ys) sum += y;
        r.value = sum / static_cast<double>(ys.size());
        std::sort(ys.begin(), ys.end());
        // Nearest rank: the ceil(p n)-th smallest, so [q(0.1), q(0.9)] holds at least 80 % of
        // the targets (floor of p (n - 1) gave the smallest of two or three for q(0.9)).
        auto q = [&](double p) {
            const auto rank = static_cast<std::size_t>(std::ceil(p * double(ys.size())));
            return ys[std::clamp<std::size_t>(rank, 1, ys.size()) - 1];
        };
        r.low = q(0.1);
        r.high = q(0.9);
    } else {
        std::vector<std::size_t> hist(o.classes, 0);
        for (double y : ys) ++hist[static_cast<std::size_t>(y)];
        const auto best = std::max_element(hist.begin(), hist.end()); // lowest class on ties
        r.label = static_cast<std::uint32_t>(best - hist.begin());
        r.value = r.label;
        r.purity = static_cast<double>(*best) / static_cast<double>(ys.size());
    }
    return r;
}

/// Candidate conditions of one predicate: its distinct counts among the training rows.
struct Slots {
    std::vector<std::uint64_t> offset;               ///< per predicate, into level
    std::vector<std::uint32_t> level;                ///< ascending per predicate
    std::vector<std::uint32_t> row_offset, row_slot; ///< per training position: its slots
};

Slots make_slots(const Bags& bags, std::span<const std::uint32_t> rows)
{
    std::uint32_t n_pred = 0;
    for (std::uint32_t r : rows)
        for (std::uint32_t p : bags.predicates(r)) n_pred = std::max(n_pred, p + 1);
    std::vector<std::vector<std::uint32_t>> lv(n_pred);
    for (std::uint32_t r : rows) {
        const auto p = bags.predicates(r);
        const auto c = bags.counts(r);
        for (std::size_t i = 0; i < p.size(); ++i) lv[p[i]].push_back(c[i]);
    }
    Slots s;
    s.offset.assign(n_pred + 1, 0);
    for (std::uint32_t p = 0; p < n_pred; ++p) {
        std::sort(lv[p].begin(), lv[p].end());
        lv[p].erase(std::unique(lv[p].begin(), lv[p].end()), lv[p].end());
        s.offset[p + 1] = s.offset[p] + lv[p].size();
        s.level.insert(s.level.end(), lv[p].begin(), lv[p].end());
    }
    s.row_offset.push_back(0);
    for (std::uint32_t r : rows) {
        const auto p = bags.predicates(r);
        const auto c = bags.counts(r);
        for (std::size_t i = 0; i < p.size(); ++i) {
            const auto& l = lv[p[i]];
            s.row_slot.push_back(static_cast<std::uint32_t>(
                s.offset[p[i]] + (std::lower_bound(l.begin(), l.end(), c[i]) - l.begin())));
        }
        s.row_offset.push_back(static_cast<std::uint32_t>(s.row_slot.size()));
    }
    return s;
}

} // namespace

RuleList learn_rules(const Bags& bags, std::span<const std::uint32_t> train_rows,
                     std::span<const double> target, const LearnOptions& o)
{
    if (train_rows.empty()) throw Error("symgraph: no training items to learn rules from");
    const bool classify = o.task == Task::Classification;
    if (classify && o.classes < 1) throw Error("symgraph: classification needs classes >= 1");
    for (std::uint32_t r : train_rows) {
        if (r >= bags.rows() || r >= target.size())
            throw Error("symgraph: training row " + std::to_string(r) + " has no bag or target");
        if (classify &&
            (target[r] < 0 || target[r] >= o.classes || target[r] != std::floor(target[r])))
            throw Error("symgraph: class " + std::to_string(target[r]) + " out of 0.." +
                        std::to_string(o.classes - 1));
    }
    const std::size_t n = train_rows.size();
    const std::size_t width = classify ? o.classes : 1; // per slot: class counts, or the sum
    const Slots slots = make_slots(bags, train_rows);
    const std::size_t slot_count = slots.level.size();
    const std::uint32_t n_pred = static_cast<std::uint32_t>(slots.offset.size() - 1);

    auto y_of = [&](std::uint32_t pos) { return target[train_rows[pos]]; };
    auto add_to = [&](double* acc, std::uint32_t pos) {
        if (classify)
            acc[static_cast<std::size_t>(y_of(pos))] += 1;
        else
            acc[0] += y_of(pos);
    };
    // Sum of squares about the mean (regression) or n * Gini (classification), from n and the
    // per-slot vector; only differences of these matter, so the constant sum y^2 is left out.
    auto fit_term = [&](double count, const double* v) {
        if (count <= 0) return 0.0;
        double s = 0;
        for (std::size_t k = 0; k < width; ++k) s += v[k] * v[k];
        return s / count;
    };

    RuleList out;
    out.task = o.task;
    out.classes = classify ? o.classes : 0;
    std::vector<std::uint32_t> covered_by(n, ~0u);

    // The overall prediction, for a fallback that covers nothing.
    std::vector<double> all_y(n);
    for (std::uint32_t i = 0; i < n; ++i) all_y[i] = y_of(i);
    const Rule overall = summarise(all_y, o, Rule{});

    double initial = 0;
    {
        std::vector<double> tot(width, 0);
        for (std::uint32_t i = 0; i < n; ++i) add_to(tot.data(), i);
        if (classify) {
            initial = static_cast<double>(n) - fit_term(static_cast<double>(n), tot.data());
        } else {
            const double mean = tot[0] / static_cast<double>(n);
            for (double y : all_y) initial += (y - mean) * (y - mean);
        }
    }
    const double min_gain = std::max(o.min_gain_share * initial, 1e-12);

    std::vector<double> cnt(slot_count, 0), val(slot_count * width, 0);
    std::vector<std::uint8_t> pred_touched(n_pred, 0);
    std::vector<std::uint32_t> touched;
    std::vector<double> cum(width), tot_r(width), rest(width);
    std::vector<std::uint32_t> remaining, subset, next_subset;

    while (out.rules.size() < o.max_rules) {
        remaining.clear();
        for (std::uint32_t i = 0; i < n; ++i)
            if (covered_by[i] == ~0u) remaining.push_back(i);
        if (remaining.size() < std::max<std::size_t>(o.min_support, 1)) break;
        std::fill(tot_r.begin(), tot_r.end(), 0.0);
        for (std::uint32_t i : remaining) add_to(tot_r.data(), i);
        const double n_r = static_cast<double>(remaining.size());
        const double base = fit_term(n_r, tot_r.data());

        Rule rule;
        double best_gain = 0;
        subset = remaining;
        for (std::uint32_t depth = 0; depth < o.max_conditions; ++depth) {
            // Count statistics of every (predicate, count level) over the current subset.
            touched.clear();
            for (std::uint32_t pos : subset) {
                for (std::uint32_t k = slots.row_offset[pos]; k < slots.row_offset[pos + 1]; ++k) {
                    const std::uint32_t slot = slots.row_slot[k];
                    cnt[slot] += 1;
                    add_to(&val[slot * width], pos);
                }
                for (std::uint32_t k = slots.row_offset[pos]; k < slots.row_offset[pos + 1]; ++k) {
                    const std::uint32_t slot = slots.row_slot[k];
                    const auto p = static_cast<std::uint32_t>(
                        std::upper_bound(slots.offset.begin(), slots.offset.end(), slot) -
                        slots.offset.begin() - 1);
                    if (!pred_touched[p]) {
                        pred_touched[p] = 1;
                        touched.push_back(p);
                    }
                }
            }
            std::sort(touched.begin(), touched.end());
            double cand_gain = best_gain;
            Condition cand;
            bool found = false;
            for (std::uint32_t p : touched) {
                pred_touched[p] = 0;
                double c = 0;
                std::fill(cum.begin(), cum.end(), 0.0);
                // From the highest threshold down: count >= level[j] gathers slots j and above.
                for (std::uint64_t j = slots.offset[p + 1]; j-- > slots.offset[p];) {
                    c += cnt[j];
                    for (std::size_t k = 0; k < width; ++k) cum[k] += val[j * width + k];
                    cnt[j] = 0;
                    for (std::size_t k = 0; k < width; ++k) val[j * width + k] = 0;
                    if (c < static_cast<double>(o.min_support) ||
                        c >= static_cast<double>(subset.size()))
                        continue;
                    for (std::size_t k = 0; k < width; ++k) rest[k] = tot_r[k] - cum[k];
                    const double gain =
                        fit_term(c, cum.data()) + fit_term(n_r - c, rest.data()) - base;
                    // Ties keep the earlier (lower predicate, then higher threshold) candidate.
                    if (gain > cand_gain * (1 + 1e-12) + 1e-15) {
                        cand_gain = gain;
                        cand = Condition{p, slots.level[j]};
                        found = true;
                    }
                }
            }
            if (!found) break;
            rule.conditions.push_back(cand);
            best_gain = cand_gain;
            next_subset.clear();
            for (std::uint32_t pos : subset)
                if (bags.count(train_rows[pos], cand.predicate) >= cand.at_least)
                    next_subset.push_back(pos);
            subset.swap(next_subset);
        }
        if (rule.conditions.empty() || best_gain < min_gain) break;
        std::vector<double> ys;
        for (std::uint32_t pos : subset) {
            ys.push_back(y_of(pos));
            covered_by[pos] = static_cast<std::uint32_t>(out.rules.size());
        }
        Rule summary = summarise(std::move(ys), o, overall);
        summary.conditions = std::move(rule.conditions);
        out.rules.push_back(std::move(summary));
    }

    // Fallbacks for every prefix: the training items the first m rules leave.
    const std::size_t m_rules = out.rules.size();
    for (std::size_t m = 0; m <= m_rules; ++m) {
        std::vector<double> ys;
        for (std::uint32_t i = 0; i < n; ++i)
            if (covered_by[i] == ~0u || covered_by[i] >= m) ys.push_back(y_of(i));
        out.fallbacks.push_back(summarise(std::move(ys), o, overall));
    }
    out.fallback = out.fallbacks.back();
    return out;
}

} // namespace gsr::symgraph
