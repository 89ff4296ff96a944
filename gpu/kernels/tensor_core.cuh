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

} // namespace gsr::gpu::kernels
