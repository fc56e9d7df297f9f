# kernel: add_i32_sve
# counts: add
# pipe: Alu
# width: V128
# ops_per_instr: 4
# vla: true
# from: src/bench/cpu/arm.rs add_i32_sve
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
add z\r\().s, z\r\().s, z30.s
.endr
subs x0, x0, #1
b.ne 2b
