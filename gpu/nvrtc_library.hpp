#pragma once
// NVRTC, loaded at run time (see dynamic_library.hpp): the kernel lab's worker compiles
// generated and agent-written CUDA C++ to a cubin for the GPU in hand.
#include <nvrtc.h>

#include <string>

namespace gsr::gpu {

struct NvrtcLibrary {
    decltype(&nvrtcCreateProgram) create_program = nullptr;
    decltype(&nvrtcDestroyProgram) destroy_program = nullptr;
    decltype(&nvrtcCompileProgram) compile_program = nullptr;
    decltype(&nvrtcGetProgramLogSize) get_log_size = nullptr;
    decltype(&nvrtcGetProgramLog) get_log = nullptr;
    decltype(&nvrtcGetCUBINSize) get_cubin_size = nullptr;
    decltype(&nvrtcGetCUBIN) get_cubin = nullptr;
    decltype(&nvrtcGetErrorString) error_string = nullptr;
};

/// The loaded library (libnvrtc.so.13, else libnvrtc.so), or nullptr with the reason in *why.
const NvrtcLibrary* nvrtc_library(std::string* why = nullptr);

} // namespace gsr::gpu
