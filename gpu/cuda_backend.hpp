#pragma once
// The CUDA implementation of nn::Backend (core/nn/backend.hpp): one device block holds the
// arena plus a fixed workspace (row-chunked GEMM outputs, reduction partials, cuBLAS's
// workspace); every op runs on one stream, so a training step synchronises with the host only
// where a value comes back (the loss, downloads). Reductions over rows run over a fixed number
// of slabs whose partials are added in a fixed order: the same inputs give the same bits on
// every run.
#include "nn/backend.hpp"
#include "nn/gpu_runtime.hpp"

#include <cstddef>
#include <memory>

namespace gsr::gpu {

/// Bytes of the fixed workspace beside the arena (part of the one allocation and of the peak).
inline constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;
inline constexpr std::size_t kCublasWorkspaceBytes = std::size_t(8) << 20;
/// Bytes of the kernels' counters (for_taken_strips's), after the cuBLAS workspace.
inline constexpr std::size_t kCounterBytes = 256;
/// The widest row the row kernels accept.
inline constexpr std::uint32_t kMaxWidth = 1024;

/// GPU 0's status: available, or why not (no device, driver too old, compute capability).
nn::GpuStatus probe();

/// A backend on GPU 0. gsr::Error with a plain message when there is none.
std::unique_ptr<nn::Backend> make_cuda_backend(nn::Precision precision);

/// Total bytes the backend holds on the device now (arena capacity + workspace).
std::size_t device_bytes_held(const nn::Backend& backend);

/// Waits until every op queued on the backend's stream has finished (for timing).
void synchronize(const nn::Backend& backend);

/// Device-to-device copy bandwidth of GPU 0 in bytes per second (read + write counted), from a
/// large cudaMemcpy: the calibrated DRAM bound of %SOL figures.
double measure_copy_bandwidth();

/// Makes core's gpu_status()/make_gpu_backend() use this backend. Called once by each main.
void install_runtime();

} // namespace gsr::gpu
