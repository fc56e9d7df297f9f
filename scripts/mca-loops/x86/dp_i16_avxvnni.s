# kernel: dp_i16_avxvnni
# counts: vpdpwssd
# from: src/bench/cpu/x86.rs dp_i16_avxvnni
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
{vex} vpdpwssd ymm\r, ymm14, ymm15
.endr
dec rcx
jnz 2b
