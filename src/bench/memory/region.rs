//! Memory regions for the memory benchmark: anonymous `mmap`, aligned to 2 MiB, with
//! transparent huge pages requested through `madvise(MADV_HUGEPAGE)`.
//!
//! Why: at DRAM sizes a random pointer chase over 4 KiB pages misses the TLB on almost
//! every load, so the figure becomes "page walk + DRAM" instead of DRAM latency. With
//! 2 MiB pages the STLB covers gigabytes. The OS may refuse (THP `never`, no free
//! contiguous memory); the region then works on 4 KiB pages and [`Region::huge_bytes`]
//! says how much was really backed by huge pages (read from `/proc/self/smaps`), so the
//! result can say so instead of pretending.
//!
//! Regions are created by the worker thread after it is pinned and first-touched by it
//! ([`Region::touch`]), so the pages live on that thread's NUMA node.

use std::ptr::NonNull;

/// Huge-page granularity used for alignment and for the `madvise` request.
pub(crate) const HUGE: usize = 2 << 20;

/// Whether to ask the OS for transparent huge pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pages {
    /// `madvise(MADV_HUGEPAGE)` on the region (the default).
    Huge,
    /// Plain 4 KiB pages; `madvise(MADV_NOHUGEPAGE)` so THP `always` does not apply.
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    Small,
}

/// An anonymous, 2 MiB-aligned mapping of at least `len` bytes, unmapped on drop.
pub(crate) struct Region {
    map: NonNull<u8>,
    map_len: usize,
    ptr: NonNull<u8>,
    len: usize,
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    advised: bool,
}

// SAFETY: the region is plain memory owned by this value; it is handed between threads
// only by moving the owner, never shared mutably.
unsafe impl Send for Region {}

impl Region {
    /// Maps `len` bytes (rounded up to 2 MiB) aligned to 2 MiB. Pages are not touched
    /// yet. Errors carry the OS error text.
    pub(crate) fn new(len: usize, pages: Pages) -> Result<Region, String> {
        let too_big = || format!("a mapping of {len} B does not fit this machine's address space");
        let len = len
            .max(1)
            .checked_next_multiple_of(HUGE)
            .ok_or_else(too_big)?;
        let map_len = len.checked_add(HUGE).ok_or_else(too_big)?;
        // SAFETY: anonymous private mapping, no fd; the result is checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(format!(
                "mmap of {} failed: {}",
                crate::util::units::format_size(map_len as u64),
                std::io::Error::last_os_error()
            ));
        }
        let base = map as usize;
        let aligned = base.div_ceil(HUGE) * HUGE;
        // SAFETY: `aligned` lies within the mapping (we over-allocated by HUGE).
        let ptr = unsafe { (map as *mut u8).add(aligned - base) };
        let advice = match pages {
            Pages::Huge => libc::MADV_HUGEPAGE,
            Pages::Small => libc::MADV_NOHUGEPAGE,
        };
        // SAFETY: [ptr, ptr + len) is inside our mapping and page-aligned.
        let advised = unsafe { libc::madvise(ptr as *mut libc::c_void, len, advice) } == 0;
        Ok(Region {
            map: NonNull::new(map as *mut u8).expect("mmap returned null"),
            map_len,
            ptr: NonNull::new(ptr).expect("aligned pointer is null"),
            len,
            advised: advised && pages == Pages::Huge,
        })
    }

    /// First touch: writes every page from the calling thread, so the OS places the
    /// memory near it (first-touch NUMA policy) and page faults happen before timing.
    pub(crate) fn touch(&mut self) {
        // SAFETY: the whole [ptr, ptr + len) range is ours and writable.
        unsafe { std::ptr::write_bytes(self.ptr.as_ptr(), 0, self.len) };
    }

    /// Start of the usable (2 MiB-aligned) memory.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Usable length in bytes (a multiple of 2 MiB).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether `madvise(MADV_HUGEPAGE)` was requested and accepted.
    #[cfg(test)]
    pub(crate) fn advised_huge(&self) -> bool {
        self.advised
    }

    /// Bytes of this region backed by transparent huge pages right now, from the
    /// `AnonHugePages` line of its mapping in `/proc/self/smaps`; `None` when unreadable.
    pub(crate) fn huge_bytes(&self) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        anon_huge_in(&smaps, self.map.as_ptr() as usize, self.map_len)
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what mmap returned.
        unsafe { libc::munmap(self.map.as_ptr() as *mut libc::c_void, self.map_len) };
    }
}

