# kernel: tdp_i8_amx
# counts: tdpbssd
# from: src/bench/cpu/amx.rs tdp_i8_amx
# The loop of src/hw/asm.rs amx_loop_body: four independent tile multiplies.
.intel_syntax noprefix
2:
tdpbssd tmm0, tmm4, tmm6
tdpbssd tmm1, tmm4, tmm7
tdpbssd tmm2, tmm5, tmm6
tdpbssd tmm3, tmm5, tmm7
dec rcx
jnz 2b
