//! The memory KERNELS table: one row per bandwidth kernel, with the bytes it reads and
//! writes per element (STREAM's count), the instruction set and whether its stores are
//! non-temporal. The runner derives B/s from these declared bytes; adding a kernel is one
//! function and one row.
//!
//! Byte counting (STREAM): every array element a kernel names counts 8 B
//! once, read or written: read 8, write 8, copy 16, scale 16, add 24, triad 24 bytes per
//! element. The cache's write-allocate read of the destination (a store miss first reads
//! the line) is *not* counted, as in STREAM and likwid-bench; `--count-write-allocate`
//! adds it (8 B per stored element) for kernels with ordinary stores. Non-temporal stores
//! bypass the cache and cause no write-allocate traffic, so nothing is added for them.
//!
//! Arrays are `f64`. Kernel arguments: `d` destination, `x` and `y` sources, scalar `s`,
//! `n` elements; what each kernel computes (STREAM names):
//! read `Σ x[i]` · write `d[i] = s` · copy `d[i] = x[i]` · scale `d[i] = s·x[i]` ·
//! add `d[i] = x[i] + y[i]` · triad `d[i] = x[i] + s·y[i]`.

/// A bandwidth kernel: `(d, x, y, s, n) -> checksum` (the sum for `read`, 0 otherwise).
///
/// # Safety
/// `x`, `y` valid for `n` reads and `d` for `n` writes where the operation uses them;
/// the CPU must have the row's `requires` features.
pub(crate) type KernelFn =
    unsafe fn(d: *mut f64, x: *const f64, y: *const f64, s: f64, n: usize) -> f64;

/// The operation of a kernel (`--kernel`); `chase` is the latency workload, not a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Op {
    /// Loads only: `Σ x[i]`.
    Read,
    /// Stores only: `d[i] = s`.
    Write,
    /// `d[i] = x[i]`.
    Copy,
    /// `d[i] = s·x[i]`.
    Scale,
    /// `d[i] = x[i] + y[i]`.
    Add,
    /// `d[i] = x[i] + s·y[i]`.
    Triad,
}

impl Op {
    /// Every bandwidth operation in listing order.
    pub(crate) const ALL: [Op; 6] = [Op::Read, Op::Write, Op::Copy, Op::Scale, Op::Add, Op::Triad];

    /// The flag value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Copy => "copy",
            Op::Scale => "scale",
            Op::Add => "add",
            Op::Triad => "triad",
        }
    }

    /// Source arrays read per element.
    pub(crate) fn sources(self) -> usize {
        match self {
            Op::Read | Op::Copy | Op::Scale => 1,
            Op::Write => 0,
            Op::Add | Op::Triad => 2,
        }
    }

    /// Whether it writes a destination array.
    pub(crate) fn stores(self) -> bool {
        self != Op::Read
    }

    /// Arrays the kernel touches (sources plus destination).
    pub(crate) fn arrays(self) -> usize {
        self.sources() + usize::from(self.stores())
    }

    /// What one element does, on plain `f64`s: the reference the tests compare with.
    pub(crate) fn reference(self, x: f64, y: f64, s: f64) -> f64 {
        match self {
            Op::Read => x,
            Op::Write => s,
            Op::Copy => x,
            Op::Scale => s * x,
            Op::Add => x + y,
            Op::Triad => x + s * y,
        }
    }
}

/// Instruction set of a memory kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum MemIsa {
    /// Plain Rust, compiler-chosen instructions (SSE2 on x86-64, NEON on aarch64).
    Generic,
    /// 256-bit AVX2 (+FMA for triad).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 512-bit AVX-512F.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl MemIsa {
    /// The name used in results (`isa` param).
    pub(crate) fn name(self) -> &'static str {
        match self {
            MemIsa::Generic => "generic",
            #[cfg(target_arch = "x86_64")]
            MemIsa::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            MemIsa::Avx512 => "avx512",
        }
    }
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Kernel {
    /// `<op>_<isa>[_nt]`, e.g. `copy_avx512_nt`.
    pub name: &'static str,
    /// What it computes.
    pub op: Op,
    /// Instruction set.
    pub isa: MemIsa,
    /// Non-temporal (streaming) stores in the vector loop.
    pub nt: bool,
    /// CPU features needed (peakbench names, see `hw::cpu`).
    pub requires: &'static [&'static str],
    /// Bytes read per element (STREAM count).
    pub read_bytes: u64,
    /// Bytes written per element (STREAM count, write-allocate excluded).
    pub write_bytes: u64,
    /// The function.
    pub run: KernelFn,
}

