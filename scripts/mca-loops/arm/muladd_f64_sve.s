# kernel: muladd_f64_sve
# counts: fadd fmul
# pipe: MulAdd
# width: V128
# ops_per_instr: 2
# vla: true
# from: src/bench/cpu/arm.rs muladd_f64_sve
2:
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
fmul z\r\().d, p0/m, z\r\().d, z30.d
.endr
.irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
fadd z\r\().d, p0/m, z\r\().d, z31.d
.endr
subs x0, x0, #1
b.ne 2b
