# kernel: mul_i32_avx2
# counts: vpmulld
# from: src/bench/cpu/x86.rs mul_i32_avx2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
vpmulld ymm\r, ymm\r, ymm14
.endr
dec rcx
jnz 2b
