#pragma once
// SplitMix64, the stimulus generator of the label data set (shared/data/labels/README.md). Its
// state advances by a constant, so output k can be computed directly: threads that simulate
// different vector blocks draw their own words and still see the one reference stream.
#include <cstdint>

namespace gsr::labels {

class SplitMix64 {
public:
    static constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;

    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    /// The next output of the stream.
    std::uint64_t next()
    {
        state_ += kGamma;
        return mix(state_);
    }

    /// Output number `index` (0-based) of the stream that starts at `seed`: equal to calling
    /// next() index + 1 times on SplitMix64(seed).
    static std::uint64_t at(std::uint64_t seed, std::uint64_t index)
    {
        return mix(seed + (index + 1) * kGamma);
    }

    static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
};

} // namespace gsr::labels
