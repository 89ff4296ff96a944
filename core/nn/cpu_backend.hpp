#pragma once
// The CPU implementation of nn::Backend: Eigen for the dense products, std::thread parallelism
// over row blocks, float32 for training or float64 for gradient checks. Reductions over rows
// (weight gradients, column sums) run over a fixed number of row slabs and add the slab
// results in slab order, so the thread count never changes a bit of the result.
#include "nn/backend.hpp"

#include <cstddef>
#include <memory>

namespace gsr::nn {

/// `threads` counts the calling thread; 0: one per hardware thread.
std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads = 0);

/// Rows per task of the row-parallel kernels.
inline constexpr std::size_t kCpuRowBlock = 64;
/// The widest row a CPU kernel accepts (per-row scratch lives on the stack).
inline constexpr std::size_t kCpuMaxWidth = 4096;

/// Row slabs of a reduction over `rows` rows: depends on the row count only. A reduction
/// takes slabs x (output size) scalars of arena scratch while it runs (memory_model.cpp).
std::size_t cpu_slab_count(std::size_t rows);

} // namespace gsr::nn
