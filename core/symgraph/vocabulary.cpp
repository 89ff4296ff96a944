#include "symgraph/vocabulary.hpp"

#include "symgraph/structural_hash.hpp"
#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace gsr::symgraph {

std::string_view scope_name(Scope s)
{
    switch (s) {
    case Scope::Self: return "self";
    case Scope::Fanin: return "fanin";
    case Scope::Fanout: return "fanout";
    case Scope::Graph: return "graph";
    }
    return "?";
}

std::string_view kind_name(Kind k)
{
    switch (k) {
    case Kind::State: return "state";
    case Kind::WlClass: return "class";
    case Kind::Role: return "role";
    }
    return "?";
}

std::uint64_t predicate_key(Scope scope, Kind kind, std::uint64_t hash)
{
    return combine(
        combine(static_cast<std::uint64_t>(scope) + 1, static_cast<std::uint64_t>(kind) + 1),
        hash);
}

std::uint32_t Vocabulary::add(Predicate p)
{
    const std::uint64_t key = predicate_key(p.scope, p.kind, p.hash);
    const auto [it, fresh] = index_.emplace(key, static_cast<std::uint32_t>(predicates_.size()));
    if (fresh) predicates_.push_back(std::move(p));
    return it->second;
}

std::uint32_t Vocabulary::find(std::uint64_t key) const
{
    const auto it = index_.find(key);
    return it == index_.end() ? ~0u : it->second;
}

namespace {

/// The thing counted, as a phrase: "NAND2 fo1", "in class W3", "in role R3".
std::string phrase(const Predicate& p)
{
    switch (p.kind) {
    case Kind::State: return p.name;
    case Kind::WlClass: return "in class " + p.name;
    case Kind::Role: return "in role " + p.name;
    }
    return p.name;
}

std::string neighbours(const char* noun, int exact, std::uint32_t at_least, const Predicate& p)
{
    const std::string n = std::to_string(at_least);
    const std::string what = phrase(p);
    if (exact >= 0 && static_cast<std::uint32_t>(exact) == at_least) {
        if (at_least == 1) return std::string("whose ") + noun + " is " + what;
        if (at_least == 2) return std::string("whose 2 ") + noun + "s are both " + what;
        return "whose " + n + " " + noun + "s are all " + what;
    }
    if (at_least == 1) return std::string("with a ") + noun + " " + what;
    return "with at least " + n + " " + noun + "s " + what;
}

} // namespace

std::string Vocabulary::describe(const std::vector<Condition>& conditions) const
{
    std::string subject;
    int fanin = -1, fanout = -1;
    std::vector<std::string> self, clauses;
    for (const Condition& c : conditions) {
        const Predicate& p = predicates_.at(c.predicate);
        if (p.scope == Scope::Self && p.kind == Kind::State) {
            subject = subject.empty() ? p.name : subject + " and " + p.name;
            fanin = p.fanin;
            fanout = p.fanout;
        }
    }
    for (const Condition& c : conditions) {
        const Predicate& p = predicates_.at(c.predicate);
        switch (p.scope) {
        case Scope::Self:
            if (p.kind != Kind::State) self.push_back(phrase(p));
            break;
        case Scope::Fanin: clauses.push_back(neighbours("fan-in", fanin, c.at_least, p)); break;
        case Scope::Fanout: clauses.push_back(neighbours("fan-out", fanout, c.at_least, p)); break;
        case Scope::Graph:
            clauses.push_back("with at least " + std::to_string(c.at_least) + " node" +
                              (c.at_least == 1 ? " " : "s ") + phrase(p));
            break;
        }
    }
    const bool graph =
        !conditions.empty() && predicates_.at(conditions[0].predicate).scope == Scope::Graph;
    std::string s = subject.empty() ? (graph ? "a graph" : "a node") : subject;
    for (const std::string& x : self) s += " " + x;
    for (std::size_t i = 0; i < clauses.size(); ++i) s += (i == 0 ? " " : " and ") + clauses[i];
    return s;
}

