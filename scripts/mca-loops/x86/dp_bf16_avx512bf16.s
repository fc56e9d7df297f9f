# kernel: dp_bf16_avx512bf16
# counts: vdpbf16ps
# from: src/bench/cpu/x86.rs dp_bf16_avx512bf16
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
vdpbf16ps zmm\r, zmm30, zmm31
.endr
dec rcx
jnz 2b
