// Planted corpus: an output copied from the reference buffer. softmax_1k that computes nothing
// and copies the expected output from where a naive harness would keep it: the allocation
// right after the input (x + rows * cols). The verifier keeps its float64 reference on the
// host only, so this copies garbage or faults. Expected verdict: wrong_result
// (illegal_address is as good).
extern "C" __global__ void gsr_softmax(const float* __restrict__ x,
                                       const float* __restrict__ bias,
                                       const float* __restrict__ residual, float* __restrict__ y,
                                       float alpha, int rows, int cols)
{
    (void)bias;
    (void)residual;
    (void)alpha;
    const long long n = (long long)rows * cols;
    const float* reference = x + n;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = reference[i];
}
