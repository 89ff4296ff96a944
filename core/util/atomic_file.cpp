#include "util/atomic_file.hpp"

#include "util/diagnostics.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace gsr {

namespace {

namespace fs = std::filesystem;

/// The bytes written, flushed and synced to an open file; false with errno set otherwise.
bool write_all(std::FILE* f, std::string_view bytes, bool sync)
{
    return std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() &&
           std::fflush(f) == 0 && (!sync || ::fsync(::fileno(f)) == 0);
}

/// The file a path names once its symbolic links are followed, the last of them dangling or
/// not: the file to replace, so that a link stays a link.
fs::path followed(const fs::path& path)
{
    std::error_code error;
    if (fs::exists(path, error)) {
        const fs::path real = fs::canonical(path, error);
        return error ? path : real;
    }
    fs::path p = path;
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, error)); ++hops) {
        const fs::path to = fs::read_symlink(p, error);
        if (error) break;
        p = to.is_absolute() ? to : p.parent_path() / to;
    }
    return p;
}

/// The folder a new file for `path` (whose links lead to `target`) goes into; gsr::Error
/// naming `path` when it is missing or no folder.
fs::path folder_of(const std::string& path, const fs::path& target)
{
    std::error_code error;
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::is_directory(folder, error))
        throw Error(SourceLocation{path},
                    "cannot write the file: " +
                        (fs::exists(folder, error) ? folder.string() + " is not a folder"
                                                   : "the folder " + folder.string() +
                                                         " does not exist"));
    return folder;
}

} // namespace

void check_writable(const std::string& path)
{
    if (path.empty()) throw Error("no output file given");
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::is_directory(status)) throw Error(SourceLocation{path}, "is a folder, not a file");
    if (fs::exists(status) && !fs::is_regular_file(status)) return; // a device or a pipe
    const fs::path folder = folder_of(path, followed(path));
    if (::access(folder.c_str(), W_OK) != 0)
        throw Error(SourceLocation{path}, "cannot create a file in the folder " +
                                              folder.string() + ": " + std::strerror(errno));
}

void write_file_atomically(const std::string& path, std::string_view bytes)
{
    if (path.empty()) throw Error("no output file given");
    std::error_code error;
    const fs::file_status status = fs::status(path, error); // through links
    if (fs::is_directory(status)) throw Error(SourceLocation{path}, "is a folder, not a file");
    if (fs::exists(status) && !fs::is_regular_file(status)) {
        // A device or a pipe (/dev/null, /dev/stdout, a FIFO): written in place. Renaming over
        // it would put a plain file where the device was.
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f)
            throw Error(SourceLocation{path},
                        std::string("cannot open the file for writing: ") +
                            std::strerror(errno));
        const bool written = write_all(f, bytes, false);
        const std::string reason = std::strerror(errno);
        if (std::fclose(f) != 0 || !written)
            throw Error(SourceLocation{path}, "cannot write the file: " + reason);
        return;
    }
    const fs::path target = followed(path);
    // The bytes go to a temporary file beside the target first, then replace it in one rename:
    // the messages name the folder and the target, which the user chose, not the temporary.
    const fs::path folder = folder_of(path, target);
    const fs::path tmp =
        folder / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        fs::remove(tmp, error);
        return Error(SourceLocation{path}, what + ": " + reason);
    };
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw fail("cannot create a file in the folder " + folder.string());
    const bool written = write_all(f, bytes, true);
    if (std::fclose(f) != 0 || !written) throw fail("cannot write the file");
    // The new file keeps the permissions of the one it replaces.
    if (fs::is_regular_file(status))
        fs::permissions(tmp, status.permissions(), fs::perm_options::replace, error);
    if (std::rename(tmp.c_str(), target.c_str()) != 0)
        throw fail("cannot replace the file with the new one written beside it");
    // The rename is in the folder's entries: synced too, a power cut after this returns cannot
    // bring the old file back. (A folder that cannot be opened or synced, as on some network
    // file systems, leaves the rename as durable as that file system makes it.)
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)::fsync(dir);
        ::close(dir);
    }
}

} // namespace gsr
