//! hpcc's files for [`super::hpcc`]: the input it reads (`hpccinf.txt`: HPL's order,
//! block size and process grid, and the orders that size hpcc's DGEMM and STREAM from
//! HPL's), and the figures of its output's summary section (`hpccoutf.txt`). Pure
//! functions, tested on a recorded output.

use std::collections::BTreeMap;

/// What hpcc measured, from its summary section.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figures {
    /// `HPL_Tflops`, in FLOP/s.
    pub(crate) hpl: f64,
    /// `HPL_N`.
    pub(crate) hpl_n: u64,
    /// `DGEMM_N`: the order of hpcc's DGEMM.
    pub(crate) dgemm_n: u64,
    /// `StarDGEMM_Gflops`, in FLOP/s: the mean per rank, all ranks at once.
    pub(crate) star_dgemm: f64,
    /// `SingleDGEMM_Gflops`, in FLOP/s: one rank alone.
    pub(crate) single_dgemm: f64,
    /// `CommWorldProcs`: the MPI ranks.
    pub(crate) procs: u64,
    /// STREAM's figures.
    pub(crate) stream: Stream,
}

/// hpcc's STREAM figures (its summary's `STREAM_*`, `StarSTREAM_*`, `SingleSTREAM_*`),
/// in B/s (hpcc prints GB/s of 10⁹ B), in the order copy, scale, add, triad.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stream {
    /// `STREAM_VectorSize`: elements per array per rank (3 arrays of f64).
    pub(crate) vector_size: u64,
    /// `StarSTREAM_*`: every rank at once, the mean over ranks of each rank's rate.
    pub(crate) star: [f64; 4],
    /// `SingleSTREAM_*`: one rank alone.
    pub(crate) single: [f64; 4],
}

/// STREAM's kernels, in the order of [`Stream::star`], by their `memory --kernel` names.
pub(crate) const STREAM_KERNELS: [(&str, &str); 4] = [
    ("copy", "Copy"),
    ("scale", "Scale"),
    ("add", "Add"),
    ("triad", "Triad"),
];

/// The `KEY=value` lines of the last summary section of `hpccoutf.txt` (hpcc appends
/// to an existing file, so the last section is the latest run).
pub(crate) fn summary(text: &str) -> Option<BTreeMap<String, String>> {
    let start = text.rfind("Begin of Summary section.")?;
    let body = &text[start..];
    let body = &body[..body.find("End of Summary section.")?];
    Some(
        body.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect(),
    )
}

/// Reads the HPL and DGEMM figures from `hpccoutf.txt`.
pub(crate) fn parse(text: &str) -> Result<Figures, String> {
    let s = summary(text).ok_or("no complete summary section in hpccoutf.txt")?;
    let num = |k: &str| -> Result<f64, String> {
        s.get(k)
            .ok_or_else(|| format!("no {k} in hpcc's summary"))?
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{k} in hpcc's summary is not a number"))
    };
    let stream_figures = |prefix: &str| -> Result<[f64; 4], String> {
        let mut v = [0.0; 4];
        for (x, (_, name)) in v.iter_mut().zip(STREAM_KERNELS) {
            *x = num(&format!("{prefix}_{name}"))? * 1e9;
        }
        Ok(v)
    };
    if s.get("Success").map(String::as_str) == Some("0") {
        return Err("hpcc reports Success=0 (a test failed its check)".into());
    }
    Ok(Figures {
        hpl: num("HPL_Tflops")? * 1e12,
        hpl_n: num("HPL_N")? as u64,
        dgemm_n: num("DGEMM_N")? as u64,
        star_dgemm: num("StarDGEMM_Gflops")? * 1e9,
        single_dgemm: num("SingleDGEMM_Gflops")? * 1e9,
        procs: num("CommWorldProcs")? as u64,
        stream: Stream {
            vector_size: num("STREAM_VectorSize")? as u64,
            star: stream_figures("StarSTREAM")?,
            single: stream_figures("SingleSTREAM")?,
        },
    })
}

/// The process grid for `t` ranks: P×Q = t with P ≤ Q and P as large as possible.
pub(crate) fn grid(t: usize) -> (usize, usize) {
    let t = t.max(1);
    let p = (1..=t)
        .filter(|p| t.is_multiple_of(*p) && p * p <= t)
        .max()
        .unwrap_or(1);
    (p, t / p)
}

/// HPL's order for a GEMM case of order `n` on `t` ranks: hpcc sizes its DGEMM as
/// √(N² / (3t)), so N = n·√(3t) gives a DGEMM of order ≈ n.
pub(crate) fn hpl_n_for_gemm(n: u64, t: usize) -> u64 {
    (n as f64 * (3.0 * t.max(1) as f64).sqrt()).round() as u64
}

