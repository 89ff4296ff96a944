#include "store/run_claim.hpp"

#include "util/diagnostics.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace gsr::store {

namespace {

using FileKey = std::pair<std::uint64_t, std::uint64_t>; // device, inode

/// The descriptors of the project files this process has claimed runs of (never closed), and
/// the runs claimed: one open file description does not conflict with itself, so claims
/// within this process are checked here.
struct Registry {
    std::mutex mutex;
    std::map<FileKey, int> descriptors;
    std::set<std::tuple<std::uint64_t, std::uint64_t, std::int64_t>> claimed;
};

Registry& registry()
{
    static Registry* r = new Registry; // outlives every static claim: never destroyed
    return *r;
}

/// The byte that stands for a run: far past SQLite's lock bytes at 1 GiB, within off_t.
off_t claim_offset(std::int64_t run_id)
{
    return static_cast<off_t>((std::uint64_t{1} << 62) +
                              (static_cast<std::uint64_t>(run_id) & ((std::uint64_t{1} << 61) - 1)));
}

struct flock lock_of(short type, std::int64_t run_id)
{
    struct flock l {};
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = claim_offset(run_id);
    l.l_len = 1;
    return l;
}

/// The shared descriptor of the file at `path` (opened on first use), with its key; -1 when
/// the file cannot be opened. Called with the registry locked.
int descriptor(Registry& r, const std::string& path, FileKey& key)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    key = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    if (auto it = r.descriptors.find(key); it != r.descriptors.end()) return it->second;
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    // Keyed by what was opened: the path may name another file by now.
    if (::fstat(fd, &st) == 0)
        key = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
    // Replaced since the stat by a file already open here: the new descriptor stays open,
    // unused, as a close would drop this process's POSIX locks on the file.
    if (auto it = r.descriptors.find(key); it != r.descriptors.end()) return it->second;
    r.descriptors.emplace(key, fd);
    return fd;
}

} // namespace

RunClaim RunClaim::take(const std::string& path, std::int64_t run_id)
{
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    RunClaim claim;
    FileKey key;
    const int fd = descriptor(r, path, key);
    if (fd < 0) return claim;
    const auto refuse = [&] {
        throw Error(SourceLocation{path},
                    "run " + std::to_string(run_id) +
                        " is being trained now by another training (in this or another "
                        "process); wait for it to finish or stop it, then resume the run");
    };
    if (r.claimed.count({key.first, key.second, run_id})) refuse();
#ifdef F_OFD_SETLK
    struct flock l = lock_of(F_WRLCK, run_id);
    if (::fcntl(fd, F_OFD_SETLK, &l) != 0) {
        if (errno == EAGAIN || errno == EACCES) refuse();
        return claim; // EBADF (a read-only file), ENOLCK, ...: nothing to hold
    }
#endif
    r.claimed.insert({key.first, key.second, run_id});
    claim.fd_ = fd;
    claim.device_ = key.first;
    claim.inode_ = key.second;
    claim.run_id_ = run_id;
    return claim;
}

bool RunClaim::held(const std::string& path, std::int64_t run_id)
{
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    FileKey key;
    const int fd = descriptor(r, path, key);
    if (fd < 0) return false;
    if (r.claimed.count({key.first, key.second, run_id})) return true;
#ifdef F_OFD_GETLK
    struct flock l = lock_of(F_WRLCK, run_id);
    if (::fcntl(fd, F_OFD_GETLK, &l) == 0) return l.l_type != F_UNLCK;
#endif
    return false;
}

RunClaim::RunClaim(RunClaim&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), device_(other.device_), inode_(other.inode_),
      run_id_(other.run_id_)
{
}

RunClaim& RunClaim::operator=(RunClaim&& other) noexcept
{
    if (this != &other) {
        release();
        fd_ = std::exchange(other.fd_, -1);
        device_ = other.device_;
        inode_ = other.inode_;
        run_id_ = other.run_id_;
    }
    return *this;
}

RunClaim::~RunClaim() { release(); }

void RunClaim::release() noexcept
{
    if (fd_ < 0) return;
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
#ifdef F_OFD_SETLK
    struct flock l = lock_of(F_UNLCK, run_id_);
    (void)::fcntl(fd_, F_OFD_SETLK, &l);
#endif
    r.claimed.erase({device_, inode_, run_id_});
    fd_ = -1;
}

} // namespace gsr::store
