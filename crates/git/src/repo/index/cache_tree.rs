//! The cache tree: the `TREE` extension as git reads it (`cache_tree_read`), and the tree git
//! computes from the entries (`cache_tree_update`), whose tree ids are hashed with the caller's
//! hasher.

use super::{CacheTree, IndexEntry, IndexError, MODE_DIR, MODE_GITLINK, Objects, hex, name_key};
use crate::object_id::ObjectHasher;
use crate::{Kind, ObjectFormat, Providers};

/// C's `strtol` base 10 at the start of `data`: the value (saturated, then truncated to `int` as
/// git's assignment does) and the bytes consumed (0: no number).
fn strtol_int(data: &[u8]) -> (i32, usize) {
    let mut i = 0;
    while data
        .get(i)
        .is_some_and(|&c| c == b' ' || (b'\t'..=b'\r').contains(&c))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = data.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut value: i64 = 0;
    while let Some(&c) = data.get(i).filter(|c| c.is_ascii_digit()) {
        let d = i64::from(c - b'0');
        value = if negative {
            value.saturating_mul(10).saturating_sub(d)
        } else {
            value.saturating_mul(10).saturating_add(d)
        };
        i += 1;
    }
    if i == digits_start {
        return (0, 0);
    }
    (value as i32, i)
}

/// Nesting beyond this drops a `TREE` extension as unreadable: no real path is that deep, and the
/// nested value's (recursive) drop stays within a small stack. git recurses without a bound.
pub(super) const MAX_CACHE_TREE_DEPTH: usize = 2048;

/// The `TREE` extension (`cache_tree_read`): `None` when git drops it, an error when git dies.
/// Iterative: a hostile extension cannot exhaust the stack.
pub(super) fn parse_cache_tree(data: &[u8], rawsz: usize) -> Result<Option<CacheTree>, IndexError> {
    if data.first().is_none_or(|&b| b != 0) {
        return Ok(None);
    }
    // (node, subtrees still to read)
    let mut stack: Vec<(CacheTree, i32)> = Vec::new();
    let mut at = 0usize;
    loop {
        // read one node header at `at`
        let rest = data.get(at..).unwrap_or_default();
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return Ok(None);
        };
        let name = rest.get(..nul).unwrap_or_default().to_vec();
        let buf = rest.get(nul + 1..).unwrap_or_default();
        if buf.is_empty() {
            return Ok(None);
        }
        let (entry_count, n1) = strtol_int(buf);
        if n1 == 0 {
            return Ok(None);
        }
        let (subtree_nr, n2) = strtol_int(buf.get(n1..).unwrap_or_default());
        if n2 == 0 {
            return Ok(None);
        }
        let Some(nl) = buf.iter().position(|&b| b == 0 || b == b'\n') else {
            return Ok(None);
        };
        let mut next = at + nul + 1 + nl + 1;
        let mut id = None;
        if entry_count >= 0 {
            let Some(raw) = data.get(next..next + rawsz) else {
                return Ok(None);
            };
            id = Some(raw.to_vec());
            next += rawsz;
        }
        at = next;
        let node = CacheTree {
            name,
            entry_count,
            id,
            subtrees: Vec::new(),
        };
        if stack.len() >= MAX_CACHE_TREE_DEPTH {
            return Ok(None);
        }
        stack.push((node, subtree_nr));
        // close every finished node
        while let Some((_, remaining)) = stack.last() {
            if *remaining > 0 {
                break;
            }
            let Some((done, _)) = stack.pop() else { break };
            match stack.last_mut() {
                None => return Ok(Some(done)),
                Some((parent, remaining)) => {
                    let pos = parent.subtrees.binary_search_by(|s| {
                        s.name
                            .len()
                            .cmp(&done.name.len())
                            .then_with(|| s.name.cmp(&done.name))
                    });
                    match pos {
                        Ok(_) => return Err(IndexError::fatal("cache-tree: internal error")),
                        Err(p) => parent.subtrees.insert(p, done),
                    }
                    *remaining -= 1;
                }
            }
        }
    }
}

