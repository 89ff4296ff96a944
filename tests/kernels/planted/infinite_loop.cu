// Planted corpus: an infinite loop. reduce_rows whose row loop never advances for the last row
// (a classic stride bug); the volatile read keeps the compiler from removing it. The worker
// must be killed by its timeout. Expected verdict: timeout.
extern "C" __global__ void gsr_reduce_rows(const float* __restrict__ x, float* __restrict__ y,
                                           float alpha, int rows, int cols)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    volatile int step = row == rows - 1 ? 0 : 1;
    float s = 0.0f;
    for (int c = 0; c < cols; c += step) s += x[(long long)row * cols + (c < cols ? c : 0)];
    y[row] = s * alpha;
}
