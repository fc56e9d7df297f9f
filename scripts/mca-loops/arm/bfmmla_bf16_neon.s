# kernel: bfmmla_bf16_neon
# counts: bfmmla
# pipe: MmlaBf16
# width: V128
# ops_per_instr: 32
# vla: false
# from: src/bench/cpu/arm.rs bfmmla_bf16_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
bfmmla v\r\().4s, v30.8h, v31.8h
.endr
subs x0, x0, #1
b.ne 2b
