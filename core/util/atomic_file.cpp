#include "util/atomic_file.hpp"

#include "util/diagnostics.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace gsr {

void write_file_atomically(const std::string& path, const std::string& text)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path tmp = target.parent_path() /
                         ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(SourceLocation{path}, "cannot write " + tmp.string());
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
        out.flush();
        if (!out) {
            std::error_code ignored;
            fs::remove(tmp, ignored);
            throw Error(SourceLocation{path}, "cannot write " + tmp.string() + " (disk full?)");
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw Error(SourceLocation{path},
                    "cannot rename " + tmp.string() + " to " + path + ": " + ec.message());
    }
}

} // namespace gsr
