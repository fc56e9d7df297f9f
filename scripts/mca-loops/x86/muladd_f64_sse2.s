# kernel: muladd_f64_sse2
# counts: addpd mulpd
# from: src/bench/cpu/x86.rs muladd_f64_sse2
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
mulpd xmm\r, xmm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
addpd xmm\r, xmm15
.endr
dec rcx
jnz 2b
