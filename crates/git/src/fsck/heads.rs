//! The heads of the connectivity walk, as `git fsck` finds them: objects named on the command
//! line, every ref (`refs_for_each_rawref`), each worktree's HEAD and reflogs, each worktree's
//! index (entries, cache-tree, resolve-undo); and the structures checked around the walk.

use crate::Providers;
use std::ffi::OsString;

use crate::Kind;
use crate::repo::refs::{self, RefStore};
use crate::repo::reftable::store::Report;
use crate::repo::{index, reflog, worktrees};

use super::connect::mark_head;
use super::parse::{parse_object, parse_oid};
use super::table::{HAS_OBJ, Oid, oid};
use super::{Fatal, Fsck, bits, scan};

/// An object named on the command line (a full hex id, or a ref name).
pub fn named_head<P: Providers>(f: &mut Fsck<'_, P>, arg: &OsString, pending: &mut Vec<u32>) {
    let text = arg.to_string_lossy().into_owned();
    let id = revision(f, &text);
    let Some(id) = id else {
        f.out.error_bit(
            &format!("invalid parameter: expected sha1, got '{text}'"),
            bits::OBJECT,
        );
        return;
    };
    match f.table.get(&id) {
        Some(i) if f.table.obj(i).flags & HAS_OBJ != 0 => {
            mark_head(f, i, Some(text), pending);
        }
        _ => {
            if f.heads.promisor.contains(&id) {
                return;
            }
            let h = f.hex(&id);
            f.out
                .error_bit(&format!("{h}: object missing"), bits::OBJECT);
        }
    }
}

