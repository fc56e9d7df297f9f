# kernel: mul_i8_neon
# counts: mul
# pipe: Mul32
# width: V128
# ops_per_instr: 16
# vla: false
# from: src/bench/cpu/arm.rs mul_i8_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
mul v\r\().16b, v\r\().16b, v30.16b
.endr
subs x0, x0, #1
b.ne 2b
