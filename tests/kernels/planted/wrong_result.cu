// Planted corpus: a wrong result. ew_bias_gelu_residual computed with ReLU instead of GELU:
// close for large |v|, wrong near zero. Expected verdict: wrong_result.
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
        y[i] = fmaxf(v, 0.0f) + residual[i];
    }
}
