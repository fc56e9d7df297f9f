# kernel: add_i32_avx2
# counts: vpaddd
# from: src/bench/cpu/x86.rs add_i32_avx2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vpaddd ymm\r, ymm\r, ymm14
.endr
dec rcx
jnz 2b
