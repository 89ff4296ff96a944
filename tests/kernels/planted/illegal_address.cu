// Planted corpus: an illegal address. softmax_1k that indexes rows with a 32-bit product gone
// wrong: it writes far past the end of y. CUDA reports an illegal memory access and the
// context is lost; only the worker process may die. Expected verdict: illegal_address.
extern "C" __global__ void gsr_softmax(const float* __restrict__ x,
                                       const float* __restrict__ bias,
                                       const float* __restrict__ residual, float* __restrict__ y,
                                       float alpha, int rows, int cols)
{
    (void)bias;
    (void)residual;
    (void)alpha;
    const long long row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float* out = y + (row << 36);  // 2^36 floats per row: out of every allocation
    for (int c = 0; c < cols; ++c) out[c] = x[row * cols + c];
}
