#pragma once
// A generated kernel handed to a backend to run instead of one of its own operations (the
// kernel lab's Apply). Backend::use_tuned_kernels takes them; train::TrainConfig carries them.
#include <cstdint>
#include <string>

namespace gsr::nn {

/// A verified generated kernel that takes over one of the backend's own operations (the
/// kernel lab's Apply: tune/applied_kernels.hpp). Only op "spmm" exists: the entry point
/// gsr_spmm_engine of tune/codegen.hpp, generated for x of exactly `width` columns, launched
/// with `block` threads over ceil(rows / rows_per_block) blocks; x, y and their leading
/// dimensions must be multiples of `vec` floats.
struct TunedKernel {
    std::string op;
    std::uint32_t width = 0;
    std::string source;
    std::string entry;
    std::uint32_t block = 0;
    std::uint32_t rows_per_block = 0;
    std::uint32_t vec = 1;
    std::string origin; ///< where it came from, for messages ("session 3, candidate 17")
};

} // namespace gsr::nn
