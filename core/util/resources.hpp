#pragma once
// Files that ship with the application: the bundled sample circuit.
#include <string>

namespace gsr {

/// The bundled sample circuit: $GSR_SAMPLE if set, else the installed copy next to the
/// executable (../share/gsr-studio/samples), else the source tree's. Throws Error if none exists.
std::string bundled_sample_path();

/// Directory of the running executable ("" when unknown).
std::string executable_dir();

} // namespace gsr
