// PROBE (session 20; not built by CMake): aggregate_products<16, 1, I> (the compressed
// forward's aggregation, a warp's strips of four rows taken from a counter) with its strips'
// latency chain shortened: the take from the counter, the next strip's offsets and row scales,
// and its window of targets and column scales requested while this strip is summed, instead of
// one after the other when it starts. Modes: 0 the chain as training runs it (through this
// code), 1 the next take requested at a strip's start, 2 also the next strip's offsets and row
// scales, 3 also the window of the strip after (its targets at the strip's start, their
// column scales between the two row pairs, stored to the other of two windows after). Same
// sums, same bits (checked, outputs poisoned). A chain of F functions (select + product, then
// the aggregation), alternating with training's kernel. On the device machine, after `cmake
// --build build/device --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/pipeline_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/pipeline_probe
//   /tmp/pipeline_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64;
constexpr int kWarps = 8; ///< warps a block of 256 threads
constexpr int kTake = 4;  ///< rows a strip

template <int Mode, int MinBlocks>
__global__ void __launch_bounds__(256, MinBlocks)
    aggregate_pipelined(k::CsrRef<float> s, k::MatRef<float> u, k::GemmEpilogue<I> ep,
                        k::MatRef<float> y, unsigned* counter)
{
    constexpr unsigned kAll = 0xffffffffu;
    extern __shared__ float4 probe_shared[];
    __shared__ std::uint32_t window_j[2][kWarps][k::kStripEdges];
    __shared__ float window_w[2][kWarps][k::kStripEdges];
    float* const wr = stage_root_weights(ep, reinterpret_cast<float*>(probe_shared));
    const int warp = threadIdx.x >> 5, half = (threadIdx.x & 31) >> 4, lane = threadIdx.x & 31;
    const std::uint32_t c0 = 4 * (threadIdx.x & 15);
    const std::size_t rows = y.rows;
    const unsigned warps = gridDim.x * kWarps;
    const auto count_of = [&](std::size_t take) {
        return take * kTake < rows ? int(min(std::size_t(kTake), rows - take * kTake)) : 0;
    };
    struct Header {
        std::uint64_t offset = 0;
        float scale = 0.f;
    };
    const auto header = [&](std::size_t take) {
        const int count = count_of(take);
        Header h;
        if (count > 0) {
            h.offset = lane <= count ? s.offsets[take * kTake + lane] : 0;
            h.scale = lane < count ? s.rs[take * kTake + lane] : 0.f;
        }
        return h;
    };
    const auto strip_of = [&](const Header& h, int count) {
        k::Strip st;
        st.offset = h.offset;
        st.scale = h.scale;
        st.first = __shfl_sync(kAll, h.offset, 0);
        const std::uint64_t last = __shfl_sync(kAll, h.offset, count);
        st.held = std::uint32_t(min(last - st.first, std::uint64_t(k::kStripEdges)));
        return st;
    };
    const auto fill_window = [&](const k::Strip& st, int b) {
        __syncwarp();
        for (std::uint32_t q = lane; q < st.held; q += 32) {
            const std::uint32_t j = __ldg(s.targets + st.first + q);
            window_j[b][warp][q] = j;
            window_w[b][warp][q] = __ldg(s.cs + j);
        }
        __syncwarp();
    };
    const auto pass = [&](const k::Strip& st, std::size_t r0, int count, int p, int b) {
        const int i = p + half;
        const bool valid = i < count;
        const k::StripRow row = st.row(i, valid);
        float acc[4];
        k::strip_sum<4>(s, st, row, r0 + i, valid, u.p + c0, u.ld, window_j[b][warp],
                        window_w[b][warp], acc);
        if (valid) {
            for (int c = 0; c < 4; ++c) acc[c] *= row.scale;
            k::conv_epilogue4(acc, r0 + i, c0, ep, wr + c0, 64, y);
        }
    };
    const auto taken = [&](unsigned t) { return std::size_t(warps) + __shfl_sync(kAll, t, 0); };

    std::size_t cur = blockIdx.x * std::size_t(kWarps) + warp; // the first take by place
    int count = count_of(cur);
    if (count > 0) {
        Header h = header(cur);
        k::Strip st = strip_of(h, count);
        int b = 0;
        fill_window(st, b);
        unsigned t = 0;
        if (lane == 0) t = atomicAdd(counter, 1u);
        std::size_t nxt = taken(t);
        Header hn = Mode >= 2 ? header(nxt) : Header{};
        std::size_t nnx = 0;
        if (Mode >= 3) {
            if (lane == 0) t = atomicAdd(counter, 1u);
            nnx = taken(t);
        }
        while (count > 0) {
            const int ncount = count_of(nxt);
            if (Mode >= 1 && lane == 0) t = atomicAdd(counter, 1u);
            Header hnn;
            std::uint32_t tj[4];
            float tw[4];
            k::Strip sn;
            if (Mode >= 3) {
                hnn = header(nnx);
                if (ncount > 0) sn = strip_of(hn, ncount);
                for (int m = 0; m < 4; ++m) {
                    const std::uint32_t q = lane + 32 * m;
                    tj[m] = ncount > 0 && q < sn.held ? __ldg(s.targets + sn.first + q) : 0;
                }
            }
            pass(st, cur * kTake, count, 0, b);
            if (Mode >= 3)
                for (int m = 0; m < 4; ++m) {
                    const std::uint32_t q = lane + 32 * m;
                    tw[m] = ncount > 0 && q < sn.held ? __ldg(s.cs + tj[m]) : 0.f;
                }
            pass(st, cur * kTake, count, 2, b);
            if (Mode == 0 && lane == 0) t = atomicAdd(counter, 1u);
            if (ncount == 0) break;
            if (Mode >= 3) {
                __syncwarp();
                for (int m = 0; m < 4; ++m) {
                    const std::uint32_t q = lane + 32 * m;
                    if (q < sn.held) {
                        window_j[b ^ 1][warp][q] = tj[m];
                        window_w[b ^ 1][warp][q] = tw[m];
                    }
                }
                __syncwarp();
                b ^= 1;
                st = sn;
                cur = nxt, count = ncount;
                nxt = nnx, hn = hnn;
                nnx = taken(t);
                continue;
            }
            cur = nxt, count = ncount;
            h = Mode >= 2 ? hn : header(cur);
            st = strip_of(h, count);
            fill_window(st, b);
            nxt = taken(t);
            if (Mode >= 2) hn = header(nxt);
        }
    }
    if (lane == 0) {
        __threadfence();
        if (atomicAdd(counter + 1, 1u) == warps - 1) {
            counter[0] = 0;
            counter[1] = 0;
        }
    }
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 20);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    const GroupFunctionKernels gf(n, rng);
    const int sms = sm_count();
    const std::vector<float> y_start = download(ys[0]);
    const auto reset = [&] {
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
    };
    using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, k::GemmEpilogue<I>,
                            k::MatRef<float>, unsigned*);
    const Named<Kernel> variants[] = {
        {"mode 0 (as now), 5 blocks", aggregate_pipelined<0, 5>},
        {"mode 1 (take early), 5 blocks", aggregate_pipelined<1, 5>},
        {"mode 1, 4 blocks", aggregate_pipelined<1, 4>},
        {"mode 2 (take + header early), 5 blocks", aggregate_pipelined<2, 5>},
        {"mode 2, 4 blocks", aggregate_pipelined<2, 4>},
        {"mode 3 (take, header, window early), 5 blocks", aggregate_pipelined<3, 5>},
        {"mode 3, 4 blocks", aggregate_pipelined<3, 4>},
        {"mode 3, 3 blocks", aggregate_pipelined<3, 3>}};
    reset();
    const auto y_ref = one_function(gf, s, x0, ys[0]);
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    int vi = -1;
    for (const Named<Kernel>& v : variants) {
        if (only >= 0 && only != ++vi) continue;
        const unsigned blocks = resident_grid(v.kernel, gf.agg_shared, n, 16, sms);
        const auto run = [&](const Buf& y) {
            v.kernel<<<blocks, 256, gf.agg_shared>>>(s, gf.u.mat(n, kD), gf.epilogue(y),
                                                     y.mat(n, kD), gf.counters);
        };
        reset();
        gf.select(x0);
        run(ys[0]);
        CK(cudaDeviceSynchronize());
        cudaFuncAttributes fa{}, pa{};
        CK(cudaFuncGetAttributes(&fa, v.kernel));
        CK(cudaFuncGetAttributes(&pa, gf.aggregate_kernel()));
        std::printf("%s: bits equal %d, %d regs %zu local (aggregate_products %d), %u blocks "
                    "(%u)\n",
                    v.name, same_bits(y_ref, download(ys[0])), fa.numRegs, fa.localSizeBytes,
                    pa.numRegs, blocks, gf.agg_blocks);
        compare_aggregations(v.name, gf, functions, ys, [&](const Buf& y) { gf.aggregate(s, y); },
                             run);
    }
    return 0;
}
