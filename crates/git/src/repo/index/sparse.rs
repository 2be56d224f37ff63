//! The sparse index: its directory entries expanded into the files of their trees, as git's
//! `ensure_full_index` does, and the cache tree recomputed.

use super::cache_tree::compute_cache_tree;
use super::{
    EXTENDED, Index, IndexEntry, MODE_DIR, MODE_GITLINK, MODE_TYPE, Objects, SKIP_WORKTREE, hex,
};
use crate::{ObjectFormat, Providers};

/// `ensure_full_index`: every sparse directory entry replaced by the files of its tree, read
/// recursively (`read_tree_at`), marked skip-worktree. A tree that cannot be read adds nothing
/// (git: `error: Could not read <id>`). The stored cache tree is dropped (git recomputes it).
pub(super) fn expand_sparse<P: Providers>(
    index: &mut Index,
    format: ObjectFormat,
    objects: &mut dyn Objects,
) {
    let rawsz = format.raw_len();
    // cache_tree_update on the sparse entries first (its messages only: the result is replaced)
    let (_, mut messages) = compute_cache_tree::<P>(&index.entries, format, objects);
    index.messages.append(&mut messages);
    let old = std::mem::take(&mut index.entries);
    let mut out = Vec::with_capacity(old.len());
    for ce in old {
        if !ce.is_sparse_dir() {
            out.push(ce);
            continue;
        }
        if !ce.skip_worktree {
            index.messages.push(format!(
                "warning: index entry is a directory, but not sparse ({:08x})",
                ce.flags
            ));
        }
        // read_tree_at: each tree's entries in order, a subdirectory's files read in place
        let mut stack: Vec<(Vec<TreeChild>, usize)> = Vec::new();
        let mut pending = Some((ce.id.clone(), ce.path.clone()));
        loop {
            if let Some((id, base)) = pending.take() {
                match objects.read_tree(&id) {
                    Some(content) => {
                        let children = tree_entries(&content, rawsz)
                            .into_iter()
                            .map(|(mode, name, child)| {
                                let mut path = base.clone();
                                path.extend_from_slice(name);
                                (mode, path, child.to_vec())
                            })
                            .collect();
                        stack.push((children, 0));
                    }
                    None => index
                        .messages
                        .push(format!("error: Could not read {}", hex(&id))),
                }
            }
            let Some((children, next)) = stack.last_mut() else {
                break;
            };
            let Some((mode, path, child)) = children.get(*next).cloned() else {
                stack.pop();
                continue;
            };
            *next += 1;
            if mode & MODE_TYPE == MODE_DIR {
                let mut dir = path;
                dir.push(b'/');
                pending = Some((child, dir));
            } else {
                out.push(IndexEntry {
                    mode: ce_mode(mode),
                    id: child,
                    path,
                    stage: 0,
                    skip_worktree: true,
                    intent_to_add: false,
                    // CE_SKIP_WORKTREE | CE_EXTENDED
                    flags: SKIP_WORKTREE | u32::from(EXTENDED),
                });
            }
        }
    }
    index.entries = out;
    let (tree, mut messages) = compute_cache_tree::<P>(&index.entries, format, objects);
    index.messages.append(&mut messages);
    index.cache_tree = tree;
}

/// A tree entry being expanded: mode, full path, id.
type TreeChild = (u32, Vec<u8>, Vec<u8>);

/// `create_ce_mode`: the mode git records for a tree entry's mode.
fn ce_mode(mode: u32) -> u32 {
    match mode & MODE_TYPE {
        0o120000 => 0o120000,
        MODE_DIR | MODE_GITLINK => MODE_GITLINK,
        _ if mode & 0o100 != 0 => 0o100755,
        _ => 0o100644,
    }
}

/// A tree object's entries (mode, name, id), stopping at the first malformed one.
fn tree_entries(content: &[u8], rawsz: usize) -> Vec<(u32, &[u8], &[u8])> {
    let mut out = Vec::new();
    let mut rest = content;
    while !rest.is_empty() {
        let Some(sp) = rest.iter().position(|&b| b == b' ') else {
            break;
        };
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            break;
        };
        if nul < sp {
            break;
        }
        let mut mode = 0u32;
        for &c in rest.get(..sp).unwrap_or_default() {
            if !(b'0'..=b'7').contains(&c) {
                return out;
            }
            mode = mode.wrapping_mul(8).wrapping_add(u32::from(c - b'0'));
        }
        let name = rest.get(sp + 1..nul).unwrap_or_default();
        let Some(id) = rest.get(nul + 1..nul + 1 + rawsz) else {
            break;
        };
        out.push((mode, name, id));
        rest = rest.get(nul + 1 + rawsz..).unwrap_or_default();
    }
    out
}
