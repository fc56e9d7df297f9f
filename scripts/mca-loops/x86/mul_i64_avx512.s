# kernel: mul_i64_avx512
# counts: vpmullq
# from: src/bench/cpu/x86.rs mul_i64_avx512
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
vpmullq zmm\r, zmm\r, zmm30
.endr
dec rcx
jnz 2b
