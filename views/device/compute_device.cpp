#include "device/compute_device.hpp"

#include "nn/gpu_runtime.hpp"

namespace gsr::views {

QString compute_device_name()
{
    // Training takes the GPU when train::choose_device("auto") would (nn/gpu_runtime.hpp).
    const nn::GpuStatus gpu = nn::gpu_status();
    if (gpu.available) return QString::fromStdString(gpu.name);
    return QStringLiteral("CPU");
}

} // namespace gsr::views
