#pragma once
// Writing a whole file so that readers never see half of it: the bytes go to a temporary
// file in the same folder (so the rename never crosses file systems), are flushed to the
// disk (fsync), and the file is renamed over the target. On any failure the
// temporary is removed and the old file is left as it was. A symbolic link stays a link: the
// file it points to is the one replaced (its permissions kept; a link loop is an error). The
// temporary is created exclusively under a random name, never through a link, with no more
// permissions than the target's. A device or a pipe (/dev/null, a FIFO) is written in place,
// never replaced by a plain file; /dev/stdout and /dev/stderr are written through the
// process's own descriptor, so a file the shell redirected them to keeps what came before.
#include <string>
#include <string_view>

namespace gsr {

/// gsr::Error naming `path` when the file cannot be written or renamed.
void write_file_atomically(const std::string& path, std::string_view bytes);

/// Throws the gsr::Error write_file_atomically would for what can be told before writing: no
/// name, a folder, a folder that does not exist or cannot be written to. For commands that
/// work long before they write.
void check_writable(const std::string& path);

} // namespace gsr
