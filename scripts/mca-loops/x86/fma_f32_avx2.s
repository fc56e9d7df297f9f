# kernel: fma_f32_avx2
# counts: vfmadd132ps
# from: src/bench/cpu/x86.rs fma_f32_avx2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vfmadd132ps ymm\r, ymm15, ymm14
.endr
dec rcx
jnz 2b
