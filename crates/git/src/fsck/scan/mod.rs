//! Checking every stored object, as `git fsck --full` does: loose objects (git's `fsck_loose`)
//! and packs (git's `verify_pack`), with git's messages.
//!
//! A pack is read through its delta tree: entries sorted by offset, each delta a child of its base
//! (OFS_DELTA by offset, REF_DELTA by the base's id in the same pack), resolved from the roots
//! depth-first so that each base and each delta is inflated once and a base is kept only while
//! its children are applied; on a pool, large subtrees are handed to idle threads
//! (`tree::Split`). git reaches the same verdict one entry at a time through a delta-base
//! cache. A broken chain is where the two differ in what they print: git prints a damaged entry's
//! lines again, and names the base it could not read, from each delta whose chain reaches it, so
//! the delta subtrees that reach an entry that could not be unpacked are checked again entry by
//! entry in git's order (`low_memory::again_in_git_order`), with git's counts. Entries no root reaches (a cycle of
//! REF_DELTA bases, which makes git loop until memory runs out) are reported instead of followed.
//!
//! - `loose_files`: loose objects (git's `fsck_loose`).
//! - `packs`: opening the packs: their indexes, and each object's place in the table.
//! - `verify`: a pack's check (git's `verify_pack`): its index and trailer, its entries' headers
//!   and CRCs read on the pool, then its delta tree.
//! - `entries`: a pack's entries as the check reads them, and the delta tree's shape.
//! - `tree`: the delta tree resolved on the pool, each base and delta decoded once.
//! - `low_memory`: the same entry by entry without a delta tree (`--low-memory`, or a pack too
//!   big for the memory), and a pack checked again in git's order.
//! - [`check`]: git's per-object checks as each worker runs them, and the links they keep.
//! - `settle`: the workers' results folded into the run.
//! - [`store`]: reading an object by its id as git's object store does (packs, then loose), a
//!   packed one through a random read of its pack (git's `unpack_entry`).
//! - `read`: the reads of the walk, the heads and the promisor set, through the store.

use crate::{HashAlgo, Hashes, Providers, pack};
use flagsplit_zlib::Inflater;

pub mod check;
mod entries;
mod loose_files;
mod low_memory;
mod packs;
mod read;
mod settle;
pub mod store;
mod tree;
mod verify;

pub use loose_files::{LooseBy, LooseRead, loose_objects, read_loose, read_loose_header};
pub(crate) use packs::pack_open_errors;
pub use packs::{PackState, Slots, open_packs};
pub use read::{
    has_object, has_object_pack, packed_ids, packed_place, read_object, read_object_cached,
    stored_kind, total_objects,
};
pub use store::BaseCache;
pub use verify::verify_pack;

/// The largest object fsck holds in memory: a delta that declares a larger result is refused
/// before anything is allocated (git's malloc would fail or exhaust memory), and so is an entry
/// whose header claims more.
pub const MAX_OBJECT: u64 = 4 << 30;

fn digest<P: Providers>(algo: HashAlgo, data: &[u8]) -> Vec<u8> {
    <P as Hashes>::digest(algo, data).unwrap_or_default()
}

/// git's `git_inflate` line for the zlib stream at the start of `input` inflated with room for
/// `room` bytes of output (`inflate: data stream error (MSG)`), when zlib's `inflate()` fails
/// there: zlib's own words, whichever provider inflated the stream
/// ([`flagsplit_zlib::failure::inflate_failure`]).
fn zlib_line(input: &[u8], room: usize) -> Option<String> {
    flagsplit_zlib::failure::inflate_failure(input, &[room]).map(|f| f.git_line())
}

/// git's line for a delta at `at` in the pack named `name` whose base it cannot find.
fn bad_base(at: u64, name: &str) -> String {
    pack::EntryError::BadBase { at }.git_line(name)
}

/// Inflates exactly `size` bytes from `input` (a pack entry's data); on failure, the line git
/// prints (its buffer holds `size` bytes and one more, and zlib goes on while it needs no room:
/// an error there is printed too).
fn inflate_exact(
    z: &mut impl Inflater,
    input: &[u8],
    size: u64,
    out: &mut Vec<u8>,
) -> Result<usize, Option<String>> {
    if size > MAX_OBJECT {
        return Err(None);
    }
    z.inflate_to_vec(input, size as usize, out)
        .map_err(|_| zlib_line(input, size as usize + 1))
}