/// Sums `AnonHugePages` over the smaps entries overlapping `[start, start + len)`.
/// (The kernel may split or merge our mapping with neighbours, so overlap is used.)
pub(crate) fn anon_huge_in(smaps: &str, start: usize, len: usize) -> Option<u64> {
    let end = start + len;
    let mut inside = false;
    let mut total = 0u64;
    let mut found = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = first.split_once('-') {
            if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) {
                inside = a < end && b > start;
                found |= inside;
                continue;
            }
        }
        if inside {
            if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
                total += kib * 1024;
            }
        }
    }
    found.then_some(total)
}

/// What the result should say about pages, given the bytes requested and granted.
pub(crate) fn pages_note(requested: Pages, huge: Option<u64>, len: u64) -> String {
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    let mode = thp
        .split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
        .unwrap_or_else(|| "unavailable".into());
    match (requested, huge) {
        (Pages::Small, _) => "pages: 4 KiB (huge pages not requested)".to_string(),
        (Pages::Huge, Some(h)) if h >= len / 2 => format!(
            "pages: 2 MiB transparent huge pages granted for {} of {}",
            crate::util::units::format_size(h),
            crate::util::units::format_size(len)
        ),
        (Pages::Huge, Some(h)) => format!(
            "pages: huge pages NOT granted ({} of {} on 2 MiB pages; THP mode '{mode}'), so TLB misses are included at large sizes",
            crate::util::units::format_size(h),
            crate::util::units::format_size(len)
        ),
        (Pages::Huge, None) => format!(
            "pages: huge pages requested, grant unknown (/proc/self/smaps unreadable; THP mode '{mode}')"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_touchable() {
        for pages in [Pages::Huge, Pages::Small] {
            let mut r = Region::new(5000, pages).unwrap();
            assert_eq!(r.as_ptr() as usize % HUGE, 0);
            assert_eq!(r.len(), HUGE);
            r.touch();
            // SAFETY: inside the region.
            unsafe {
                *r.as_ptr().add(r.len() - 1) = 7;
                assert_eq!(*r.as_ptr().add(r.len() - 1), 7);
            }
        }
    }

    #[test]
    fn sizes_near_the_top_of_usize_are_refused() {
        assert!(Region::new(usize::MAX, Pages::Small).is_err());
        assert!(Region::new(usize::MAX - HUGE, Pages::Small).is_err());
    }

    #[test]
    fn small_pages_are_not_huge_and_say_so() {
        // The fallback path: no huge pages → the note says 4 KiB, smaps shows 0.
        let mut r = Region::new(4 * HUGE, Pages::Small).unwrap();
        r.touch();
        assert!(!r.advised_huge());
        if let Some(h) = r.huge_bytes() {
            assert_eq!(h, 0, "MADV_NOHUGEPAGE region got huge pages");
        }
        let note = pages_note(Pages::Small, r.huge_bytes(), r.len() as u64);
        assert!(note.contains("4 KiB"), "{note}");
        let refused = pages_note(Pages::Huge, Some(0), 8 << 20);
        assert!(refused.contains("NOT granted"), "{refused}");
        let granted = pages_note(Pages::Huge, Some(8 << 20), 8 << 20);
        assert!(granted.contains("granted for 8 MiB"), "{granted}");
    }

    #[test]
    fn smaps_parsing() {
        let smaps = "\
7f0000000000-7f0000400000 rw-p 00000000 00:00 0
Size:               4096 kB
AnonHugePages:      2048 kB
7f0000400000-7f0000600000 rw-p 00000000 00:00 0
AnonHugePages:      2048 kB
7f1000000000-7f1000001000 r--p 00000000 00:00 0
AnonHugePages:         0 kB
";
        let a = 0x7f00_0000_0000usize;
        assert_eq!(anon_huge_in(smaps, a, 6 << 20), Some(4 << 20));
        assert_eq!(anon_huge_in(smaps, a, 1 << 20), Some(2 << 20));
        assert_eq!(anon_huge_in(smaps, 0x1000, 10), None);
    }
}
