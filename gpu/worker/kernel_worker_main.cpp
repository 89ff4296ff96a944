// gsr-kernel-worker: the process the kernel lab runs candidates in (gpu/kernel_runner.hpp).
// It reads one JSON job per line on stdin and writes one JSON reply per line on stdout, until
// stdin closes or a reply says the CUDA context is lost ("fatal"), when it exits with 3 so
// the parent starts a fresh one. A hang is the parent's to end (it kills the process group).
// `gsr-kernel-worker --job FILE` runs the one job in FILE and exits: the form a profiler
// (ncu) wraps.
#include "kernel_runner.hpp"
#include "util/json_text.hpp"

#include <fstream>
#include <iostream>
#include <string>

int main(int argc, char** argv)
{
    if (argc == 3 && std::string(argv[1]) == "--job") {
        std::ifstream in(argv[2]);
        nlohmann::json reply;
        try {
            reply = gsr::gpu::run_kernel_job(nlohmann::json::parse(in));
        } catch (const std::exception& e) {
            reply = {{"verdict", "crash"}, {"detail", std::string("bad job: ") + e.what()}};
        }
        std::cout << gsr::json_text(reply) << '\n';
        return reply.value("verdict", std::string()) == "ok" ? 0 : 3;
    }
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        nlohmann::json reply;
        try {
            reply = gsr::gpu::run_kernel_job(nlohmann::json::parse(line));
        } catch (const std::exception& e) {
            reply = {{"verdict", "crash"}, {"detail", std::string("bad job: ") + e.what()}};
        }
        std::cout << gsr::json_text(reply) << '\n' << std::flush;
        if (reply.value("fatal", false)) return 3;
    }
    return 0;
}
