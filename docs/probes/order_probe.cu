// PROBE (session 20; not built by CMake): the order in which the select walks its rows. In a
// chain of F group functions on hyp's CSR at d 64, k 16 (the select + product, then the
// aggregation, which takes its strips from row 0 up), training's select (rows from the last
// down, since session 20: its last rows of u and of the kept entries are the ones the
// aggregation reads first, while L2 still holds them) against the same select walking its
// rows from row 0 up (as before); each way also with the aggregation's residual and y read and
// written without its evict-first hints. Same bits (checked, outputs poisoned). On the device
// machine, after `cmake --build build/device --target gsr_core`:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/order_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/order_probe
//   /tmp/order_probe HYP.blif 224
#include "kernels/compressed.cuh"
#include "kernels/rows.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 20);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> s = graph.s;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    const GroupFunctionKernels gf(n, rng);
    const auto ascending = k::normalize_topk_pack_lanes<4, I, true, false>;
    const unsigned blocks = resident_grid(ascending, gf.select_shared, n, 64, sm_count());
    const auto select_up = [&](const Buf& x) {
        ascending<<<blocks, 256, gf.select_shared>>>(
            x.mat(n, kD), gf.gamma.p, gf.beta.p, nullptr, 0, 0, 1.f, 0.6744898f,
            gf.stats.mat(n, 2), gf.vals.mat(n, kK), gf.idx, gf.w.mat(kD, kD), gf.u.mat(n, kD));
    };
    std::printf("select grid %u (training's %u)\n", blocks, gf.select_blocks);
    const std::vector<float> y_start = download(ys[0]);
    // y, u and the kept values after one function, the select either way.
    const auto outputs = [&](bool up) {
        CK(cudaMemcpy(ys[0].p, y_start.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(gf.u.p, 0xff, nd * 4));
        CK(cudaMemset(gf.vals.p, 0xff, std::size_t(n) * kK * 4));
        if (up)
            select_up(x0);
        else
            gf.select(x0);
        gf.aggregate(s, ys[0]);
        CK(cudaDeviceSynchronize());
        std::vector<float> out = download(ys[0]), u = download(gf.u), v = download(gf.vals);
        out.insert(out.end(), u.begin(), u.end());
        out.insert(out.end(), v.begin(), v.end());
        return out;
    };
    std::printf("select from row 0 up: bits equal %d\n", same_bits(outputs(false), outputs(true)));
    for (bool streaming : {true, false}) {
        const auto aggregate = [&](const Buf& y) {
            k::GemmEpilogue<I> ep = gf.epilogue(y);
            ep.streaming = streaming;
            gf.aggregate(s, ep, y.mat(n, kD));
        };
        const TwoWays t = time_two_ways(functions, [&](int way, int f) {
            if (way == 0)
                gf.select(ys[(f + 1) & 1]);
            else
                select_up(ys[(f + 1) & 1]);
            aggregate(ys[f & 1]);
        });
        std::printf("aggregation evict-first %d: per function (select + aggregation, median of "
                    "7): select's rows from the last down (training) %.4f ms, from row 0 up "
                    "%.4f ms, ratio %.3fx\n",
                    int(streaming), t.first[3], t.second[3], t.second[3] / t.first[3]);
    }
    return 0;
}
