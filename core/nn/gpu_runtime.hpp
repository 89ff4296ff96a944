#pragma once
// Where core meets the CUDA backend without knowing CUDA: gpu/ installs a GpuRuntime at start-up
// (gsr::gpu::install_runtime(), called by the mains and the gpu tests); core asks it whether a
// GPU can be used and for a Backend on it. In a build without gpu/ nothing is installed and
// every question gets the plain answer "this build has no GPU backend".
#include "nn/backend.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace gsr::nn {

/// What the machine's GPU can do for training.
struct GpuStatus {
    bool available = false;
    std::string name;             ///< "NVIDIA H100 80GB HBM3"; empty when none
    std::size_t total_bytes = 0;  ///< device memory
    std::size_t free_bytes = 0;
    int compute_capability = 0;   ///< 90 for sm_90
    std::uint32_t max_hidden = 0; ///< the widest --hidden its backend takes; 0: no limit known
    std::string reason;           ///< why it cannot be used (no GPU, driver too old, ...)

    /// Whether it trains a model `hidden` wide: usable, and its backend takes that width.
    bool takes(std::uint32_t hidden) const
    {
        return available && (max_hidden == 0 || hidden <= max_hidden);
    }
};

struct GpuRuntime {
    GpuStatus (*probe)() = nullptr;
    /// A backend on device 0; gsr::Error with a plain message when that fails.
    std::unique_ptr<Backend> (*make_backend)(Precision precision) = nullptr;
};

/// Installs `runtime` and returns the one it replaces (tests put it back).
GpuRuntime install_gpu_runtime(const GpuRuntime& runtime);
/// The probe of the installed runtime, or "this build has no GPU backend".
GpuStatus gpu_status();
/// gsr::Error (with gpu_status().reason) when no GPU can be used.
std::unique_ptr<Backend> make_gpu_backend(Precision precision);

} // namespace gsr::nn
