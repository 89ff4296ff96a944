// PROBE (session 22; not built by CMake, kept so that docs/BENCHMARKS.md's figures can be
// re-made): on hyp's CSR at d 64, the backward's transposed gather g = S^T dy as training runs
// it (spmm<float, 4>, 16 lanes a row, each lane's loads in registers) against the same sums
// with the neighbours' rows copied to shared memory by Hopper's bulk copies
// (cp.async.bulk, one 256-byte row an edge, completing on an mbarrier), so that the bytes in
// flight are bounded by shared memory rather than by registers. A warp takes T consecutive
// rows at a time from a counter (as aggregate_products does), streams their edges through a
// ring of S stages of E edges (lane i issues edge i's copy), and sums each row's edges in CSR
// order, two columns a lane: the same adds in the same order as spmm, so the same bits
// (checked, output poisoned). Each configuration against spmm, alternating, 224 gathers a
// round, 8 rounds (the first dropped), median. On the device machine, after `cmake --build
// build/device --target gsr_core` (see .ci/device.sh for the configure line):
//   nvcc -std=c++20 -O3 -arch=sm_90a -I core -I gpu --expt-relaxed-constexpr \
//        docs/probes/bulk_gather_probe.cu build/device/lib/libgsr_core.a -lz -o /tmp/bulk_probe
//   /tmp/bulk_probe HYP.blif 224
#include "kernels/graph.cuh"
#include "probe_graph.cuh"

using namespace gsr;
namespace k = gsr::gpu::kernels;

constexpr int kD = 64;
constexpr unsigned kAll = 0xffffffffu;
constexpr unsigned kRowBytes = kD * 4;

__device__ inline unsigned shared_address(const void* p)
{
    return unsigned(__cvta_generic_to_shared(p));
}

__device__ inline void barrier_init(std::uint64_t* bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(bar)) : "memory");
}

/// One arrival on `bar` that also expects `bytes` of bulk copies to complete on it.
__device__ inline void arrive_expecting(std::uint64_t* bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                     shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}

/// `bytes` from global `src` to shared `dst`, completing on `bar`.
__device__ inline void bulk_copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}

__device__ inline void wait_phase(std::uint64_t* bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n"
                 "}\n" ::"r"(shared_address(bar)),
                 "r"(parity)
                 : "memory");
}

/// Shared memory of a block of W warps with S stages of E edges each.
template <int W, int S, int E> constexpr std::size_t bulk_shared_bytes()
{
    return std::size_t(W) * S * E * (kRowBytes + 4) + std::size_t(W) * S * 8;
}

