#include "tune/kernel_config.hpp"

#include "util/diagnostics.hpp"
#include "util/json_text.hpp"

#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace gsr::tune {

namespace {

constexpr std::array<const char*, 6> kFamilies{"elementwise", "reduction", "softmax",
                                               "layernorm",   "gemm",      "spmm"};

bool uses_rows(OpFamily f)
{
    return f == OpFamily::Reduction || f == OpFamily::Softmax || f == OpFamily::LayerNorm ||
           f == OpFamily::Spmm;
}

int parse_int(std::string_view key, std::string_view v)
{
    int n = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc{} || end != v.data() + v.size())
        throw Error("kernel config: " + std::string(key) + " expects an integer, got '" +
                    std::string(v) + "'");
    return n;
}

/// "64x64x16" -> {64, 64, 16}; exactly `count` parts.
std::vector<int> parse_dims(std::string_view key, std::string_view v, std::size_t count)
{
    std::vector<int> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t x = v.find('x', start);
        out.push_back(parse_int(key, v.substr(start, x - start)));
        if (x == std::string_view::npos) break;
        start = x + 1;
    }
    if (out.size() != count)
        throw Error("kernel config: " + std::string(key) + " expects " + std::to_string(count) +
                    " numbers joined by 'x', got '" + std::string(v) + "'");
    return out;
}

/// A step of a kernel config's epilogue: its errors say where they come from.
EpilogueStep config_step(std::string_view name)
{
    try {
        return parse_epilogue_step(name);
    } catch (const Error& e) {
        throw Error("kernel config: " + e.message());
    }
}

