#pragma once
// Runs the gsr binary as a user would and captures its exit code, stdout and stderr.
#include "test_files.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace gsr::test {

struct RunResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string shell_quote(const std::string& s)
{
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// A file under the shared data folder (GSR_DATA_DIR), quoted for the shell.
inline std::string data_arg(const std::string& rel)
{
    return shell_quote(std::string(GSR_DATA_DIR) + "/" + rel);
}

inline RunResult run_gsr(const std::string& args)
{
    namespace fs = std::filesystem;
    const fs::path err_file = fs::temp_directory_path() /
                              ("gsr_test_err_" + std::to_string(::getpid()) + ".txt");
    const std::string cmd = shell_quote(std::string(GSR_BIN_DIR) + "/gsr") + " " + args + " 2>" +
                            shell_quote(err_file.string());
    RunResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 65536> buf;
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = read_text(err_file);
    fs::remove(err_file);
    return r;
}

/// Splits one CSV line (no quoted commas in COUNTS.csv, but the last column may hold commas).
inline std::vector<std::string> split_csv(const std::string& line, std::size_t columns)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (out.size() + 1 < columns) {
        std::size_t comma = line.find(',', start);
        if (comma == std::string::npos) break;
        out.push_back(line.substr(start, comma - start));
        start = comma + 1;
    }
    out.push_back(line.substr(start));
    return out;
}

/// The `nets` column of COUNTS.csv for `file` (relative to netlists/), or -1 when absent.
inline long long counted_nets(const std::string& file)
{
    const std::string text = read_text(std::string(GSR_DATA_DIR) + "/netlists/COUNTS.csv");
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::vector<std::string> f = split_csv(text.substr(at, end - at), 9);
        if (f.size() == 9 && f[0] == file && !f[7].empty()) return std::stoll(f[7]);
        at = end + 1;
    }
    return -1;
}

} // namespace gsr::test
