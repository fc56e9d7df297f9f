# kernel: bfdot_bf16_sve
# counts: bfdot
# pipe: DotBf16
# width: V128
# ops_per_instr: 16
# vla: true
# from: src/bench/cpu/arm.rs bfdot_bf16_sve
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
bfdot z\r\().s, z30.h, z31.h
.endr
subs x0, x0, #1
b.ne 2b
