#include "symgraph/symgraph_model.hpp"

#include "util/diagnostics.hpp"
#include "util/number_text.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>

namespace gsr::symgraph {

NodeFeatures node_features(const graph::CircuitGraph& g, const Granularity& gr,
                           const EgoNetworks& ego)
{
    if (ego.hops() != gr.hops || ego.node_count() != g.node_count())
        throw Error("symgraph: ego networks of another graph or K were given");
    NodeFeatures f;
    StructureGraph s = structure_of(g, gr.polarity);
    s.state = node_states(g, gr, &f.state_label);
    f.state = s.state;
    f.wl = wl_hashes(s, gr.hops);
    RoleSignatures r = role_signatures(s, ego);
    f.role = std::move(r.signature);
    f.ego_size = std::move(r.ego_size);
    f.classes = std::move(r.classes);
    return f;
}

const NodeFeatures& FeatureCache::get(std::size_t circuit, const graph::CircuitGraph& g,
                                      const Granularity& gr)
{
    const auto fkey = std::make_tuple(circuit, gr.fine_fan, gr.depth_bins, gr.hops, gr.polarity);
    if (auto it = features_.find(fkey); it != features_.end()) return it->second;
    auto& ego = ego_[{circuit, gr.hops}];
    if (!ego) {
        ego = std::make_unique<EgoNetworks>(structure_of(g), gr.hops, max_ego_);
        ++ego_builds_;
    }
    return features_.emplace(fkey, node_features(g, gr, *ego)).first->second;
}

std::uint32_t Binning::of(double y) const
{
    const double t = (y - lo) / (hi - lo) * bins;
    if (!(t > 0)) return 0;
    // Clamped before the cast: t can pass 2^32 (a stored binning only promises hi > lo).
    if (t >= bins - 1) return bins - 1;
    return static_cast<std::uint32_t>(t);
}

double bin_accuracy(std::span<const double> prediction, std::span<const double> target,
                    const Binning& binning)
{
    if (prediction.size() != target.size())
        throw std::invalid_argument("bin_accuracy: spans differ in length");
    if (target.empty()) return train::kUndefined;
    std::size_t hit = 0;
    for (std::size_t i = 0; i < target.size(); ++i)
        hit += binning.of(prediction[i]) == binning.of(target[i]);
    return static_cast<double>(hit) / static_cast<double>(target.size());
}

std::vector<Granularity> default_candidates()
{
    std::vector<Granularity> out;
    for (std::uint32_t hops : {1u, 2u})
        for (std::uint32_t depth : {0u, 3u})
            for (bool fine : {true, false}) out.push_back(Granularity{fine, depth, hops});
    return out;
}

Binning target_binning(const train::Dataset& data, std::uint32_t bins)
{
    Binning b;
    b.bins = bins;
    if (data.target == train::Target::SignalProbability || data.target == train::Target::Toggle)
        return b;
    bool any = false;
    for (const train::CircuitData& c : data.circuits)
        for (std::uint32_t v : c.nodes(train::Split::Train)) {
            b.lo = any ? std::min(b.lo, c.target[v]) : c.target[v];
            b.hi = any ? std::max(b.hi, c.target[v]) : c.target[v];
            any = true;
        }
    if (!(b.hi > b.lo)) b.hi = b.lo + 1;
    return b;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> node_bag(const graph::CircuitGraph& g,
                                                              const NodeFeatures& f,
                                                              std::uint32_t v,
                                                              const Vocabulary& vocabulary)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> e;
    auto add = [&](Scope s, std::uint32_t u) {
        for (auto [k, h] : {std::pair{Kind::State, f.state[u]}, std::pair{Kind::WlClass, f.wl[u]},
                            std::pair{Kind::Role, f.role[u]}})
            if (const std::uint32_t id = vocabulary.find(predicate_key(s, k, h)); id != ~0u)
                e.emplace_back(id, 1);
    };
    add(Scope::Self, v);
    for (std::uint64_t i = g.fanin.offsets[v]; i < g.fanin.offsets[v + 1]; ++i)
        add(Scope::Fanin, g.fanin.targets[i]);
    for (std::uint64_t i = g.fanout.offsets[v]; i < g.fanout.offsets[v + 1]; ++i)
        add(Scope::Fanout, g.fanout.targets[i]);
    return e;
}

std::string neighbour_states(const NodeFeatures& f, const graph::Csr& c, std::uint32_t v,
                             bool polarity)
{
    std::map<std::string, int> m;
    for (std::uint64_t i = c.offsets[v]; i < c.offsets[v + 1]; ++i) {
        const bool inverted = polarity && i < c.inverted.size() && c.inverted[i];
        ++m[(inverted ? "!" : "") + f.state_label.at(f.state[c.targets[i]])];
    }
    if (m.empty()) return "none";
    std::string s;
    int shown = 0;
    for (const auto& [label, n] : m) {
        if (shown++ == 6) {
            s += ", ...";
            break;
        }
        s += (s.empty() ? "" : ", ") + (n > 1 ? std::to_string(n) + "x " : "") + label;
    }
    return s;
}

namespace {

using Item = std::pair<std::uint32_t, std::uint32_t>; // (circuit, node)

std::string_view target_noun(train::Target t)
{
    switch (t) {
    case train::Target::SignalProbability: return "signal probability";
    case train::Target::Toggle: return "toggle rate";
    case train::Target::Level: return "logic level";
    case train::Target::Arrival: return "arrival time";
    }
    return "target";
}

/// Every predicate key of one node, each once, with its (scope, kind, hash).
struct KeyInfo {
    Scope scope;
    Kind kind;
    std::uint64_t hash;
    std::size_t support = 0;
};

void keys_of(const graph::CircuitGraph& g, const NodeFeatures& f, std::uint32_t v,
             std::vector<std::pair<std::uint64_t, KeyInfo>>& out)
{
    out.clear();
    auto add = [&](Scope s, std::uint32_t u) {
        for (auto [k, h] : {std::pair{Kind::State, f.state[u]}, std::pair{Kind::WlClass, f.wl[u]},
                            std::pair{Kind::Role, f.role[u]}})
            out.push_back({predicate_key(s, k, h), KeyInfo{s, k, h}});
    };
    add(Scope::Self, v);
    for (std::uint64_t i = g.fanin.offsets[v]; i < g.fanin.offsets[v + 1]; ++i)
        add(Scope::Fanin, g.fanin.targets[i]);
    for (std::uint64_t i = g.fanout.offsets[v]; i < g.fanout.offsets[v + 1]; ++i)
        add(Scope::Fanout, g.fanout.targets[i]);
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              out.end());
}

std::string fixed(double v, int digits) { return fixed_text(v, digits); }

/// Accuracy (classification) or Pearson r (regression; 0 while the prediction is constant).
/// Pearson rather than R^2: validation circuits may sit at another mean than the training
/// circuits (a decoder's outputs are almost always 0), and ranking nodes is what the quality
/// table compares.
double score_of(Task task, const std::vector<double>& pred, const std::vector<double>& y)
{
    if (y.empty()) return 0;
    if (task == Task::Classification) {
        std::size_t hit = 0;
        for (std::size_t i = 0; i < y.size(); ++i) hit += pred[i] == y[i];
        return static_cast<double>(hit) / static_cast<double>(y.size());
    }
    const train::Correlation r = train::pearson(pred, y);
    return r.defined() ? r.value : 0.0;
}

/// What one granularity produced.
struct Candidate {
    Vocabulary vocabulary;
    RuleList rules; ///< the kept prefix
    CandidateReport report;
};

Candidate fit_candidate(const train::Dataset& data, const std::vector<Item>& train_items,
                        const std::vector<Item>& val_items, const std::vector<double>& target,
                        const Granularity& gr, const SymGraphOptions& o, const LearnOptions& lo,
                        FeatureCache& cache)
{
    const auto t0 = std::chrono::steady_clock::now();
    auto features = [&](std::uint32_t c) -> const NodeFeatures& {
        return cache.get(c, data.circuits[c].graph, gr);
    };

    // Support of every predicate among the training nodes.
    std::unordered_map<std::uint64_t, KeyInfo> support;
    std::vector<std::pair<std::uint64_t, KeyInfo>> keys;
    for (const auto& [c, v] : train_items) {
        keys_of(data.circuits[c].graph, features(c), v, keys);
        for (const auto& [key, info] : keys) ++support.emplace(key, info).first->second.support;
    }
    std::vector<KeyInfo> kept;
    for (const auto& [key, info] : support)
        if (info.support >= lo.min_support) kept.push_back(info);
    std::sort(kept.begin(), kept.end(), [](const KeyInfo& a, const KeyInfo& b) {
        if (a.scope != b.scope) return a.scope < b.scope;
        if (a.kind != b.kind) return a.kind < b.kind;
        if (a.support != b.support) return a.support > b.support;
        return a.hash < b.hash;
    });

    // Names of classes and roles: their rank by how many nodes of the training circuits hold
    // them (W1, R1: the most common), so that names mean the same in every rule.
    std::vector<std::uint8_t> trains(data.circuits.size(), 0);
    for (const auto& [c, v] : train_items) trains[c] = 1;
    std::unordered_map<std::uint64_t, std::size_t> wl_count, role_count;
    for (std::uint32_t c = 0; c < data.circuits.size(); ++c) {
        if (!trains[c]) continue;
        const NodeFeatures& f = features(c);
        for (std::size_t v = 0; v < f.wl.size(); ++v) {
            ++wl_count[f.wl[v]];
            ++role_count[f.role[v]];
        }
    }
    auto ranks = [](const std::unordered_map<std::uint64_t, std::size_t>& counts) {
        std::vector<std::pair<std::uint64_t, std::size_t>> v(counts.begin(), counts.end());
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        std::unordered_map<std::uint64_t, std::size_t> rank;
        for (std::size_t i = 0; i < v.size(); ++i) rank[v[i].first] = i + 1;
        return rank;
    };
    const auto wl_rank = ranks(wl_count), role_rank = ranks(role_count);

    Candidate out;
    std::unordered_map<std::uint64_t, std::string> labels;
    for (std::uint32_t c = 0; c < data.circuits.size(); ++c)
        if (trains[c])
            for (const auto& [h, text] : features(c).state_label) labels.emplace(h, text);
    for (const KeyInfo& k : kept) {
        Predicate p;
        p.scope = k.scope;
        p.kind = k.kind;
        p.hash = k.hash;
        p.support = k.support;
        if (k.kind == Kind::State)
            p.name = labels.at(k.hash);
        else if (k.kind == Kind::WlClass)
            p.name = std::string("W").append(std::to_string(wl_rank.at(k.hash)));
        else
            p.name = std::string("R").append(std::to_string(role_rank.at(k.hash)));
        out.vocabulary.add(std::move(p));
    }

    // Bags: the training items, then the validation items.
    Bags bags;
    for (const auto& items : {&train_items, &val_items})
        for (const auto& [c, v] : *items)
            bags.add_row(node_bag(data.circuits[c].graph, features(c), v, out.vocabulary));
    std::vector<std::uint32_t> rows(train_items.size());
    for (std::uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
    RuleList full = learn_rules(bags, rows, target, lo);

    // The prefix that scores best on validation, less the penalty per rule.
    const bool has_val = !val_items.empty();
    const std::size_t first = has_val ? train_items.size() : 0;
    const std::size_t last = has_val ? train_items.size() + val_items.size() : train_items.size();
    std::vector<std::uint32_t> match;
    std::vector<double> y;
    for (std::size_t r = first; r < last; ++r) {
        match.push_back(full.first_match(bags, r));
        y.push_back(target[r]);
    }
    auto value = [&](const Rule& r) {
        return lo.task == Task::Classification ? r.label : r.value;
    };
    std::size_t best_m = 0;
    double best_obj = -std::numeric_limits<double>::infinity(), best_score = 0;
    std::vector<double> pred(y.size());
    for (std::size_t m = 0; m <= full.rules.size(); ++m) {
        for (std::size_t i = 0; i < y.size(); ++i)
            pred[i] = value(match[i] < m ? full.rules[match[i]] : full.fallbacks[m]);
        const double score = score_of(lo.task, pred, y);
        const double obj = score - o.rule_penalty * static_cast<double>(m);
        if (obj > best_obj) {
            best_obj = obj;
            best_score = score;
            best_m = m;
        }
    }
    out.rules = full.prefix(best_m);
    out.report.granularity = gr;
    out.report.min_support = lo.min_support;
    out.report.vocabulary = out.vocabulary.size();
    out.report.rules_learned = full.rules.size();
    out.report.rules_kept = best_m;
    out.report.validation_score = best_score;
    out.report.objective = best_obj;
    out.report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

/// The legend line of a class or role: an example node in words.
std::string describe_example(const train::Dataset& data, FeatureCache& cache,
                             const Granularity& gr, const Predicate& p)
{
    for (std::uint32_t c = 0; c < data.circuits.size(); ++c) {
        if (data.circuits[c].nodes(train::Split::Train).empty()) continue;
        const graph::CircuitGraph& g = data.circuits[c].graph;
        const NodeFeatures& f = cache.get(c, g, gr);
        const std::vector<std::uint64_t>& h = p.kind == Kind::WlClass ? f.wl : f.role;
        for (std::uint32_t v = 0; v < h.size(); ++v) {
            if (h[v] != p.hash) continue;
            std::string s = f.state_label.at(f.state[v]) +
                            "; fan-ins: " + neighbour_states(f, g.fanin, v, gr.polarity) +
                            "; fan-outs: " + neighbour_states(f, g.fanout, v, gr.polarity);
            if (p.kind == Kind::Role) {
                if (f.classes[v] == 0)
                    s += "; " + std::to_string(gr.hops) +
                         "-hop ego network too large to refine "
                         "(its role is its WL class)";
                else
                    s += "; " + std::to_string(gr.hops) + "-hop ego network of " +
                         std::to_string(f.ego_size[v]) + " nodes in " +
                         std::to_string(f.classes[v]) + " roles";
            } else if (gr.hops > 1) {
                s += "; and alike " + std::to_string(gr.hops) + " hops out";
            }
            return s + "; e.g. " +
                   std::filesystem::path(data.circuits[c].name).filename().string() + " node " +
                   std::to_string(v);
        }
    }
    return {};
}

} // namespace

SymGraphModel SymGraphModel::fit(const train::Dataset& data, const SymGraphOptions& o,
                                 std::vector<CandidateReport>* search)
{
    if (o.candidates.empty()) throw Error("symgraph: no granularity to search");
    for (const Granularity& g : o.candidates)
        if (g.hops < 1 || g.hops > 2) throw Error("symgraph: K (hops) must be 1 or 2");
    if (o.bins < 2) throw Error("symgraph: --bins must be at least 2");
    if (o.max_rules < 1) throw Error("symgraph: --max-rules must be at least 1");
    std::vector<Item> train_items, val_items;
    for (std::uint32_t c = 0; c < data.circuits.size(); ++c) {
        for (std::uint32_t v : data.circuits[c].nodes(train::Split::Train))
            train_items.emplace_back(c, v);
        for (std::uint32_t v : data.circuits[c].nodes(train::Split::Validation))
            val_items.emplace_back(c, v);
    }
    if (train_items.empty()) throw Error("symgraph: the data set has no training nodes");

    SymGraphModel model;
    model.target_ = data.target;
    model.max_ego_ = o.max_ego;
    model.binning_ = target_binning(data, o.bins);
    LearnOptions lo;
    lo.task = o.task;
    lo.classes = o.task == Task::Classification ? o.bins : 2;
    lo.max_rules = o.max_rules;
    lo.max_conditions = o.max_conditions;
    const std::size_t base_support =
        o.min_support ? o.min_support : std::max<std::size_t>(5, train_items.size() / 500);
    if (o.support_factors.empty()) throw Error("symgraph: no support factor to search");
    std::vector<double> target;
    for (const auto& items : {&train_items, &val_items})
        for (const auto& [c, v] : *items) {
            const double y = data.circuits[c].target[v];
            target.push_back(o.task == Task::Classification ? model.binning_.of(y) : y);
        }

    // A depth bin is a bin of the node's level: for these targets, the answer as an input.
    std::vector<Granularity> candidates;
    const bool depth_is_target =
        data.target == train::Target::Level || data.target == train::Target::Arrival;
    for (Granularity gr : o.candidates) {
        if (depth_is_target) gr.depth_bins = 0;
        if (std::find(candidates.begin(), candidates.end(), gr) == candidates.end())
            candidates.push_back(gr);
    }
    if (depth_is_target && std::any_of(o.candidates.begin(), o.candidates.end(),
                                       [](const Granularity& g) { return g.depth_bins > 0; }))
        model.notes_.push_back("depth bins are left out of the node states for --target " +
                               std::string(train::target_name(data.target)) +
                               ": a node's depth bin is a coarse copy of its level");
    // Pearson r of fewer than two nodes, or of a constant target, is undefined: every prefix
    // would score 0 and the penalty keep no rule. The training nodes choose then.
    const auto first_val = target.begin() + static_cast<std::ptrdiff_t>(train_items.size());
    const bool val_scores =
        !val_items.empty() &&
        (o.task == Task::Classification ||
         (val_items.size() >= 2 && std::any_of(first_val, target.end(),
                                               [&](double y) { return y != *first_val; })));
    if (!val_items.empty() && !val_scores)
        model.notes_.push_back(
            "the rules are chosen on the training nodes: the " +
            std::to_string(val_items.size()) + " validation node(s) give no Pearson r (" +
            (val_items.size() < 2 ? std::string("fewer than two") : std::string("one target value")) +
            ")");
    const std::vector<Item> no_items;
    const std::vector<Item>& scoring_items = val_scores ? val_items : no_items;

    FeatureCache cache(o.max_ego);
    std::optional<Candidate> best;
    for (const Granularity& gr : candidates)
        for (std::uint32_t factor : o.support_factors) {
            if (o.cancel && o.cancel->load()) throw FitCancelled();
            lo.min_support = base_support * std::max(factor, 1u);
            Candidate c =
                fit_candidate(data, train_items, scoring_items, target, gr, o, lo, cache);
            if (search) search->push_back(c.report);
            if (!best || c.report.objective > best->report.objective) best = std::move(c);
        }
    model.granularity_ = best->report.granularity;
    model.rules_ = std::move(best->rules);
    Vocabulary used = best->vocabulary.restricted_to(model.rules_);
    for (const Predicate& p : used.predicates()) {
        Predicate q = p;
        if (q.kind != Kind::State)
            q.describe = describe_example(data, cache, model.granularity_, q);
        // The exact degrees a self state implies let the text say "whose 2 fan-ins are both".
        if (q.kind == Kind::State && q.scope == Scope::Self) {
            for (const auto& [c, v] : train_items) {
                const NodeFeatures& f = cache.get(c, data.circuits[c].graph, model.granularity_);
                if (f.state[v] != q.hash) continue;
                std::tie(q.fanin, q.fanout) =
                    state_degrees(data.circuits[c].graph, v, model.granularity_);
                break;
            }
        }
        model.vocabulary_.add(std::move(q));
    }
    return model;
}

std::vector<std::uint32_t> SymGraphModel::assign(const graph::CircuitGraph& g,
                                                 const NodeFeatures* features) const
{
    NodeFeatures own;
    if (!features) {
        const EgoNetworks ego(structure_of(g), granularity_.hops, max_ego_);
        own = node_features(g, granularity_, ego);
        features = &own;
    }
    if (features->state.size() != g.node_count())
        throw Error("symgraph: features of another graph were given");
    Bags bags;
    std::vector<std::uint32_t> out(g.node_count());
    for (std::uint32_t v = 0; v < g.node_count(); ++v) {
        bags.add_row(node_bag(g, *features, v, vocabulary_));
        out[v] = rules_.first_match(bags, v);
    }
    return out;
}

std::vector<double> SymGraphModel::predict(const graph::CircuitGraph& g,
                                           const NodeFeatures* features) const
{
    const std::vector<std::uint32_t> a = assign(g, features);
    std::vector<double> out(a.size());
    for (std::size_t v = 0; v < a.size(); ++v) {
        const Rule& r = a[v] < rules_.rules.size() ? rules_.rules[a[v]] : rules_.fallback;
        out[v] = rules_.task == Task::Classification ? binning_.centre(r.label) : r.value;
    }
    return out;
}

std::vector<std::uint32_t> SymGraphModel::predict_bin(const graph::CircuitGraph& g,
                                                      const NodeFeatures* features) const
{
    const std::vector<double> p = predict(g, features);
    std::vector<std::uint32_t> out(p.size());
    for (std::size_t v = 0; v < p.size(); ++v) out[v] = binning_.of(p[v]);
    return out;
}

std::string SymGraphModel::rule_text(std::size_t i) const
{
    const bool fallback = i >= rules_.rules.size();
    const Rule& r = fallback ? rules_.fallback : rules_.rules[i];
    int digits = binning_.hi - binning_.lo <= 2 ? 2 : 1;
    // Enough digits that a bin's two ends differ ("[0.86, 0.86)" with 1000 bins).
    if (rules_.task == Task::Classification && binning_.bins > 0 && binning_.hi > binning_.lo)
        digits = std::clamp(
            int(std::ceil(-std::log10((binning_.hi - binning_.lo) / binning_.bins))), digits, 9);
    std::string s = fallback ? "otherwise" : vocabulary_.describe(r.conditions);
    s += " -> " + std::string(target_noun(target_));
    if (rules_.task == Task::Classification) {
        const bool last = r.label + 1 == binning_.bins;
        s += " in [" + fixed(binning_.low(r.label), digits) + ", " +
             fixed(binning_.high(r.label), digits) + (last ? "]" : ")");
        s += " (" + std::to_string(r.support) + " training nodes, " + fixed(100 * r.purity, 0) +
             "% of them in this bin)";
    } else {
        s += " " + fixed(r.value, digits + 1) + " (" + std::to_string(r.support) +
             " training nodes, 80% in [" + fixed(r.low, digits) + ", " + fixed(r.high, digits) +
             "])";
    }
    return s;
}

std::string SymGraphModel::text() const
{
    std::string s = "SymGraph rules for " + std::string(target_noun(target_)) + " (" +
                    (rules_.task == Task::Classification
                         ? "classification into " + std::to_string(binning_.bins) + " bins"
                         : std::string("regression")) +
                    "; " + granularity_.str() + "; " + std::to_string(rules_.rules.size()) +
                    " rules; first match wins)\n";
    for (std::size_t i = 0; i <= rules_.rules.size(); ++i)
        s +=
            (i < rules_.rules.size() ? std::to_string(i + 1) + ". " : "   ") + rule_text(i) + "\n";
    const auto legend = vocabulary_.legend();
    if (!legend.empty()) s += "where\n";
    for (const auto& [name, describe] : legend) s += "  " + name + ": " + describe + "\n";
    return s;
}

namespace {

nlohmann::ordered_json rule_json(const Rule& r, Task task)
{
    nlohmann::ordered_json j;
    nlohmann::ordered_json conds = nlohmann::ordered_json::array();
    for (const Condition& c : r.conditions)
        conds.push_back({{"predicate", c.predicate}, {"at_least", c.at_least}});
    j["conditions"] = conds;
    if (task == Task::Classification) {
        j["label"] = r.label;
        j["purity"] = r.purity;
    } else {
        j["value"] = r.value;
        j["low"] = r.low;
        j["high"] = r.high;
    }
    j["support"] = r.support;
    return j;
}

/// A stored count of type T: a whole number in T's range (a negative one wrapped silently
/// before).
template <class T = std::uint32_t> T count_at(const nlohmann::json& j, const char* key)
{
    const nlohmann::json& v = j.at(key);
    if (const std::optional<T> n = json_exact<T>(v)) return *n;
    throw Error(std::string("symgraph rules: ") + key + " is " + json_text(v) +
                ", expected a whole number from 0 to " +
                std::to_string(std::numeric_limits<T>::max()));
}

Rule rule_from_json(const nlohmann::json& j, Task task, const Vocabulary& v, std::uint32_t bins)
{
    Rule r;
    for (const nlohmann::json& c : j.at("conditions")) {
        Condition cond{count_at(c, "predicate"), count_at(c, "at_least")};
        if (cond.predicate >= v.size() || cond.at_least < 1)
            throw Error("symgraph rules: a condition names predicate " +
                        std::to_string(cond.predicate) + " of " + std::to_string(v.size()) +
                        " or a count below 1");
        r.conditions.push_back(cond);
    }
    if (task == Task::Classification) {
        r.label = count_at(j, "label");
        if (r.label >= bins)
            throw Error("symgraph rules: a rule predicts bin " + std::to_string(r.label) + " of " +
                        std::to_string(bins));
        r.value = r.label;
        r.purity = j.at("purity").get<double>();
    } else {
        r.value = j.at("value").get<double>();
        r.low = j.at("low").get<double>();
        r.high = j.at("high").get<double>();
    }
    r.support = count_at<std::size_t>(j, "support");
    return r;
}

} // namespace

nlohmann::ordered_json SymGraphModel::to_json() const
{
    nlohmann::ordered_json j;
    j["format"] = "gsr-symgraph-rules";
    j["version"] = 2; // 2: WL classes and roles tell inverted edges apart
    j["target"] = std::string(train::target_name(target_));
    j["task"] = rules_.task == Task::Classification ? "classification" : "regression";
    j["granularity"] = {{"fine_fan", granularity_.fine_fan},
                        {"depth_bins", granularity_.depth_bins},
                        {"hops", granularity_.hops},
                        {"polarity", granularity_.polarity}};
    j["max_ego"] = max_ego_;
    j["binning"] = {{"lo", binning_.lo}, {"hi", binning_.hi}, {"bins", binning_.bins}};
    j["predicates"] = vocabulary_.to_json();
    nlohmann::ordered_json rules = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < rules_.rules.size(); ++i) {
        nlohmann::ordered_json r = rule_json(rules_.rules[i], rules_.task);
        r["text"] = rule_text(i);
        rules.push_back(std::move(r));
    }
    j["rules"] = rules;
    nlohmann::ordered_json f = rule_json(rules_.fallback, rules_.task);
    f["text"] = rule_text(rules_.rules.size());
    j["fallback"] = f;
    return j;
}

SymGraphModel SymGraphModel::from_json(const nlohmann::json& j)
{
    SymGraphModel m;
    try {
        if (j.at("format") != "gsr-symgraph-rules" ||
            (j.at("version") != 1 && j.at("version") != 2))
            throw Error("symgraph rules: not a gsr-symgraph-rules version 1 or 2 document");
        m.target_ = train::parse_target(j.at("target").get<std::string>());
        const std::string task = j.at("task");
        if (task != "regression" && task != "classification")
            throw Error("symgraph rules: task must be regression or classification, not '" + task +
                        "'");
        m.rules_.task = task == "classification" ? Task::Classification : Task::Regression;
        const nlohmann::json& g = j.at("granularity");
        m.granularity_.fine_fan = g.at("fine_fan").get<bool>();
        m.granularity_.depth_bins = count_at(g, "depth_bins");
        m.granularity_.hops = count_at(g, "hops");
        // Version 1 hashed direction alone and has no such key.
        m.granularity_.polarity = j.at("version") != 1 && g.at("polarity").get<bool>();
        if (m.granularity_.hops < 1 || m.granularity_.hops > 2)
            throw Error("symgraph rules: hops must be 1 or 2");
        m.max_ego_ = count_at<std::size_t>(j, "max_ego");
        const nlohmann::json& b = j.at("binning");
        m.binning_.lo = b.at("lo").get<double>();
        m.binning_.hi = b.at("hi").get<double>();
        m.binning_.bins = count_at(b, "bins");
        if (m.binning_.bins < 2 || !(m.binning_.hi > m.binning_.lo))
            throw Error("symgraph rules: the binning needs bins >= 2 and hi > lo");
        m.rules_.classes = m.rules_.task == Task::Classification ? m.binning_.bins : 0;
        m.vocabulary_ = Vocabulary::from_json(j.at("predicates"));
        for (const nlohmann::json& r : j.at("rules"))
            m.rules_.rules.push_back(
                rule_from_json(r, m.rules_.task, m.vocabulary_, m.binning_.bins));
        m.rules_.fallback =
            rule_from_json(j.at("fallback"), m.rules_.task, m.vocabulary_, m.binning_.bins);
        if (!m.rules_.fallback.conditions.empty())
            throw Error("symgraph rules: the fallback must have no conditions");
    } catch (const nlohmann::json::exception& e) {
        throw Error(std::string("symgraph rules: a field is missing or has the wrong type (") +
                    e.what() + ")");
    }
    return m;
}

SplitScore evaluate_split(const train::Dataset& data,
                          const std::vector<std::vector<double>>& predictions, train::Split which,
                          const Binning& binning)
{
    std::vector<double> p, y;
    for (std::size_t c = 0; c < data.circuits.size(); ++c)
        for (std::uint32_t v : data.circuits[c].nodes(which)) {
            p.push_back(predictions.at(c).at(v));
            y.push_back(data.circuits[c].target[v]);
        }
    SplitScore s;
    s.metrics = train::evaluate(p, y);
    s.bin_accuracy = bin_accuracy(p, y, binning);
    return s;
}

} // namespace gsr::symgraph
