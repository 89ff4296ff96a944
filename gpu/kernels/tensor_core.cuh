#pragma once
// FP32 products on the tensor cores at about FP32's precision (3xTF32): each operand is split
// into a TF32 part and the TF32 part of its remainder, and a b is taken as
// a_big b_small + a_small b_big + a_big b_big, dropping a_small b_small (about 2^-22 of a b).
// One m16n8k8 tile a warp; fragment coordinates (PTX ISA, mma.m16n8k8 .tf32), with
// gid = lane / 4 and tig = lane % 4:
//   A (16 x 8, row): a0 (gid, tig), a1 (gid + 8, tig), a2 (gid, tig + 4), a3 (gid + 8, tig + 4)
//   B (8 x 8, col):  b0 (tig, gid), b1 (tig + 4, gid)
//   C (16 x 8):      c0 (gid, 2 tig), c1 (gid, 2 tig + 1), c2 (gid + 8, 2 tig),
//                    c3 (gid + 8, 2 tig + 1)
#include <cstdint>

namespace gsr::gpu::kernels {

/// x rounded to TF32 (to nearest, ties away from zero) as the bits mma reads.
__device__ inline std::uint32_t round_tf32(float x)
{
    return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}
/// x cut to TF32 (the low 13 bits dropped).
__device__ inline std::uint32_t cut_tf32(float x) { return __float_as_uint(x) & 0xffffe000u; }

/// x as big + small TF32 parts: big rounded, small = x - big (exact in FP32) cut, so
/// big + small is within 2^-21 |x| of x.
__device__ inline void split_tf32(float x, std::uint32_t& big, std::uint32_t& small)
{
    big = round_tf32(x);
    small = cut_tf32(x - __uint_as_float(big));
}

/// N values as big and small TF32 parts.
template <int N> struct Tf32Split {
    std::uint32_t big[N], small[N];
    __device__ Tf32Split() = default;
    __device__ explicit Tf32Split(const float (&x)[N])
    {
#pragma unroll
        for (int i = 0; i < N; ++i) split_tf32(x[i], big[i], small[i]);
    }
};

/// c += a b for one m16n8k8 tile of TF32 operands.
__device__ inline void mma_tf32(float (&c)[4], const std::uint32_t (&a)[4],
                                const std::uint32_t (&b)[2])
{
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    // Built for an older GPU as well: the backend never launches these kernels there.
    __trap();
#endif
}

/// c += a b for one m16n8k8 tile at about FP32's precision: the small cross terms first.
__device__ inline void mma_3xtf32(float (&c)[4], const Tf32Split<4>& a, const Tf32Split<2>& b)
{
    mma_tf32(c, a.big, b.small);
    mma_tf32(c, a.small, b.big);
    mma_tf32(c, a.big, b.big);
}

// ---- Hopper's asynchronous warpgroup MMA (sm_90a only) ---------------------------------------
// wgmma reads B (and A, or A from registers) as TF32 from shared memory, K-major, as core
// matrices of 8 rows x 4 words (128 contiguous bytes); a matrix descriptor gives the start, the
// byte step between cores along K (leading) and between 8-row groups (stride), here without
// swizzling. A in registers has mma.m16n8k8's A layout per warp, warp w holding rows 16 w..;
// the accumulator of m64nNk8 is mma.m16n8's C layout per warp, the same rows, and N / 8 tiles
// of 8 columns: d[4 i .. 4 i + 3] for columns 8 i.. . The registers that a wgmma in flight
// reads or writes must not change until a wait covers it (ptxas serialises the wgmma, C7511,
// where it cannot keep them apart).
// Built only for the sm_90a target; anywhere else these trap, and the backend never calls
// them there.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GSR_WGMMA 1
#endif

/// The descriptor of a K-major operand at `p` (shared memory, 16-byte aligned): `along_k`
/// bytes from a core to the next along K, `along_rows` from an 8-row group to the next.
__device__ inline std::uint64_t wgmma_descriptor(const void* p, unsigned along_k,
                                                 unsigned along_rows)
{
    const unsigned at = unsigned(__cvta_generic_to_shared(p));
    return std::uint64_t((at >> 4) & 0x3fff) | std::uint64_t((along_k >> 4) & 0x3fff) << 16 |
           std::uint64_t((along_rows >> 4) & 0x3fff) << 32;
}

/// Makes this thread's shared-memory writes visible to the asynchronous proxy (wgmma).
__device__ inline void fence_async_shared()
{
#ifdef GSR_WGMMA
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
/// Orders this thread's register accesses (accumulators, A fragments) before the next wgmma.
__device__ inline void wgmma_fence()
{
#ifdef GSR_WGMMA
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
/// Closes the group of wgmma issued so far (wgmma_wait then waits for the groups).
__device__ inline void wgmma_commit()
{
#ifdef GSR_WGMMA
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
/// Waits until at most InFlight groups of wgmma are still in flight (0: every group done).
template <int InFlight> __device__ inline void wgmma_wait()
{
#ifdef GSR_WGMMA
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(InFlight) : "memory");
#endif
}

/// Tells the compiler the accumulators change here (a wgmma in flight writes them), so it
/// neither reads them early nor moves them while one is.
template <int N> __device__ inline void wgmma_registers(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/// d += a b, one warpgroup's m64n64k8 with A (TF32) from registers, in mma.m16n8k8's A layout
/// per warp (warp w holding rows 16 w..), and B given by a descriptor.
__device__ inline void wgmma_m64n64k8_tf32_rs(float (&d)[32], const std::uint32_t (&a)[4],
                                              std::uint64_t b)
{
#ifdef GSR_WGMMA
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "{%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
          "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
          "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b)
        : "memory");
#else
    __trap(); // as mma_tf32
#endif
}

/// d += a b at about FP32's precision (3xTF32, the small cross terms first, as mma_3xtf32):
/// A's parts from registers, B's big and small parts given by descriptors.
__device__ inline void wgmma_m64n64k8_3xtf32(float (&d)[32], const Tf32Split<4>& a,
                                             std::uint64_t b_big, std::uint64_t b_small)
{
    wgmma_m64n64k8_tf32_rs(d, a.big, b_small);
    wgmma_m64n64k8_tf32_rs(d, a.small, b_big);
    wgmma_m64n64k8_tf32_rs(d, a.big, b_big);
}

} // namespace gsr::gpu::kernels
