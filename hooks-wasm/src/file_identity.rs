//! What tells a component's file apart from every other file and every other version of
//! itself, without reading it: its device, inode, size, and modification and change times.
//!
//! The cache remembers, under a file's identity, the digest of the bytes it held, so that a
//! later process finds the compiled component without reading and hashing the file again (for
//! a hook of hundreds of kilobytes, a tenth of a `hooks claude` process). Any write to the file,
//! and any file put in its place, changes its change time (`ctime`), which no one can set
//! back; a copy that keeps the modification time (`cp -p`, a restore) still gets a new `ctime`.
//!
//! One case is left: a write in the same tick of the file system's clock as the write the
//! digest was taken after leaves both times as they were. As git does for its index, a digest
//! is only remembered for a file whose times are older than any clock's tick when it is
//! remembered; a later write then necessarily lands in a later tick.

use std::fs::Metadata;
use std::time::{Duration, SystemTime};

/// The coarsest tick of the file systems in use (FAT's modification time counts in two
/// seconds): a file changed less than this long ago may change again without its times moving.
pub(crate) const SETTLE: Duration = Duration::from_secs(2);

/// A file's identity (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    device: u64,
    inode: u64,
    size: u64,
    /// Seconds and nanoseconds since 1970.
    modified: (i64, u32),
    changed: (i64, u32),
}

impl FileIdentity {
    /// The identity of the file `metadata` describes; `None` where the platform does not give
    /// an inode and a change time (the file is then read every time).
    pub(crate) fn of(metadata: &Metadata) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Some(FileIdentity {
                device: metadata.dev(),
                inode: metadata.ino(),
                size: metadata.size(),
                modified: (metadata.mtime(), nanoseconds(metadata.mtime_nsec())),
                changed: (metadata.ctime(), nanoseconds(metadata.ctime_nsec())),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            None
        }
    }

    /// Whether both of the file's times are at least [`SETTLE`] before `now`, so that a later
    /// write cannot leave them unchanged. A time in the future (a skewed clock) is not settled.
    pub(crate) fn settled(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let Some(limit) = now.checked_sub(SETTLE) else {
            return false;
        };
        let before_limit = |(seconds, nanoseconds): (i64, u32)| match u64::try_from(seconds) {
            Ok(seconds) => Duration::new(seconds, nanoseconds) <= limit,
            // Before 1970: long settled.
            Err(_) => true,
        };
        before_limit(self.modified) && before_limit(self.changed)
    }

    /// The identity as bytes, for a key.
    pub(crate) fn to_bytes(self) -> [u8; 48] {
        let mut bytes = [0; 48];
        let fields = [
            self.device.to_le_bytes(),
            self.inode.to_le_bytes(),
            self.size.to_le_bytes(),
            self.modified.0.to_le_bytes(),
            self.changed.0.to_le_bytes(),
        ];
        for (at, field) in fields.iter().enumerate() {
            bytes[at * 8..at * 8 + 8].copy_from_slice(field);
        }
        bytes[40..44].copy_from_slice(&self.modified.1.to_le_bytes());
        bytes[44..48].copy_from_slice(&self.changed.1.to_le_bytes());
        bytes
    }
}

/// A time's nanoseconds, which the platform keeps below a second; anything else is taken as
/// the last of the second (`Duration::new` carries it over: never earlier than it was).
#[cfg(unix)]
fn nanoseconds(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(999_999_999)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(modified: (i64, u32), changed: (i64, u32)) -> FileIdentity {
        FileIdentity {
            device: 1,
            inode: 2,
            size: 3,
            modified,
            changed,
        }
    }

    #[test]
    fn a_file_settles_when_both_its_times_are_a_tick_old() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        assert!(identity((990, 0), (997, 999_999_999)).settled(now));
        assert!(
            identity((998, 0), (998, 0)).settled(now),
            "exactly a tick old"
        );
        assert!(
            !identity((990, 0), (998, 1)).settled(now),
            "changed within the tick (a write then leaves the times alone)"
        );
        assert!(
            !identity((998, 1), (990, 0)).settled(now),
            "modified within the tick"
        );
        assert!(
            !identity((1_005, 0), (1_005, 0)).settled(now),
            "times in the future"
        );
        assert!(identity((-5, 0), (990, 0)).settled(now), "before 1970");
        assert!(
            !identity((990, 0), (990, 0)).settled(SystemTime::UNIX_EPOCH),
            "a clock at its epoch"
        );
    }

    #[test]
    fn every_field_tells_identities_apart() {
        let one = identity((10, 20), (30, 40));
        let others = [
            FileIdentity { device: 9, ..one },
            FileIdentity { inode: 9, ..one },
            FileIdentity { size: 9, ..one },
            FileIdentity {
                modified: (11, 20),
                ..one
            },
            FileIdentity {
                modified: (10, 21),
                ..one
            },
            FileIdentity {
                changed: (31, 40),
                ..one
            },
            FileIdentity {
                changed: (30, 41),
                ..one
            },
        ];
        for other in others {
            assert_ne!(one.to_bytes(), other.to_bytes(), "{other:?}");
        }
        assert_eq!(one.to_bytes(), identity((10, 20), (30, 40)).to_bytes());
    }
}
