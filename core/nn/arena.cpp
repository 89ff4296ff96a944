#include "nn/arena.hpp"

#include "util/diagnostics.hpp"

#include <algorithm>
#include <string>

namespace gsr::nn {

std::size_t Arena::allocate(std::size_t bytes)
{
    const std::size_t size = align_up(bytes);
    if (size > capacity_ - used_)
        throw Error("nn arena: " + std::to_string(size) + " bytes requested with " +
                    std::to_string(used_) + " of " + std::to_string(capacity_) +
                    " in use (internal: the memory plan is short)");
    const std::size_t offset = used_;
    used_ += size;
    peak_ = std::max(peak_, used_);
    window_peak_ = std::max(window_peak_, used_);
    return offset;
}

void Arena::release(std::size_t mark)
{
    if (mark <= used_) used_ = mark;
}

} // namespace gsr::nn
