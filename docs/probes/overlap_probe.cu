// PROBE (session 18; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): whether a reversible block's backward could overlap group function G's top-k
// backward (norm_backward_rows4<16, I>: memory-bound) with the recomputation's select +
// product of the next function F (normalize_topk_pack_lanes<4, I, true>: bound by its
// instructions), which does not depend on it, on two streams. hyp's shapes (214,591 rows,
// d 64, k 16, uint8 columns); rows only, no graph. A chain of F pairs, each way alternating,
// 8 rounds (the first dropped): the two kernels one after the other on one stream as
// training runs them, against both streams at once with the select's grid capped at S blocks
// an SM and the backward's at B (its slabs). Results are compared bit for bit (outputs
// poisoned). Last, each kernel alone (the A/B of session 18's select and top-k backward
// changes: the probe built twice, once with an include directory holding the previous
// kernels/rows.cuh ahead of gpu/, the two binaries run alternately). On the device machine:
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/overlap_probe.cu -o /tmp/overlap_probe
//   /tmp/overlap_probe 224
#include "kernels/rows.cuh"
#include "probe_support.cuh"

#include <cstring>

namespace k = gsr::gpu::kernels;
using I = std::uint8_t;

constexpr int kD = 64, kK = 16;
constexpr std::uint32_t kRows = 214591;

