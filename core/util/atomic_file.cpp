#include "util/atomic_file.hpp"

#include "util/diagnostics.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace gsr {

void write_file_atomically(const std::string& path, std::string_view bytes)
{
    namespace fs = std::filesystem;
    if (path.empty()) throw Error("no output file given");
    if (fs::is_directory(path)) throw Error(SourceLocation{path}, "is a folder, not a file");
    const fs::path target(path);
    // The bytes go to a temporary file beside the target first, then replace it in one rename:
    // the messages name the folder and the target, which the user chose, not the temporary.
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code error;
    if (!fs::is_directory(folder, error))
        throw Error(SourceLocation{path},
                    "cannot write the file: " +
                        (fs::exists(folder, error) ? folder.string() + " is not a folder"
                                                   : "the folder " + folder.string() +
                                                         " does not exist"));
    const fs::path tmp =
        folder / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        fs::remove(tmp, error);
        return Error(SourceLocation{path}, what + ": " + reason);
    };
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw fail("cannot create a file in the folder " + folder.string());
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() &&
                         std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    if (std::fclose(f) != 0 || !written) throw fail("cannot write the file");
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw fail("cannot replace the file with the new one written beside it");
}

} // namespace gsr
