// Planted corpus: an output hard-coded for the test seed. reduce_rows (y[r] = sum_c x[r,c])
// that ignores x and regenerates the inputs of seed 1 with the suite's documented formula
// (core/tune/problem.hpp, input_value): right for seed 1 only. Fresh seeds expose it.
// Expected verdict: wrong_result (input_insensitive is as good: changing x changes nothing).
__device__ unsigned long long gsr_mix(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__device__ float gsr_input_value(unsigned long long seed, unsigned long long tensor,
                                 unsigned long long index)
{
    const unsigned long long G = 0x9E3779B97F4A7C15ull, H = 0xD1B54A32D192ED03ull;
    const unsigned long long u = gsr_mix(seed * G + tensor * H + index + G);
    return (float)((double)(u >> 40) * (1.0 / 8388608.0) - 1.0);
}

extern "C" __global__ void gsr_reduce_rows(const float* __restrict__ x, float* __restrict__ y,
                                           float alpha, int rows, int cols)
{
    (void)x;
    (void)alpha;
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
        s += gsr_input_value(1, 1, (unsigned long long)row * cols + c);  // seed 1, tensor X
    y[row] = s;
}
