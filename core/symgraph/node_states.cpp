#include "symgraph/node_states.hpp"

#include "symgraph/structural_hash.hpp"

#include <cctype>

namespace gsr::symgraph {

namespace {

std::string fanin_bin(std::size_t n, bool fine)
{
    if (fine) return n <= 8 ? std::to_string(n) : "9+";
    return n <= 2 ? std::to_string(n) : "3+";
}

std::string fanout_bin(std::size_t n, bool fine)
{
    if (fine) {
        if (n <= 3) return std::to_string(n);
        return n <= 7 ? "4-7" : "8+";
    }
    return n <= 1 ? std::to_string(n) : "2+";
}

} // namespace

std::string Granularity::str() const
{
    return std::string("fan ") + (fine_fan ? "fine" : "coarse") + ", depth " +
           std::to_string(depth_bins) + ", K=" + std::to_string(hops);
}

bool state_shows_fanin(const graph::CircuitGraph& g, graph::NodeId v)
{
    const std::uint8_t f = g.flags[v];
    const std::string& type = g.type_names[g.type[v]];
    // "NAND" with 2 fan-ins reads "NAND2"; a library cell ("NAND2_X1") already says it.
    return !(f & graph::kNodePrimaryInput) && !(f & graph::kNodeFlipFlop) && !type.empty() &&
           !std::isdigit(static_cast<unsigned char>(type.back()));
}

std::pair<int, int> state_degrees(const graph::CircuitGraph& g, graph::NodeId v,
                                  const Granularity& gr)
{
    const std::size_t in = g.fanin.degree(v), out = g.fanout.degree(v);
    const bool in_exact = state_shows_fanin(g, v) && in <= (gr.fine_fan ? 8u : 2u);
    const bool out_exact = out <= (gr.fine_fan ? 3u : 1u);
    return {in_exact ? static_cast<int>(in) : -1, out_exact ? static_cast<int>(out) : -1};
}

std::string state_label(const graph::CircuitGraph& g, graph::NodeId v, const Granularity& gr)
{
    const std::uint8_t f = g.flags[v];
    std::string s = g.type_names[g.type[v]];
    if (state_shows_fanin(g, v)) s += fanin_bin(g.fanin.degree(v), gr.fine_fan);
    s += " fo" + fanout_bin(g.fanout.degree(v), gr.fine_fan);
    if (f & graph::kNodePrimaryOutput) s += " PO";
    if (f & graph::kNodeConstant) s += " const";
    if (gr.depth_bins > 0) {
        const std::uint64_t bin = std::uint64_t{g.level[v]} * gr.depth_bins / (g.max_level + 1);
        s += " d" + std::to_string(bin + 1) + "/" + std::to_string(gr.depth_bins);
    }
    return s;
}

std::vector<std::uint64_t> node_states(const graph::CircuitGraph& g, const Granularity& gr,
                                       std::unordered_map<std::uint64_t, std::string>* labels)
{
    std::vector<std::uint64_t> out(g.node_count());
    for (graph::NodeId v = 0; v < out.size(); ++v) {
        std::string text = state_label(g, v, gr);
        out[v] = hash_text(text);
        if (labels) labels->emplace(out[v], std::move(text));
    }
    return out;
}

} // namespace gsr::symgraph
