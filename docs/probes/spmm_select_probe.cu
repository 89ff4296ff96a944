// PROBE (session 21; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): whether a reversible block's backward could run the next group function's select
// + product (normalize_topk_pack_lanes<4, uint8, true, true>: bound by its instructions, a
// grid of one wave) beside the current function's transposed gather g = S^T dy (spmm<float,
// 4>, 16 threads a row: bound by its gathers, a grid of many waves), which it does not depend
// on, on two streams. Session 18's overlap_probe paired the select with the top-k backward,
// whose grid is one wave as well, and found 1.04x; here the gather's blocks retire one by one
// and the select's may take their place. On hyp's CSR at d 64, k 16, a chain of F pairs, each
// variant alternating with the two kernels one after the other on one stream (as training
// runs them), 8 rounds (the first dropped), median. Outputs compared bit for bit (poisoned
// first). On the device machine (after `bash .ci/device.sh build` for gsr_core):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/spmm_select_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/ssp
//   /tmp/ssp [NETLIST (hyp)] [FUNCTIONS (224)]
#include "kernels/graph.cuh"
#include "probe_graph.cuh"

#include <cstring>

namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 21);
    auto& [a, functions, rng, x, ys] = start;
    const Buf& dy = ys[0];
    const std::uint32_t n = a.n;
    const std::size_t nd = std::size_t(n) * kD, nk = std::size_t(n) * kK;
    Buf g{nullptr, nd}, u{nullptr, nd}, vals{nullptr, nk};
    CK(cudaMalloc(&g.p, nd * 4));
    CK(cudaMalloc(&u.p, nd * 4));
    CK(cudaMalloc(&vals.p, nk * 4));
    Buf stats = dev_random(2 * std::size_t(n), rng, 1.f), w = dev_random(kD * kD, rng, 0.125f);
    Buf gamma = dev_random(kD, rng, 0.1f), beta = dev_random(kD, rng, 0.1f);
    fill_near_one(gamma, rng);
    I* idx;
    CK(cudaMalloc(&idx, nk));
    const int sms = sm_count();

    const auto select_kernel = k::normalize_topk_pack_lanes<4, I, true, true>;
    const std::size_t select_shared = k::topk_product_shared_bytes(kD, kK, 4);
    const unsigned full_select = resident_grid(select_kernel, select_shared, n, 64, sms);
    const int tpr = 16; // threads a row of 64 columns, four a thread (threads_per_row)
    const unsigned spmm_blocks = k::blocks_for(n, k::kThreads / tpr, unsigned(sms) * 32);
    std::printf("select: %u blocks (%u an SM); spmm: %u blocks of %d rows\n", full_select,
                full_select / unsigned(sms), spmm_blocks, k::kThreads / tpr);

    int low = 0, high = 0;
    CK(cudaDeviceGetStreamPriorityRange(&low, &high));
    cudaStream_t s1, s2, s_high, s_low;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithPriority(&s_high, cudaStreamNonBlocking, high));
    CK(cudaStreamCreateWithPriority(&s_low, cudaStreamNonBlocking, low));
    cudaEvent_t joined;
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));

    const auto select = [&](cudaStream_t s, unsigned blocks) {
        const float quantile = 0.6744898f; // normal quantile of 1 - 16 / 64
        select_kernel<<<blocks, 256, select_shared, s>>>(
            x.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, stats.mat(n, 2),
            vals.mat(n, kK), idx, w.mat(kD, kD), u.mat(n, kD));
    };
    const auto gather = [&](cudaStream_t s) {
        k::spmm<float, 4><<<spmm_blocks, k::kThreads, 0, s>>>(a.st, 1.f, dy.mat(n, kD), 0.f,
                                                             g.mat(n, kD), tpr);
    };
    // Variant v: 0 one stream (the gather, then the select); 1 two streams of equal priority,
    // the gather launched first; 2 the select's stream at the higher priority; 3 the gather's
    // at the higher; 4 and 5 as 2 with the select's grid at 2 and 1 blocks an SM.
    const auto run_pair = [&](int v) {
        if (v == 0) {
            gather(s1);
            select(s1, full_select);
            return;
        }
        const cudaStream_t sg = v == 1 ? s1 : v == 3 ? s_high : s_low;
        const cudaStream_t ss = v == 1 ? s2 : v == 3 ? s_low : s_high;
        const unsigned blocks =
            v == 4 ? unsigned(2 * sms) : v == 5 ? unsigned(sms) : full_select;
        CK(cudaEventRecord(joined, s1));
        CK(cudaStreamWaitEvent(sg, joined));
        CK(cudaStreamWaitEvent(ss, joined));
        gather(sg);
        select(ss, blocks);
        CK(cudaEventRecord(joined, sg));
        CK(cudaStreamWaitEvent(s1, joined));
        CK(cudaEventRecord(joined, ss));
        CK(cudaStreamWaitEvent(s1, joined));
    };
    const auto poison = [&] {
        CK(cudaMemset(g.p, 0xff, nd * 4));
        CK(cudaMemset(u.p, 0xff, nd * 4));
        CK(cudaMemset(vals.p, 0xff, nk * 4));
        CK(cudaDeviceSynchronize());
    };
    poison();
    run_pair(0);
    CK(cudaDeviceSynchronize());
    const auto g_ref = download(g), u_ref = download(u), v_ref = download(vals);
    const char* names[] = {"", "two streams, equal priority", "select's stream higher",
                           "gather's stream higher", "select higher, 2 blocks an SM",
                           "select higher, 1 block an SM"};
    for (int v = 1; v <= 5; ++v) {
        poison();
        run_pair(v);
        CK(cudaDeviceSynchronize());
        const bool same = same_bits(g_ref, download(g)) && same_bits(u_ref, download(u)) &&
                          same_bits(v_ref, download(vals));
        const TwoWays t =
            time_two_ways(functions, [&](int way, int) { run_pair(way ? v : 0); }, s1);
        std::printf("%-32s bits %d: per pair one stream %.4f ms, two streams %.4f ms, "
                    "ratio %.3fx\n",
                    names[v], same, t.first[3], t.second[3], t.first[3] / t.second[3]);
    }
    for (int which = 0; which < 2; ++which) {
        const TwoWays t = time_two_ways(
            functions, [&](int, int) { which ? select(s1, full_select) : gather(s1); }, s1);
        std::printf("%s alone: %.4f ms\n", which ? "select + product" : "transposed gather",
                    t.first[3]);
    }
    return 0;
}
