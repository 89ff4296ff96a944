#pragma once
// NVIDIA libraries opened at run time (cuBLAS, cuSPARSE, NVRTC): the binaries need none of them
// at load time, so a machine without them starts and is told why, and the packages carry no
// CUDA dependency. Each library is opened once and stays open for the life of the process.
//
//   open_first({"libx.so.13", "libx.so"}, why)   the first name that dlopen finds
//   bind(handle, "symbol", fn, library, why)      one symbol into a typed function pointer
//   load_once<Api>(load, why)                     the table `load` fills, loaded once
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace gsr::gpu {

inline void* open_first(std::initializer_list<const char*> names, std::string& why)
{
    for (const char* name : names)
        if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    why = std::string(*names.begin()) + " was not found (" + (e ? e : "dlopen failed") + ")";
    return nullptr;
}

template <class F>
bool bind(void* handle, const char* name, F& f, const char* library, std::string& why)
{
    f = reinterpret_cast<F>(dlsym(handle, name));
    if (!f) why = std::string(library) + " has no " + name;
    return f != nullptr;
}

/// What a loader gives: the function table, or why there is none.
template <class Api> struct LoadedLibrary {
    Api api;
    bool ok = false;
    std::string why;
};

/// The table of `load`, run once per process (thread-safe), or nullptr with the reason.
template <class Api>
const Api* load_once(LoadedLibrary<Api> (*load)(), std::string* why)
{
    static const LoadedLibrary<Api> loaded = load();
    if (!loaded.ok && why) *why = loaded.why;
    return loaded.ok ? &loaded.api : nullptr;
}

} // namespace gsr::gpu
