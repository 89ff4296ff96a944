#pragma once
// A small random generator whose sequence is fixed by its seed on every platform and standard
// library (std::uniform_int_distribution is not), so that a seed names one result everywhere.
#include <cstdint>
#include <span>
#include <utility>

namespace gsr::community {

/// SplitMix64 (Steele, Lea, Flood 2014).
class SeededRandom {
public:
    explicit SeededRandom(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next()
    {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    /// Uniform in [0, n), n > 0 (multiply-shift; the bias is below 2^-32).
    std::uint32_t below(std::uint32_t n)
    {
        return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
    }

    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    /// Fisher-Yates.
    template <class T>
    void shuffle(std::span<T> items)
    {
        for (std::size_t i = items.size(); i > 1; --i)
            std::swap(items[i - 1], items[below(static_cast<std::uint32_t>(i))]);
    }

private:
    std::uint64_t state_;
};

/// A seed for one sub-task (a level, a community) derived from the run's seed: each sub-task
/// draws the same numbers whichever thread runs it.
inline std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0)
{
    SeededRandom r(seed ^ (a * 0xd6e8feb86659fd93ull) ^ (b * 0xa0761d6478bd642full));
    r.next();
    return r.next();
}

} // namespace gsr::community
