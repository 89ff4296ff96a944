#include "panels/memory_estimates.hpp"

#include "nn/gpu_runtime.hpp"
#include "util/machine.hpp"

#include <QObject>

namespace gsr::views {

std::size_t training_memory_bytes(const nn::GpuStatus& gpu, std::size_t machine_bytes,
                                  std::uint32_t hidden)
{
    // As train::choose_device("auto", hidden) decides.
    return gpu.takes(hidden) && gpu.total_bytes > 0 ? gpu.total_bytes : machine_bytes;
}

std::size_t device_memory_bytes(std::uint32_t hidden)
{
    // The GPU asked once: the probe is not free and the GPU does not change.
    static const nn::GpuStatus gpu = nn::gpu_status();
    return training_memory_bytes(gpu, static_cast<std::size_t>(physical_memory_bytes()), hidden);
}

QString human_bytes(std::size_t bytes)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    return u == 0 ? QStringLiteral("%1 B").arg(bytes)
                  : QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 2 : (v < 100 ? 1 : 0))
                        .arg(QLatin1String(units[u]));
}

MemoryVerdict memory_verdict(std::size_t peak, std::size_t device)
{
    if (device == 0) return MemoryVerdict::Fits; // unknown: nothing to warn about
    if (peak > device) return MemoryVerdict::TooLarge;
    if (static_cast<double>(peak) > 0.8 * static_cast<double>(device)) return MemoryVerdict::Tight;
    return MemoryVerdict::Fits;
}

QString memory_warning(std::size_t peak, std::size_t device)
{
    switch (memory_verdict(peak, device)) {
    case MemoryVerdict::TooLarge:
        return QObject::tr("This model needs about %1 at its peak, more than the %2 of the "
                           "device: training would run out of memory. Use fewer layers, a "
                           "narrower model, or the reversible models (rev, gsr), whose memory "
                           "does not grow with depth.")
            .arg(human_bytes(peak), human_bytes(device));
    case MemoryVerdict::Tight:
        return QObject::tr("This model needs about %1 at its peak, more than 80 % of the %2 of "
                           "the device: training may run out of memory.")
            .arg(human_bytes(peak), human_bytes(device));
    case MemoryVerdict::Fits: break;
    }
    return {};
}

} // namespace gsr::views