/// HPL's order that makes hpcc's STREAM arrays at least `e` elements per rank on `t`
/// ranks: hpcc sizes STREAM from HPL's largest matrix, `STREAM_VectorSize` =
/// N²·8 B / (P·Q) / 3 arrays / 8 B = N² / (3t), so N = ⌈√(3·t·e)⌉. There is no other
/// way to size it: hpcc reads only `hpccinf.txt` (its `hpccmemf.txt` sizes N when that
/// file is absent) and runs every test, so a STREAM at a DRAM working set costs an HPL
/// at N ≈ √(working set / 8 B).
pub(crate) fn hpl_n_for_stream(e: u64, t: usize) -> u64 {
    let t = t.max(1) as u64;
    let mut n = ((3 * t * e) as f64).sqrt().ceil() as u64;
    while n * n / (3 * t) < e {
        n += 1;
    }
    n
}

/// `hpccinf.txt` for one HPL order, block size and grid (the rest as hpcc's sample).
pub(crate) fn input_file(n: u64, nb: usize, p: usize, q: usize) -> String {
    format!(
        "HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
{n}         Ns
1            # of NBs
{nb}          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
{p}            Ps
{q}            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/fixtures/tools/hpcc_1.5.0_hpccoutf.txt");

    #[test]
    fn parses_the_last_summary_of_a_recorded_output() {
        // The fixture holds two runs (hpcc appends): the reference BLAS, then OpenBLAS.
        let f = parse(FIXTURE).unwrap();
        assert_eq!(f.hpl_n, 2000);
        assert_eq!(f.dgemm_n, 815);
        assert_eq!(f.procs, 2);
        assert!((f.hpl - 0.00469717e12).abs() < 1.0, "{}", f.hpl);
        assert!((f.star_dgemm - 7.17793e9).abs() < 1.0);
        assert!((f.single_dgemm - 11.7265e9).abs() < 1.0);
        let first = &FIXTURE[..FIXTURE.rfind("Begin of Summary section.").unwrap()];
        assert!((parse(first).unwrap().hpl - 0.000937339e12).abs() < 1.0);
    }

    #[test]
    fn incomplete_or_failed_outputs_are_errors() {
        assert!(parse("").is_err());
        let cut = &FIXTURE[..FIXTURE.rfind("End of Summary section.").unwrap()];
        // The last section is cut: the one before it is not taken for it.
        assert!(parse(cut).is_err());
        let failed = FIXTURE.replace("Success=1", "Success=0");
        assert!(parse(&failed).unwrap_err().contains("Success=0"));
        let no_hpl = FIXTURE.replace("HPL_Tflops=", "HPL_Gone=");
        assert!(parse(&no_hpl).unwrap_err().contains("HPL_Tflops"));
    }

    #[test]
    fn grids_inputs_and_orders() {
        assert_eq!(grid(1), (1, 1));
        assert_eq!(grid(2), (1, 2));
        assert_eq!(grid(4), (2, 2));
        assert_eq!(grid(6), (2, 3));
        assert_eq!(grid(7), (1, 7));
        // hpcc's DGEMM order √(N²/(3t)): 2000 on 2 ranks gave DGEMM_N=815 (fixture).
        assert_eq!(hpl_n_for_gemm(815, 2), 1996);
        assert_eq!(hpl_n_for_gemm(1000, 1), 1732);
        let inf = input_file(4096, 192, 1, 2);
        let lines: Vec<&str> = inf.lines().collect();
        assert_eq!(lines[5].split_whitespace().next(), Some("4096"));
        assert_eq!(lines[7].split_whitespace().next(), Some("192"));
        assert_eq!(lines[10].split_whitespace().next(), Some("1"));
        assert_eq!(lines[11].split_whitespace().next(), Some("2"));
        assert!(lines[31].starts_with("#####"), "{}", lines[31]);
        assert_eq!(lines.len(), 36);
    }

    /// Issue #32 item 8: STREAM's figures, read from the recorded output (N = 2000 on
    /// 2 ranks: STREAM_VectorSize = 2000² / 6).
    #[test]
    fn parses_stream_and_sizes_hpl_for_a_stream_array() {
        let st = parse(FIXTURE).unwrap().stream;
        assert_eq!(st.vector_size, 666_666);
        assert_eq!(st.vector_size, 2000 * 2000 / (3 * 2));
        assert!((st.star[0] - 12.4326e9).abs() < 1.0);
        assert!((st.star[3] - 15.4588e9).abs() < 1.0);
        assert!((st.single[1] - 31.5064e9).abs() < 1.0);
        assert!((st.single[2] - 37.5349e9).abs() < 1.0);
        let no_stream = FIXTURE.replace("StarSTREAM_Add=", "StarSTREAM_Gone=");
        assert!(parse(&no_stream).unwrap_err().contains("StarSTREAM_Add"));
        for (e, t) in [(666_666u64, 2usize), (1 << 20, 1), (5_592_405, 2), (1, 4)] {
            let n = hpl_n_for_stream(e, t);
            assert!(n * n / (3 * t as u64) >= e, "{e} {t}");
            assert!(
                (n - 1) * (n - 1) / (3 * t as u64) < e,
                "{e} {t}: {n} not the least"
            );
        }
        assert_eq!(hpl_n_for_stream(666_666, 2), 2000);
    }
}
