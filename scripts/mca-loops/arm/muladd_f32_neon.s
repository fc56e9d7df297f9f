# kernel: muladd_f32_neon
# counts: fadd fmul
# pipe: MulAdd
# width: V128
# ops_per_instr: 4
# vla: false
# from: src/bench/cpu/arm.rs muladd_f32_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
fmul v\r\().4s, v\r\().4s, v30.4s
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
fadd v\r\().4s, v\r\().4s, v31.4s
.endr
subs x0, x0, #1
b.ne 2b
