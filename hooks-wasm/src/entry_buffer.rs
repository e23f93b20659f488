//! The memory a cache entry is read into, and checked and run from: fresh pages of this
//! process, never the file's (see the cache's documentation), made ready in one call rather
//! than faulted in page by page as the read writes them.
//!
//! A large entry goes into transparent huge pages where Linux gives them: for an entry of
//! 1.7 MB, reading it took 100 µs against 470 µs in small pages, most of which was the kernel
//! zeroing and accounting 420 pages one by one; below about 200 KB, zeroing a whole 2 MiB page
//! costs more than it saves (BENCHMARKS.md, "Components of realistic size").

use std::fs;
use std::io::Read as _;

use memmap2::{MmapMut, MmapOptions};

/// Entries from this size on are read into huge pages.
const HUGE_PAGES_FROM: usize = 256 << 10;

/// The size of a huge page (on x86-64 and most 64-bit Arm kernels).
const HUGE_PAGE: usize = 2 << 20;

/// The whole of a file, in memory of its own.
pub(crate) struct EntryBuffer {
    /// At least `len` bytes: an entry read into huge pages is rounded up to a whole one.
    map: MmapMut,
    len: usize,
}

impl EntryBuffer {
    /// The `len` bytes of `file` from where it stands (its size when it was opened). A file
    /// that changes size meanwhile reads short (`None`) or reads bytes that fail the entry's
    /// check.
    pub(crate) fn read(file: &mut fs::File, len: u64) -> Option<Self> {
        let len = usize::try_from(len).ok()?;
        // Elsewhere than Linux nothing asks for huge pages: rounding up would only waste.
        let mut map = if cfg!(target_os = "linux") && len >= HUGE_PAGES_FROM {
            huge_pages(len)?
        } else {
            MmapOptions::new().len(len).populate().map_anon().ok()?
        };
        file.read_exact(&mut map[..len]).ok()?;
        Some(EntryBuffer { map, len })
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map[..self.len]
    }

    /// The mapping, the file's bytes first, to be made read-only and run from.
    pub(crate) fn into_map(self) -> MmapMut {
        self.map
    }
}

/// Memory for `len` bytes in whole huge pages, asked of the kernel as huge pages and populated
/// in one call. Neither request is needed for the memory to work: where the kernel refuses
/// huge pages, the pages are small (still populated in one call), and where it cannot populate
/// (a kernel before 5.14) they are faulted in as they are read. A length of whole huge pages is also what makes Linux (6.7 on) place the
/// mapping on a huge page's boundary.
fn huge_pages(len: usize) -> Option<MmapMut> {
    let map = MmapOptions::new()
        .len(len.checked_next_multiple_of(HUGE_PAGE)?)
        .map_anon()
        .ok()?;
    #[cfg(target_os = "linux")]
    {
        let _ = map.advise(memmap2::Advice::HugePage);
        let _ = map.advise(memmap2::Advice::PopulateWrite);
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_at_any_size() {
        let dir =
            std::env::temp_dir().join(format!("hooks-wasm-entry-buffer-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("a scratch directory");
        for len in [
            0,
            52,
            4096,
            HUGE_PAGES_FROM - 1,
            HUGE_PAGES_FROM,
            HUGE_PAGE + 1,
        ] {
            let path = dir.join(format!("{len}"));
            let contents: Vec<u8> = (0..len).map(|at| (at % 251) as u8).collect();
            fs::write(&path, &contents).expect("written");
            let mut file = fs::File::open(&path).expect("opened");
            let buffer = EntryBuffer::read(&mut file, len as u64).expect("read");
            assert_eq!(buffer.bytes(), &contents[..], "{len} bytes");
            assert!(buffer.into_map().len() >= len);
        }
        let mut short = fs::File::open(dir.join("52")).expect("opened");
        assert!(
            EntryBuffer::read(&mut short, 53).is_none(),
            "a file shorter than it was"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}
