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

std::string state_label(const graph::CircuitGraph& g, graph::NodeId v, const Granularity& gr)
{
    const std::uint8_t f = g.flags[v];
    std::string s = g.type_names[g.type[v]];
    const bool pi = (f & graph::kNodePrimaryInput) != 0;
    // "NAND" with 2 fan-ins reads "NAND2"; a library cell ("NAND2_X1") already says it.
    if (!pi && !(f & graph::kNodeFlipFlop) && !s.empty() &&
        !std::isdigit(static_cast<unsigned char>(s.back())))
        s += fanin_bin(g.fanin.degree(v), gr.fine_fan);
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
