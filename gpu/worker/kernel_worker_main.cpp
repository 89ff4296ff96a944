// gsr-kernel-worker: the process the kernel lab runs candidates in (gpu/kernel_runner.hpp).
// It reads one JSON job per line on stdin and writes one JSON reply per line on stdout, until
// stdin closes or a reply says the CUDA context is lost ("fatal"), when it exits with 3 so
// the parent starts a fresh one. A hang is the parent's to end (it kills the process group).
// `gsr-kernel-worker --job FILE` runs the one job in FILE and exits: the form a profiler
// (ncu) wraps.
//
// The replies go out on a copy of stdout made at the start, and stdout itself is pointed at
// stderr: what a candidate prints (device printf, which the CUDA runtime writes to stdout)
// can never be read as a reply. Each reply carries its job's "id" back, which the parent
// checks.
#include "kernel_runner.hpp"
#include "util/json_text.hpp"

#include <unistd.h>

#include <cstdio>
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
    std::FILE* replies = stdout;
    if (const int protocol = ::dup(STDOUT_FILENO); protocol >= 0) {
        if (std::FILE* f = ::fdopen(protocol, "w"); f && ::dup2(STDERR_FILENO, STDOUT_FILENO) >= 0)
            replies = f;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        nlohmann::json job, reply;
        try {
            job = nlohmann::json::parse(line);
            reply = gsr::gpu::run_kernel_job(job);
        } catch (const std::exception& e) {
            reply = {{"verdict", "crash"}, {"detail", std::string("bad job: ") + e.what()}};
        }
        if (job.is_object() && job.contains("id")) reply["id"] = job["id"];
        std::fflush(stdout); // a candidate's output, now on stderr, before its reply
        const std::string text = gsr::json_text(reply) + '\n';
        std::fwrite(text.data(), 1, text.size(), replies);
        std::fflush(replies);
        if (reply.value("fatal", false)) return 3;
    }
    return 0;
}
