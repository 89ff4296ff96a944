#include "device/compute_device.hpp"

namespace gsr::views {

QString compute_device_name()
{
    // Every computation the views start today runs in core on the CPU.
    return QStringLiteral("CPU");
}

} // namespace gsr::views
