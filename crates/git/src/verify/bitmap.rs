//! Reachability bitmaps (`pack-*.bitmap`, `multi-pack-index-<hash>.bitmap`), checked as
//! `git fsck` does (git's pack-bitmap.c `verify_bitmap_files`): only the trailing checksum. A
//! missing file is fine. `git fsck` looks at the bitmap of every pack it knows (those of the
//! multi-pack-index too) and at the bitmap of every multi-pack-index it loaded, named after that
//! index's checksum ([`super::midx::bitmap_path`]).
//!
//! Not checked (git does not either): the bitmaps' headers, EWAH data, lookup tables, hash caches
//! and pseudo-merges.

use crate::Hashes;
use std::path::Path;

use super::{Outcome, checksum_valid};
use crate::ObjectFormat;

/// Checks one bitmap file: `path` as git prints it (the pack's path with `.pack` replaced by
/// `.bitmap`, or the multi-pack-index bitmap's path), `bytes` its content. A failure counts for
/// `git fsck`'s 0200 bit.
pub fn verify<H: Hashes>(path: &Path, bytes: &[u8], format: ObjectFormat) -> Outcome {
    let mut out = Outcome::default();
    if !checksum_valid::<H>(bytes, format) {
        out.error(format!(
            "bitmap file '{}' has invalid checksum",
            path.display()
        ));
        out.failed = true;
    }
    out
}

/// The bitmap path git derives from a pack's path (`pack_bitmap_filename`).
pub fn pack_bitmap_path(pack_name: &str) -> String {
    let stem = pack_name.strip_suffix(".pack").unwrap_or(pack_name);
    format!("{stem}.bitmap")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_is_invalid() {
        let o = verify::<crate::test_hashes::TestHashes>(
            Path::new("a/b.bitmap"),
            b"",
            ObjectFormat::Sha1,
        );
        assert_eq!(
            o.lines,
            ["error: bitmap file 'a/b.bitmap' has invalid checksum"]
        );
        assert!(o.failed);
        assert_eq!(pack_bitmap_path("a/p.pack"), "a/p.bitmap");
    }
}
