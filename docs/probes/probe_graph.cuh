#pragma once
// A netlist's undirected graph on the device as the mean aggregation the probes gather over
// (S = D^-1 A: row scale 1 / degree, column scale 1), and S^T over the same arrays with the
// scales swapped. Links gsr_core (see each probe's header).
#include "community/weighted_graph.hpp"
#include "graph/circuit_graph.hpp"
#include "netlist/readers.hpp"

#include "kernels/gemm.cuh"
#include "probe_support.cuh"

struct MeanAggregation {
    gsr::gpu::kernels::CsrRef<float> s, st;
    std::uint32_t n = 0;
};

inline MeanAggregation upload_mean_aggregation(const char* file)
{
    const auto circuit = gsr::netlist::load_netlist(file);
    const auto cg = gsr::graph::build_graph(circuit);
    const gsr::community::WeightedGraph g = gsr::community::project_undirected(cg, nullptr);
    const std::uint32_t n = std::uint32_t(g.node_count());
    std::printf("graph %s: %u nodes, %zu entries\n", file, n, g.entry_count());
    std::vector<float> rs(n), cs(n, 1.f);
    for (std::uint32_t i = 0; i < n; ++i) rs[i] = g.degree(i) ? 1.f / float(g.degree(i)) : 0.f;
    std::vector<std::uint32_t> targets(g.targets.begin(), g.targets.end());
    std::uint64_t* d_off;
    std::uint32_t* d_tgt;
    float *d_rs, *d_cs;
    CK(cudaMalloc(&d_off, g.offsets.size() * 8));
    CK(cudaMalloc(&d_tgt, targets.size() * 4));
    CK(cudaMalloc(&d_rs, n * 4));
    CK(cudaMalloc(&d_cs, n * 4));
    CK(cudaMemcpy(d_off, g.offsets.data(), g.offsets.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_tgt, targets.data(), targets.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_rs, rs.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_cs, cs.data(), n * 4, cudaMemcpyHostToDevice));
    return {{d_off, d_tgt, d_rs, d_cs, n, false}, {d_off, d_tgt, d_cs, d_rs, n, false}, n};
}

/// W_root (64 x 64) copied to `wr` in shared memory by the whole block, as aggregate_products
/// does; returns wr.
template <class I>
__device__ inline float* stage_root_weights(const gsr::gpu::kernels::GemmEpilogue<I>& ep,
                                            float* wr)
{
    for (std::uint32_t i = threadIdx.x; i < ep.wroot.rows * 64; i += blockDim.x)
        wr[i] = ep.wroot(i / 64, i % 64);
    __syncthreads();
    return wr;
}
