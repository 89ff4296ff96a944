#pragma once
// Which device the heavy work runs on, as the status bar names it. One function, so the
// window never knows about CUDA: it asks core's GPU runtime (installed by the main).
#include <QString>

namespace gsr::views {

/// @brief The GPU's name when training can use it, else "CPU".
QString compute_device_name();

} // namespace gsr::views
