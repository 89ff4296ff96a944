#include "runtime_compiler.hpp"

#include "nvrtc_library.hpp"

#include <chrono>
#include <vector>

namespace gsr::gpu {

RuntimeKernel::~RuntimeKernel()
{
    if (library) cudaLibraryUnload(library);
}

std::unique_ptr<RuntimeKernel> compile_runtime_kernel(const std::string& source,
                                                      const std::string& entry,
                                                      const std::string& file_name)
{
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto cuda = [](cudaError_t e, const char* where) {
        if (e != cudaSuccess) throw RuntimeLoadError{e, where};
    };
    std::string why;
    const NvrtcLibrary* nvrtc = nvrtc_library(&why);
    if (!nvrtc) throw RuntimeCompileError{why};
    int device = 0, major = 0, minor = 0;
    cuda(cudaGetDevice(&device), "cudaGetDevice");
    cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
         "cudaDeviceGetAttribute");
    cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
         "cudaDeviceGetAttribute");

    nvrtcProgram program = nullptr;
    if (nvrtc->create_program(&program, source.c_str(), file_name.c_str(), 0, nullptr,
                              nullptr) != NVRTC_SUCCESS)
        throw RuntimeCompileError{"nvrtcCreateProgram failed"};
    // Destroyed on every way out; each NVRTC step that fails is named.
    struct ProgramGuard {
        const NvrtcLibrary* nvrtc;
        nvrtcProgram* program;
        ~ProgramGuard() { nvrtc->destroy_program(program); }
    } guard{nvrtc, &program};
    const auto step = [&](nvrtcResult r, const char* where) {
        if (r != NVRTC_SUCCESS)
            throw RuntimeCompileError{std::string(nvrtc->error_string(r)) + " in " + where};
    };
    const std::string arch =
        "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);
    const char* options[] = {arch.c_str(), "--std=c++17", "-lineinfo"};
    const nvrtcResult compiled = nvrtc->compile_program(program, 3, options);
    std::size_t log_size = 0;
    step(nvrtc->get_log_size(program, &log_size), "nvrtcGetProgramLogSize");
    std::string log(log_size, '\0');
    if (log_size) step(nvrtc->get_log(program, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (compiled != NVRTC_SUCCESS) {
        if (log.size() > 4000) log.resize(4000);
        throw RuntimeCompileError{std::string(nvrtc->error_string(compiled)) + ": " + log};
    }
    std::size_t cubin_size = 0;
    step(nvrtc->get_cubin_size(program, &cubin_size), "nvrtcGetCUBINSize");
    if (cubin_size == 0) throw RuntimeCompileError{"nvrtcGetCUBINSize: the program has no cubin"};
    std::vector<char> cubin(cubin_size);
    step(nvrtc->get_cubin(program, cubin.data()), "nvrtcGetCUBIN");

    auto k = std::make_unique<RuntimeKernel>();
    cuda(cudaLibraryLoadData(&k->library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr,
                             0),
         "cudaLibraryLoadData");
    if (cudaLibraryGetKernel(&k->kernel, k->library, entry.c_str()) != cudaSuccess) {
        cudaGetLastError();
        throw RuntimeCompileError{"the source has no extern \"C\" __global__ entry point '" +
                                  entry + "'"};
    }
    cudaFuncAttributes attributes{};
    if (cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(k->kernel)) ==
        cudaSuccess)
        k->registers = attributes.numRegs;
    else
        cudaGetLastError();
    k->seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return k;
}

} // namespace gsr::gpu
