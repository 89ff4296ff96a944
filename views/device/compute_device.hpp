#pragma once
// Which device the heavy work runs on, as the status bar names it. One function, so the GPU
// backend can report itself here later without the window knowing about CUDA.
#include <QString>

namespace gsr::views {

/// @brief A short name of the compute device in use, e.g. "CPU".
QString compute_device_name();

} // namespace gsr::views
