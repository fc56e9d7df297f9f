# kernel: tdp_bf16_amx
# counts: tdpbf16ps
# from: src/bench/cpu/amx.rs tdp_bf16_amx
# The loop of src/hw/asm.rs amx_loop_body: four independent tile multiplies.
.intel_syntax noprefix
2:
tdpbf16ps tmm0, tmm4, tmm6
tdpbf16ps tmm1, tmm4, tmm7
tdpbf16ps tmm2, tmm5, tmm6
tdpbf16ps tmm3, tmm5, tmm7
dec rcx
jnz 2b
