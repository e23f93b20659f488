//! Reading a file that configures the guard, whatever was put in its place: a FIFO would block
//! the read forever (the agent's timeout then decides, and some agents run the call), and
//! `/dev/zero` or a huge file would be read until memory runs out. So a configuration file is
//! opened without blocking, checked to be a regular file on the descriptor that was opened
//! (no window between the check and the read), and read only up to a bound.

use std::io::{self, Read as _};
use std::path::Path;

/// The largest configuration file read: hooks files and agents' settings are kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// The text of the configuration file at `path`: an error of kind `InvalidInput` when it is
/// not a regular file (a FIFO, a device, a directory) or is larger than `max_bytes`, of kind
/// `InvalidData` when it is not UTF-8.
pub fn read_config_file(path: &Path, max_bytes: u64) -> io::Result<String> {
    let file = open_without_blocking(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("it is not a regular file (a {})", kind_of(&metadata)),
        ));
    }
    if metadata.len() > max_bytes {
        return Err(too_large(max_bytes));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // A file that grows while it is read is still read only up to the bound.
    file.take(max_bytes + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(max_bytes));
    }
    String::from_utf8(bytes).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
}

fn too_large(max_bytes: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is larger than {max_bytes} bytes"),
    )
}

#[cfg(unix)]
fn open_without_blocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
}

#[cfg(not(unix))]
fn open_without_blocking(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// What kind of file `metadata` is, for the error.
fn kind_of(metadata: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        let kind = metadata.file_type();
        if kind.is_fifo() {
            return "FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "device";
        }
        if kind.is_socket() {
            return "socket";
        }
    }
    if metadata.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(test: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hooks-config-file-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_regular_file_is_read() {
        let dir = scratch("regular");
        std::fs::write(dir.join("hooks.yaml"), "hooks: {}\n").unwrap();
        assert_eq!(
            read_config_file(&dir.join("hooks.yaml"), 100).unwrap(),
            "hooks: {}\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_past_the_bound_is_refused() {
        let dir = scratch("large");
        std::fs::write(dir.join("hooks.yaml"), "x".repeat(101)).unwrap();
        let error = read_config_file(&dir.join("hooks.yaml"), 100).unwrap_err();
        assert!(
            error.to_string().contains("larger than 100 bytes"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_at_once_and_a_device_too() {
        let dir = scratch("fifo");
        let fifo = dir.join("hooks.yaml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Nobody writes to it: a blocking open would never return.
        let error = read_config_file(&fifo, MAX_CONFIG_BYTES).unwrap_err();
        assert!(error.to_string().contains("FIFO"), "{error}");
        let error = read_config_file(Path::new("/dev/zero"), MAX_CONFIG_BYTES).unwrap_err();
        assert!(error.to_string().contains("device"), "{error}");
        let error = read_config_file(&dir, MAX_CONFIG_BYTES).unwrap_err();
        assert!(error.to_string().contains("directory"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
