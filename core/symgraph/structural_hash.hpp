#pragma once
// Stable structural hashing (SymGraph, ALGORITHMS.md section 6, step 2): discrete node states
// refined for K rounds by h_{t+1}(v) = H(h_t(v), sorted multiset of (h_t(u), edge direction)).
//
// Every hash here is a fixed 64-bit function of its inputs (SplitMix64's finaliser, FNV-1a for
// text): the same on every machine, compiler and standard library, and independent of how the
// nodes are numbered, so hashes mean the same thing in every graph and can be stored with rules.
//
// Contents: mix64, combine, hash_text, StructureGraph (directed CSR with a state per node),
// graph_from_edges, wl_hashes, graph_signature.
#include "graph/circuit_graph.hpp"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace gsr::symgraph {

/// SplitMix64's finaliser: a bijection of 64-bit words that spreads every input bit.
constexpr std::uint64_t mix64(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// Appends `value` to the running hash `seed`; order matters (combine(combine(s,a),b) differs
/// from combine(combine(s,b),a)), which is why multisets are sorted before they are folded.
constexpr std::uint64_t combine(std::uint64_t seed, std::uint64_t value)
{
    return mix64(seed ^ mix64(value + 0x9e3779b97f4a7c15ull));
}

/// FNV-1a over the bytes, then mix64: the hash of a state's text.
constexpr std::uint64_t hash_text(std::string_view text)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return mix64(h);
}

/// Tags of the edge direction seen from the node being hashed, and of its polarity: an
/// inverted edge (AIGER's complemented fan-in) is told apart from a plain one.
inline constexpr std::uint64_t kFromFanin = 1;         ///< the neighbour drives this node
inline constexpr std::uint64_t kToFanout = 2;          ///< this node drives the neighbour
inline constexpr std::uint64_t kFromInvertedFanin = 3; ///< ... through an inversion
inline constexpr std::uint64_t kToInvertedFanout = 4;  ///< ... through an inversion

/// Edge e of `c` seen with direction tag `plain` (kFromFanin or kToFanout): the tag, or its
/// inverted counterpart when the edge is inverted.
inline std::uint64_t edge_tag(std::uint64_t plain, const graph::Csr& c, std::uint64_t e)
{
    return e < c.inverted.size() && c.inverted[e] ? plain + 2 : plain;
}

/// A directed graph with one discrete state per node. An undirected graph has every edge in
/// both directions (then `in` equals `out`).
struct StructureGraph {
    graph::Csr out; ///< v -> the nodes it drives
    graph::Csr in;  ///< v -> the nodes that drive it
    std::vector<std::uint64_t> state;

    std::size_t node_count() const { return state.size(); }
};

/// A graph from an edge list. `directed`: u drives v; otherwise each pair is an undirected edge
/// (stored both ways). Throws gsr::Error on a node index out of range.
StructureGraph graph_from_edges(std::size_t nodes,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
                                bool directed, std::vector<std::uint64_t> states);

/// The circuit's adjacency with every state 0 (node_states.hpp fills them in). With
/// `polarity` false the edges' inversions are dropped (rules saved before they were hashed).
StructureGraph structure_of(const graph::CircuitGraph& g, bool polarity = true);

/// h_rounds(v) for every node (h_0 = the state). In an undirected graph each neighbour is
/// seen once as fan-in and once as fan-out, which changes no comparison between graphs.
std::vector<std::uint64_t> wl_hashes(const StructureGraph& g, unsigned rounds);

/// One hash for a multiset of node hashes (sorted, then folded).
std::uint64_t graph_signature(std::vector<std::uint64_t> node_hashes);

} // namespace gsr::symgraph
