#pragma once
// igraph (Debian's libigraph, 0.10) as the reference for tests and benchmarks: the same graph,
// its modularity of a partition, and its Leiden with the modularity objective.
#include "community/weighted_graph.hpp"

#include <igraph.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gsr::test {

inline void igraph_check(igraph_error_t rc)
{
    if (rc != IGRAPH_SUCCESS)
        throw std::runtime_error(std::string("igraph: ") + igraph_strerror(rc));
}

/// An igraph copy of a WeightedGraph: one edge per undirected edge, with its weight.
class IgraphGraph {
public:
    explicit IgraphGraph(const community::WeightedGraph& g)
    {
        const auto edges = community::edge_list(g);
        igraph_vector_int_t ends;
        igraph_check(
            igraph_vector_int_init(&ends, static_cast<igraph_integer_t>(2 * edges.size())));
        igraph_check(igraph_vector_init(&weights_, static_cast<igraph_integer_t>(edges.size())));
        for (std::size_t i = 0; i < edges.size(); ++i) {
            VECTOR(ends)[2 * i] = edges[i].u;
            VECTOR(ends)[2 * i + 1] = edges[i].v;
            VECTOR(weights_)[i] = edges[i].weight;
        }
        igraph_check(igraph_create(&graph_, &ends, static_cast<igraph_integer_t>(g.node_count()),
                                   IGRAPH_UNDIRECTED));
        igraph_vector_int_destroy(&ends);
        igraph_check(igraph_vector_init(&strength_, 0));
        igraph_check(igraph_strength(&graph_, &strength_, igraph_vss_all(), IGRAPH_ALL,
                                     IGRAPH_LOOPS, &weights_));
        for (igraph_integer_t i = 0; i < igraph_vector_size(&weights_); ++i)
            two_m_ += 2 * VECTOR(weights_)[i];
    }
    ~IgraphGraph()
    {
        igraph_vector_destroy(&strength_);
        igraph_vector_destroy(&weights_);
        igraph_destroy(&graph_);
    }
    IgraphGraph(const IgraphGraph&) = delete;
    IgraphGraph& operator=(const IgraphGraph&) = delete;

    double modularity(const std::vector<std::uint32_t>& membership, double resolution) const
    {
        igraph_vector_int_t m;
        igraph_check(igraph_vector_int_init(&m, static_cast<igraph_integer_t>(membership.size())));
        for (std::size_t i = 0; i < membership.size(); ++i) VECTOR(m)[i] = membership[i];
        igraph_real_t q = 0;
        igraph_check(igraph_modularity(&graph_, &m, &weights_, resolution, false, &q));
        igraph_vector_int_destroy(&m);
        return q;
    }

    struct Leiden {
        std::vector<std::uint32_t> membership;
        std::int64_t communities = 0;
    };

    /// igraph's Leiden maximising modularity (node weights = strengths, resolution / 2m);
    /// n_iterations < 0 repeats until the partition is stable.
    Leiden leiden(double resolution, std::uint64_t seed, int n_iterations = -1,
                  double beta = 0.01) const
    {
        igraph_rng_seed(igraph_rng_default(), seed);
        igraph_vector_int_t m;
        igraph_check(igraph_vector_int_init(&m, 0));
        igraph_integer_t clusters = 0;
        igraph_real_t quality = 0;
        igraph_check(igraph_community_leiden(&graph_, &weights_, &strength_, resolution / two_m_,
                                             beta, false, n_iterations, &m, &clusters, &quality));
        Leiden out;
        out.communities = clusters;
        out.membership.resize(static_cast<std::size_t>(igraph_vector_int_size(&m)));
        for (std::size_t i = 0; i < out.membership.size(); ++i)
            out.membership[i] = static_cast<std::uint32_t>(VECTOR(m)[i]);
        igraph_vector_int_destroy(&m);
        return out;
    }

private:
    igraph_t graph_;
    igraph_vector_t weights_;
    igraph_vector_t strength_;
    double two_m_ = 0;
};

} // namespace gsr::test