/// `cache_tree_update(istate, 0)` on `entries`: the cache tree git computes, with the lines it
/// prints (`<path>: unmerged (<id>)`, `You have both <a> and <b>`, `error: invalid object …`).
/// `None` when the entries are not merged or have a path and a path below it (git leaves no
/// cache tree). The tree ids are those of the objects git would write for them; on a missing
/// object git stops, keeping the subtrees computed before it (the node that failed and its
/// ancestors have no id). One difference: a path more than 256 directories deep stops the
/// computation here as a missing object would (without a message), where git recurses on.
pub fn compute_cache_tree<P: Providers>(
    entries: &[IndexEntry],
    format: ObjectFormat,
    objects: &mut dyn Objects,
) -> (Option<CacheTree>, Vec<String>) {
    let mut messages = Vec::new();
    // verify_cache: merged, and no path/file conflicts
    let mut funny = 0;
    for e in entries.iter().filter(|e| e.stage != 0) {
        funny += 1;
        if funny > 10 {
            messages.push("...".to_string());
            break;
        }
        messages.push(format!(
            "{}: unmerged ({})",
            String::from_utf8_lossy(name_key(&e.path)),
            hex(&e.id)
        ));
    }
    if funny > 0 {
        return (None, messages);
    }
    for pair in entries.windows(2) {
        let [a, b] = pair else { continue };
        let (a, b) = (name_key(&a.path), name_key(&b.path));
        if a.len() < b.len() && b.get(a.len()) == Some(&b'/') && b.starts_with(a) {
            funny += 1;
            if funny > 10 {
                messages.push("...".to_string());
                break;
            }
            messages.push(format!(
                "You have both {} and {}",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            ));
        }
    }
    if funny > 0 {
        return (None, messages);
    }
    let mut state = TreeBuild {
        format,
        objects,
        written: std::collections::HashSet::new(),
        messages: &mut messages,
    };
    let mut root = CacheTree {
        entry_count: -1,
        ..CacheTree::default()
    };
    let _ = update_one::<P>(&mut state, &mut root, entries, b"", 0);
    // an invalidated node has an id in git too, but fsck skips it: as read from a file, it has
    // none here
    let mut stack = vec![&mut root];
    while let Some(node) = stack.pop() {
        if node.entry_count < 0 {
            node.id = None;
        }
        stack.extend(node.subtrees.iter_mut());
    }
    (Some(root), messages)
}

struct TreeBuild<'a> {
    format: ObjectFormat,
    objects: &'a mut dyn Objects,
    /// Trees computed so far (git has written them, so they exist).
    written: std::collections::HashSet<Vec<u8>>,
    messages: &'a mut Vec<String>,
}

/// Deeper than this, a path fails the computation as a missing object would (git recurses
/// without a bound; this keeps the stack bounded, within a 2 MiB thread stack).
const MAX_TREE_DEPTH: usize = 256;

