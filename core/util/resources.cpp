#include "util/resources.hpp"

#include "util/diagnostics.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace gsr {

namespace fs = std::filesystem;

namespace {
constexpr const char* kSampleName = "alu8.v";
}

std::string executable_dir()
{
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::string bundled_sample_path()
{
    if (const char* env = std::getenv("GSR_SAMPLE"); env && *env) return env;
    std::vector<fs::path> candidates;
    const std::string dir = executable_dir();
    if (!dir.empty()) candidates.push_back(fs::path(dir) / "../share/gsr-studio/samples" / kSampleName);
#ifdef GSR_SOURCE_SAMPLES_DIR
    candidates.push_back(fs::path(GSR_SOURCE_SAMPLES_DIR) / kSampleName);
#endif
    for (const fs::path& p : candidates) {
        std::error_code ec;
        if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    throw Error("the bundled sample circuit (" + std::string(kSampleName) +
                ") was not found; set GSR_SAMPLE or pass a netlist file");
}

} // namespace gsr
