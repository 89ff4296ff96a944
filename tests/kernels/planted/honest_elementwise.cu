// Planted corpus, control: a correct kernel for ew_bias_gelu_residual
// (y = gelu(x + bias[col]) + residual). Expected verdict: ok.
extern "C" __global__ void gsr_elementwise(const float* __restrict__ x,
                                           const float* __restrict__ bias,
                                           const float* __restrict__ residual,
                                           float* __restrict__ y, float alpha, long long n,
                                           int cols)
{
    (void)alpha;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float v = x[i] + bias[i % cols];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)) + residual[i];
    }
}
