//! The corruption corpus: copies of the repositories of [`super::build`] with one thing broken,
//! each edit placed by reading the formats (pack entries from the idx's offsets and the entry
//! headers; idx v2 tables; `.rev`, commit-graph and midx chunk tables), never by guessing.

use std::fs;

use flagsplit_hash::HashProvider;
use flagsplit_hash::sha1::block::Sha1Block;
use flagsplit_hash::sha256::builtin::Sha256Builtin;

use super::build::{Builder, CORRUPT_OPTIONS, MISSING_OPTIONS, PACK_OPTIONS};

/// SHA-1 (20-byte `len`) or SHA-256 of `data`.
pub(crate) fn hash(len: usize, data: &[u8]) -> Vec<u8> {
    let mut_sha1 = || {
        let mut h = Sha1Block::new();
        h.update(data);
        let Ok(d) = h.finalize();
        d.to_vec()
    };
    if len == 20 {
        mut_sha1()
    } else {
        let mut h = Sha256Builtin::new();
        h.update(data);
        let Ok(d) = h.finalize();
        d.to_vec()
    }
}

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Rewrites a file's trailing checksum (the hash of everything before it).
pub(crate) fn retrail(bytes: &mut [u8], len: usize) {
    let n = bytes.len() - len;
    let h = hash(len, &bytes[..n]);
    bytes[n..].copy_from_slice(&h);
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn be64(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// One object of an idx v2: where its CRC and offset are in the idx.
pub(crate) struct IdxEntry {
    pub crc_at: usize,
    pub offset_at: usize,
    pub offset: u64,
}

/// The entries of an idx v2 (32-bit offsets only: the corpus's packs are small).
pub(crate) fn idx_v2(idx: &[u8], len: usize) -> Vec<IdxEntry> {
    assert_eq!(&idx[..8], b"\xfftOc\0\0\0\x02", "idx v2");
    let n = be32(idx, 8 + 255 * 4) as usize;
    let ids = 8 + 256 * 4;
    let crcs = ids + n * len;
    let offsets = crcs + n * 4;
    (0..n)
        .map(|i| {
            let o = be32(idx, offsets + 4 * i);
            assert_eq!(o & 0x8000_0000, 0, "small pack");
            IdxEntry {
                crc_at: crcs + 4 * i,
                offset_at: offsets + 4 * i,
                offset: u64::from(o),
            }
        })
        .collect()
}

/// One pack entry: where it is, its type, where its zlib data starts.
#[derive(Clone, Debug)]
pub(crate) struct PackEntry {
    pub offset: usize,
    pub end: usize,
    pub kind: u8,
    /// The size in the header (a delta's own size for deltas).
    pub size: u64,
    pub data: usize,
}

/// The entries of `pack`, from the offsets of its idx.
pub(crate) fn pack_entries(pack: &[u8], idx: &[IdxEntry], len: usize) -> Vec<PackEntry> {
    let mut offsets: Vec<usize> = idx.iter().map(|e| e.offset as usize).collect();
    offsets.sort_unstable();
    let last = pack.len() - len;
    offsets
        .iter()
        .enumerate()
        .map(|(i, &offset)| {
            let end = offsets.get(i + 1).copied().unwrap_or(last);
            let mut at = offset;
            let mut c = pack[at];
            let kind = (c >> 4) & 7;
            let mut size = u64::from(c & 15);
            let mut shift = 4;
            at += 1;
            while c & 0x80 != 0 {
                c = pack[at];
                size |= u64::from(c & 0x7f) << shift;
                shift += 7;
                at += 1;
            }
            match kind {
                6 => {
                    while pack[at] & 0x80 != 0 {
                        at += 1;
                    }
                    at += 1;
                }
                7 => at += len,
                _ => {}
            }
            PackEntry {
                offset,
                end,
                kind,
                size,
                data: at,
            }
        })
        .collect()
}

/// Checks that the entries were read right: each one's zlib data ends exactly where the next
/// entry starts and inflates to the size in its header.
fn check_entries(pack: &[u8], pe: &[PackEntry]) {
    use miniz_oxide::inflate::stream::{InflateState, inflate};
    use miniz_oxide::{DataFormat, MZFlush, MZStatus};
    for e in pe {
        let mut state = InflateState::new_boxed(DataFormat::Zlib);
        let mut out = vec![0u8; e.size as usize + 1];
        let r = inflate(&mut state, &pack[e.data..e.end], &mut out, MZFlush::Finish);
        assert_eq!(r.status, Ok(MZStatus::StreamEnd), "entry at {}", e.offset);
        assert_eq!(r.bytes_consumed, e.end - e.data, "entry at {}", e.offset);
        assert_eq!(r.bytes_written as u64, e.size, "entry at {}", e.offset);
    }
}

/// The one `.pack` under `dir/objects/pack` (or `dir/.git/objects/pack`), as a root-relative path
/// without the extension.
pub(crate) fn the_pack(b: &Builder, dir: &str) -> String {
    let packs = b.sh(
        dir,
        "d=$(git rev-parse --git-path objects/pack); ls \"$d\"/*.pack",
    );
    let mut it = packs.lines();
    let first = it.next().expect("a pack");
    assert!(it.next().is_none(), "one pack in {dir}");
    let stem = first.strip_suffix(".pack").expect(".pack");
    let full = if stem.starts_with('/') {
        stem.to_string()
    } else {
        format!("{}/{dir}/{stem}", b.root.display())
    };
    full.strip_prefix(&format!("{}/", b.root.display()))
        .expect("under the root")
        .to_string()
}

fn edit(b: &Builder, rel: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let p = b.path(rel);
    let mut bytes = fs::read(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
    f(&mut bytes);
    // Packs and idx files are read-only.
    let _ = b.sh(".", &format!("chmod u+w '{rel}'"));
    fs::write(&p, bytes).expect("write");
}

/// A corrupted copy of `from` named `r/c-NAME`, edited by `f` (given the copy's path), with
/// cases for `options`.
fn corrupt(
    b: &mut Builder,
    name: &str,
    from: &str,
    options: &[(&str, &[&str])],
    f: impl FnOnce(&Builder, &str),
) {
    let dir = format!("r/c-{name}");
    b.copy(&format!("r/{from}"), &dir);
    f(b, &dir);
    b.cases(&format!("c-{name}"), &dir, options);
}

/// Edits the pack and idx of `dir` (the repository has one pack): `f(pack, idx, entries,
/// pack entries)`.
fn edit_pack(
    b: &Builder,
    dir: &str,
    len: usize,
    f: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>, &[IdxEntry], &[PackEntry]),
) {
    let stem = the_pack(b, dir);
    let (pack_rel, idx_rel) = (format!("{stem}.pack"), format!("{stem}.idx"));
    let mut pack = fs::read(b.path(&pack_rel)).expect("pack");
    let mut idx = fs::read(b.path(&idx_rel)).expect("idx");
    let entries = idx_v2(&idx, len);
    let pe = pack_entries(&pack, &entries, len);
    check_entries(&pack, &pe);
    f(&mut pack, &mut idx, &entries, &pe);
    edit(b, &pack_rel, |p| *p = pack);
    edit(b, &idx_rel, |i| *i = idx);
}

/// The largest entry of `kind`.
fn largest(pe: &[PackEntry], kind: u8) -> PackEntry {
    pe.iter()
        .filter(|e| e.kind == kind)
        .max_by_key(|e| (e.end - e.data, e.offset))
        .cloned()
        .unwrap_or_else(|| panic!("no entry of type {kind}"))
}

/// The smallest entry of `kind` with at least 8 bytes of zlib data.
fn smallest(pe: &[PackEntry], kind: u8) -> PackEntry {
    pe.iter()
        .filter(|e| e.kind == kind && e.end - e.data >= 8)
        .min_by_key(|e| (e.end - e.data, e.offset))
        .cloned()
        .unwrap_or_else(|| panic!("no entry of type {kind}"))
}

/// Writes a loose object (`kind` may be anything) into `dir`'s object directory; its id.
pub(crate) fn write_loose(b: &Builder, dir: &str, kind: &str, content: &[u8]) -> String {
    let mut raw = format!("{kind} {}\0", content.len()).into_bytes();
    raw.extend_from_slice(content);
    let id = crate::support::hex(&hash(20, &raw));
    let objects = b
        .sh(dir, "git rev-parse --git-path objects")
        .trim()
        .to_string();
    let path = b.path(dir).join(objects).join(&id[..2]);
    fs::create_dir_all(&path).expect("mkdir");
    fs::write(
        path.join(&id[2..]),
        miniz_oxide::deflate::compress_to_vec_zlib(&raw, 1),
    )
    .expect("write loose");
    id
}

/// The corruptions.
pub(crate) fn corruptions(b: &mut Builder) {
    pack_corruptions(b, "ofs", "", 20);
    pack_corruptions(b, "ref", "ref-", 20);
    pack_corruptions(b, "sha256-gc", "sha256-", 32);
    side_file_corruptions(b);
    storage_corruptions(b);
    loose_corruptions(b);
    object_corruptions(b);
    ref_corruptions(b);
}

/// An edit of a pack and its idx: `(pack, idx, idx entries, pack entries)`.
type PackEdit<'a> = dyn Fn(&mut Vec<u8>, &mut Vec<u8>, &[IdxEntry], &[PackEntry]) + 'a;

fn pack_corruptions(b: &mut Builder, from: &str, prefix: &str, len: usize) {
    let full = |b: &mut Builder, name: &str, f: &PackEdit<'_>| {
        corrupt(
            b,
            &format!("{prefix}{name}"),
            from,
            PACK_OPTIONS,
            |b, dir| edit_pack(b, dir, len, f),
        );
    };
    // A bit in the middle of a blob's zlib data (the large blob, checked by streaming), of a
    // commit's, and of a delta's.
    full(b, "pack-blob-zlib", &|p, _, _, pe| {
        let e = largest(pe, 3);
        p[(e.data + e.end) / 2] ^= 0x10;
    });
    full(b, "pack-commit-zlib", &|p, _, _, pe| {
        let e = smallest(pe, 1);
        p[(e.data + e.end) / 2] ^= 0x01;
    });
    let delta = if len == 20 && prefix.is_empty() { 6 } else { 7 };
    let has_delta = |pe: &[PackEntry]| pe.iter().any(|e| e.kind == delta);
    {
        // Only where the pack has deltas of that kind.
        let stem = the_pack(b, &format!("r/{from}"));
        let pack = fs::read(b.path(&format!("{stem}.pack"))).expect("pack");
        let idx = fs::read(b.path(&format!("{stem}.idx"))).expect("idx");
        if has_delta(&pack_entries(&pack, &idx_v2(&idx, len), len)) {
            full(b, "pack-delta-zlib", &|p, _, _, pe| {
                let e = largest(pe, delta);
                p[(e.data + e.end) / 2] ^= 0x04;
            });
            // A delta's base: its offset's last byte, or its base id's.
            full(b, "pack-delta-base", &|p, _, _, pe| {
                let e = largest(pe, delta);
                p[e.data - 1] ^= 0x01;
            });
        }
    }
    // The type bits of an entry's header (5 is reserved), and its size bits.
    full(b, "pack-header-type", &|p, _, _, pe| {
        let e = smallest(pe, 1);
        p[e.offset] = (p[e.offset] & 0x8f) | (5 << 4);
    });
    full(b, "pack-header-size", &|p, _, _, pe| {
        let e = smallest(pe, 1);
        p[e.offset] ^= 0x01;
    });
    full(b, "pack-truncated", &|p, _, _, _| p.truncate(p.len() / 2));
    full(b, "pack-trailer", &|p, _, _, _| {
        let n = p.len();
        p[n - 1] ^= 0x80;
    });
    full(b, "pack-header-count", &|p, _, _, _| p[11] ^= 0x01);
    full(b, "pack-header-version", &|p, _, _, _| p[7] = 9);
    full(b, "idx-truncated", &|_, i, _, _| i.truncate(1000));
    full(b, "idx-trailer", &|_, i, _, _| {
        let n = i.len();
        i[n - 1] ^= 0x80;
    });
    full(b, "idx-pack-checksum", &|_, i, _, _| {
        let n = i.len();
        i[n - 2 * len] ^= 0x80;
    });
    // Table edits with the idx's own checksum made right again.
    full(b, "idx-crc", &|_, i, ie, _| {
        i[ie[1].crc_at] ^= 0x01;
        retrail(i, len);
    });
    full(b, "idx-offset-past-end", &|p, i, ie, _| {
        let past = (p.len() as u32 + 1000).to_be_bytes();
        i[ie[2].offset_at..ie[2].offset_at + 4].copy_from_slice(&past);
        retrail(i, len);
    });
    full(b, "idx-offset-inside", &|_, i, ie, _| {
        let o = ie[3].offset as u32 + 1;
        i[ie[3].offset_at..ie[3].offset_at + 4].copy_from_slice(&o.to_be_bytes());
        retrail(i, len);
    });
    full(b, "idx-fanout", &|_, i, _, _| {
        // fanout[0x7f] above fanout[0x80].
        let at = 8 + 0x7f * 4;
        let next = be32(i, at + 4);
        i[at..at + 4].copy_from_slice(&(next + 1).to_be_bytes());
        retrail(i, len);
    });
    full(b, "idx-id-order", &|_, i, ie, _| {
        // Two ids swapped (and their CRCs and offsets kept): the table is out of order.
        let ids = 8 + 256 * 4;
        let (a, c) = (ids, ids + len);
        let first = i[a..a + len].to_vec();
        let second = i[c..c + len].to_vec();
        i[a..a + len].copy_from_slice(&second);
        i[c..c + len].copy_from_slice(&first);
        let _ = ie;
        retrail(i, len);
    });
    full(b, "idx-bad-version", &|_, i, _, _| {
        i[7] = 3;
    });
    if prefix.is_empty() {
        // The .rev: its checksum, and an entry.
        corrupt(b, "rev-trailer", from, &CORRUPT_OPTIONS[..1], |b, dir| {
            let stem = the_pack(b, dir);
            edit(b, &format!("{stem}.rev"), |r| {
                let n = r.len();
                r[n - 1] ^= 0x01;
            });
        });
        corrupt(b, "rev-data", from, &CORRUPT_OPTIONS[..1], |b, dir| {
            let stem = the_pack(b, dir);
            edit(b, &format!("{stem}.rev"), |r| {
                // Header: RIDX, version, hash id; then one 4-byte index position per object.
                assert_eq!(&r[..4], b"RIDX");
                r[12 + 3] ^= 0x01;
                retrail(r, len);
            });
        });
        corrupt(b, "rev-truncated", from, &CORRUPT_OPTIONS[..1], |b, dir| {
            let stem = the_pack(b, dir);
            edit(b, &format!("{stem}.rev"), |r| r.truncate(20));
        });
        corrupt(b, "idx-missing", from, &CORRUPT_OPTIONS[..1], |b, dir| {
            let stem = the_pack(b, dir);
            fs::remove_file(b.path(&format!("{stem}.idx"))).expect("rm idx");
        });
    }
}

/// The chunk-file formats (commit-graph, midx): `(chunk id, offset)` from the table that starts at
/// `table` and has `n` entries plus the terminating one.
fn chunks(bytes: &[u8], table: usize, n: usize) -> Vec<([u8; 4], usize)> {
    (0..=n)
        .map(|i| {
            let at = table + 12 * i;
            (
                bytes[at..at + 4].try_into().expect("id"),
                be64(bytes, at + 4) as usize,
            )
        })
        .collect()
}

fn chunk(list: &[([u8; 4], usize)], id: &[u8; 4]) -> usize {
    list.iter()
        .find(|(i, _)| i == id)
        .map(|(_, o)| *o)
        .unwrap_or_else(|| panic!("no chunk {}", String::from_utf8_lossy(id)))
}

fn side_file_corruptions(b: &mut Builder) {
    let graph = ".git/objects/info/commit-graph";
    corrupt(
        b,
        "cgraph-trailer",
        "cgraph",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{graph}"), |g| {
                let n = g.len();
                g[n - 1] ^= 0x01;
            });
        },
    );
    corrupt(
        b,
        "cgraph-tree",
        "cgraph",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{graph}"), |g| {
                // Header: CGPH, version, hash version, chunk count, base graph count; then the table.
                assert_eq!(&g[..4], b"CGPH");
                let list = chunks(g, 8, usize::from(g[6]));
                // The first commit's root tree id.
                let cdat = chunk(&list, b"CDAT");
                g[cdat + 5] ^= 0x01;
                retrail(g, 20);
            });
        },
    );
    corrupt(
        b,
        "cgraph-date",
        "cgraph",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{graph}"), |g| {
                let list = chunks(g, 8, usize::from(g[6]));
                // The first commit's commit date (after the tree id and two parent positions).
                let cdat = chunk(&list, b"CDAT");
                g[cdat + 20 + 8 + 7] ^= 0x01;
                retrail(g, 20);
            });
        },
    );
    corrupt(
        b,
        "cgraph-fanout",
        "cgraph",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{graph}"), |g| {
                let list = chunks(g, 8, usize::from(g[6]));
                let oidf = chunk(&list, b"OIDF");
                g[oidf + 4 * 0x40 + 3] ^= 0x40;
                retrail(g, 20);
            });
        },
    );
    corrupt(
        b,
        "cgraph-split-trailer",
        "cgraph-split",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            let chain = b.sh(
                dir,
                "cat .git/objects/info/commit-graphs/commit-graph-chain",
            );
            let last = chain.lines().last().expect("a graph").to_string();
            edit(
                b,
                &format!("{dir}/.git/objects/info/commit-graphs/graph-{last}.graph"),
                |g| {
                    let n = g.len();
                    g[n - 1] ^= 0x01;
                },
            );
        },
    );
    corrupt(
        b,
        "cgraph-split-chain",
        "cgraph-split",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(
                b,
                &format!("{dir}/.git/objects/info/commit-graphs/commit-graph-chain"),
                |c| {
                    c[0] = if c[0] == b'0' { b'1' } else { b'0' };
                },
            );
        },
    );
    let midx = ".git/objects/pack/multi-pack-index";
    corrupt(
        b,
        "midx-trailer",
        "midx",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{midx}"), |m| {
                let n = m.len();
                m[n - 1] ^= 0x01;
            });
        },
    );
    corrupt(b, "midx-offset", "midx", &CORRUPT_OPTIONS[..1], |b, dir| {
        edit(b, &format!("{dir}/{midx}"), |m| {
            // Header: MIDX, version, hash version, chunk count, base count, pack count; then the
            // table. OOFF: per object a pack number and an offset.
            assert_eq!(&m[..4], b"MIDX");
            let list = chunks(m, 12, usize::from(m[6]));
            let ooff = chunk(&list, b"OOFF");
            m[ooff + 4 + 3] ^= 0x01;
            retrail(m, 20);
        });
    });
    corrupt(
        b,
        "midx-pack-name",
        "midx",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/{midx}"), |m| {
                let list = chunks(m, 12, usize::from(m[6]));
                let pnam = chunk(&list, b"PNAM");
                m[pnam + 10] ^= 0x01;
                retrail(m, 20);
            });
        },
    );
    for (name, from) in [("bitmap", "bitmap"), ("midx-bitmap", "midx-bitmap")] {
        corrupt(
            b,
            &format!("{name}-trailer"),
            from,
            &CORRUPT_OPTIONS[..1],
            |b, dir| {
                let file = b
                    .sh(dir, "ls .git/objects/pack/*.bitmap")
                    .trim()
                    .to_string();
                edit(b, &format!("{dir}/{file}"), |m| {
                    let n = m.len();
                    m[n - 1] ^= 0x01;
                });
            },
        );
        corrupt(
            b,
            &format!("{name}-data"),
            from,
            &CORRUPT_OPTIONS[..1],
            |b, dir| {
                let file = b
                    .sh(dir, "ls .git/objects/pack/*.bitmap")
                    .trim()
                    .to_string();
                edit(b, &format!("{dir}/{file}"), |m| {
                    // Header: BITM, version, flags, entry count, pack checksum; then the type
                    // bitmaps (EWAH). A byte of the commits' bitmap.
                    assert_eq!(&m[..4], b"BITM");
                    m[12 + 20 + 9] ^= 0x01;
                    retrail(m, 20);
                });
            },
        );
    }
    corrupt(b, "index-checksum", "base", MISSING_OPTIONS, |b, dir| {
        edit(b, &format!("{dir}/.git/index"), |i| {
            let n = i.len();
            i[n - 1] ^= 0x01;
        });
    });
    corrupt(
        b,
        "index-missing-blob",
        "base",
        MISSING_OPTIONS,
        |b, dir| {
            b.sh(
            dir,
            "git update-index --add --cacheinfo 100644,1111111111111111111111111111111111111111,ghost",
        );
        },
    );
    corrupt(
        b,
        "index-truncated",
        "base",
        &CORRUPT_OPTIONS[..1],
        |b, dir| {
            edit(b, &format!("{dir}/.git/index"), |i| i.truncate(40));
        },
    );
}

