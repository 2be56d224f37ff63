//! A repository's refs, reflogs, worktrees and index files, read as `git fsck` reads them (git's
//! files ref backend, or its reftable backend: [`reftable`]).
//!
//! - [`refs`]: every ref of the main ref store (`refs_for_each_rawref`), each worktree's `HEAD`
//!   (`refs_resolve_ref_unsafe`), [`refs::is_branch`].
//! - [`reflog`]: the reflogs of each worktree's ref store and their entries.
//! - [`worktrees`]: the main worktree and the linked ones (`get_worktrees`).
//! - [`reftable`]: the reftable format's stacks, tables and ref store.
//! - [`index`]: index files (versions 2 to 4, split and sparse indexes, cache tree,
//!   resolve-undo).
//!
//! Object ids are raw bytes of the repository's length ([`crate::ObjectFormat`]). What hashes or
//! inflates takes the caller's [`Providers`](crate::Providers) as a type parameter: the index's
//! checksum and the cache tree's tree ids ([`index::parse_index`], [`index::read_index`],
//! [`index::compute_cache_tree`]), and a reftable's log blocks ([`refs::RefStore::open`],
//! [`reftable::table::Table::open`]).
//!
//! What `git fsck` (no arguments) reads, in its order, with these types (`P`: the caller's
//! providers):
//!
//! ```no_run
//! use std::path::Path;
//! use flagsplit_git::{ObjectFormat, Providers};
//! use flagsplit_git::repo::{index, reflog, refs::RefStore, worktrees};
//!
//! fn heads<P: Providers>(git_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
//!     let common = worktrees::common_dir(git_dir);
//!     let format = ObjectFormat::Sha1;
//!     // get_default_heads: every ref, then each worktree's HEAD and reflogs
//!     let store = RefStore::open::<P>(git_dir, &common, format)?;
//!     let listing = store.for_each_rawref();
//!     for r in &listing.refs { /* fsck_handle_ref(r.name, r.id) */ }
//!     if let Some(fatal) = &listing.fatal { /* git dies here: `fatal: {fatal}`, 128 */ }
//!     let all = worktrees::get_worktrees(git_dir, &common);
//!     if let Err(fatal) = store.open_worktrees(&all) { /* git dies here (reftable) */ }
//!     for wt in &all {
//!         let head = store.head_link(&wt.ref_name("HEAD"))?;
//!         if let Some(line) = head.message() { eprintln!("{line}"); }
//!         if head.handled_as_ref() { /* fsck_handle_ref(head.name, head.id) */ }
//!         for log in reflog::worktree_reflogs(&store, wt, &common) { /* entries */ }
//!     }
//!     for report in store.take_reports() { eprintln!("{}", report.line()); }
//!     // then each worktree's index (keep_cache_objects)
//!     for wt in &all {
//!         let path = wt.index_path();
//!         match index::read_index::<P>(&path, &wt.git_dir, format, &mut index::NoObjects) {
//!             Ok(Some(idx)) => { /* entries, cache_tree, resolve_undo; idx.messages on stderr */ }
//!             Ok(None) => {}
//!             Err(e) => { /* e.lines() on stderr, exit 128 */ }
//!         }
//!     }
//!     Ok(())
//! }
//! ```

pub mod index;
pub mod model;
mod packed;
pub mod reflog;
pub mod refs;
pub mod reftable;
pub mod worktrees;

pub use crate::format::{hex, parse_hex};
