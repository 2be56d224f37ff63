//! A chain of commit-graph files (`commit-graphs/commit-graph-chain`): its layers loaded and
//! checked in git's order.

use super::*;

/// `load_commit_graph_chain_fd_st`, then the verification of what loaded.
pub(super) fn verify_chain<H: Hashes>(
    odbs: &[&Path],
    text: &[u8],
    format: ObjectFormat,
    settings: Settings,
    read_commit: Option<ReadCommit<'_>>,
    collect: Option<Collect<'_>>,
    mut out: Outcome,
) -> (Outcome, bool) {
    let count = text.len() / (format.hex_len() + 1);
    let mut lines = text.split_inclusive(|&b| b == b'\n');
    let mut ids: Vec<Vec<u8>> = Vec::new();
    let mut valid = true;
    // The files are read first (the parsed layers borrow them), then parsed in order: for each
    // line, the layer file in each object directory in turn, up to the first that loads.
    let mut names: Vec<&[u8]> = Vec::new();
    for _ in 0..count {
        let Some(line) = lines.next() else { break };
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        names.push(line);
        let Some(id) = parse_hex_id(line, format) else {
            ids.push(Vec::new());
            break;
        };
        ids.push(id);
    }
    let layer_file = |odb: &Path, name: &[u8]| {
        let mut file = b"graph-".to_vec();
        file.extend_from_slice(name);
        file.extend_from_slice(b".graph");
        odb.join("info")
            .join("commit-graphs")
            .join(std::ffi::OsStr::from_bytes(&file))
    };
    let files: Vec<Vec<Option<Vec<u8>>>> = names
        .iter()
        .zip(&ids)
        .map(|(name, id)| {
            if id.is_empty() {
                return Vec::new();
            }
            odbs.iter()
                .map(|odb| match read(&layer_file(odb, name)) {
                    Read::Bytes(b) => Some(b),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut layers: Vec<Graph<'_>> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if ids[i].is_empty() {
            out.warning(format!(
                "invalid commit-graph chain: line '{}' not a hash",
                String::from_utf8_lossy(name)
            ));
            valid = false;
            break;
        }
        valid = false;
        let parsed = files[i]
            .iter()
            .flatten()
            .find_map(|data| parse(data, format, settings, &mut out));
        if let Some(mut g) = parsed
            && add_to_chain(&mut g, &layers, &ids, i, &mut out)
        {
            layers.push(g);
            valid = true;
        }
        if !valid {
            out.warning("unable to find all commit-graph files");
            break;
        }
    }
    // `validate_mixed_generation_chain`.
    if !layers.iter().all(|g| g.read_generation_data) {
        for g in &mut layers {
            g.read_generation_data = false;
        }
    }
    // `validate_mixed_bloom_settings`, from the tip down.
    let mut reference: Option<[u32; 3]> = None;
    for g in layers.iter_mut().rev() {
        let Some(b) = g.bloom else { continue };
        match reference {
            None => reference = Some(b),
            Some(r) if r != b => {
                g.bloom = None;
                out.warning(format!(
                    "disabling Bloom filters for commit-graph layer '{}' due to incompatible settings",
                    hex(&g.oid)
                ));
            }
            Some(_) => {}
        }
    }
    let Some(read_commit) = read_commit else {
        if let Some(c) = collect
            && !layers.is_empty()
        {
            c(&layers);
        }
        return (out, !layers.is_empty());
    };
    if layers.is_empty() {
        out.failed = true;
        return (out, false);
    }
    (
        run::<H>(
            &layers,
            format,
            read_commit.read,
            !valid,
            out,
            read_commit.progress,
        ),
        true,
    )
}

/// `add_graph_to_chain`: layer `n` of the chain on top of `below`.
pub(super) fn add_to_chain(
    g: &mut Graph<'_>,
    below: &[Graph<'_>],
    ids: &[Vec<u8>],
    n: usize,
    out: &mut Outcome,
) -> bool {
    if n > 0 && g.base_graphs.is_none() {
        out.warning("commit-graph has no base graphs chunk");
        return false;
    }
    let base = g.base_graphs.unwrap_or(&[]);
    if base.len() / g.hash_len < n {
        out.warning("commit-graph base graphs chunk is too small");
        return false;
    }
    for k in (0..n).rev() {
        let cur = below.get(k);
        let listed = base.get(k * g.hash_len..(k + 1) * g.hash_len);
        let ok = cur.is_some_and(|c| ids.get(k) == Some(&c.oid))
            && listed.is_some_and(|b| ids.get(k).is_some_and(|id| id.as_slice() == b));
        if !ok {
            out.warning("commit-graph chain does not match");
            return false;
        }
    }
    if let Some(top) = below.last() {
        let Some(sum) = top.num_commits.checked_add(top.in_base) else {
            out.warning(format!(
                "commit count in base graph too high: {}",
                top.in_base
            ));
            return false;
        };
        g.in_base = sum;
    }
    true
}