impl Kernel {
    /// Bytes per element under the chosen convention: STREAM, plus the write-allocate
    /// read of the destination when asked and the stores are ordinary (cached) ones.
    pub(crate) fn bytes_per_elem(&self, count_write_allocate: bool) -> u64 {
        let wa = if count_write_allocate && !self.nt {
            self.write_bytes
        } else {
            0
        };
        self.read_bytes + self.write_bytes + wa
    }

    /// Whether the CPU features in `features` cover this kernel.
    pub(crate) fn supported_by(&self, features: &[String]) -> bool {
        self.requires
            .iter()
            .all(|r| features.iter().any(|f| f == r))
    }
}

macro_rules! generic_store {
    ($name:ident, |$x:ident, $y:ident, $s:ident, $i:ident| $e:expr) => {
        /// Generic (compiler-vectorised) kernel; see the module doc for the operation.
        ///
        /// # Safety
        /// See [`KernelFn`].
        pub(crate) unsafe fn $name(d: *mut f64, $x: *const f64, $y: *const f64, $s: f64, n: usize) -> f64 {
            for $i in 0..n {
                *d.add($i) = $e;
            }
            0.0
        }
    };
}

read_fn!(
    /// Generic read: four partial sums so the adds are not one serial chain.
    ///
    /// # Safety
    /// See [`KernelFn`].
    read_generic,
    |x, n| {
    let mut acc = [0.0f64; 4];
    let mut i = 0;
    while i + 4 <= n {
        for (k, a) in acc.iter_mut().enumerate() {
            *a += *x.add(i + k);
        }
        i += 4;
    }
    while i < n {
        acc[0] += *x.add(i);
        i += 1;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
});

generic_store!(write_generic, |_x, _y, s, _i| s);
generic_store!(copy_generic, |x, _y, _s, i| *x.add(i));
generic_store!(scale_generic, |x, _y, s, i| s * *x.add(i));
generic_store!(add_generic, |x, y, _s, i| *x.add(i) + *y.add(i));
generic_store!(triad_generic, |x, y, s, i| *x.add(i) + s * *y.add(i));

#[cfg(target_arch = "x86_64")]
use super::x86;

#[cfg(target_arch = "x86_64")]
const AVX512: &[&str] = &["avx512f"];
#[cfg(target_arch = "x86_64")]
const AVX2: &[&str] = &["avx2", "fma"];

/// Every bandwidth kernel, weakest ISA first within an operation.
/// Bytes per element: 8 per array element read or written (see the module doc).
pub(crate) static KERNELS: &[Kernel] = &[
    Kernel {
        name: "read_generic",
        op: Op::Read,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 8,
        write_bytes: 0,
        run: read_generic,
    },
    Kernel {
        name: "write_generic",
        op: Op::Write,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 0,
        write_bytes: 8,
        run: write_generic,
    },
    Kernel {
        name: "copy_generic",
        op: Op::Copy,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 8,
        write_bytes: 8,
        run: copy_generic,
    },
    Kernel {
        name: "scale_generic",
        op: Op::Scale,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 8,
        write_bytes: 8,
        run: scale_generic,
    },
    Kernel {
        name: "add_generic",
        op: Op::Add,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 16,
        write_bytes: 8,
        run: add_generic,
    },
    Kernel {
        name: "triad_generic",
        op: Op::Triad,
        isa: MemIsa::Generic,
        nt: false,
        requires: &[],
        read_bytes: 16,
        write_bytes: 8,
        run: triad_generic,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "read_avx2",
        op: Op::Read,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 8,
        write_bytes: 0,
        run: x86::read_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "write_avx2",
        op: Op::Write,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 0,
        write_bytes: 8,
        run: x86::write_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "write_avx2_nt",
        op: Op::Write,
        isa: MemIsa::Avx2,
        nt: true,
        requires: AVX2,
        read_bytes: 0,
        write_bytes: 8,
        run: x86::write_avx2_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "copy_avx2",
        op: Op::Copy,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::copy_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "copy_avx2_nt",
        op: Op::Copy,
        isa: MemIsa::Avx2,
        nt: true,
        requires: AVX2,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::copy_avx2_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "scale_avx2",
        op: Op::Scale,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::scale_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "scale_avx2_nt",
        op: Op::Scale,
        isa: MemIsa::Avx2,
        nt: true,
        requires: AVX2,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::scale_avx2_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "add_avx2",
        op: Op::Add,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::add_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "add_avx2_nt",
        op: Op::Add,
        isa: MemIsa::Avx2,
        nt: true,
        requires: AVX2,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::add_avx2_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "triad_avx2",
        op: Op::Triad,
        isa: MemIsa::Avx2,
        nt: false,
        requires: AVX2,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::triad_avx2,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "triad_avx2_nt",
        op: Op::Triad,
        isa: MemIsa::Avx2,
        nt: true,
        requires: AVX2,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::triad_avx2_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "read_avx512",
        op: Op::Read,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 8,
        write_bytes: 0,
        run: x86::read_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "write_avx512",
        op: Op::Write,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 0,
        write_bytes: 8,
        run: x86::write_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "write_avx512_nt",
        op: Op::Write,
        isa: MemIsa::Avx512,
        nt: true,
        requires: AVX512,
        read_bytes: 0,
        write_bytes: 8,
        run: x86::write_avx512_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "copy_avx512",
        op: Op::Copy,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::copy_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "copy_avx512_nt",
        op: Op::Copy,
        isa: MemIsa::Avx512,
        nt: true,
        requires: AVX512,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::copy_avx512_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "scale_avx512",
        op: Op::Scale,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::scale_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "scale_avx512_nt",
        op: Op::Scale,
        isa: MemIsa::Avx512,
        nt: true,
        requires: AVX512,
        read_bytes: 8,
        write_bytes: 8,
        run: x86::scale_avx512_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "add_avx512",
        op: Op::Add,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::add_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "add_avx512_nt",
        op: Op::Add,
        isa: MemIsa::Avx512,
        nt: true,
        requires: AVX512,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::add_avx512_nt,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "triad_avx512",
        op: Op::Triad,
        isa: MemIsa::Avx512,
        nt: false,
        requires: AVX512,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::triad_avx512,
    },
    #[cfg(target_arch = "x86_64")]
    Kernel {
        name: "triad_avx512_nt",
        op: Op::Triad,
        isa: MemIsa::Avx512,
        nt: true,
        requires: AVX512,
        read_bytes: 16,
        write_bytes: 8,
        run: x86::triad_avx512_nt,
    },
];

/// The strongest kernel for `op` that this CPU runs, with non-temporal stores when
/// `nt` and such a row exists (the bool says whether the wish was met).
pub(crate) fn best(op: Op, nt: bool, features: &[String]) -> Option<(&'static Kernel, bool)> {
    let usable = |k: &&Kernel| k.op == op && k.supported_by(features);
    let best_isa = KERNELS.iter().filter(usable).map(|k| k.isa).max()?;
    let pick = |want_nt: bool| {
        KERNELS
            .iter()
            .filter(usable)
            .find(|k| k.isa == best_isa && k.nt == want_nt)
    };
    match pick(nt && op.stores()) {
        Some(k) => Some((k, true)),
        None => pick(false).map(|k| (k, !nt || !op.stores())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features() -> Vec<String> {
        crate::hw::cpu::CpuInfo::detect().features
    }

    /// Runs a kernel on `n` elements at element offset `off` (to test unaligned heads)
    /// and checks every element and the checksum against the scalar reference.
    fn check(k: &Kernel, n: usize, off: usize) {
        let len = n + off + 16;
        let x: Vec<f64> = (0..len).map(|i| (i % 97) as f64).collect();
        let y: Vec<f64> = (0..len).map(|i| (i % 13) as f64 + 1.0).collect();
        let mut d = vec![-1.0f64; len];
        let s = 3.0;
        // SAFETY: all arrays hold off + n elements; features checked by the caller.
        let sum = unsafe {
            (k.run)(
                d.as_mut_ptr().add(off),
                x.as_ptr().add(off),
                y.as_ptr().add(off),
                s,
                n,
            )
        };
        if k.op == Op::Read {
            let want: f64 = x[off..off + n].iter().sum();
            assert_eq!(sum, want, "{} n={n} off={off}", k.name);
            assert!(d.iter().all(|&v| v == -1.0), "{} wrote", k.name);
            return;
        }
        for i in 0..len {
            let want = if i >= off && i < off + n {
                k.op.reference(x[i], y[i], s)
            } else {
                -1.0
            };
            assert_eq!(d[i], want, "{} n={n} off={off} element {i}", k.name);
        }
    }

    #[test]
    fn every_runnable_kernel_matches_the_reference() {
        let f = features();
        for k in KERNELS {
            if !k.supported_by(&f) {
                eprintln!("skipped {}: CPU lacks {:?}", k.name, k.requires);
                continue;
            }
            for n in [0, 1, 7, 8, 9, 31, 64, 65, 257, 1000, 4099] {
                for off in [0, 1, 3, 8] {
                    check(k, n, off);
                }
            }
        }
    }

    #[test]
    fn declared_bytes_follow_stream() {
        for k in KERNELS {
            assert_eq!(k.read_bytes, 8 * k.op.sources() as u64, "{}", k.name);
            assert_eq!(
                k.write_bytes,
                if k.op.stores() { 8 } else { 0 },
                "{}",
                k.name
            );
            assert!(k.name.starts_with(k.op.name()), "{}", k.name);
            assert!(k.name.contains(k.isa.name()), "{}", k.name);
            assert_eq!(k.name.ends_with("_nt"), k.nt, "{}", k.name);
        }
        let copy = KERNELS.iter().find(|k| k.name == "copy_generic").unwrap();
        assert_eq!(copy.bytes_per_elem(false), 16);
        assert_eq!(copy.bytes_per_elem(true), 24);
        let triad = KERNELS.iter().find(|k| k.name == "triad_generic").unwrap();
        assert_eq!(triad.bytes_per_elem(false), 24);
        assert_eq!(triad.bytes_per_elem(true), 32);
        let read = KERNELS.iter().find(|k| k.name == "read_generic").unwrap();
        assert_eq!(read.bytes_per_elem(true), 8);
        #[cfg(target_arch = "x86_64")]
        {
            let nt = KERNELS.iter().find(|k| k.name == "copy_avx512_nt").unwrap();
            assert_eq!(
                nt.bytes_per_elem(true),
                16,
                "NT stores have no write-allocate"
            );
        }
    }

    #[test]
    fn best_prefers_wide_and_honours_nt() {
        let generic_only: Vec<String> = vec![];
        let (k, met) = best(Op::Copy, true, &generic_only).unwrap();
        assert_eq!((k.name, met), ("copy_generic", false));
        let (k, met) = best(Op::Read, true, &generic_only).unwrap();
        assert_eq!((k.name, met), ("read_generic", true));
        #[cfg(target_arch = "x86_64")]
        {
            let avx2: Vec<String> = vec!["avx2".into(), "fma".into()];
            assert_eq!(
                best(Op::Triad, true, &avx2).unwrap().0.name,
                "triad_avx2_nt"
            );
            assert_eq!(best(Op::Triad, false, &avx2).unwrap().0.name, "triad_avx2");
            let all: Vec<String> = vec!["avx2".into(), "fma".into(), "avx512f".into()];
            assert_eq!(best(Op::Copy, true, &all).unwrap().0.name, "copy_avx512_nt");
        }
    }
}
