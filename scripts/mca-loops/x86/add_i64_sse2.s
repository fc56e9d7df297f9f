# kernel: add_i64_sse2
# counts: paddq
# from: src/bench/cpu/x86.rs add_i64_sse2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
paddq xmm\r, xmm14
.endr
dec rcx
jnz 2b