/// A revision as git's `repo_get_oid` reads the common forms: a full id or a ref name (as git
/// disambiguates it), followed by any number of `~N`, `^N`, `^` and `~`.
fn revision<P: Providers>(f: &Fsck<'_, P>, text: &str) -> Option<Oid> {
    let base_end = text.find(['~', '^']).unwrap_or(text.len());
    let (base, mut rest) = text.split_at(base_end);
    let mut id = parse_oid(f, base.as_bytes()).or_else(|| resolve_name(f, base))?;
    while let Some(op) = rest.chars().next() {
        rest = &rest[1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let n: usize = if digits == 0 {
            1
        } else {
            rest[..digits].parse().ok()?
        };
        rest = &rest[digits..];
        let parents = |id: &Oid| -> Option<Vec<Oid>> {
            let (k, data) = scan::read_object(f, id)?;
            if k != Kind::Commit {
                return None;
            }
            let mut links = super::walk::links(k, id, &data, f.repo.format);
            super::grafts::apply(
                &mut links,
                f.heads.grafts.of(id, &f.heads.shallow),
                f.repo.format,
            );
            Some(
                links
                    .targets
                    .iter()
                    .filter(|t| t.kind == Kind::Commit)
                    .map(|t| oid(&t.id))
                    .collect(),
            )
        };
        if op == '~' {
            for _ in 0..n {
                id = *parents(&id)?.first()?;
            }
        } else if n > 0 {
            id = *parents(&id)?.get(n - 1)?;
        }
    }
    Some(id)
}

fn resolve_name<P: Providers>(f: &Fsck<'_, P>, name: &str) -> Option<Oid> {
    let store = RefStore::open::<P>(&f.repo.git_dir, &f.repo.common_dir, f.repo.format).ok()?;
    for candidate in [
        name.to_string(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ] {
        if let Ok(Some((_, id))) = store.resolve(candidate.as_bytes(), true)
            && id.iter().any(|&b| b != 0)
        {
            return Some(oid(&id));
        }
    }
    None
}

/// `error(MESSAGE)` as git's `vreportf` prints it: the message's bytes as they are, but control
/// characters other than tab and newline as `?`, and no more than 4095 bytes with the prefix.
fn git_error<P: Providers>(f: &mut Fsck<'_, P>, message: &[u8], bit: u8) {
    let mut line = b"error: ".to_vec();
    line.extend(message.iter().map(|&c| {
        if (c < 0x20 && c != b'\t' && c != b'\n') || c == 0x7f {
            b'?'
        } else {
            c
        }
    }));
    line.truncate(4095);
    f.out.err_bytes(&line);
    f.out.bits |= bit;
}

/// git's `fsck_handle_ref`, for the ref named `raw`.
fn handle_ref<P: Providers>(
    f: &mut Fsck<'_, P>,
    raw: &[u8],
    id: &[u8],
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let name = String::from_utf8_lossy(raw).into_owned();
    let id = oid(id);
    let Some(i) = parse_object(f, &id)? else {
        if f.heads.promisor.contains(&id) {
            f.heads.default_refs += 1;
            return Ok(());
        }
        let h = f.hex(&id);
        let mut m = raw.to_vec();
        m.extend_from_slice(format!(": invalid sha1 pointer {h}").as_bytes());
        git_error(f, &m, bits::REACHABLE);
        return Ok(());
    };
    // builtin/fsck.c's own is_branch: HEAD counts as a branch.
    if f.table.obj(i).kind != Some(Kind::Commit) && (name == "HEAD" || refs::is_branch(&name)) {
        let mut m = raw.to_vec();
        m.extend_from_slice(b": not a commit");
        git_error(f, &m, bits::REFS);
    }
    f.heads.default_refs += 1;
    mark_head(f, i, Some(name), pending);
    Ok(())
}

/// git's `fsck_handle_reflog_oid`.
fn reflog_oid<P: Providers>(
    f: &mut Fsck<'_, P>,
    refname: &str,
    id: &[u8],
    timestamp: u64,
    pending: &mut Vec<u32>,
) {
    if id.iter().all(|&b| b == 0) {
        return;
    }
    let id = oid(id);
    match f.table.get(&id) {
        Some(i) if f.table.obj(i).flags & HAS_OBJ != 0 => {
            let name = (timestamp != 0).then(|| format!("{refname}@{{{timestamp}}}"));
            mark_head(f, i, name, pending);
        }
        _ => {
            if !f.heads.promisor.contains(&id) {
                let h = f.hex(&id);
                f.out.error_bit(
                    &format!("{refname}: invalid reflog entry {h}"),
                    bits::REACHABLE,
                );
            }
        }
    }
}

/// git's `get_default_heads`.
pub fn default_heads<P: Providers>(
    f: &mut Fsck<'_, P>,
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let store = RefStore::open::<P>(&f.repo.git_dir, &f.repo.common_dir, f.repo.format)
        .map_err(Fatal::msg)?;
    let result = heads_of(f, &store, pending);
    // what a reftable store found that git does not say
    for r in store.take_reports() {
        match r {
            Report::Notice(l) => f.out.err(&l),
            Report::Error(l) => f.out.error_bit(&l, bits::REFS),
        }
    }
    result
}

fn heads_of<P: Providers>(
    f: &mut Fsck<'_, P>,
    store: &RefStore,
    pending: &mut Vec<u32>,
) -> Result<(), Fatal> {
    let listing = store.for_each_rawref();
    for r in &listing.refs {
        handle_ref(f, &r.name, &r.id, pending)?;
    }
    if let Some(fatal) = listing.fatal {
        return Err(Fatal::msg(fatal));
    }
    let wts = worktrees::get_worktrees(&f.repo.git_dir, &f.repo.common_dir);
    store.open_worktrees(&wts).map_err(Fatal::msg)?;
    for wt in &wts {
        let head_name = wt.ref_name("HEAD");
        if f.opts.verbose {
            f.out.err(&format!("Checking {head_name} link"));
        }
        let link = store.head_link(&head_name).map_err(Fatal::msg)?;
        if let Some(m) = link.message() {
            f.out.err(&m);
        }
        if link.is_error() {
            f.out.bits |= bits::REFS;
        }
        if link.handled_as_ref() {
            let id = link.id.clone();
            handle_ref(f, head_name.as_bytes(), &id, pending)?;
        }
        if f.opts.reflogs {
            for log in reflog::worktree_reflogs(store, wt, &f.repo.common_dir) {
                for e in &log.entries {
                    if f.opts.verbose {
                        let (o, n) = (super::hex(&e.old), super::hex(&e.new));
                        f.out.err(&format!("Checking reflog {o}->{n}"));
                    }
                    reflog_oid(f, &log.name, &e.old, 0, pending);
                    reflog_oid(f, &log.name, &e.new, e.timestamp, pending);
                }
            }
        }
    }
    if f.heads.default_refs == 0 {
        f.out.err("notice: No default references");
        f.heads.no_default_refs = true;
    }
    Ok(())
}

/// The object store as the index reader needs it (to expand a sparse index).
struct StoreObjects<'a, 'o, P: Providers>(&'a Fsck<'o, P>);

impl<P: Providers> index::Objects for StoreObjects<'_, '_, P> {
    fn read_tree(&mut self, id: &[u8]) -> Option<Vec<u8>> {
        scan::read_object(self.0, &oid(id))
            .filter(|(k, _)| *k == Kind::Tree)
            .map(|(_, d)| d)
    }

    fn has_object(&mut self, id: &[u8]) -> bool {
        let format = self.0.repo.format;
        let id_of = |kind| {
            crate::object_id::object_id::<P::Hasher>(format, kind, b"", false).map(|i| i.padded())
        };
        let (empty_tree, empty_blob) = (id_of(Kind::Tree), id_of(Kind::Blob));
        let id = oid(id);
        empty_tree.is_ok_and(|t| t == id)
            || empty_blob.is_ok_and(|b| b == id)
            || scan::has_object(self.0, &id)
    }
}

/// git's `fsck_index` for every worktree's index.
pub fn index_heads<P: Providers>(f: &mut Fsck<'_, P>, pending: &mut Vec<u32>) -> Result<(), Fatal> {
    let wts = worktrees::get_worktrees(&f.repo.git_dir, &f.repo.common_dir);
    for wt in &wts {
        let path = wt.index_path();
        let shown = path.display().to_string();
        let format = f.repo.format;
        let result = {
            let mut objects = StoreObjects(f);
            index::read_index::<P>(&path, &wt.git_dir, format, &mut objects)
        };
        let idx = match result {
            Ok(Some(i)) => i,
            Ok(None) => continue,
            Err(e) => {
                let lines = e.lines();
                return Err(Fatal(lines.join("\n")));
            }
        };
        for m in &idx.messages {
            f.out.err(m);
        }
        for e in &idx.entries {
            if e.is_gitlink() {
                continue;
            }
            let id = oid(&e.id);
            let i = match f.table.lookup(&id, Kind::Blob) {
                Ok(i) => i,
                Err(c) => {
                    f.out.error(&format!(
                        "object {} is a {}, not a blob",
                        f.hex(&id),
                        c.is.name()
                    ));
                    continue;
                }
            };
            let name = format!(
                "{}:{}",
                if wt.is_current { "" } else { &shown },
                String::from_utf8_lossy(&e.path)
            );
            mark_head(f, i, Some(name), pending);
        }
        if let Some(ct) = &idx.cache_tree {
            if f.opts.verbose {
                f.out.err(&format!("Checking cache tree of {shown}"));
            }
            for node in ct.walk() {
                let Some(tid) = &node.id else { continue };
                if node.entry_count < 0 {
                    continue;
                }
                let tid = oid(tid);
                match parse_object(f, &tid)? {
                    None => {
                        let h = f.hex(&tid);
                        f.out.error_bit(
                            &format!("{h}: invalid sha1 pointer in cache-tree of {shown}"),
                            bits::REFS,
                        );
                        break;
                    }
                    Some(i) => {
                        mark_head(f, i, Some(":".to_string()), pending);
                        if f.table.obj(i).kind != Some(Kind::Tree) {
                            let t = f.printable_type(i);
                            let d = f.describe(&tid);
                            f.out
                                .err(&format!("error in {t} {d}: non-tree in cache-tree"));
                            f.out.bits |= bits::OBJECT;
                        }
                    }
                }
            }
        }
        if let Some(ru) = &idx.resolve_undo {
            for r in ru {
                for stage in 0..3 {
                    let mode = r.modes[stage];
                    if mode == 0 || mode & 0o170000 != 0o100000 {
                        continue;
                    }
                    let Some(rid) = &r.ids[stage] else { continue };
                    let rid = oid(rid);
                    match parse_object(f, &rid)? {
                        None => {
                            let h = f.hex(&rid);
                            f.out.error_bit(
                                &format!("{h}: invalid sha1 pointer in resolve-undo of {shown}"),
                                bits::REFS,
                            );
                        }
                        Some(i) => {
                            let name = format!(":({stage}):{}", String::from_utf8_lossy(&r.path));
                            mark_head(f, i, Some(name), pending);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// git's `fsck_finish`: the `.gitmodules` and `.gitattributes` blobs not yet checked.
pub fn finish_checks<P: Providers>(f: &mut Fsck<'_, P>) {
    use crate::check::Lookup;
    let format = f.repo.format;
    let mut checks = std::mem::replace(&mut f.settings.checks, super::walk::Checks::placeholder());
    let (findings, failed) = {
        let fr: &Fsck<'_, P> = f;
        let mut read = |raw: &[u8]| -> Lookup {
            let id = oid(raw);
            match scan::read_object(fr, &id) {
                Some((Kind::Blob, d)) => Lookup::Blob(d),
                Some((k, _)) => Lookup::NotBlob(k),
                None if fr.heads.promisor.contains(&id) => Lookup::Promisor,
                None => Lookup::Missing,
            }
        };
        checks.finish(&mut read)
    };
    f.settings.checks = checks;
    for (raw, kind, finding) in findings {
        let d = f.describe(&oid(&raw[..raw.len().min(format.raw_len())]));
        let line = finding.line(kind, &d);
        f.out.err_bytes(&line);
    }
    if failed {
        f.out.bits |= bits::OBJECT;
    }
}

/// A commit as the commit-graph check reads it from the object database.
fn commit_for_graph<P: Providers>(
    f: &Fsck<'_, P>,
    raw: &[u8],
    lines: &mut Vec<String>,
) -> crate::verify::commit_graph::Commit {
    use crate::verify::commit_graph::Commit;
    let id = oid(raw);
    let mut read_lines = Vec::new();
    // A process of its own: the copies fsck marked bad count for it.
    let read = f.store().fresh().read_or_die(&id, &mut read_lines);
    lines.extend(read_lines.into_iter().map(|l| format!("error: {l}")));
    match (read.object, read.fatal) {
        // (The child git applies the grafts and the shallow boundary too.)
        (Some((Kind::Commit, data)), _) => match f.heads.grafts.of(&id, &f.heads.shallow) {
            Some(parents) => Commit::Grafted(
                data,
                parents
                    .iter()
                    .map(|p| p[..f.repo.format.raw_len()].to_vec())
                    .collect(),
            ),
            None => Commit::Found(data),
        },
        (Some(_), _) => Commit::NotACommit,
        (None, Some(message)) => Commit::Corrupt {
            lines: Vec::new(),
            message,
        },
        (None, None) => Commit::Missing,
    }
}

/// `core.<key>` as a boolean, git's default when unset or unreadable.
fn core_bool(config: &crate::gitconfig::Config, key: &str, default: bool) -> bool {
    config.get_bool(key).ok().flatten().unwrap_or(default)
}

fn graph_settings(config: &crate::gitconfig::Config) -> crate::verify::commit_graph::Settings {
    let mut s = crate::verify::commit_graph::Settings::default();
    let int = |k: &str| {
        config
            .get(k)
            .and_then(|e| e.value_str())
            .and_then(|v| crate::gitconfig::parse_signed(v, i64::from(i32::MAX)).ok())
    };
    if let Some(v) = int("commitgraph.generationversion") {
        s.generation_version = v;
    }
    if let Some(v) = int("commitgraph.changedpathsversion") {
        s.changed_paths_version = v;
    }
    s
}

/// The lines git fsck prints itself when it loads the commit-graph and the multi-pack-index
/// (it dies on a multi-pack-index it cannot read at all).
pub fn structures_loaded<P: Providers>(
    f: &mut Fsck<'_, P>,
    config: &crate::gitconfig::Config,
    dirs: &[super::odb::ObjectDir],
) -> Result<(), Fatal> {
    use crate::verify::{commit_graph, midx};
    let format = f.repo.format;
    if core_bool(config, "core.multipackindex", true) {
        for d in dirs {
            let loaded = midx::load_lines(&d.path, &d.path, format);
            if loaded.outcome.failed {
                return Err(Fatal(loaded.outcome.lines.join("\n")));
            }
            for l in &loaded.outcome.lines {
                f.out.err(l);
            }
            f.heads
                .midx_bitmaps
                .extend(loaded.bitmap.map(|name| d.path.join("pack").join(name)));
        }
    }
    // git reads no commit-graph in a repository with grafts or a shallow boundary
    // (`commit_graph_compatible`).
    let shallow = f.repo.common_dir.join("shallow").exists();
    let grafts = !f.heads.grafts.parents.is_empty();
    if core_bool(config, "core.commitgraph", true) && !shallow && !grafts {
        let odbs: Vec<&std::path::Path> = dirs.iter().map(|d| d.path.as_path()).collect();
        let out = commit_graph::load_lines::<P>(&odbs, format, graph_settings(config));
        for l in &out.lines {
            f.out.err(l);
        }
        // With --connectivity-only git's walk parses the commits the graph lists from the graph,
        // without reading their objects.
        if f.opts.connectivity_only {
            f.heads.graph_commits =
                commit_graph::commits::<P>(&odbs, format, graph_settings(config));
        }
    }
    Ok(())
}

/// The reverse indexes and bitmaps (checked before the walk, as git does).
pub fn structures_before_walk<P: Providers>(f: &mut Fsck<'_, P>) {
    use crate::verify::{bitmap, rev};
    let format = f.repo.format;
    let mut lines = Vec::new();
    let (mut rev_bad, mut bitmap_bad) = (false, false);
    let mut meter = f.out.progress().start_delayed(
        "Verifying reverse pack-indexes",
        f.stored.packs.len() as u64,
    );
    for (n, p) in f.stored.packs.iter().enumerate() {
        let name = p.name.clone();
        match p.index(format) {
            None => {
                lines.push(rev::unable_to_load(&name));
                rev_bad = true;
            }
            // git does not get to the reverse index of a pack that does not open.
            Some(_) if !p.usable => {}
            Some(index) => {
                let rev_file = std::fs::read(rev::rev_path(&name)).ok();
                let size = p.bytes().map_or(0, |b| b.len() as u64);
                let offset = |n: usize| index.offset(n as u32).unwrap_or(0);
                let num = index.len() as usize;
                let out = rev::verify::<P>(&name, rev_file.as_deref(), format, num, offset, size);
                lines.extend(out.lines);
                rev_bad |= out.failed;
            }
        }
        meter.display(n as u64 + 1);
        let bm = bitmap::pack_bitmap_path(&name);
        if let Ok(bytes) = std::fs::read(&bm) {
            let out = bitmap::verify::<P>(std::path::Path::new(&bm), &bytes, format);
            lines.extend(out.lines);
            bitmap_bad |= out.failed;
        }
    }
    meter.stop();
    for path in f.heads.midx_bitmaps.clone() {
        if let Ok(bytes) = std::fs::read(&path) {
            let out = bitmap::verify::<P>(&path, &bytes, format);
            lines.extend(out.lines);
            bitmap_bad |= out.failed;
        }
    }
    for l in lines {
        f.out.err(&l);
    }
    if rev_bad {
        f.out.bits |= bits::PACK_REV_INDEX;
    }
    if bitmap_bad {
        f.out.bits |= bits::BITMAP;
    }
}

/// The commit-graph and multi-pack-index checks git runs as child processes after the walk
/// (`git commit-graph verify`, `git multi-pack-index verify`, for each object directory).
/// `alternate_errors` are the lines git printed when it read the alternates: each `commit-graph
/// verify` reads them again (`find_odb`), and prints them again.
pub fn structures_after_walk<P: Providers>(
    f: &mut Fsck<'_, P>,
    config: &crate::gitconfig::Config,
    dirs: &[super::odb::ObjectDir],
    alternate_errors: &[String],
) {
    use crate::verify::{commit_graph, midx};
    let format = f.repo.format;
    if core_bool(config, "core.commitgraph", true) {
        let odbs: Vec<&std::path::Path> = dirs.iter().map(|d| d.path.as_path()).collect();
        let settings = graph_settings(config);
        for d in dirs {
            for e in alternate_errors {
                f.out.error(e);
            }
            let fr: &Fsck<'_, P> = f;
            let mut read_lines = Vec::new();
            let mut parsed = false;
            let mut read = |raw: &[u8]| {
                parsed = true;
                commit_for_graph(fr, raw, &mut read_lines)
            };
            let progress = fr.out.progress();
            let out =
                commit_graph::verify_in::<P>(&d.path, &odbs, format, settings, &mut read, progress);
            // The child reads the graft file when it first parses a commit, and prints what git
            // says of it (the advice, bad lines) again.
            if parsed && f.heads.grafts.read {
                for l in f.heads.grafts.lines.clone() {
                    f.out.err(&l);
                }
            }
            for l in read_lines.iter().chain(&out.lines) {
                f.out.err(l);
            }
            if out.failed {
                f.out.bits |= bits::COMMIT_GRAPH;
            }
        }
    }
    if core_bool(config, "core.multipackindex", true) {
        for d in dirs {
            let fr: &Fsck<'_, P> = f;
            let mut entry = |idx_path: &std::path::Path, raw: &[u8]| -> midx::PackEntry {
                let Some(file) = idx_path.file_name() else {
                    return midx::PackEntry::NotInIndex;
                };
                let Some(p) = fr
                    .stored
                    .packs
                    .iter()
                    .find(|p| p.files.idx.file_name() == Some(file))
                else {
                    return midx::PackEntry::Unusable(vec![format!(
                        "error: packfile {} index unavailable",
                        idx_path.with_extension("pack").display()
                    )]);
                };
                // (The child git names the pack under the real path it was given.)
                let Some(index) = p.index(format) else {
                    let shown = idx_path.display().to_string();
                    let mut lines: Vec<String> = p
                        .idx
                        .as_ref()
                        .and_then(|m| crate::fsck::idx_error(m.bytes(), format, &shown))
                        .map(|e| format!("error: {e}"))
                        .into_iter()
                        .collect();
                    lines.push(format!(
                        "error: packfile {} index unavailable",
                        idx_path.with_extension("pack").display()
                    ));
                    return midx::PackEntry::Unusable(lines);
                };
                if !p.usable {
                    let shown = idx_path.with_extension("pack").display().to_string();
                    let lines = scan::pack_open_errors(p, &index, format, &shown)
                        .unwrap_or_default()
                        .into_iter()
                        .map(|l| format!("error: {l}"))
                        .collect();
                    return midx::PackEntry::Unusable(lines);
                }
                match index.lookup(raw).map(|n| index.offset(n)) {
                    Some(Ok(off)) => midx::PackEntry::Offset(off),
                    _ => midx::PackEntry::NotInIndex,
                }
            };
            let out = midx::verify_progress::<P>(&d.path, format, &mut entry, fr.out.progress());
            for l in &out.lines {
                f.out.err(l);
            }
            if out.failed {
                f.out.bits |= bits::MULTI_PACK_INDEX;
            }
        }
    }
}
