// Planted corpus: a partial write. ew_bias_gelu_residual, correct where it writes, but the
// last 1/64 of the output is never written (an off-by-a-block tail). The values there are
// whatever the buffer held: the verifier's poison. Expected verdict: unwritten_output.
extern "C" __global__ void gsr_elementwise(const float* __restrict__ x,
                                           const float* __restrict__ bias,
                                           const float* __restrict__ residual,
                                           float* __restrict__ y, float alpha, long long n,
                                           int cols)
{
    (void)alpha;
    const long long limit = n - n / 64;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < limit;
         i += (long long)gridDim.x * blockDim.x) {
        const float v = x[i] + bias[i % cols];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)) + residual[i];
    }
}
