# kernel: fma_f16_avx512fp16
# counts: vfmadd132ph
# from: src/bench/cpu/x86.rs fma_f16_avx512fp16
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
vfmadd132ph zmm\r, zmm31, zmm30
.endr
dec rcx
jnz 2b
