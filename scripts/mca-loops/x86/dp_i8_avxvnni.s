# kernel: dp_i8_avxvnni
# counts: vpdpbusd
# from: src/bench/cpu/x86.rs dp_i8_avxvnni
.intel_syntax noprefix
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11
{vex} vpdpbusd ymm\r, ymm14, ymm15
.endr
dec rcx
jnz 2b
