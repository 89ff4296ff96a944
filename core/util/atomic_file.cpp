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
    const fs::path tmp = target.parent_path() /
                         ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return Error(SourceLocation{path}, what + ": " + reason);
    };
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw fail("cannot write " + tmp.string());
    const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() &&
                         std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    if (std::fclose(f) != 0 || !written) throw fail("cannot write " + tmp.string());
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
        throw fail("cannot rename " + tmp.string() + " to " + path);
}

} // namespace gsr
