//! The order of a run (git's `cmd_fsck` in `builtin/fsck.c`): object directories and packs
//! opened, loose objects and packs checked, the heads gathered, the connectivity walk, and the
//! checks of the structures around it; and the stage report (`FLAGSPLIT_FSCK_TIMES=1`).

use crate::Providers;
use crate::gitconfig::Config;
use crate::progress::Shared;

use super::connect::check_connectivity;
use super::parse::parse_oid;
use super::promisor::{has_promisor_remote, promisor_links, promisor_referents};
use super::table::HAS_OBJ;
use super::{Fatal, Fsck, bits, odb, scan};

/// The whole run.
pub fn fsck<P: Providers>(f: &mut Fsck<'_, P>, config: &Config) -> Result<(), Fatal> {
    let objects = match std::env::var_os("GIT_OBJECT_DIRECTORY").filter(|d| !d.is_empty()) {
        Some(d) => std::path::PathBuf::from(d),
        None => f.repo.common_dir.join("objects"),
    };
    let run_started = std::time::Instant::now();
    let mut packs_wall = std::time::Duration::ZERO;
    let env_alternates = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES");
    let (dirs, alternate_errors, again) = odb::object_dirs(&objects, env_alternates.as_deref());
    for e in &alternate_errors {
        f.out.error(e);
    }
    f.stored.reprepare_lines = again;
    let promisor_remote = has_promisor_remote(config);
    if let Ok(text) = std::fs::read(f.repo.common_dir.join("shallow")) {
        for line in text.split(|&b| b == b'\n') {
            if let Some(id) = parse_oid(f, line.strip_suffix(b"\r").unwrap_or(line)) {
                f.heads.shallow.insert(id);
            }
        }
    }
    // git's deprecated grafts replace the parents of the commits they name.
    let graft_file = std::env::var_os("GIT_GRAFT_FILE")
        .filter(|g| !g.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| f.repo.common_dir.join("info").join("grafts"));
    if let Ok(text) = std::fs::read(&graft_file) {
        let advise = crate::gitconfig::parse_maybe_bool(
            std::env::var("GIT_ADVICE")
                .ok()
                .as_deref()
                .map(str::as_bytes),
        ) != Some(false)
            && config
                .get_bool("advice.graftfiledeprecated")
                .ok()
                .flatten()
                .unwrap_or(true);
        f.heads.grafts = super::grafts::Grafts::parse(&text, f.repo.format, advise);
    }
    let midx = config
        .get_bool("core.multipackindex")
        .ok()
        .flatten()
        .unwrap_or(true);
    scan::open_packs(f, &dirs, midx, promisor_remote);
    // git searches its packs most recently used first, starting from `get_all_packs`' order.
    for (rank, pi) in git_pack_order(f, &dirs, midx).into_iter().enumerate() {
        f.stored.packs[pi].rank = rank;
    }
    super::heads::structures_loaded(f, config, &dirs)?;
    // git's promisor set: after a full check of the packs, from the links the checks kept;
    // otherwise read.
    let from_checks = promisor_remote && f.opts.full && !f.opts.connectivity_only;
    // Without a promisor remote no pack counts as a promisor pack (`open_packs`), so nothing
    // below adds to the promisor set: it stays empty, as git's does.
    if promisor_remote && !from_checks {
        promisor_referents(f);
    }
    if f.opts.connectivity_only {
        scan::loose_objects(f, &dirs, false)?;
        for id in scan::packed_ids(f) {
            let i = f.table.unknown(&id);
            f.table.or_flags(i, HAS_OBJ);
        }
    } else {
        scan::loose_objects(f, &dirs, true)?;
        let packs_started = std::time::Instant::now();
        if f.opts.full {
            let progress = f.out.progress();
            let total = if progress.is_on() {
                scan::total_objects(f)
            } else {
                0
            };
            let meter = Shared::new(progress.start("Checking objects", total));
            let mut count = 0;
            for pi in git_pack_order(f, &dirs, midx) {
                let was = f.out.set_context(super::finding::Context {
                    pack: Some(f.stored.packs[pi].name.clone()),
                    ..Default::default()
                });
                let failed = scan::verify_pack(f, pi, count, &meter);
                f.out.set_context(was);
                if failed? {
                    f.out.bits |= bits::PACK;
                }
                if let Some(i) = f.stored.packs[pi].index(f.repo.format) {
                    count += u64::from(i.len());
                }
            }
            meter.into_inner().stop();
        }
        if from_checks {
            promisor_links(f);
        }
        packs_wall = packs_started.elapsed();
        super::heads::finish_checks(f);
    }
    let walk_started = std::time::Instant::now();
    let mut pending: Vec<u32> = Vec::new();
    let given = !f.opts.heads.is_empty();
    for arg in f.opts.heads.clone() {
        super::heads::named_head(f, &arg, &mut pending);
    }
    let mut keep_cache = f.opts.cache;
    if !given {
        super::heads::default_heads(f, &mut pending)?;
        keep_cache = true;
    }
    if keep_cache {
        super::heads::index_heads(f, &mut pending)?;
    }
    super::heads::structures_before_walk(f);
    check_connectivity(f, &mut pending)?;
    let walk_wall = walk_started.elapsed();
    super::heads::structures_after_walk(f, config, &dirs, &alternate_errors);
    if f.opts.timing {
        report_times(f, packs_wall, walk_wall, run_started.elapsed());
    }
    Ok(())
}