/// y = S x at 64 columns (rows' sums scaled by rs, as spmm with alpha 1 and beta 0).
template <int W, int S, int E, int T>
__global__ void __launch_bounds__(W * 32)
    bulk_gather(k::CsrRef<float> s, k::MatRef<float> x, k::MatRef<float> y, unsigned* counter)
{
    static_assert(S <= 32 && E <= 32 && T < 32, "stages' records and a take's offsets in lanes");
    extern __shared__ __align__(128) unsigned char shared[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float2* const rows = reinterpret_cast<float2*>(shared) + std::size_t(warp) * S * E * 32;
    float* const scales =
        reinterpret_cast<float*>(shared + std::size_t(W) * S * E * kRowBytes) + warp * S * E;
    std::uint64_t* const bars =
        reinterpret_cast<std::uint64_t*>(shared + std::size_t(W) * S * E * (kRowBytes + 4)) +
        warp * S;
    if (lane < S) barrier_init(bars + lane);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncwarp();

    const std::uint32_t n = y.rows;
    const unsigned warps = gridDim.x * W;
    // The producer: the take whose edges it is copying, [p_e, p_end) of them left.
    std::uint32_t p_r0 = 0, p_r1 = 0;
    std::uint64_t p_e = 0, p_end = 0;
    bool p_done = false;
    const auto take = [&](std::size_t t) {
        p_done = t * T >= n;
        if (p_done) return;
        p_r0 = std::uint32_t(t * T), p_r1 = std::uint32_t(min(std::size_t(n), t * T + T));
        p_e = s.offsets[p_r0], p_end = s.offsets[p_r1];
    };
    take(blockIdx.x * std::size_t(W) + warp);
    // Stage i's record in lane i: its take's rows, its edges, whether they end the take.
    std::uint32_t m_r0 = 0, m_r1 = 0;
    std::uint64_t m_eb = 0, m_ee = 0;
    bool m_last = false, m_done = false;
    const auto fill = [&](int st) {
        if (lane == st) m_done = p_done;
        if (p_done) return;
        const unsigned count = unsigned(min(p_end - p_e, std::uint64_t(E)));
        if (lane == 0) arrive_expecting(bars + st, count * kRowBytes);
        __syncwarp();
        if (lane < count) {
            const std::uint32_t j = __ldg(s.targets + p_e + lane);
            scales[st * E + lane] = __ldg(s.cs + j);
            bulk_copy(rows + std::size_t(st * E + lane) * 32, x.p + std::size_t(j) * x.ld,
                      kRowBytes, bars + st);
        }
        if (lane == st) m_r0 = p_r0, m_r1 = p_r1, m_eb = p_e, m_ee = p_e + count;
        p_e += count;
        if (lane == st) m_last = p_e == p_end;
        if (p_e == p_end) {
            unsigned t = 0;
            if (lane == 0) t = atomicAdd(counter, 1u);
            take(std::size_t(warps) + __shfl_sync(kAll, t, 0));
        }
    };
    for (int st = 0; st < S; ++st) fill(st);

    // The consumer: the take it is summing (lane i holds offsets[c_r0 + i] and rs[c_r0 + i]),
    // its row c_r, whose edges end at c_end.
    std::uint32_t c_r0 = 0xffffffffu, c_r1 = 0, c_r = 0;
    std::uint64_t c_off = 0, c_end = 0;
    float c_rs = 0.f;
    float2 acc = make_float2(0.f, 0.f);
    const auto finish_row = [&] {
        const float scale = __shfl_sync(kAll, c_rs, int(c_r - c_r0));
        reinterpret_cast<float2*>(y.row(c_r))[lane] = make_float2(acc.x * scale, acc.y * scale);
        acc = make_float2(0.f, 0.f);
        ++c_r;
        if (c_r < c_r1) c_end = __shfl_sync(kAll, c_off, int(c_r - c_r0 + 1));
    };
    unsigned phases = 0;
    for (int st = 0;; st = st + 1 == S ? 0 : st + 1) {
        if (__shfl_sync(kAll, m_done, st)) break;
        const std::uint32_t r0 = __shfl_sync(kAll, m_r0, st);
        const std::uint64_t eb = __shfl_sync(kAll, m_eb, st), ee = __shfl_sync(kAll, m_ee, st);
        const bool last = __shfl_sync(kAll, m_last, st);
        if (r0 != c_r0) {
            c_r0 = r0, c_r1 = __shfl_sync(kAll, m_r1, st), c_r = r0;
            const std::uint32_t count = c_r1 - c_r0;
            c_off = lane <= count ? s.offsets[c_r0 + lane] : 0;
            c_rs = lane < count ? s.rs[c_r0 + lane] : 0.f;
            c_end = __shfl_sync(kAll, c_off, 1);
        }
        wait_phase(bars + st, (phases >> st) & 1u);
        phases ^= 1u << st;
        const float2* const stage = rows + std::size_t(st) * E * 32;
        const float* const w = scales + st * E;
        for (std::uint64_t q = eb; q < ee; ++q) {
            while (q == c_end) finish_row();
            const float2 v = stage[(q - eb) * 32 + lane];
            const float wq = w[q - eb];
            acc.x += wq * v.x;
            acc.y += wq * v.y;
        }
        if (last)
            while (c_r < c_r1) finish_row();
        __syncwarp(); // every lane is done with the stage
        fill(st);
    }
    if (lane == 0) {
        __threadfence();
        if (atomicAdd(counter + 1, 1u) == warps - 1) {
            counter[0] = 0;
            counter[1] = 0;
        }
    }
}

using Kernel = void (*)(k::CsrRef<float>, k::MatRef<float>, k::MatRef<float>, unsigned*);
struct Config {
    const char* name;
    Kernel kernel;
    int threads;
    std::size_t shared;
};
template <int W, int S, int E, int T> Config config(const char* name)
{
    return {name, bulk_gather<W, S, E, T>, W * 32, bulk_shared_bytes<W, S, E>()};
}

int main(int argc, char** argv)
{
    ProbeStart start = probe_start(argc, argv, 22);
    auto& [graph, functions, rng, x0, ys] = start;
    const k::CsrRef<float> st = graph.st;
    const std::uint32_t n = graph.n;
    const std::size_t nd = std::size_t(n) * kD;
    Buf dy = dev_random(nd, rng, 0.01f), g = dev_random(nd, rng, 1.f);
    unsigned* const counter = device_counters();
    const int sms = sm_count();
    const unsigned spmm_blocks = k::blocks_for(n, 256 / 16, unsigned(sms) * 32);
    const auto spmm = [&] {
        k::spmm<float, 4><<<spmm_blocks, 256>>>(st, 1.f, dy.mat(n, kD), 0.f, g.mat(n, kD), 16);
    };
    const auto g_ref = poisoned_output(g, spmm);
    const int only = argc > 3 ? std::atoi(argv[3]) : -1;
    const Config configs[] = {
        config<4, 2, 32, 16>("W 4, S 2, E 32, T 16"), config<4, 2, 32, 8>("W 4, S 2, E 32, T 8"),
        config<2, 2, 32, 16>("W 2, S 2, E 32, T 16"), config<2, 3, 32, 16>("W 2, S 3, E 32, T 16"),
        config<4, 4, 16, 16>("W 4, S 4, E 16, T 16"), config<8, 2, 16, 8>("W 8, S 2, E 16, T 8"),
        config<1, 6, 32, 24>("W 1, S 6, E 32, T 24"), config<4, 1, 32, 8>("W 4, S 1, E 32, T 8")};
    int vi = -1;
    for (const Config& c : configs) {
        if (only >= 0 && only != ++vi) continue;
        CK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(c.shared)));
        const unsigned blocks = wave(c.kernel, c.threads, c.shared, sms);
        const auto run = [&] {
            c.kernel<<<blocks, c.threads, c.shared>>>(st, dy.mat(n, kD), g.mat(n, kD), counter);
        };
        // Twice: the counter the first launch leaves must serve the second.
        const bool same = same_bits(g_ref, poisoned_output(g, run));
        const bool again = same_bits(g_ref, poisoned_output(g, run));
        cudaFuncAttributes fa{};
        CK(cudaFuncGetAttributes(&fa, c.kernel));
        std::printf("%s: bits equal %d (again %d), %d regs, %zu B shared, %u blocks (%u an SM)\n",
                    c.name, same, again, fa.numRegs, c.shared, blocks, blocks / unsigned(sms));
        print_two_ways(c.name, "gather", "spmm", "bulk", functions, spmm, run);
    }
    return 0;
}