/// Path of the loose object `id` in `dir`.
fn loose_path(dir: &str, id: &str) -> String {
    format!("{dir}/.git/objects/{}/{}", &id[..2], &id[2..])
}

/// idx v1 (a fan-out table, then a 4-byte offset and an id per object, the two checksums),
/// several packs, alternates, shallow and partial clones.
fn storage_corruptions(b: &mut Builder) {
    let packs: &[(&str, &[&str])] = &[("default", &[]), ("no-full", &["--no-full"])];
    corrupt(b, "idx1-trailer", "idx1", packs, |b, dir| {
        let stem = the_pack(b, dir);
        edit(b, &format!("{stem}.idx"), |i| {
            let n = i.len();
            i[n - 1] ^= 0x01;
        });
    });
    corrupt(b, "idx1-truncated", "idx1", packs, |b, dir| {
        let stem = the_pack(b, dir);
        edit(b, &format!("{stem}.idx"), |i| i.truncate(2000));
    });
    corrupt(b, "idx1-offset-past-end", "idx1", packs, |b, dir| {
        let stem = the_pack(b, dir);
        let pack_len = fs::metadata(b.path(&format!("{stem}.pack")))
            .expect("pack")
            .len() as u32;
        edit(b, &format!("{stem}.idx"), |i| {
            assert_ne!(&i[..4], b"\xfftOc", "idx v1");
            let at = 256 * 4;
            i[at..at + 4].copy_from_slice(&(pack_len + 1000).to_be_bytes());
            retrail(i, 20);
        });
    });
    corrupt(b, "idx1-fanout", "idx1", packs, |b, dir| {
        let stem = the_pack(b, dir);
        edit(b, &format!("{stem}.idx"), |i| {
            let at = 0x7f * 4;
            let next = be32(i, at + 4);
            i[at..at + 4].copy_from_slice(&(next + 1).to_be_bytes());
            retrail(i, 20);
        });
    });
    corrupt(b, "packs-one-trailer", "packs", packs, |b, dir| {
        // The smaller of the two packs.
        let list = b.sh(dir, "ls -S .git/objects/pack/*.pack | tail -n 1");
        edit(b, &format!("{dir}/{}", list.trim()), |p| {
            let n = p.len();
            p[n - 1] ^= 0x01;
        });
    });
    corrupt(
        b,
        "packs-one-missing",
        "packs",
        CORRUPT_OPTIONS,
        |b, dir| {
            let list = b.sh(dir, "ls -S .git/objects/pack/*.pack | tail -n 1");
            let pack = list.trim().to_string();
            fs::remove_file(b.path(&format!("{dir}/{pack}"))).expect("rm pack");
        },
    );
    corrupt(
        b,
        "alternates-missing",
        "alternates",
        PACK_OPTIONS,
        |b, dir| {
            let p = b.path(&format!("{dir}/.git/objects/info/alternates"));
            fs::write(p, "../../../nowhere/objects\n").expect("write");
        },
    );
    corrupt(
        b,
        "alternates-garbage",
        "alternates",
        CORRUPT_OPTIONS,
        |b, dir| {
            let p = b.path(&format!("{dir}/.git/objects/info/alternates"));
            let mut text = fs::read_to_string(&p).expect("alternates");
            text.push_str("# a comment\n\nrelative/not/there\n");
            fs::write(p, text).expect("write");
        },
    );
    corrupt(
        b,
        "shallow-garbage",
        "shallow",
        CORRUPT_OPTIONS,
        |b, dir| {
            let p = b.path(&format!("{dir}/.git/shallow"));
            let mut text = fs::read_to_string(&p).expect("shallow");
            text.push_str("1111111111111111111111111111111111111111\n");
            fs::write(p, text).expect("write");
        },
    );
    corrupt(
        b,
        "shallow-removed",
        "shallow",
        CORRUPT_OPTIONS,
        |b, dir| {
            fs::remove_file(b.path(&format!("{dir}/.git/shallow"))).expect("rm shallow");
        },
    );
    corrupt(
        b,
        "partial-no-promisor",
        "partial",
        CORRUPT_OPTIONS,
        |b, dir| {
            b.sh(dir, "rm .git/objects/pack/*.promisor");
        },
    );
    corrupt(
        b,
        "partial-mixed-lost-loose",
        "partial-mixed",
        CORRUPT_OPTIONS,
        |b, dir| {
            // A blob of a local commit: not promised, so missing, although the remote's trees
            // name blobs that are not here either.
            b.sh(
                dir,
                "f=$(git rev-parse HEAD:loose | sed 's|^..|&/|'); rm .git/objects/$f",
            );
        },
    );
    corrupt(
        b,
        "partial-mixed-lost-packed",
        "partial-mixed",
        CORRUPT_OPTIONS,
        |b, dir| {
            // The normal pack (the local commit's objects) gone: its commit is named by HEAD's
            // parent link, and no promisor pack holds it.
            b.sh(
                dir,
                "for p in .git/objects/pack/*.pack; do [ -e \"${p%.pack}.promisor\" ] || rm -f \"${p%.pack}\".*; done",
            );
        },
    );
    for (name, first, second) in [
        (
            "partial-promised-blob-then-tree",
            "100644 blob",
            "040000 tree",
        ),
        (
            "partial-promised-tree-then-blob",
            "040000 tree",
            "100644 blob",
        ),
    ] {
        corrupt(b, name, "partial", CORRUPT_OPTIONS, |b, dir| {
            // A promisor pack whose trees name one absent id as a blob and as a tree, in
            // either order: git's "is a T, not a U" goes with the link it reads second.
            b.sh(
                dir,
                &format!(
                    "x=$(echo promised | git hash-object --stdin)
                     t1=$(printf '{first} %s\\tf\\n' $x | git mktree --missing)
                     t2=$(printf '{second} %s\\tg\\n' $x | git mktree --missing)
                     t3=$(printf '040000 tree %s\\ta\\n040000 tree %s\\tb\\n' $t1 $t2 | git mktree)
                     c=$(git commit-tree -p HEAD -m conflict $t3)
                     git update-ref HEAD $c
                     p=$(printf '%s\\n' $c $t3 $t1 $t2 | git pack-objects -q .git/objects/pack/pack)
                     touch .git/objects/pack/pack-$p.promisor
                     git prune-packed"
                ),
            );
        });
    }
    corrupt(
        b,
        "partial-no-remote",
        "partial",
        CORRUPT_OPTIONS,
        |b, dir| {
            // `.promisor` files, but no promisor remote: nothing is a promisor object, and the
            // blobs the clone left out are missing.
            b.sh(
                dir,
                "git config --unset remote.origin.promisor
                 git config --unset remote.origin.partialclonefilter",
            );
        },
    );
    corrupt(
        b,
        "partial-not-partial",
        "partial",
        CORRUPT_OPTIONS,
        |b, dir| {
            b.sh(dir, "git config --unset remote.origin.promisor");
        },
    );
}

