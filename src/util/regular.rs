//! Opening a file named by the user or the environment without ever blocking on it:
//! opened with `O_NONBLOCK` (opening a FIFO for reading otherwise waits for a writer),
//! then checked on the open descriptor (`fstat`), so only a regular file is read and a
//! path swapped for a FIFO after a check is refused, not waited on. [`read_capped`] is
//! the one reader of a user-named or directory-listed file (results files, baselines,
//! the previous `--prom-file`, the results folder's index, a token file): a regular file
//! only, and at most its cap, refused by its size before anything is read (issue #43
//! item 5: a FIFO named `*.json` in `results/` hung the run after measuring, and a
//! huge one was read whole).

use std::fs::File;
use std::io;
use std::path::Path;

/// What a file of this type is, in words, or `None` for a regular file.
pub(crate) fn not_regular(kind: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("is a directory, not a regular file")
    } else if kind.is_fifo() {
        Some("is a named pipe (FIFO), not a regular file")
    } else if kind.is_socket() {
        Some("is a socket, not a regular file")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("is a device, not a regular file")
    } else {
        Some("is not a regular file")
    }
}

/// Opens `path` for reading when it is a regular file (links followed); any other kind
/// is an `InvalidInput` error saying what it is. Never blocks.
pub(crate) fn open(path: &Path) -> io::Result<File> {
    open_regular(path).map_err(|e| match e {
        ReadError::Io(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
    })
}

/// [`open`], its refusal kept apart from an I/O error.
fn open_regular(path: &Path) -> Result<File, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(ReadError::Io)?;
    match not_regular(f.metadata().map_err(ReadError::Io)?.file_type()) {
        None => Ok(f),
        Some(what) => Err(ReadError::NotRegular(what)),
    }
}

/// Why [`read_capped`] read nothing.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Opening or reading failed.
    Io(io::Error),
    /// Not a regular file: what it is, in words ([`not_regular`]).
    NotRegular(&'static str),
    /// Larger than the cap, in bytes.
    TooBig(u64),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read: {e}"),
            ReadError::NotRegular(what) => f.write_str(what),
            ReadError::TooBig(cap) => write!(f, "larger than {}", cap_text(*cap)),
        }
    }
}

/// A cap in words: whole MiB or KiB where it is one, bytes otherwise.
pub(crate) fn cap_text(cap: u64) -> String {
    if cap >= 1 << 20 && cap.is_multiple_of(1 << 20) {
        format!("{} MiB", cap >> 20)
    } else if cap >= 1 << 10 && cap.is_multiple_of(1 << 10) {
        format!("{} KiB", cap >> 10)
    } else {
        format!("{cap} B")
    }
}

/// Reads the regular file `path` (links followed) whole when it holds at most `cap`
/// bytes. Never blocks ([`open`]); a file whose size says more than `cap` is refused
/// before anything is read (a sparse file of a terabyte costs nothing), and since a
/// size can lie (a file still growing), at most `cap` + 1 bytes are ever read.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let f = open_regular(path)?;
    let size = f.metadata().map_err(ReadError::Io)?.len();
    if size > cap {
        return Err(ReadError::TooBig(cap));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    f.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooBig(cap));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open_and_nothing_blocks() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        assert!(open(&f).is_ok());
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // No writer: a blocking open would wait here for ever.
        let e = open(&fifo).unwrap_err();
        assert!(e.to_string().contains("named pipe (FIFO)"), "{e}");
        assert!(open(d.path())
            .unwrap_err()
            .to_string()
            .contains("directory"));
        assert!(open(Path::new("/dev/null"))
            .unwrap_err()
            .to_string()
            .contains("device"));
    }

    /// Issue #43 item 5: the one capped reader refuses a FIFO at once and a file over
    /// its cap by its size (a sparse file: no disk used, nothing read).
    #[test]
    fn the_capped_reader_refuses_fifos_and_files_over_the_cap() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("f");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_capped(&f, 10).unwrap(), b"0123456789");
        let e = read_capped(&f, 9).unwrap_err().to_string();
        assert_eq!(e, "larger than 9 B");
        let huge = d.path().join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(1 << 40)
            .unwrap();
        let e = read_capped(&huge, 256 << 20).unwrap_err().to_string();
        assert_eq!(e, "larger than 256 MiB");
        let fifo = d.path().join("fifo.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_capped(&fifo, 1 << 20).unwrap_err().to_string();
        assert_eq!(e, "is a named pipe (FIFO), not a regular file");
        assert!(matches!(
            read_capped(&d.path().join("absent"), 1),
            Err(ReadError::Io(_))
        ));
        assert_eq!(cap_text(4096), "4 KiB");
    }
}