EpilogueChain parse_chain(std::string_view v)
{
    EpilogueChain chain;
    if (v == "none" || v.empty()) return chain;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = v.find(',', start);
        chain.push_back(config_step(v.substr(start, comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return chain;
}

} // namespace

std::string_view family_name(OpFamily f) { return kFamilies[std::size_t(f)]; }

OpFamily parse_family(std::string_view name)
{
    for (std::size_t i = 0; i < kFamilies.size(); ++i)
        if (name == kFamilies[i]) return OpFamily(i);
    throw Error("kernel config: unknown family '" + std::string(name) +
                "'; expected elementwise, reduction, softmax, layernorm, gemm or spmm");
}

std::string epilogue_step_name(const EpilogueStep& s)
{
    switch (s.kind) {
    case EpilogueKind::Bias: return "bias";
    case EpilogueKind::Scale: return "scale";
    case EpilogueKind::Residual: return "residual";
    case EpilogueKind::Activation: return std::string(sol::activation_name(s.activation));
    }
    return "?";
}

EpilogueStep parse_epilogue_step(std::string_view name)
{
    if (name == "bias") return {EpilogueKind::Bias};
    if (name == "scale") return {EpilogueKind::Scale};
    if (name == "residual") return {EpilogueKind::Residual};
    if (name == "none") throw Error("'none' is only allowed as the whole epilogue");
    try {
        return {EpilogueKind::Activation, sol::parse_activation(name)};
    } catch (const Error&) {
        throw Error("unknown epilogue step '" + std::string(name) +
                    "'; expected bias, scale, residual, relu, gelu, silu, sigmoid or tanh");
    }
}

std::string epilogue_chain_text(const EpilogueChain& chain)
{
    if (chain.empty()) return "none";
    std::string s;
    for (const auto& step : chain) {
        if (!s.empty()) s += ',';
        s += epilogue_step_name(step);
    }
    return s;
}

sol::Epilogue epilogue_summary(const EpilogueChain& chain)
{
    sol::Epilogue e;
    for (const auto& s : chain) {
        if (s.kind == EpilogueKind::Bias) e.bias = true;
        if (s.kind == EpilogueKind::Scale) e.scale = true;
        if (s.kind == EpilogueKind::Residual) e.residual = true;
        if (s.kind == EpilogueKind::Activation) e.activation = s.activation;
    }
    return e;
}

int KernelConfig::block_threads() const
{
    if (family == OpFamily::Gemm) {
        if (thread_m <= 0 || thread_n <= 0) return 0;
        return (tile_m / thread_m) * (tile_n / thread_n);
    }
    return block;
}

std::string to_text(const KernelConfig& c)
{
    std::ostringstream s;
    s << "family=" << family_name(c.family);
    if (c.family == OpFamily::Gemm) {
        s << " tile=" << c.tile_m << 'x' << c.tile_n << 'x' << c.tile_k << " thread=" << c.thread_m
          << 'x' << c.thread_n << " stages=" << c.stages;
    } else {
        s << " block=" << c.block;
        if (uses_rows(c.family)) s << " tpr=" << c.tpr;
        s << " unroll=" << c.unroll;
    }
    s << " vec=" << c.vec;
    if (!c.epilogue.empty()) s << " epilogue=" << epilogue_chain_text(c.epilogue);
    return s.str();
}

namespace {

/// Refuses a key the family's kernels have no use for: it was kept and then never printed or
/// generated (a session's label differed from what was written).
void refuse_keys_of_other_families(const KernelConfig& c, const std::set<std::string>& keys)
{
    for (const std::string& key : keys) {
        const bool gemm_key = key == "tile" || key == "thread" || key == "stages";
        const bool row_key = key == "tpr" || key == "threads_per_row";
        const bool other_key = key == "block" || key == "unroll" || row_key;
        const bool gemm = c.family == OpFamily::Gemm;
        if ((gemm && other_key) || (!gemm && gemm_key) || (row_key && !gemm && !uses_rows(c.family)))
            throw Error("kernel config: '" + key + "' does not apply to family " +
                        std::string(family_name(c.family)));
    }
}

} // namespace

KernelConfig config_from_text(std::string_view text)
{
    KernelConfig c;
    bool has_family = false;
    std::istringstream in{std::string(text)};
    std::string item;
    std::set<std::string> seen;
    while (in >> item) {
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos)
            throw Error("kernel config: expected key=value, got '" + item + "'");
        const std::string key = item.substr(0, eq), v = item.substr(eq + 1);
        if (!seen.insert(key).second) // the last one won before, without a word
            throw Error("kernel config: '" + key + "' is given twice");
        if (key == "family") {
            c.family = parse_family(v);
            has_family = true;
        } else if (key == "block")
            c.block = parse_int(key, v);
        else if (key == "vec")
            c.vec = parse_int(key, v);
        else if (key == "tpr")
            c.tpr = parse_int(key, v);
        else if (key == "unroll")
            c.unroll = parse_int(key, v);
        else if (key == "stages")
            c.stages = parse_int(key, v);
        else if (key == "tile") {
            const auto d = parse_dims(key, v, 3);
            c.tile_m = d[0], c.tile_n = d[1], c.tile_k = d[2];
        } else if (key == "thread") {
            const auto d = parse_dims(key, v, 2);
            c.thread_m = d[0], c.thread_n = d[1];
        } else if (key == "epilogue")
            c.epilogue = parse_chain(v);
        else
            throw Error("kernel config: unknown key '" + key + "'");
    }
    if (!has_family) throw Error("kernel config: 'family=' is required");
    refuse_keys_of_other_families(c, seen);
    return c;
}

nlohmann::json to_json(const KernelConfig& c)
{
    nlohmann::json j = {{"family", family_name(c.family)}, {"vec", c.vec}};
    if (c.family == OpFamily::Gemm) {
        j["tile"] = {c.tile_m, c.tile_n, c.tile_k};
        j["thread"] = {c.thread_m, c.thread_n};
        j["stages"] = c.stages;
    } else {
        j["block"] = c.block;
        if (uses_rows(c.family)) j["tpr"] = c.tpr;
        j["unroll"] = c.unroll;
    }
    if (!c.epilogue.empty()) {
        nlohmann::json chain = nlohmann::json::array();
        for (const auto& s : c.epilogue) chain.push_back(epilogue_step_name(s));
        j["epilogue"] = chain;
    }
    return j;
}

KernelConfig config_from_json(const nlohmann::json& j)
{
    if (!j.is_object()) throw Error("kernel config: expected a JSON object");
    if (!j.contains("family") || !j["family"].is_string())
        throw Error("kernel config: \"family\" (a string) is required");
    KernelConfig c;
    c.family = parse_family(j["family"].get<std::string>());
    // Within int's range: get<int> wrapped 4294967552 into 256, a different valid config.
    auto integer = [](const std::string& key, const nlohmann::json& v) {
        if (const std::optional<int> x = json_exact<int>(v)) return *x;
        throw Error("kernel config: \"" + key + "\" must be an integer from " +
                    std::to_string(std::numeric_limits<int>::min()) + " to " +
                    std::to_string(std::numeric_limits<int>::max()) + ", not " + json_text(v));
    };
    auto dims = [&](const std::string& key, const nlohmann::json& v, std::size_t n) {
        if (!v.is_array() || v.size() != n)
            throw Error("kernel config: \"" + key + "\" must be an array of " + std::to_string(n) +
                        " integers");
        std::vector<int> out;
        for (const auto& x : v) out.push_back(integer(key, x));
        return out;
    };
    if (j.contains("tpr") && j.contains("threads_per_row"))
        throw Error("kernel config: \"tpr\" and \"threads_per_row\" name the same value; give "
                    "one");
    for (const auto& [key, v] : j.items()) {
        if (key == "family") continue;
        if (key == "block")
            c.block = integer(key, v);
        else if (key == "vec")
            c.vec = integer(key, v);
        else if (key == "tpr" || key == "threads_per_row")
            c.tpr = integer(key, v);
        else if (key == "unroll")
            c.unroll = integer(key, v);
        else if (key == "stages")
            c.stages = integer(key, v);
        else if (key == "tile") {
            const auto d = dims(key, v, 3);
            c.tile_m = d[0], c.tile_n = d[1], c.tile_k = d[2];
        } else if (key == "thread") {
            const auto d = dims(key, v, 2);
            c.thread_m = d[0], c.thread_n = d[1];
        } else if (key == "epilogue") {
            if (v.is_string()) {
                c.epilogue = parse_chain(v.get<std::string>());
            } else if (v.is_array()) {
                for (const auto& s : v) {
                    if (!s.is_string()) throw Error("kernel config: epilogue steps are strings");
                    c.epilogue.push_back(config_step(s.get<std::string>()));
                }
            } else {
                throw Error("kernel config: \"epilogue\" must be an array of step names");
            }
        } else {
            throw Error("kernel config: unknown key \"" + key + "\"");
        }
    }
    std::set<std::string> keys;
    for (const auto& item : j.items()) keys.insert(item.key());
    refuse_keys_of_other_families(c, keys);
    return c;
}

} // namespace gsr::tune
