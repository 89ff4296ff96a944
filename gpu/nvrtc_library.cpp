#include "nvrtc_library.hpp"

#include "dynamic_library.hpp"

namespace gsr::gpu {

namespace {

LoadedLibrary<NvrtcLibrary> load()
{
    LoadedLibrary<NvrtcLibrary> l;
    void* h = open_first({"libnvrtc.so.13", "libnvrtc.so"}, l.why);
    if (!h) {
        l.why = "NVRTC, the CUDA run-time compiler: " + l.why +
                "; install NVIDIA's CUDA 13 libraries";
        return l;
    }
    NvrtcLibrary& a = l.api;
    const char* lib = "libnvrtc";
    l.ok = bind(h, "nvrtcCreateProgram", a.create_program, lib, l.why) &&
           bind(h, "nvrtcDestroyProgram", a.destroy_program, lib, l.why) &&
           bind(h, "nvrtcCompileProgram", a.compile_program, lib, l.why) &&
           bind(h, "nvrtcGetProgramLogSize", a.get_log_size, lib, l.why) &&
           bind(h, "nvrtcGetProgramLog", a.get_log, lib, l.why) &&
           bind(h, "nvrtcGetCUBINSize", a.get_cubin_size, lib, l.why) &&
           bind(h, "nvrtcGetCUBIN", a.get_cubin, lib, l.why) &&
           bind(h, "nvrtcGetErrorString", a.error_string, lib, l.why);
    return l;
}

} // namespace

const NvrtcLibrary* nvrtc_library(std::string* why)
{
    return load_once<NvrtcLibrary>(load, why);
}

} // namespace gsr::gpu
