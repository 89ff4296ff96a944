#include "util/atomic_file.hpp"

#include "util/diagnostics.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace gsr {

namespace {

namespace fs = std::filesystem;

/// The bytes written to an open descriptor (and synced); false with errno set otherwise.
bool write_all(int fd, std::string_view bytes, bool sync)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            // A standard stream the caller made non-blocking (a pipe to a slow reader): wait.
            pollfd p{fd, POLLOUT, 0};
            if (::poll(&p, 1, -1) >= 0 || errno == EINTR) continue;
            return false;
        }
        if (n <= 0) return false;
        bytes.remove_prefix(std::size_t(n));
    }
    return !sync || ::fsync(fd) == 0;
}

/// 1 or 2 when `path` names this process's standard output or error as the shell set them
/// up: written through that descriptor, as `> log` or `>> log` left it. Opened again, its file
/// was truncated (or, a plain file behind the link, renamed over), and with it what the shell
/// and this process had written there.
int standard_stream(const std::string& path)
{
    for (int fd : {1, 2}) {
        const std::string n = std::to_string(fd);
        if (path == "/dev/fd/" + n || path == "/proc/self/fd/" + n ||
            path == (fd == 1 ? "/dev/stdout" : "/dev/stderr"))
            return fd;
    }
    return -1;
}

/// A new temporary file beside the target, opened for writing: a name of its own (random,
/// created exclusively, never through a link), short enough for any target name, and the
/// target's permissions from the start. -1 with errno set when none can be made.
int create_temporary(const fs::path& folder, const fs::path& target, mode_t mode,
                     fs::path* tmp)
{
    std::string stem = "." + target.filename().string();
    if (stem.size() > 200) stem.resize(200); // + ".tmp." and 8 characters stays under 255
    static thread_local std::mt19937_64 random(std::random_device{}() ^
                                               std::uint64_t(::getpid()) << 32);
    constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = stem + ".tmp.";
        for (int i = 0; i < 8; ++i) name += kDigits[random() % 36];
        *tmp = folder / name;
        const int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                              mode);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
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

/// The status of what `path` names through its links; gsr::Error naming `path` for no name,
/// a loop of links, a folder or a write-protected file.
fs::file_status writable_status(const std::string& path)
{
    if (path.empty()) throw Error("no output file given");
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (error && error.value() == ELOOP)
        throw Error(SourceLocation{path}, "cannot write the file: " + error.message());
    if (fs::is_directory(status)) throw Error(SourceLocation{path}, "is a folder, not a file");
    // A rename replaces a file its owner made read-only, where `>` and `cp` refuse: refuse too.
    // The mode bits as well as access(): root may write anything, yet 0444 says "keep".
    constexpr fs::perms kWrite =
        fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
    if (fs::is_regular_file(status) &&
        ((status.permissions() & kWrite) == fs::perms::none || ::access(path.c_str(), W_OK) != 0))
        throw Error(SourceLocation{path}, "is write-protected: make it writable, or choose "
                                          "another file");
    return status;
}

} // namespace

void check_writable(const std::string& path)
{
    if (standard_stream(path) >= 0) return;
    const fs::file_status status = writable_status(path);
    if (fs::exists(status) && !fs::is_regular_file(status)) return; // a device or a pipe
    const fs::path folder = folder_of(path, followed(path));
    if (::access(folder.c_str(), W_OK) != 0)
        throw Error(SourceLocation{path}, "cannot create a file in the folder " +
                                              folder.string() + ": " + std::strerror(errno));
}

void write_file_atomically(const std::string& path, std::string_view bytes)
{
    if (const int fd = standard_stream(path); fd >= 0) {
        std::fflush(fd == 1 ? stdout : stderr); // what this process printed first stays first
        if (!write_all(fd, bytes, false))
            throw Error(SourceLocation{path},
                        std::string("cannot write the file: ") + std::strerror(errno));
        return;
    }
    const fs::file_status status = writable_status(path);
    if (fs::exists(status) && !fs::is_regular_file(status)) {
        // A device or a pipe (/dev/null, a FIFO): written in place. Renaming over it would put
        // a plain file where the device was.
        const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
            throw Error(SourceLocation{path},
                        std::string("cannot open the file for writing: ") +
                            std::strerror(errno));
        const bool written = write_all(fd, bytes, false);
        const std::string reason = std::strerror(errno);
        if (::close(fd) != 0 || !written)
            throw Error(SourceLocation{path}, "cannot write the file: " + reason);
        return;
    }
    const fs::path target = followed(path);
    // The bytes go to a temporary file beside the target first, then replace it in one rename:
    // the messages name the folder and the target, which the user chose, not the temporary.
    const fs::path folder = folder_of(path, target);
    // The new file keeps the permissions of the one it replaces; a new one gets the umask's.
    const bool replaces = fs::is_regular_file(status);
    const mode_t mode = replaces ? mode_t(status.permissions()) & 07777 : 0666;
    fs::path tmp;
    std::error_code error;
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        if (!tmp.empty()) fs::remove(tmp, error);
        return Error(SourceLocation{path}, what + ": " + reason);
    };
    const int fd = create_temporary(folder, target, replaces ? mode & 0700 : mode, &tmp);
    if (fd < 0) {
        tmp.clear(); // not ours to remove
        throw fail("cannot create a file in the folder " + folder.string());
    }
    // The umask may have taken bits from the target's own: fchmod is not subject to it.
    const bool written = (!replaces || ::fchmod(fd, mode) == 0) && write_all(fd, bytes, true);
    if (::close(fd) != 0 || !written) throw fail("cannot write the file");
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
