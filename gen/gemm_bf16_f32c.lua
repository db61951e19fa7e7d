-- gemm_bf16's space with C in fp32 (problems/gemm_bf16_f32c.lua): the same
-- kernels, whose epilogues read and write C as float pairs where gemm_bf16's
-- convert bf16x2 ones (templates/gemm_bf16/ read C's type from the
-- problem: ctype.C). The epilogues that
-- stage C's boxes in shared memory for the copy engine (tma, tma_store) and
-- c_early = regs hold bf16 and are gemm_bf16's alone. Tune it as that one:
--   bartune run gen/gemm_bf16_f32c.lua --strategy ils --budget 60s
space { extends = "gemm_bf16.lua", name = "gemm_bf16_f32c", problem = "gemm_bf16_f32c" }

constraint("C in fp32: the direct epilogue (tma and tma_store stage bf16 boxes)", function(c)
  return c.kind ~= "wgmma" or c.epilogue == "direct"
end)
constraint("C in fp32: c_early off or l2 (regs holds bf16 pairs)", function(c)
  return c.c_early ~= "regs"
end)
