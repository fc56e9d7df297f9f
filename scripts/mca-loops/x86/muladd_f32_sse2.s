# kernel: muladd_f32_sse2
# counts: addps mulps
# from: src/bench/cpu/x86.rs muladd_f32_sse2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
mulps xmm\r, xmm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
addps xmm\r, xmm15
.endr
dec rcx
jnz 2b
