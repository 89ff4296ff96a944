#pragma once
// Writing a whole file so that readers never see half of it: the text goes to a temporary
// file in the same folder, is flushed, and is renamed over the target. On any failure the
// temporary is removed and the old file is left as it was.
#include <string>

namespace gsr {

/// gsr::Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace gsr