fn loose_corruptions(b: &mut Builder) {
    let rev = |b: &Builder, dir: &str, what: &str| {
        b.sh(dir, &format!("git rev-parse '{what}'"))
            .trim()
            .to_string()
    };
    corrupt(b, "loose-truncated", "base", MISSING_OPTIONS, |b, dir| {
        let id = rev(b, dir, "HEAD:large.txt");
        edit(b, &loose_path(dir, &id), |o| o.truncate(o.len() / 2));
    });
    corrupt(b, "loose-empty", "base", CORRUPT_OPTIONS, |b, dir| {
        let id = rev(b, dir, "HEAD:renamed");
        edit(b, &loose_path(dir, &id), |o| o.clear());
    });
    corrupt(b, "loose-zlib", "base", CORRUPT_OPTIONS, |b, dir| {
        let id = rev(b, dir, "HEAD^{tree}");
        edit(b, &loose_path(dir, &id), |o| {
            let n = o.len();
            o[n / 2] ^= 0x08;
        });
    });
    corrupt(b, "loose-hash-path", "base", MISSING_OPTIONS, |b, dir| {
        // The blob's file under another (unused) name.
        let id = rev(b, dir, "HEAD:blob.bin");
        let mut other = id.clone().into_bytes();
        other[39] = if other[39] == b'0' { b'1' } else { b'0' };
        let other = String::from_utf8(other).expect("hex");
        fs::rename(
            b.path(&loose_path(dir, &id)),
            b.path(&loose_path(dir, &other)),
        )
        .expect("rename");
    });
    corrupt(
        b,
        "loose-hash-path-dir",
        "base",
        CORRUPT_OPTIONS,
        |b, dir| {
            // The blob's file in another fan-out directory.
            let id = rev(b, dir, "HEAD:d/e/b");
            let to = if &id[..2] == "00" { "01" } else { "00" };
            fs::create_dir_all(b.path(&format!("{dir}/.git/objects/{to}"))).expect("mkdir");
            fs::rename(
                b.path(&loose_path(dir, &id)),
                b.path(&format!("{dir}/.git/objects/{to}/{}", &id[2..])),
            )
            .expect("rename");
        },
    );
    corrupt(
        b,
        "sha256-missing-blob",
        "sha256",
        MISSING_OPTIONS,
        |b, dir| {
            let id = rev(b, dir, "HEAD:d/b");
            fs::remove_file(b.path(&loose_path(dir, &id))).expect("rm");
        },
    );
    corrupt(
        b,
        "sha256-loose-hash-path",
        "sha256",
        CORRUPT_OPTIONS,
        |b, dir| {
            let id = rev(b, dir, "HEAD:a");
            let mut other = id.clone().into_bytes();
            other[63] = if other[63] == b'0' { b'1' } else { b'0' };
            let other = String::from_utf8(other).expect("hex");
            fs::rename(
                b.path(&loose_path(dir, &id)),
                b.path(&loose_path(dir, &other)),
            )
            .expect("rename");
        },
    );
    corrupt(b, "pack-dir-garbage", "ofs", CORRUPT_OPTIONS, |b, dir| {
        // Files git does not expect beside the packs: garbage, a lone .keep, a temporary pack.
        let stem = the_pack(b, dir);
        let packs = b.path(&format!("{dir}/.git/objects/pack"));
        fs::write(packs.join("garbage"), b"x").expect("write");
        fs::write(
            packs.join("pack-0000000000000000000000000000000000000000.keep"),
            b"",
        )
        .expect("write");
        fs::write(packs.join("tmp_pack_abcdef"), b"PACK").expect("write");
        fs::write(b.path(&format!("{stem}.keep")), b"").expect("write");
    });
    corrupt(
        b,
        "loose-unknown-type",
        "base",
        CORRUPT_OPTIONS,
        |b, dir| {
            write_loose(b, dir, "bogus", b"abc");
        },
    );
    corrupt(b, "loose-bad-header", "base", CORRUPT_OPTIONS, |b, dir| {
        // A size smaller than the content's. (A larger one makes git 2.47 hash bytes past the
        // content that it never read, so its reported id changes from run to run.)
        let raw = b"blob 3\0short";
        let id = crate::support::hex(&hash(20, raw));
        fs::create_dir_all(b.path(&format!("{dir}/.git/objects/{}", &id[..2]))).expect("mkdir");
        fs::write(
            b.path(&loose_path(dir, &id)),
            miniz_oxide::deflate::compress_to_vec_zlib(raw, 1),
        )
        .expect("write");
    });
    corrupt(
        b,
        "loose-garbage-file",
        "base",
        CORRUPT_OPTIONS,
        |b, dir| {
            fs::write(
                b.path(&format!("{dir}/.git/objects/ab/not-an-object")),
                b"x",
            )
            .ok();
            fs::create_dir_all(b.path(&format!("{dir}/.git/objects/zz"))).expect("mkdir");
            fs::write(b.path(&format!("{dir}/.git/objects/zz/garbage")), b"x").expect("write");
        },
    );
    for (name, what) in [
        ("missing-blob", "HEAD:renamed"),
        ("missing-tree", "HEAD:d/e"),
        ("missing-commit", "HEAD~3"),
        ("missing-tag", "v1"),
        ("missing-root-tree", "HEAD^{tree}"),
    ] {
        corrupt(b, name, "base", MISSING_OPTIONS, |b, dir| {
            let id = rev(b, dir, what);
            fs::remove_file(b.path(&loose_path(dir, &id))).expect("rm");
        });
    }
}

