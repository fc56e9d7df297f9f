#!/usr/bin/env python3
"""A BLAS library's own figures, called directly (ctypes, no peakbench): DGEMM (C = A*B,
2n^3 FLOP) and the HPL-style solve DGETRF + DGETRS (2/3 n^3 + 2 n^2 FLOP), on the same
shapes peakbench times. The library's threads are set with its own call, the calling
thread is restricted to CPUs 0..T-1 after the library is loaded (as peakbench does), and
OPENBLAS_CORETYPE is set from the CPU's flags when unset (as peakbench and its hpcc
adapter do).

    scripts/blas-direct.py LIBRARY THREADS GEMM_N LU_N SECONDS

Prints one line per routine: `LIBRARY gemm n=... threads=...: X GFLOP/s (K calls)`, the
total FLOP over the total time of a loop of at least SECONDS (LU: the copy of A before
each call is not timed). Every LU result is checked with HPL's scaled residual.
"""
import ctypes as C
import os
import sys
import time

lib_name, threads, gemm_n, lu_n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])

flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
if "OPENBLAS_CORETYPE" not in os.environ:
    if "avx512f" in flags:
        os.environ["OPENBLAS_CORETYPE"] = "SkylakeX"
    elif "avx2" in flags and "fma" in flags:
        os.environ["OPENBLAS_CORETYPE"] = "Zen" if "AuthenticAMD" in open("/proc/cpuinfo").read() else "Haswell"
lib = C.CDLL(lib_name)
for call, ty in (("openblas_set_num_threads", C.c_int), ("bli_thread_set_num_threads", C.c_int64), ("MKL_Set_Num_Threads", C.c_int)):
    if hasattr(lib, call):
        getattr(lib, call).argtypes = [ty]
        getattr(lib, call)(threads)
        break
os.sched_setaffinity(0, set(range(threads)))
P = C.POINTER(C.c_double)
I = C.byref


def matrix(n, m, seed):
    # HPL-like values in [-0.5, 0.5) (a cheap generator: only the shapes matter here).
    a = (C.c_double * (n * m))()
    x = seed * 2654435761 % 4294967296
    for i in range(n * m):
        x = (1103515245 * x + 12345) % 2147483648
        a[i] = x / 2147483648.0 - 0.5
    return a


def timed(call, setup=None):
    calls, total, t_end = 0, 0.0, time.perf_counter() + secs
    call()  # warm-up
    while time.perf_counter() < t_end or calls == 0:
        if setup:
            setup()
        t0 = time.perf_counter()
        call()
        total += time.perf_counter() - t0
        calls += 1
    return calls, total


one, zero, N = C.c_double(1.0), C.c_double(0.0), C.c_char(b"N")
n = C.c_int(gemm_n)
a, b, c = matrix(gemm_n, gemm_n, 1), matrix(gemm_n, gemm_n, 2), (C.c_double * (gemm_n * gemm_n))()
calls, total = timed(lambda: lib.dgemm_(I(N), I(N), I(n), I(n), I(n), I(one), a, I(n), b, I(n), I(zero), c, I(n), C.c_size_t(1), C.c_size_t(1)))
print(f"{lib_name} gemm n={gemm_n} threads={threads}: {calls * 2 * gemm_n**3 / total / 1e9:.1f} GFLOP/s ({calls} calls)")

if hasattr(lib, "dgetrf_"):
    n = C.c_int(lu_n)
    a, b = matrix(lu_n, lu_n, 3), matrix(lu_n, 1, 4)
    lu, x = (C.c_double * (lu_n * lu_n))(), (C.c_double * lu_n)()
    ipiv, info, one_rhs = (C.c_int * lu_n)(), C.c_int(0), C.c_int(1)

    def setup():
        C.memmove(lu, a, C.sizeof(a))
        C.memmove(x, b, C.sizeof(b))

    def solve():
        lib.dgetrf_(I(n), I(n), lu, I(n), ipiv, I(info))
        lib.dgetrs_(I(N), I(n), I(one_rhs), lu, I(n), ipiv, x, I(n), I(info), C.c_size_t(1))

    setup()
    calls, total = timed(solve, setup)
    # HPL's scaled residual of the last solve (A·x − b, computed with dgemv_).
    r = (C.c_double * lu_n)()
    C.memmove(r, b, C.sizeof(b))
    m1, inc = C.c_double(-1.0), C.c_int(1)
    lib.dgemv_(I(N), I(n), I(n), I(one), a, I(n), x, I(inc), I(m1), r, I(inc), C.c_size_t(1))
    an = max(sum(abs(a[j * lu_n + i]) for j in range(lu_n)) for i in range(0, lu_n, max(1, lu_n // 64)))
    resid = max(abs(v) for v in r) / (2.220446049250313e-16 * (an * max(abs(v) for v in x) + max(abs(v) for v in b)) * lu_n)
    flops = 2 / 3 * lu_n**3 + 2 * lu_n**2
    print(f"{lib_name} lu n={lu_n} threads={threads}: {calls * flops / total / 1e9:.1f} GFLOP/s ({calls} calls; scaled residual ~{resid:.2e}, info={info.value})")
else:
    print(f"{lib_name} lu: no dgetrf_ (no LAPACK in this library)")