std::vector<std::pair<std::string, std::string>> Vocabulary::legend() const
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const Predicate& p : predicates_) {
        if (p.kind == Kind::State ||
            std::any_of(out.begin(), out.end(), [&](const auto& e) { return e.first == p.name; }))
            continue;
        out.emplace_back(p.name, p.describe);
    }
    return out;
}

Vocabulary Vocabulary::restricted_to(RuleList& rules) const
{
    Vocabulary out;
    std::unordered_map<std::uint32_t, std::uint32_t> renumber;
    auto remap = [&](std::vector<Condition>& conds) {
        for (Condition& c : conds) {
            auto it = renumber.find(c.predicate);
            if (it == renumber.end())
                it = renumber.emplace(c.predicate, out.add(predicates_.at(c.predicate))).first;
            c.predicate = it->second;
        }
    };
    for (Rule& r : rules.rules) remap(r.conditions);
    return out;
}

std::string hex64(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::uint64_t parse_hex64(const std::string& text)
{
    if (text.size() != 18 || text[0] != '0' || text[1] != 'x')
        throw Error("symgraph rules: expected a hash like 0x0123456789abcdef, got '" + text + "'");
    std::uint64_t v = 0;
    for (std::size_t i = 2; i < text.size(); ++i) {
        const char c = text[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) throw Error("symgraph rules: '" + text + "' is not a hexadecimal hash");
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    return v;
}

nlohmann::ordered_json Vocabulary::to_json() const
{
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < predicates_.size(); ++i) {
        const Predicate& p = predicates_[i];
        nlohmann::ordered_json j;
        j["id"] = i;
        j["scope"] = std::string(scope_name(p.scope));
        j["kind"] = std::string(kind_name(p.kind));
        j["hash"] = hex64(p.hash);
        j["name"] = p.name;
        j["support"] = p.support;
        if (p.fanin >= 0) j["fanin"] = p.fanin;
        if (p.fanout >= 0) j["fanout"] = p.fanout;
        if (!p.describe.empty()) j["describe"] = p.describe;
        a.push_back(std::move(j));
    }
    return a;
}

Vocabulary Vocabulary::from_json(const nlohmann::json& a)
{
    if (!a.is_array()) throw Error("symgraph rules: \"predicates\" must be an array");
    Vocabulary v;
    for (const nlohmann::json& j : a) {
        Predicate p;
        try {
            const std::string scope = j.at("scope"), kind = j.at("kind");
            bool ok = false;
            for (Scope s : {Scope::Self, Scope::Fanin, Scope::Fanout, Scope::Graph})
                if (scope_name(s) == scope) p.scope = s, ok = true;
            if (!ok) throw Error("symgraph rules: unknown predicate scope '" + scope + "'");
            ok = false;
            for (Kind k : {Kind::State, Kind::WlClass, Kind::Role})
                if (kind_name(k) == kind) p.kind = k, ok = true;
            if (!ok) throw Error("symgraph rules: unknown predicate kind '" + kind + "'");
            p.hash = parse_hex64(j.at("hash").get<std::string>());
            p.name = j.at("name").get<std::string>();
            const std::optional<std::size_t> support = json_exact<std::size_t>(j.at("support"));
            if (!support)
                throw Error("symgraph rules: a predicate's support is " +
                            json_text(j.at("support")) + ", expected a whole number");
            p.support = *support;
            p.fanin = j.value("fanin", -1);
            p.fanout = j.value("fanout", -1);
            p.describe = j.value("describe", std::string());
        } catch (const nlohmann::json::exception& e) {
            throw Error(std::string("symgraph rules: a predicate lacks a field or has the wrong "
                                    "type (") +
                        e.what() + ")");
        }
        if (v.find(predicate_key(p.scope, p.kind, p.hash)) != ~0u)
            throw Error("symgraph rules: predicate " + hex64(p.hash) + " appears twice");
        v.add(std::move(p));
    }
    return v;
}

} // namespace gsr::symgraph
