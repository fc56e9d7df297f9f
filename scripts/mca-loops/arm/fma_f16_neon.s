# kernel: fma_f16_neon
# counts: fmla
# pipe: Fma
# width: V128
# ops_per_instr: 16
# vla: false
# from: src/bench/cpu/arm.rs fma_f16_neon
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
fmla v\r\().8h, v30.8h, v31.8h
.endr
subs x0, x0, #1
b.ne 2b
