# kernel: muladd_f32_scalar
# counts: addss mulss
# from: src/bench/cpu/x86.rs muladd_f32_scalar
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
mulss xmm\r, xmm14
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
addss xmm\r, xmm15
.endr
dec rcx
jnz 2b
