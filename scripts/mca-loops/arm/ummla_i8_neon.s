# kernel: ummla_i8_neon
# counts: ummla
# pipe: Mmla
# width: V128
# ops_per_instr: 64
# vla: false
# from: src/bench/cpu/arm.rs ummla_i8_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
ummla v\r\().4s, v30.16b, v31.16b
.endr
subs x0, x0, #1
b.ne 2b
