#pragma once
// The probes' shared harness (docs/probes/*.cu: each built alone with nvcc, none by CMake):
// checked CUDA calls, device buffers of random floats, a grid of one wave of resident blocks,
// and two ways of the same work timed alternately.
#include "kernels/common.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                      \
                         cudaGetErrorString(e_));                                               \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

/// n floats on the device.
struct Buf {
    float* p = nullptr;
    std::size_t n = 0;
    gsr::gpu::kernels::MatRef<float> mat(std::uint32_t rows, std::uint32_t cols) const
    {
        return {p, rows, cols, cols};
    }
};

/// n normal floats of standard deviation `scale`.
inline Buf dev_random(std::size_t n, std::mt19937& rng, float scale)
{
    std::normal_distribution<float> nd(0.f, scale);
    std::vector<float> h(n);
    for (auto& v : h) v = nd(rng);
    Buf b{nullptr, n};
    CK(cudaMalloc(&b.p, n * sizeof(float)));
    CK(cudaMemcpy(b.p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return b;
}

/// Overwrites b with 1 + N(0, 0.1) (LayerNorm scales near one).
inline void fill_near_one(Buf& b, std::mt19937& rng)
{
    std::vector<float> h(b.n, 1.f);
    for (auto& v : h) v += 0.1f * std::normal_distribution<float>(0.f, 1.f)(rng);
    CK(cudaMemcpy(b.p, h.data(), b.n * sizeof(float), cudaMemcpyHostToDevice));
}

/// A kernel variant with the name its figures are printed under.
template <class Kernel> struct Named {
    const char* name;
    Kernel kernel;
};

/// Two zeroed unsigned on the device: the counters aggregate_products takes rows from
/// (for_taken_strips zeroes them again at the end of each launch).
inline unsigned* device_counters()
{
    unsigned* c = nullptr;
    CK(cudaMalloc(&c, 2 * sizeof(unsigned)));
    CK(cudaMemset(c, 0, 2 * sizeof(unsigned)));
    return c;
}

/// Whether two downloads hold the same bits.
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

inline std::vector<float> download(const Buf& b)
{
    std::vector<float> h(b.n);
    CK(cudaMemcpy(h.data(), b.p, b.n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
}

/// Blocks of `threads` that `kernel` keeps resident on `sms` SMs at once.
template <class Kernel> unsigned wave(Kernel kernel, int threads, std::size_t shared, int sms)
{
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
    return unsigned(std::max(per_sm, 1) * sms);
}

inline int sm_count()
{
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    return sms;
}

/// The grid training launches for `kernel` (blocks of 256 threads, `shared` bytes of dynamic
/// shared memory, allowed here): one wave of resident blocks, or fewer where `rows` at
/// `rows_per_block` a block need fewer.
template <class Kernel>
unsigned resident_grid(Kernel kernel, std::size_t shared, std::size_t rows, int rows_per_block,
                       int sms)
{
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
    const std::size_t needed = (rows + rows_per_block - 1) / rows_per_block;
    return unsigned(std::min<std::size_t>(wave(kernel, 256, shared, sms), needed));
}

/// `out` after `run()` (which writes it), poisoned first.
template <class Run> std::vector<float> poisoned_output(const Buf& out, Run&& run)
{
    CK(cudaMemset(out.p, 0xff, out.n * sizeof(float)));
    run();
    CK(cudaDeviceSynchronize());
    return download(out);
}

/// Milliseconds per item of two ways of the same `items` items (launch(way, item) queues one
/// on `stream`), alternating way 0 and way 1 for 8 rounds, the first dropped: sorted, so the
/// median is [3].
struct TwoWays {
    std::vector<double> first, second;
};
template <class Launch>
TwoWays time_two_ways(int items, Launch&& launch, cudaStream_t stream = nullptr)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    TwoWays t;
    for (int round = 0; round < 8; ++round) {
        for (int way = 0; way < 2; ++way) {
            CK(cudaEventRecord(e0, stream));
            for (int i = 0; i < items; ++i) launch(way, i);
            CK(cudaEventRecord(e1, stream));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (round > 0) (way ? t.second : t.first).push_back(ms / items);
        }
    }
    std::sort(t.first.begin(), t.first.end());
    std::sort(t.second.begin(), t.second.end());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return t;
}

/// `first()` against `second()` (each queuing one item), alternating (time_two_ways) over
/// `items` items; prints the medians as "label: per `item` (median of 7): first_name X ms,
/// second_name Y ms, ratio X / Y".
template <class First, class Second>
void print_two_ways(const char* label, const char* item, const char* first_name,
                    const char* second_name, int items, First&& first, Second&& second)
{
    const TwoWays t = time_two_ways(items, [&](int way, int) {
        if (way == 0)
            first();
        else
            second();
    });
    std::printf("%s: per %s (median of 7): %s %.4f ms, %s %.4f ms, ratio %.3fx\n", label, item,
                first_name, t.first[3], second_name, t.second[3], t.first[3] / t.second[3]);
}
