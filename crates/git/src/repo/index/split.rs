//! The split index: its `link` extension (`read_link_extension`) and the merge of this file's
//! entries with the shared index's (`merge_base_index`).

use super::extensions::{ewah_positions, ewah_scan, read_ewah};
use super::{IndexEntry, IndexError, Link, name_key};

/// The `link` extension (`read_link_extension`).
pub(super) fn parse_link(data: &[u8], rawsz: usize) -> Result<Link, IndexError> {
    let base = data
        .get(..rawsz)
        .ok_or_else(|| IndexError::corrupt_after("corrupt link extension (too short)"))?
        .to_vec();
    let rest = data.get(rawsz..).unwrap_or_default();
    if rest.is_empty() {
        return Ok(Link {
            base,
            delete: Vec::new(),
            replace: Vec::new(),
        });
    }
    let (delete_words, used) = read_ewah(rest).map_err(|e| IndexError {
        errors: vec![
            format!("error: {e}"),
            "error: corrupt delete bitmap in link extension".into(),
        ],
        fatal: "index file corrupt".into(),
    })?;
    let rest = rest.get(used..).unwrap_or_default();
    let (replace_words, used) = read_ewah(rest).map_err(|e| IndexError {
        errors: vec![
            format!("error: {e}"),
            "error: corrupt replace bitmap in link extension".into(),
        ],
        fatal: "index file corrupt".into(),
    })?;
    if used != rest.len() {
        return Err(IndexError::corrupt_after(
            "garbage at the end of link extension",
        ));
    }
    Ok(Link {
        base,
        delete: delete_words,
        replace: replace_words,
    })
}

/// `merge_base_index`: the shared index's entries with this file's replacements, deletions and
/// additions.
pub(super) fn merge_split(
    base: Vec<IndexEntry>,
    saved: Vec<IndexEntry>,
    link: &Link,
) -> Result<Vec<IndexEntry>, IndexError> {
    let mut cache: Vec<Option<IndexEntry>> = base.into_iter().map(Some).collect();
    let mut deleted = vec![false; cache.len()];
    let mut replacements = 0usize;
    let base_len = cache.len();
    // git applies replacements one by one: an error on an earlier one comes first
    let (replace, replace_err) = ewah_scan(&link.replace, base_len);
    let replace_err = replace_err.map(|pos| {
        IndexError::fatal(format!(
            "position for replacement {pos} exceeds base index size {base_len}"
        ))
    });
    for &pos in &replace {
        let Some(slot) = cache.get_mut(pos) else {
            return Err(IndexError::fatal(format!(
                "position for replacement {pos} exceeds base index size {base_len}"
            )));
        };
        let Some(src) = saved.get(replacements) else {
            return Err(IndexError::fatal(format!(
                "too many replacements ({replacements} vs {})",
                saved.len()
            )));
        };
        if !src.path.is_empty() {
            return Err(IndexError::fatal(format!(
                "corrupt link extension, entry {pos} should have zero length name"
            )));
        }
        if let Some(dst) = slot.as_mut() {
            let path = std::mem::take(&mut dst.path);
            *dst = IndexEntry {
                path,
                ..src.clone()
            };
        }
        replacements += 1;
    }
    if let Some(e) = replace_err {
        return Err(e);
    }
    let delete = ewah_positions(&link.delete, base_len).map_err(|pos| {
        IndexError::fatal(format!(
            "position for delete {pos} exceeds base index size {base_len}"
        ))
    })?;
    for &pos in &delete {
        match deleted.get_mut(pos) {
            Some(d) => *d = true,
            None => {
                return Err(IndexError::fatal(format!(
                    "position for delete {pos} exceeds base index size {}",
                    cache.len()
                )));
            }
        }
    }
    let mut entries: Vec<IndexEntry> = cache
        .into_iter()
        .zip(deleted)
        .filter_map(|(e, d)| if d { None } else { e })
        .collect();
    for (i, ce) in saved.into_iter().enumerate().skip(replacements) {
        if ce.path.is_empty() {
            return Err(IndexError::fatal(format!(
                "corrupt link extension, entry {i} should have non-zero length name"
            )));
        }
        add_entry(&mut entries, ce);
    }
    Ok(entries)
}

/// `add_index_entry` with `ADD_CACHE_OK_TO_ADD | ADD_CACHE_SKIP_DFCHECK`: replaces the entry of
/// the same path and stage, and a stage-0 entry replaces the path's conflict stages.
fn add_entry(entries: &mut Vec<IndexEntry>, ce: IndexEntry) {
    let key = |e: &IndexEntry| (name_key(&e.path).to_vec(), e.stage);
    let target = (name_key(&ce.path).to_vec(), ce.stage);
    match entries.binary_search_by(|e| key(e).cmp(&target)) {
        Ok(p) => {
            if let Some(slot) = entries.get_mut(p) {
                *slot = ce;
            }
        }
        Err(mut p) => {
            if ce.stage == 0 {
                while entries
                    .get(p)
                    .is_some_and(|e| name_key(&e.path) == name_key(&ce.path))
                {
                    entries.remove(p);
                }
            }
            p = p.min(entries.len());
            entries.insert(p, ce);
        }
    }
}
