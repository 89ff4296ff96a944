#pragma once
// Writing a whole file so that readers never see half of it: the bytes go to a temporary
// file in the same folder (so the rename never crosses file systems), are flushed to the
// disk (fsync), and the file is renamed over the target. On any failure the
// temporary is removed and the old file is left as it was.
#include <string>
#include <string_view>

namespace gsr {

/// gsr::Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, std::string_view bytes);

} // namespace gsr
