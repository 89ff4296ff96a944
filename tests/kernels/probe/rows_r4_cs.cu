// reduce_rows probe: a warp per 4 row(s), every float4 of them loaded before summing.
#define RPW 4
extern "C" __global__ void __launch_bounds__(256)
gsr_reduce_rows(const float* __restrict__ x, float* __restrict__ y, float alpha, int rows,
                int cols)
{
    if (cols != 1024) __trap();
    const int lane = threadIdx.x & 31;
    const long long r0 = ((long long)blockIdx.x * 8 + (threadIdx.x >> 5)) * RPW;
    if (r0 >= rows) return;
    float4 v[RPW][8];
#pragma unroll
    for (int k = 0; k < RPW; ++k) {
        const float4* p = reinterpret_cast<const float4*>(x + (r0 + k) * 1024);
#pragma unroll
        for (int i = 0; i < 8; ++i) v[k][i] = __ldcs(p + lane + 32 * i);
    }
#pragma unroll
    for (int k = 0; k < RPW; ++k) {
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; ++i) s += (v[k][i].x + v[k][i].y) + (v[k][i].z + v[k][i].w);
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) y[r0 + k] = s;
    }
}
