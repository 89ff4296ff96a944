// gsr: the command line of GSR Studio. Everything the GUI does has a command here.
#include "cli_commands.hpp"

#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_CUDA
#include "cuda_backend.hpp"
#endif

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// What a command printed must reach standard output: a full disk or a closed descriptor
/// behind it is an error (exit 2), not exit 0 with the output lost. A short output fails at
/// this flush, which tells why; a long one failed while it was written, and only the stream's
/// state is left to say that it did.
int checked_output(int code)
{
    errno = 0;
    std::cout.flush(); // through stdio's buffer (synced), which it flushes
    const int error = errno; // the write's reason, before anything else can set errno
    const bool failed = !std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!failed) return code;
    std::cerr << "error: cannot write standard output: "
              << (error ? std::string(std::strerror(error)) : std::string("the output is incomplete"))
              << '\n';
    return code == 0 ? 2 : code;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
#ifdef GSR_HAVE_CUDA
    gsr::gpu::install_runtime(); // --device auto|gpu can then find the GPU
#endif
    try {
        return checked_output(gsr::cli::run(args));
    } catch (const gsr::cli::UsageError& e) {
        std::cerr << "gsr: " << e.what() << "\n(see 'gsr help')\n";
        return 1;
    } catch (const gsr::Error& e) {
        std::cerr << e.what() << '\n';
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory\n";
        return 3;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 3;
    }
}