/// `FLAGSPLIT_FSCK_TIMES=1`: where the time went, on standard error. The pack stages are CPU
/// time summed over the workers; the floor is what inflating every entry, applying every delta
/// and hashing every object cost in this run, divided by the threads.
fn report_times<P: Providers>(
    f: &mut Fsck<'_, P>,
    packs: std::time::Duration,
    walk: std::time::Duration,
    total: std::time::Duration,
) {
    let t = f.stats.times;
    let threads = f.pool.current_num_threads();
    let floor = (t.inflate + t.delta + t.hash) / threads as u32;
    let s = |d: std::time::Duration| format!("{:.2}", d.as_secs_f64());
    let (pack_count, pack_bytes) = f
        .stored
        .packs
        .iter()
        .filter_map(|p| p.bytes())
        .fold((0, 0u64), |(n, b), bytes| (n + 1, b + bytes.len() as u64));
    let lines = [
        format!("flagsplit fsck: threads {threads}"),
        format!("flagsplit fsck: packs {pack_count} ({pack_bytes} bytes)"),
        format!(
            "flagsplit fsck: read {} s (indexes, CRCs, entry headers)",
            s(f.stats.stage_read)
        ),
        format!("flagsplit fsck: inflate {} s CPU", s(t.inflate)),
        format!("flagsplit fsck: delta {} s CPU", s(t.delta)),
        format!("flagsplit fsck: hash {} s CPU", s(t.hash)),
        format!(
            "flagsplit fsck: checks {} s CPU (git's checks {} s, marking links {} s)",
            s(t.checks),
            s(t.checks.saturating_sub(t.links)),
            s(t.links)
        ),
        format!("flagsplit fsck: packs {} s wall", s(packs)),
        format!(
            "flagsplit fsck: connectivity {} s wall (heads, walk, reverse indexes)",
            s(walk)
        ),
        format!("flagsplit fsck: whole run {} s wall", s(total)),
        format!(
            "flagsplit fsck: floor {} s (inflate + delta + hash / threads); packs at {:.2}x the floor",
            s(floor),
            packs.as_secs_f64() / floor.as_secs_f64().max(1e-9)
        ),
    ];
    for l in lines {
        f.out.err(&l);
    }
    f.out.err(&memory_line(f));
}

