#include "nn/gpu_runtime.hpp"

#include "util/diagnostics.hpp"

#include <mutex>
#include <utility>

namespace gsr::nn {

namespace {

std::mutex g_mutex;
GpuRuntime g_runtime;

GpuRuntime installed()
{
    std::lock_guard lock(g_mutex);
    return g_runtime;
}

} // namespace

GpuRuntime install_gpu_runtime(const GpuRuntime& runtime)
{
    std::lock_guard lock(g_mutex);
    return std::exchange(g_runtime, runtime);
}

GpuStatus gpu_status()
{
    const GpuRuntime r = installed();
    if (!r.probe) {
        GpuStatus s;
        s.reason = "this build has no GPU backend (the CUDA toolkit was not found when it was "
                   "built)";
        return s;
    }
    return r.probe();
}

std::unique_ptr<Backend> make_gpu_backend(Precision precision)
{
    const GpuStatus s = gpu_status();
    if (!s.available) throw Error("cannot train on the GPU: " + s.reason);
    return installed().make_backend(precision);
}

} // namespace gsr::nn
