// Toy template: y = a * x + y over a rows x cols matrix, one element per
// thread and row step. Variant: $(describe)
#include <cuda_runtime.h>

namespace $(ns) {
$(kernel_linkage) __global__ void __launch_bounds__($(threads))
$(kernel_name)(const float* __restrict__ x, float* __restrict__ y, float a, int rows, int cols) {
    const int col = blockIdx.x * $(block_x) + threadIdx.x;
//% if fault == "skip_last_col" then
    if (col >= cols - 1) return;
//% else
    if (col >= cols) return;
//% end
    // Rows of this thread: gridDim.y blocks of block_y rows each cover the
    // matrix in as many steps as it takes.
    for (int row = blockIdx.y * $(block_y) + threadIdx.y; row < rows; row += gridDim.y * $(block_y)) {
        const long long i = (long long)row * cols + col;
        y[i] = fmaf(a, x[i], y[i]);
    }
}
}  // namespace $(ns)
