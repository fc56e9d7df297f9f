# kernel: fma_f16_f16c
# counts: vfmadd132ps
# from: src/bench/cpu/x86.rs fma_f16_f16c
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vcvtph2ps ymm\r, xmm\r
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vfmadd132ps ymm\r, ymm15, ymm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vcvtps2ph xmm\r, ymm\r, 0
.endr
dec rcx
jnz 2b