int main(int argc, char** argv)
{
    const int functions = argc > 1 ? std::atoi(argv[1]) : 224;
    const std::uint32_t n = kRows;
    const std::size_t nd = std::size_t(n) * kD, nk = std::size_t(n) * kK;
    std::mt19937 rng(18);
    // F's select: x_f in, stats, kept values and columns, u out. G's backward: its x, stats,
    // kept entries (from a select of x_g) and their gradient in, dx accumulated, partials out.
    Buf x_f = dev_random(nd, rng, 1.f), x_g = dev_random(nd, rng, 1.f);
    Buf st_f = dev_random(2 * std::size_t(n), rng, 1.f);
    Buf st_g = dev_random(2 * std::size_t(n), rng, 1.f);
    Buf v_f = dev_random(nk, rng, 1.f), v_g = dev_random(nk, rng, 1.f);
    Buf dv = dev_random(nk, rng, 1.f);
    Buf u = dev_random(nd, rng, 1.f), dx = dev_random(nd, rng, 0.01f);
    Buf w = dev_random(kD * kD, rng, 0.125f), gamma = dev_random(kD, rng, 0.1f),
        beta = dev_random(kD, rng, 0.1f);
    fill_near_one(gamma, rng);
    I *i_f, *i_g;
    CK(cudaMalloc(&i_f, nk));
    CK(cudaMalloc(&i_g, nk));
    const int sms = sm_count();
    const std::size_t max_slabs = std::size_t(sms) * 8;
    Buf partial{nullptr, max_slabs * 2 * kD};
    CK(cudaMalloc(&partial.p, partial.n * 4));

    const float quantile = 0.6744898f; // normal quantile of 1 - 16 / 64
    const auto select_kernel = k::normalize_topk_pack_lanes<4, I, true>;
    const std::size_t select_shared = k::topk_product_shared_bytes(kD, kK, 4);
    CK(cudaFuncSetAttribute(select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            int(select_shared)));
    int select_per_sm = 0, backward_per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&select_per_sm, select_kernel, 256,
                                                     select_shared));
    const auto backward_kernel = k::norm_backward_rows4<16, I>;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&backward_per_sm, backward_kernel, 256, 0));
    cudaFuncAttributes sa{}, ba{};
    CK(cudaFuncGetAttributes(&sa, select_kernel));
    CK(cudaFuncGetAttributes(&ba, backward_kernel));
    std::printf("select: %d regs, %zu B shared, %d blocks an SM; top-k backward: %d regs, "
                "%d blocks an SM; %d SMs\n",
                sa.numRegs, select_shared, select_per_sm, ba.numRegs, backward_per_sm, sms);

    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t joined;
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));

    const auto select = [&](cudaStream_t s, unsigned blocks) {
        select_kernel<<<blocks, 256, select_shared, s>>>(
            x_f.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, st_f.mat(n, 2),
            v_f.mat(n, kK), i_f, w.mat(kD, kD), u.mat(n, kD));
    };
    const auto backward = [&](cudaStream_t s, unsigned slabs) {
        k::KeptGradient<I> kept{dv.mat(n, kK), i_g, nullptr, 0, 0, 1.f};
        backward_kernel<<<slabs, 256, 0, s>>>(x_g.mat(n, kD), gamma.p, st_g.mat(n, 2),
                                              k::MatRef<float>{}, 1.f, dx.mat(n, kD),
                                              (n + slabs - 1) / slabs, partial.p,
                                              k::MatRef<float>{}, 1.f, k::ReluGateFromInput{},
                                              kept);
    };
    // G's kept entries and statistics, from its own select.
    select_kernel<<<unsigned(select_per_sm * sms), 256, select_shared, s1>>>(
        x_g.mat(n, kD), gamma.p, beta.p, nullptr, 0, 0, 1.f, quantile, st_g.mat(n, 2),
        v_g.mat(n, kK), i_g, w.mat(kD, kD), u.mat(n, kD));
    CK(cudaStreamSynchronize(s1));

    const unsigned full_select = unsigned(select_per_sm * sms);
    const unsigned full_slabs =
        unsigned(std::min<std::size_t>((n + 31) / 32, std::size_t(sms) * 4));
    // Bits: one pair each way, dx from the same start; the partials of the same slab count.
    const std::vector<float> dx0 = download(dx);
    const auto run_pair = [&](bool concurrent, unsigned sel_blocks, unsigned slabs) {
        if (!concurrent) {
            select(s1, sel_blocks);
            backward(s1, slabs);
            return;
        }
        CK(cudaEventRecord(joined, s1));
        CK(cudaStreamWaitEvent(s2, joined));
        select(s1, sel_blocks);
        backward(s2, slabs);
        CK(cudaEventRecord(joined, s2));
        CK(cudaStreamWaitEvent(s1, joined));
    };
    const auto poison = [&] {
        CK(cudaMemcpy(dx.p, dx0.data(), nd * 4, cudaMemcpyHostToDevice));
        CK(cudaMemset(u.p, 0xff, nd * 4));
        CK(cudaMemset(v_f.p, 0xff, nk * 4));
        CK(cudaMemset(partial.p, 0xff, partial.n * 4));
        CK(cudaDeviceSynchronize()); // the legacy stream's memsets before s1's and s2's work
    };
    poison();
    run_pair(false, full_select, full_slabs);
    CK(cudaDeviceSynchronize());
    const auto dx_ref = download(dx), u_ref = download(u), v_ref = download(v_f);
    const auto p_ref = download(partial);

    struct Cap {
        int select_per_sm, slabs_per_sm;
    };
    const Cap caps[] = {{3, 4}, {2, 4}, {2, 2}, {1, 4}, {1, 2}, {2, 1}};
    for (const Cap& c : caps) {
        const unsigned sel = unsigned(c.select_per_sm * sms);
        const unsigned slabs = unsigned(c.slabs_per_sm * sms);
        poison();
        run_pair(true, sel, full_slabs);
        CK(cudaDeviceSynchronize());
        const bool same = std::memcmp(dx_ref.data(), download(dx).data(), nd * 4) == 0 &&
                          std::memcmp(u_ref.data(), download(u).data(), nd * 4) == 0 &&
                          std::memcmp(v_ref.data(), download(v_f).data(), nk * 4) == 0 &&
                          std::memcmp(p_ref.data(), download(partial).data(),
                                      std::size_t(full_slabs) * 2 * kD * 4) == 0;
        const TwoWays t = time_two_ways(
            functions,
            [&](int way, int) {
                run_pair(way == 1, way ? sel : full_select, way ? slabs : full_slabs);
            },
            s1);
        const std::vector<double>& t_seq = t.first;
        const std::vector<double>& t_con = t.second;
        std::printf("select %d blocks an SM, backward %d slabs an SM (bits at full slabs equal "
                    "%d): per pair one stream %.4f ms, two streams %.4f ms, ratio %.3fx\n",
                    c.select_per_sm, c.slabs_per_sm, same, t_seq[3], t_con[3],
                    t_seq[3] / t_con[3]);
    }
    // Each kernel alone, for reference (the two ways are the same here).
    for (int which = 0; which < 2; ++which) {
        const TwoWays t = time_two_ways(
            functions,
            [&](int, int) { which ? backward(s1, full_slabs) : select(s1, full_select); }, s1);
        std::printf("%s alone: %.4f ms\n", which ? "top-k backward" : "select + product",
                    t.first[3]);
    }
    return 0;
}