/// `update_one`: fills `it` for the entries under `base`; the number of entries it covers and
/// how many it skipped, or `Err` after git's error.
fn update_one<P: Providers>(
    st: &mut TreeBuild<'_>,
    it: &mut CacheTree,
    entries: &[IndexEntry],
    base: &[u8],
    depth: usize,
) -> Result<(usize, usize), ()> {
    if depth > MAX_TREE_DEPTH {
        return Err(());
    }
    if let Some(first) = entries.first()
        && first.is_sparse_dir()
        && name_key(&first.path) == base
    {
        it.entry_count = 1;
        it.id = Some(first.id.clone());
        return Ok((1, 0));
    }
    let in_level = |e: &IndexEntry| {
        let p = name_key(&e.path);
        p.len() > base.len() && p.starts_with(base)
    };
    // the subtrees, with how many entries each covers
    let mut subs: Vec<(CacheTree, usize)> = Vec::new();
    let mut skip = 0usize;
    let mut i = 0;
    let mut failed = false;
    while let Some(ce) = entries.get(i) {
        if !in_level(ce) {
            break;
        }
        let path = name_key(&ce.path);
        let rest = path.get(base.len()..).unwrap_or_default();
        let Some(slash) = rest.iter().position(|&b| b == b'/') else {
            i += 1;
            continue;
        };
        let mut sub = CacheTree {
            name: rest.get(..slash).unwrap_or_default().to_vec(),
            entry_count: -1,
            ..CacheTree::default()
        };
        let sub_base = path.get(..base.len() + slash + 1).unwrap_or_default();
        let result = update_one::<P>(
            st,
            &mut sub,
            entries.get(i..).unwrap_or_default(),
            sub_base,
            depth + 1,
        );
        match result {
            Ok((count, sub_skip)) => {
                subs.push((sub, count.max(1)));
                i += count.max(1);
                skip += sub_skip;
            }
            Err(()) => {
                subs.push((sub, 0));
                failed = true;
                break;
            }
        }
    }
    let attach = |it: &mut CacheTree, subs: &[(CacheTree, usize)]| {
        let mut nodes: Vec<CacheTree> = subs.iter().map(|(t, _)| t.clone()).collect();
        nodes.sort_by(|a, b| {
            a.name
                .len()
                .cmp(&b.name.len())
                .then_with(|| a.name.cmp(&b.name))
        });
        it.subtrees = nodes;
    };
    if failed {
        attach(it, &subs);
        return Err(());
    }
    // the tree object of this level
    let rawsz = st.format.raw_len();
    let empty_tree = tree_id::<P>(st.format, b"");
    let mut buffer = Vec::new();
    let mut to_invalidate = false;
    let mut sub_iter = subs.iter();
    i = 0;
    while let Some(ce) = entries.get(i) {
        if !in_level(ce) {
            break;
        }
        let path = name_key(&ce.path);
        let rest = path.get(base.len()..).unwrap_or_default();
        let (id, mode, name, is_sub, contains_ita) = match rest.iter().position(|&b| b == b'/') {
            Some(slash) => {
                let Some((sub, count)) = sub_iter.next() else {
                    break;
                };
                i += count;
                let contains_ita = sub.entry_count < 0;
                if contains_ita {
                    to_invalidate = true;
                }
                let id = sub.id.clone().unwrap_or_else(|| vec![0; rawsz]);
                (
                    id,
                    MODE_DIR,
                    rest.get(..slash).unwrap_or_default(),
                    true,
                    contains_ita,
                )
            }
            None => {
                i += 1;
                (ce.id.clone(), ce.mode, rest, false, false)
            }
        };
        let exists = mode == MODE_GITLINK
            || (is_sub && st.written.contains(&id))
            || st.objects.has_object(&id);
        if id.iter().all(|&b| b == 0) || !exists {
            if !contains_ita {
                st.messages.push(format!(
                    "error: invalid object {mode:06o} {} for '{}'",
                    hex(&id),
                    String::from_utf8_lossy(
                        path.get(..base.len() + name.len()).unwrap_or_default()
                    )
                ));
            }
            attach(it, &subs);
            return Err(());
        }
        if !is_sub && ce.intent_to_add {
            to_invalidate = true;
            continue;
        }
        if contains_ita && id == empty_tree {
            continue;
        }
        buffer.extend_from_slice(format!("{mode:o} ").as_bytes());
        buffer.extend_from_slice(name);
        buffer.push(0);
        buffer.extend_from_slice(&id);
    }
    let id = tree_id::<P>(st.format, &buffer);
    st.written.insert(id.clone());
    it.id = Some(id);
    attach(it, &subs);
    it.entry_count = if to_invalidate {
        -1
    } else {
        i32::try_from(i - skip).unwrap_or(i32::MAX)
    };
    Ok((i, skip))
}

/// The id of a tree object with this content.
fn tree_id<P: Providers>(format: ObjectFormat, content: &[u8]) -> Vec<u8> {
    let mut h = ObjectHasher::<P::Hasher>::new(format, Kind::Tree, content.len() as u64, true);
    h.update(content);
    h.finalize()
        .map(|id| id.as_bytes().to_vec())
        .unwrap_or_else(|_| vec![0; format.raw_len()])
}
