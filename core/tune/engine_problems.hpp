#pragma once
// The engine's own hot operations as kernel problems: the operations one block of the model
// runs, at the shapes of the current model and circuit, so the profiling panel (and `gsr
// kernels`) can put them beside the built-in suite and tune them.
//
//   EngineShape        model, layers L, hidden D, groups C, k, nodes N, directed edges E
//   engine_shape()     from a training configuration and a graph's sizes
//   engine_problems()  one block's operations at width d (D / C for rev and gsr, else D):
//
//   problem                      family       shape                     runs (nn/blocks.hpp)
//   engine_layernorm_N*_F*       layernorm    [N x d]                   res, rev, gsr
//   engine_relu_N*_F*            elementwise  [N x d], relu             res, rev
//   engine_topk_dense_N*_F*      elementwise  [N x d], relu             gsr (see below)
//   engine_spmm_N*_F*            spmm         N x N, nnz ~ E, F = d     all
//   engine_gemm_N*_F*            gemm         [M x d] x [d x d]         all; epilogue
//                                                                       bias,residual (res,
//                                                                       rev, gsr), bias,relu
//                                                                       (gcn, sage)
//   engine_loss_N*               reduction    [1 x N], scale 1/N        all (the mean loss)
//
// Reconstructions, because the DSL's families are not the engine's kernels one for one:
//   * SpMM: the suite's pattern generator gives rows of 1..max_degree distinct columns (mean
//     about (1 + max_degree) / 2 before duplicates are merged). max_degree is the one of
//     round(2E/N - 1) and its two neighbours whose generated pattern's nnz is closest to E,
//     and the problem's nnz is that pattern's (the SOL bound uses it, not E).
//   * GEMM: M is N rounded up to a multiple of 256 (the largest block tile of the DSL), as a
//     padded activation buffer would be; without it no tile divides a prime-ish N and the
//     config space is empty. The padding adds < 256 rows.
//   * The group top-k has no DSL family; its dense fallback (ReLU over the d-wide slice, what
//     rev runs) stands in, with the compressed top-k's own SOL in the description.
//   * The loss: the mean over the N per-node terms, a one-row reduction.
// Baselines follow the suite: cuBLAS for the GEMM, cuSPARSE for the SpMM, straightforward
// kernels otherwise.
#include "nn/model_config.hpp"
#include "tune/problem.hpp"

#include <cstdint>
#include <vector>

namespace gsr::train {
struct TrainConfig;
}

namespace gsr::tune {

struct EngineShape {
    nn::ModelKind model = nn::ModelKind::Gsr;
    std::uint32_t layers = 16;
    std::uint32_t hidden = 64; ///< D
    std::uint32_t groups = 4; ///< C (rev, gsr)
    std::uint32_t topk = 8; ///< k (gsr)
    std::uint64_t nodes = 0; ///< N
    std::uint64_t edges = 0; ///< E, directed (driver -> sink)
};

/// The shape of `config`'s model on a graph of `nodes` nodes and `edges` directed edges.
EngineShape engine_shape(const train::TrainConfig& config, std::uint64_t nodes,
                         std::uint64_t edges);

/// The feature width of one block's operations: D / C for rev and gsr, D otherwise.
std::uint32_t engine_width(const EngineShape& s);
/// How often each of a block's operations runs in one forward pass (L for res, L x C for
/// rev and gsr, L for the shallow models; the loss once).
std::uint64_t engine_calls_per_forward(const EngineShape& s, const Problem& p);

/// The GEMM's M: nodes rounded up to a multiple of 256.
std::uint64_t engine_gemm_rows(std::uint64_t nodes);
/// The pattern generator's max_degree whose nnz comes closest to `edges` (see above), and
/// that nnz in `nnz`.
std::uint32_t engine_spmm_max_degree(std::uint64_t nodes, std::uint64_t edges,
                                     std::uint64_t seed, std::uint64_t* nnz = nullptr);
/// The SpMM pattern seed of the engine problems.
inline constexpr std::uint64_t kEngineGraphSeed = 20261122;

/// gsr::Error naming the field when the shape is impossible (no nodes, D not divisible by C,
/// more than 2^31 - 1 nodes or edges).
std::vector<Problem> engine_problems(const EngineShape& s);

} // namespace gsr::tune