/// The stage report's memory line: the peak RSS (Linux's `VmHWM`), the mapped files' part of it,
/// and what the rest is for, in bytes per object of the table.
fn memory_line<P: Providers>(f: &Fsck<'_, P>) -> String {
    let m = f.table.memory();
    let files: usize = f
        .stored
        .packs
        .iter()
        .map(|p| p.bytes().map_or(0, <[u8]>::len) + p.idx.as_ref().map_or(0, |i| i.bytes().len()))
        .sum();
    let entries: usize = f.stored.packs.iter().map(|p| p.table_index.memory()).sum();
    let objects = f.table.len().max(1);
    let per = |b: usize| format!("{:.1}", b as f64 / objects as f64);
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        })
        .map(|kib| kib * 1024);
    let known = m.objects + m.map + m.refs + m.links + entries;
    let head = match peak {
        Some(p) => format!(
            "peak RSS {:.1} MB, of it at most {:.1} MB the mapped packs and indexes; beyond them {} bytes per object",
            p as f64 / 1e6,
            files as f64 / 1e6,
            per(p.saturating_sub(files))
        ),
        None => "peak RSS not known here".to_string(),
    };
    let rest = peak.map_or(String::new(), |p| {
        format!(
            ", the rest {} (a pack's entries and delta tree while it is checked, each thread's objects and lists, the allocator)",
            per(p.saturating_sub(files).saturating_sub(known))
        )
    });
    format!(
        "flagsplit fsck: memory {head}: objects (id, type, flags, links' place, count of trees naming a blob) {}, id index {}, counts past 65,534 {}, links {} ({} kept), pack positions {}{rest}; {} objects",
        per(m.objects),
        per(m.map),
        per(m.refs),
        per(m.links),
        m.link_count,
        per(entries),
        f.table.len()
    )
}

/// The packs (places in `f.stored.packs`) in the order git's `get_all_packs` lists them, the
/// order in which `git fsck` checks them (and so the counts its `Checking objects` meter shows
/// at each pack's end): the packs of the multi-pack-indexes, each put at the head of the list
/// in turn (so the last listed comes first), then the other packs of every object directory,
/// those of the repository's own before the alternates' and newer ones (by the `.pack` file's
/// mtime in seconds) first; among equals, the reverse of the order the directories were read
/// in (each pack put at the head of the list as it was found).
fn git_pack_order<P: Providers>(
    f: &Fsck<'_, P>,
    dirs: &[odb::ObjectDir],
    midx: bool,
) -> Vec<usize> {
    use std::os::unix::fs::MetadataExt;
    let packs = &f.stored.packs;
    let find = |dir: &std::path::Path, idx_name: &std::ffi::OsStr| {
        packs.iter().position(|p| {
            p.files.idx.file_name() == Some(idx_name)
                && p.files.idx.parent().and_then(|d| d.parent()) == Some(dir)
        })
    };
    let mut taken = vec![false; packs.len()];
    // git's list of multi-pack-indexes: the first directory's first, each later one put
    // second.
    let mut midx_packs: Vec<usize> = Vec::new();
    if midx {
        let mut loaded: Vec<(&odb::ObjectDir, Vec<Vec<u8>>)> = dirs
            .iter()
            .map(|d| (d, crate::verify::midx::pack_names(&d.path, f.repo.format)))
            .filter(|(_, names)| !names.is_empty())
            .collect();
        if loaded.len() > 1 {
            loaded[1..].reverse();
        }
        for (d, names) in loaded {
            for name in names {
                use std::os::unix::ffi::OsStrExt;
                if let Some(n) = find(&d.path, std::ffi::OsStr::from_bytes(&name))
                    && !taken[n]
                {
                    taken[n] = true;
                    midx_packs.push(n);
                }
            }
        }
    }
    // Each pack found is put at the head of the list.
    midx_packs.reverse();
    let mut others: Vec<(bool, i64, usize)> = Vec::new();
    for (di, d) in dirs.iter().enumerate() {
        let Ok(rd) = std::fs::read_dir(d.path.join("pack")) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            if !name.as_encoded_bytes().ends_with(b".idx") {
                continue;
            }
            if let Some(n) = find(&d.path, &name)
                && !taken[n]
            {
                taken[n] = true;
                let mtime = std::fs::metadata(&packs[n].files.pack).map_or(0, |m| m.mtime());
                others.push((di == 0, mtime, n));
            }
        }
    }
    others.reverse();
    // A stable sort, as git's `llist_mergesort`: local first, then newer first.
    others.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut order = midx_packs;
    order.extend(others.into_iter().map(|(_, _, n)| n));
    // Any pack not found above (none, as the scan opened them from the same directories) last.
    order.extend((0..packs.len()).filter(|&n| !taken[n]));
    order
}
