# kernel: muladd_f64_scalar
# counts: addsd mulsd
# from: src/bench/cpu/x86.rs muladd_f64_scalar
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
mulsd xmm\r, xmm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
addsd xmm\r, xmm15
.endr
dec rcx
jnz 2b
