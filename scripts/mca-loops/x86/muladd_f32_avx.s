# kernel: muladd_f32_avx
# counts: vaddps vmulps
# from: src/bench/cpu/x86.rs muladd_f32_avx
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vmulps ymm\r, ymm\r, ymm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vaddps ymm\r, ymm\r, ymm15
.endr
dec rcx
jnz 2b
