// gsr: the command line of GSR Studio. Everything the GUI does has a command here.
#include "cli_commands.hpp"

#include "util/diagnostics.hpp"

#ifdef GSR_HAVE_CUDA
#include "cuda_backend.hpp"
#endif

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
#ifdef GSR_HAVE_CUDA
    gsr::gpu::install_runtime(); // --device auto|gpu can then find the GPU
#endif
    try {
        return gsr::cli::run(args);
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
