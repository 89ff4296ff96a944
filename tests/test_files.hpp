#pragma once
// Files for tests: scratch folders, each its own folder under the system's temporary folder,
// named apart from every other test process's (tests run in parallel) and removed afterwards;
// and a file's whole content.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

namespace gsr::test {

/// A fresh, empty folder, removed with the object, whatever a test left in it (read-only
/// parts included).
struct ScratchDir {
    std::filesystem::path path;

    explicit ScratchDir(const std::string& prefix)
    {
        static std::atomic<unsigned> counter{0};
        path = std::filesystem::temp_directory_path() /
               (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" +
                std::to_string(std::random_device{}()));
        std::filesystem::create_directories(path);
    }
    ~ScratchDir()
    {
        namespace fs = std::filesystem;
        std::error_code ec;
        // Each folder made writable before it is entered; links are left as they are (their
        // targets may lie outside).
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        for (auto it = fs::recursive_directory_iterator(path, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            std::error_code ignored;
            if (!it->is_symlink(ignored))
                fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
        }
        fs::remove_all(path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::filesystem::path operator/(const std::string& name) const { return path / name; }
};

/// `name` in the test process's own scratch folder, which is made on first use and removed
/// when the process ends. The same name gives the same path throughout the process.
inline std::filesystem::path scratch_file(const std::string& name)
{
    static const ScratchDir dir("gsr_test");
    return dir / name;
}

/// A file's whole content, byte for byte ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace gsr::test