/// Malformed objects written with `git hash-object --literally -w`, reachable from a branch.
fn object_corruptions(b: &mut Builder) {
    let blob = "a".repeat(40);
    let _ = blob;
    let ids = |b: &Builder, dir: &str| -> (Vec<u8>, String) {
        let blob = b.sh(dir, "git rev-parse HEAD:renamed").trim().to_string();
        (
            unhex(&blob),
            b.sh(dir, "git rev-parse 'HEAD^{tree}'").trim().to_string(),
        )
    };
    let trees: &[(&str, &[(&str, &str)])] = &[
        ("tree-bad-mode", &[("100645", "a")]),
        ("tree-zero-padded-mode", &[("0100644", "a")]),
        ("tree-unsorted", &[("100644", "b"), ("100644", "a")]),
        ("tree-duplicate", &[("100644", "a"), ("100644", "a")]),
        ("tree-dot", &[("100644", "."), ("100644", "a")]),
        ("tree-dotgit", &[("100644", ".git"), ("100644", "a")]),
        ("tree-empty-name", &[("100644", ""), ("100644", "a")]),
        ("tree-slash", &[("100644", "a/b")]),
        ("tree-gitmodules-symlink", &[("120000", ".gitmodules")]),
    ];
    for (name, entries) in trees {
        corrupt(
            b,
            name,
            "base",
            &[("default", &[]), ("strict", &["--strict"])],
            |b, dir| {
                let (blob, _) = ids(b, dir);
                let mut tree = Vec::new();
                for (mode, path) in *entries {
                    tree.extend_from_slice(format!("{mode} {path}\0").as_bytes());
                    tree.extend_from_slice(&blob);
                }
                let file = b.path(&format!("{dir}/bad-object"));
                fs::write(&file, &tree).expect("write");
                b.sh(
                dir,
                "t=$(git hash-object --literally -w -t tree bad-object)
                 rm bad-object
                 c=$(printf 'tree %s\\nauthor A U Thor <author@example.com> 1700000000 +0000\\ncommitter C O Mitter <committer@example.com> 1700000000 +0000\\n\\nbad tree\\n' \"$t\" | git hash-object --literally -w -t commit --stdin)
                 echo \"$c\" > .git/refs/heads/bad",
            );
            },
        );
    }
    let ident = "A U Thor <author@example.com> 1700000000 +0000";
    let commits: &[(&str, &str)] = &[
        (
            "commit-bad-author",
            "tree TREE\nauthor A U Thor author@example.com> 1700000000 +0000\ncommitter IDENT\n\nm\n",
        ),
        ("commit-no-author", "tree TREE\ncommitter IDENT\n\nm\n"),
        (
            "commit-bad-tree",
            "tree 123\nauthor IDENT\ncommitter IDENT\n\nm\n",
        ),
        (
            "commit-bad-date",
            "tree TREE\nauthor A U Thor <author@example.com> 99999999999999999999 +0000\ncommitter IDENT\n\nm\n",
        ),
        (
            "commit-bad-timezone",
            "tree TREE\nauthor A U Thor <author@example.com> 1700000000 +00000\ncommitter IDENT\n\nm\n",
        ),
        (
            "commit-nul",
            "tree TREE\nauthor IDENT\ncommitter IDENT\n\nm\0x\n",
        ),
        (
            "commit-missing-parent",
            "tree TREE\nparent 1111111111111111111111111111111111111111\nauthor IDENT\ncommitter IDENT\n\nm\n",
        ),
        ("commit-garbage", "junk\n"),
    ];
    for (name, text) in commits {
        corrupt(
            b,
            name,
            "base",
            &[("default", &[]), ("strict", &["--strict"])],
            |b, dir| {
                let (_, tree) = ids(b, dir);
                let content = text.replace("TREE", &tree).replace("IDENT", ident);
                fs::write(b.path(&format!("{dir}/bad-object")), content).expect("write");
                b.sh(
                    dir,
                    "c=$(git hash-object --literally -w -t commit bad-object)
                 rm bad-object
                 echo \"$c\" > .git/refs/heads/bad",
                );
            },
        );
    }
    let tags: &[(&str, &str)] = &[
        ("tag-no-tagger", "object HEAD\ntype commit\ntag t\n\nm\n"),
        (
            "tag-bad-type",
            "object HEAD\ntype blob\ntag t\ntagger IDENT\n\nm\n",
        ),
        (
            "tag-unknown-type",
            "object HEAD\ntype nope\ntag t\ntagger IDENT\n\nm\n",
        ),
        (
            "tag-bad-name",
            "object HEAD\ntype commit\ntag a..b\ntagger IDENT\n\nm\n",
        ),
        (
            "tag-missing-object",
            "object 1111111111111111111111111111111111111111\ntype commit\ntag t\ntagger IDENT\n\nm\n",
        ),
    ];
    for (name, text) in tags {
        corrupt(
            b,
            name,
            "base",
            &[("default", &[]), ("strict", &["--strict"])],
            |b, dir| {
                let head = b.sh(dir, "git rev-parse HEAD").trim().to_string();
                let content = text.replace("HEAD", &head).replace("IDENT", ident);
                fs::write(b.path(&format!("{dir}/bad-object")), content).expect("write");
                b.sh(
                    dir,
                    "t=$(git hash-object --literally -w -t tag bad-object)
                 rm bad-object
                 echo \"$t\" > .git/refs/tags/bad",
                );
            },
        );
    }
    corrupt(
        b,
        "gitmodules-url",
        "base",
        &[("default", &[]), ("strict", &["--strict"])],
        |b, dir| {
            b.sh(
                dir,
                "printf '[submodule \"sub\"]\\n\\tpath = sub\\n\\turl = -bad\\n' > .gitmodules
             git commit -q -am 'bad url'",
            );
        },
    );
    corrupt(
        b,
        "gitmodules-name",
        "base",
        &[("default", &[])],
        |b, dir| {
            b.sh(
                dir,
                "printf '[submodule \"../x\"]\\n\\tpath = sub\\n\\turl = ./sub\\n' > .gitmodules
             git commit -q -am 'bad name'",
            );
        },
    );
    corrupt(
        b,
        "gitmodules-syntax",
        "base",
        &[("default", &[])],
        |b, dir| {
            b.sh(
                dir,
                "printf '[submodule \"sub\"\\n\\tpath = sub\\n' > .gitmodules
             git commit -q -am 'bad syntax'",
            );
        },
    );
}

fn ref_corruptions(b: &mut Builder) {
    let missing = "1111111111111111111111111111111111111111";
    let write = |b: &Builder, dir: &str, file: &str, content: &str| {
        let p = b.path(&format!("{dir}/.git/{file}"));
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, content).expect("write");
    };
    let opts: &[(&str, &[&str])] = &[("default", &[]), ("no-reflogs", &["--no-reflogs"])];
    corrupt(b, "ref-missing-object", "base", opts, |b, dir| {
        write(b, dir, "refs/heads/missing", &format!("{missing}\n"));
    });
    corrupt(b, "ref-to-tree", "base", opts, |b, dir| {
        let tree = b.sh(dir, "git rev-parse 'HEAD^{tree}'");
        write(b, dir, "refs/heads/tree", &tree);
    });
    corrupt(b, "ref-to-blob-tag", "base", opts, |b, dir| {
        let blob = b.sh(dir, "git rev-parse HEAD:renamed");
        write(b, dir, "refs/tags/blob", &blob);
    });
    corrupt(b, "ref-garbage", "base", opts, |b, dir| {
        write(b, dir, "refs/heads/garbage", "not an object id\n");
    });
    corrupt(b, "ref-bad-name", "base", opts, |b, dir| {
        let head = b.sh(dir, "git rev-parse HEAD");
        write(b, dir, "refs/heads/bad..name", &head);
    });
    corrupt(b, "ref-symref-dangling", "base", opts, |b, dir| {
        write(b, dir, "refs/heads/sym", "ref: refs/heads/nowhere\n");
    });
    corrupt(b, "packed-refs-bad-line", "packed-refs", opts, |b, dir| {
        let p = b.path(&format!("{dir}/.git/packed-refs"));
        let mut text = fs::read_to_string(&p).expect("packed-refs");
        text.push_str("this is not a packed ref\n");
        fs::write(p, text).expect("write");
    });
    corrupt(b, "packed-refs-missing", "packed-refs", opts, |b, dir| {
        let p = b.path(&format!("{dir}/.git/packed-refs"));
        let mut text = fs::read_to_string(&p).expect("packed-refs");
        text.push_str(&format!("{missing} refs/heads/zz-missing\n"));
        fs::write(p, text).expect("write");
    });
    corrupt(b, "packed-refs-unsorted", "packed-refs", opts, |b, dir| {
        let p = b.path(&format!("{dir}/.git/packed-refs"));
        let text = fs::read_to_string(&p).expect("packed-refs");
        let head = b.sh(dir, "git rev-parse HEAD");
        let mut out: String = text.lines().take(1).map(|l| format!("{l}\n")).collect();
        out.push_str(&format!("{} refs/heads/zzz\n", head.trim()));
        for l in text.lines().skip(1) {
            out.push_str(l);
            out.push('\n');
        }
        fs::write(p, out).expect("write");
    });
    corrupt(b, "head-empty", "base", opts, |b, dir| {
        write(b, dir, "HEAD", "")
    });
    corrupt(b, "head-missing-object", "base", opts, |b, dir| {
        write(b, dir, "HEAD", &format!("{missing}\n"))
    });
    corrupt(b, "head-strange", "base", opts, |b, dir| {
        write(b, dir, "HEAD", "ref: somewhere/strange\n")
    });
    corrupt(b, "head-unborn-branch", "base", opts, |b, dir| {
        write(b, dir, "HEAD", "ref: refs/heads/nowhere\n")
    });
    corrupt(b, "head-to-tag", "base", opts, |b, dir| {
        write(b, dir, "HEAD", "ref: refs/tags/v1\n")
    });
    corrupt(b, "head-garbage", "base", opts, |b, dir| {
        write(b, dir, "HEAD", "garbage\n")
    });
    corrupt(b, "reflog-missing", "base", opts, |b, dir| {
        let head = b.sh(dir, "git rev-parse HEAD").trim().to_string();
        let p = b.path(&format!("{dir}/.git/logs/refs/heads/main"));
        let mut text = fs::read_to_string(&p).expect("reflog");
        text.push_str(&format!(
            "{head} {missing} C O Mitter <committer@example.com> 1700000000 +0000\tbroken\n"
        ));
        fs::write(p, text).expect("write");
    });
    corrupt(b, "reflog-garbage", "base", opts, |b, dir| {
        let p = b.path(&format!("{dir}/.git/logs/HEAD"));
        let mut text = fs::read_to_string(&p).expect("reflog");
        text.push_str("not a reflog line\n");
        fs::write(p, text).expect("write");
    });
    corrupt(b, "worktree-head-missing", "worktree", opts, |b, dir| {
        write(
            b,
            dir,
            "worktrees/worktree-detached/HEAD",
            &format!("{missing}\n"),
        );
    });
    corrupt(
        b,
        "worktree-index-missing-blob",
        "worktree",
        opts,
        |b, dir| {
            let wt = b.path(&format!("{dir}/.git/worktrees/worktree-linked"));
            let wt = wt.to_string_lossy().into_owned();
            b.sh(
            dir,
            &format!(
                "GIT_INDEX_FILE='{wt}/index' git update-index --add --cacheinfo 100644,{missing},ghost"
            ),
        );
        },
    );
}
