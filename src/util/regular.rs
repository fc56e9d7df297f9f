//! Opening a file named by the user or the environment without ever blocking on it:
//! opened with `O_NONBLOCK` (opening a FIFO for reading otherwise waits for a writer),
//! then checked on the open descriptor (`fstat`), so only a regular file is read and a
//! path swapped for a FIFO after a check is refused, not waited on. The results reader
//! (`report::load`) does the same with its own messages.

use std::fs::File;
use std::io;
use std::path::Path;

/// What a file of this type is, in words, or `None` for a regular file.
pub(crate) fn not_regular(kind: std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("is a directory")
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
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    match not_regular(f.metadata()?.file_type()) {
        None => Ok(f),
        Some(what) => Err(io::Error::new(io::ErrorKind::InvalidInput, what)),
    }
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
}
