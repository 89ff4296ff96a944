// reduce_mean_wide probe: each row split over 16 blocks; partial sums in a module buffer,
// the last block of a row (counter) adds them in a fixed order and resets the counter.
#define S 16
__device__ float gsr_part[512 * S];
__device__ unsigned gsr_count[512];
extern "C" __global__ void __launch_bounds__(256)
gsr_reduce_rows(const float* __restrict__ x, float* __restrict__ y, float alpha, int rows,
                int cols)
{
    if (cols != 32768 || rows > 512) __trap();
    __shared__ float warp_sums[8];
    __shared__ bool last;
    const int row = blockIdx.x / S, part = blockIdx.x % S;
    const int per = 32768 / S;
    const float4* p = reinterpret_cast<const float4*>(x + (long long)row * 32768 + part * per);
    constexpr int N = 32768 / S / 4 / 256;
    float4 v[N];
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = __ldcs(p + threadIdx.x + 256 * i);
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < N; ++i) s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < 8; ++w) t += warp_sums[w];
        gsr_part[row * S + part] = t;
        __threadfence();
        last = atomicAdd(&gsr_count[row], 1u) == S - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        float t = 0.0f;
        for (int k = 0; k < S; ++k) t += __ldcg(&gsr_part[row * S + k]);
        y[row] = t * alpha;
        gsr_count[row] = 0;
    }
}
