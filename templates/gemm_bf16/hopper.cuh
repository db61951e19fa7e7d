// The variant's own Hopper primitive: wgmma of its tile width (the others,
// which read nothing of a variant, are in ptx.cuh, written once per header).
using namespace bartune_gemm_bf16_ptx;
// D(64 x kBN, fp32) += A(64 x 16) * B(16 x kBN), both bf16 in shared memory:
// A K-major, or M-major (TA: the transpose flag), B N-major (the transpose
// flag), or K-major (TB). scale_d = 0 overwrites D.
//% local regs = bn // 2
template <bool TA, bool TB>
__device__ __forceinline__ void wgmma_tile(float* d, uint64_t da, uint64_t db, int scale_d) {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "setp.ne.b32 p, %$(regs + 2), 0;\n\t"
//% -- fault "fp16": the inputs read as fp16 (tests/faults/gemm_bf16_faults.lua)
        "wgmma.mma_async.sync.aligned.m64n$(bn)k16.f32.$(fault == "fp16" and "f16.f16" or "bf16.bf16") {"
//% for r = 0, regs - 1 do
        "%$(r)$(r < regs - 1 and "," or "")"
//% end
        "}, %$(regs), %$(regs + 1), p, 1, 1, %$(regs + 3), %$(regs + 4);\n\t}"
        :
//% for r = 0, regs - 1 do
          "+f"(d[$(r)])$(r < regs - 1 and "," or "")
//% end
        : "l"(da), "l"(db), "r"(scale_d), "n"(TA ? 1 : 0), "n"(TB ? 0 : 1));
}
