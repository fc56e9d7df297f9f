# kernel: add_i64_neon
# counts: add
# pipe: Alu
# width: V128
# ops_per_instr: 2
# vla: false
# from: src/bench/cpu/arm.rs add_i64_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
add v\r\().2d, v\r\().2d, v30.2d
.endr
subs x0, x0, #1
b.ne 2b
