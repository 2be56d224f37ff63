//! Packs written byte by byte (version 2: `PACK`, version, count; entries of a type-and-size
//! varint header, an OFS_DELTA's negative offset or a REF_DELTA's base id, zlib data; the SHA-1
//! trailer), with an idx v2 written here too when `git index-pack` refuses the pack, for what git
//! never writes: hostile deltas, delta cycles, bases before the pack's start, sizes that lie,
//! zlib bombs.

use std::fs;

use super::build::Builder;
use super::corrupt::{hash, unhex};
use crate::support::hex;

const BLOB: u8 = 3;
const OFS_DELTA: u8 = 6;
const REF_DELTA: u8 = 7;

/// An entry's header: type and size, four bits then seven at a time.
fn entry_header(kind: u8, size: u64) -> Vec<u8> {
    let mut out = vec![(kind << 4) | (size & 15) as u8];
    let mut rest = size >> 4;
    while rest > 0 {
        *out.last_mut().expect("a byte") |= 0x80;
        out.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    out
}

/// A delta's size varint (seven bits at a time, least significant first).
fn delta_size(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// An OFS_DELTA's distance back to its base (big-endian, each continuation adding one).
fn ofs_distance(mut d: u64) -> Vec<u8> {
    let mut out = vec![(d & 0x7f) as u8];
    d >>= 7;
    while d > 0 {
        d -= 1;
        out.push(0x80 | (d & 0x7f) as u8);
        d >>= 7;
    }
    out.reverse();
    out
}

/// The CRC-32 (IEEE, reflected) git's idx v2 keeps per entry.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One entry to write: its header-and-base prefix, its uncompressed data, and the id the idx
/// gives it.
struct Entry {
    prefix: Vec<u8>,
    zlib: Vec<u8>,
    id: Vec<u8>,
}

fn zlib(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 6)
}

/// The pack's bytes and each entry's offset.
fn pack(entries: &[Entry]) -> (Vec<u8>, Vec<u64>) {
    let mut p = b"PACK\0\0\0\x02".to_vec();
    p.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    let mut offsets = Vec::new();
    for e in entries {
        offsets.push(p.len() as u64);
        p.extend_from_slice(&e.prefix);
        p.extend_from_slice(&e.zlib);
    }
    let trailer = hash(20, &p);
    p.extend_from_slice(&trailer);
    (p, offsets)
}

/// An idx v2 for `pack`.
fn idx(pack: &[u8], entries: &[Entry], offsets: &[u64]) -> Vec<u8> {
    let mut rows: Vec<(Vec<u8>, u32, u64)> = entries
        .iter()
        .zip(offsets)
        .enumerate()
        .map(|(i, (e, &o))| {
            let end = offsets
                .get(i + 1)
                .copied()
                .unwrap_or((pack.len() - 20) as u64);
            (e.id.clone(), crc32(&pack[o as usize..end as usize]), o)
        })
        .collect();
    rows.sort();
    let mut out = b"\xfftOc\0\0\0\x02".to_vec();
    for first in 0..256usize {
        let n = rows.iter().filter(|r| usize::from(r.0[0]) <= first).count();
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
    for r in &rows {
        out.extend_from_slice(&r.0);
    }
    for r in &rows {
        out.extend_from_slice(&r.1.to_be_bytes());
    }
    for r in &rows {
        out.extend_from_slice(&(r.2 as u32).to_be_bytes());
    }
    out.extend_from_slice(&pack[pack.len() - 20..]);
    let trailer = hash(20, &out);
    out.extend_from_slice(&trailer);
    out
}

fn blob_id(data: &[u8]) -> Vec<u8> {
    let mut raw = format!("blob {}\0", data.len()).into_bytes();
    raw.extend_from_slice(data);
    hash(20, &raw)
}

fn blob(data: &[u8]) -> Entry {
    Entry {
        prefix: entry_header(BLOB, data.len() as u64),
        zlib: zlib(data),
        id: blob_id(data),
    }
}

/// A REF_DELTA on `base` with `delta` as its data, given `id`.
fn ref_delta(base: &[u8], delta: &[u8], id: Vec<u8>) -> Entry {
    let mut prefix = entry_header(REF_DELTA, delta.len() as u64);
    prefix.extend_from_slice(base);
    Entry {
        prefix,
        zlib: zlib(delta),
        id,
    }
}

/// Writes the pack (and the idx: `git index-pack`'s when `by_git`, else this module's) into
/// `dir`; the pack's root-relative path and each entry's offset.
fn install(b: &Builder, dir: &str, entries: &[Entry], by_git: bool) -> (String, Vec<u64>) {
    let (bytes, offsets) = pack(entries);
    let name = hex(&bytes[bytes.len() - 20..]);
    let stem = format!("{dir}/.git/objects/pack/pack-{name}");
    fs::create_dir_all(b.path(&format!("{dir}/.git/objects/pack"))).expect("mkdir");
    fs::write(b.path(&format!("{stem}.pack")), &bytes).expect("pack");
    if by_git {
        b.sh(
            dir,
            &format!(
                "git index-pack '{}.pack' >/dev/null",
                b.path(&stem).display()
            ),
        );
    } else {
        fs::write(
            b.path(&format!("{stem}.idx")),
            idx(&bytes, entries, &offsets),
        )
        .expect("idx");
    }
    (format!("{stem}.pack"), offsets)
}

/// A fresh repository `r/h-NAME` with one commit (loose).
fn fresh(b: &Builder, name: &str) -> String {
    let dir = format!("r/h-{name}");
    fs::create_dir_all(b.path(&dir)).expect("mkdir");
    b.sh(
        &dir,
        "git init -q -b main . && echo hello > a && git add a && git commit -q -m one",
    );
    dir
}

/// The hostile packs.
pub(crate) fn hostile_packs(b: &mut Builder) {
    let base = b"hello, base object\n".to_vec();
    let base_id = blob_id(&base);
    let options: &[(&str, &[&str])] = &[("default", &[])];

    // A well-formed hand-made pack, indexed by git: the writer itself is right.
    {
        let dir = fresh(b, "good");
        let target = b"hello, base object\nand more\n";
        let mut delta = delta_size(base.len() as u64);
        delta.extend(delta_size(target.len() as u64));
        delta.extend([0x90, base.len() as u8]); // copy base[0..len]
        delta.push(9);
        delta.extend_from_slice(b"and more\n");
        let mut ofs = entry_header(OFS_DELTA, delta.len() as u64);
        let first = blob(&base);
        ofs.extend(ofs_distance((first.prefix.len() + first.zlib.len()) as u64));
        let second = Entry {
            prefix: ofs,
            zlib: zlib(&delta),
            id: blob_id(target),
        };
        let third = ref_delta(&base_id, &delta, blob_id(target));
        let entries = [first, second];
        let (pack_rel, offsets) = install(b, &dir, &entries, true);
        // This module's idx is byte for byte the one git wrote.
        let pack_bytes = fs::read(b.path(&pack_rel)).expect("pack");
        let by_git = fs::read(b.path(&pack_rel.replace(".pack", ".idx"))).expect("idx");
        assert!(
            idx(&pack_bytes, &entries, &offsets) == by_git,
            "the idx written here differs from git index-pack's"
        );
        let dir2 = fresh(b, "good-ref");
        install(b, &dir2, &[blob(&base), third], false);
        b.cases(
            "h-good",
            &dir,
            &[("default", &[]), ("unreachable", &["--unreachable"])],
        );
        b.cases("h-good-ref", &dir2, options);
    }

    // A delta whose declared result is 2^62 bytes: git tries to allocate it.
    {
        let dir = fresh(b, "delta-huge");
        let mut delta = delta_size(base.len() as u64);
        delta.extend(delta_size(1 << 62));
        delta.extend([1, b'x']);
        let e = ref_delta(&base_id, &delta, hash(20, b"delta of 2^62 bytes"));
        let (pack, offsets) = install(b, &dir, &[blob(&base), e], false);
        b.bounded("h-delta-huge", &dir, &pack, vec![offsets[1]]);
    }

    // Two REF_DELTAs, each based on the other.
    {
        let dir = fresh(b, "ref-cycle");
        let (ida, idb) = (hash(20, b"cycle a"), hash(20, b"cycle b"));
        let mut delta = delta_size(4);
        delta.extend(delta_size(4));
        delta.extend([0x90, 4]);
        let a = ref_delta(&idb, &delta, ida.clone());
        let c = ref_delta(&ida, &delta, idb);
        let (pack, offsets) = install(b, &dir, &[a, c], false);
        b.bounded("h-ref-cycle", &dir, &pack, offsets);
    }

    // A REF_DELTA based on itself.
    {
        let dir = fresh(b, "ref-self");
        let id = hash(20, b"self");
        let mut delta = delta_size(4);
        delta.extend(delta_size(4));
        delta.extend([0x90, 4]);
        let (pack, offsets) = install(b, &dir, &[ref_delta(&id.clone(), &delta, id)], false);
        b.bounded("h-ref-self", &dir, &pack, offsets);
    }

    // An OFS_DELTA whose base would be before the pack's start.
    {
        let dir = fresh(b, "ofs-before-start");
        let mut delta = delta_size(4);
        delta.extend(delta_size(1));
        delta.extend([1, b'x']);
        let mut prefix = entry_header(OFS_DELTA, delta.len() as u64);
        prefix.extend(ofs_distance(100));
        let e = Entry {
            prefix,
            zlib: zlib(&delta),
            id: blob_id(b"x"),
        };
        install(b, &dir, &[blob(&base), e], false);
        b.cases("h-ofs-before-start", &dir, options);
    }

    // An OFS_DELTA with distance 0 (based on itself).
    {
        let dir = fresh(b, "ofs-zero");
        let mut delta = delta_size(4);
        delta.extend(delta_size(1));
        delta.extend([1, b'x']);
        let mut prefix = entry_header(OFS_DELTA, delta.len() as u64);
        prefix.extend(ofs_distance(0));
        let e = Entry {
            prefix,
            zlib: zlib(&delta),
            id: blob_id(b"x"),
        };
        install(b, &dir, &[blob(&base), e], false);
        b.cases("h-ofs-zero", &dir, options);
    }

    // A blob whose header says 10 bytes larger (and one 3 bytes smaller) than its data.
    for (name, delta) in [("size-larger", 10i64), ("size-smaller", -3)] {
        let dir = fresh(b, name);
        let mut e = blob(&base);
        e.prefix = entry_header(BLOB, (base.len() as i64 + delta) as u64);
        install(b, &dir, &[e], false);
        b.cases(&format!("h-{name}"), &dir, options);
    }

    // A blob whose header declares 1 TiB (its data is 19 bytes): above core.bigFileThreshold,
    // so git streams it rather than allocating what the header says.
    {
        let dir = fresh(b, "blob-huge-size");
        let mut e = blob(&base);
        e.prefix = entry_header(BLOB, 1 << 40);
        install(b, &dir, &[e], false);
        b.cases("h-blob-huge-size", &dir, options);
    }

    // A zlib bomb: 64 MiB of zeros in about 64 KiB, under a header of 16 bytes.
    {
        let dir = fresh(b, "zlib-bomb");
        let zeros = vec![0u8; 64 << 20];
        let mut e = blob(b"sixteen bytes!!\n");
        e.zlib = zlib(&zeros);
        install(b, &dir, &[e], false);
        b.cases("h-zlib-bomb", &dir, options);
    }

    // A delta's copy instruction past its base's end (the base and target sizes are right).
    {
        let dir = fresh(b, "delta-copy-past-base");
        let target = b"hello, base object\n".to_vec();
        let mut delta = delta_size(base.len() as u64);
        delta.extend(delta_size(target.len() as u64));
        // copy offset 8, size len: past the base's end
        delta.extend([0x91, 8, target.len() as u8]);
        let e = ref_delta(&base_id, &delta, blob_id(&target));
        let (pack, offsets) = install(b, &dir, &[blob(&base), e], false);
        // git 2.47 runs out of memory on it (or grows without bound with no limit).
        b.bounded("h-delta-copy-past-base", &dir, &pack, vec![offsets[1]]);
    }

    // A delta whose base size is not its base's.
    {
        let dir = fresh(b, "delta-base-size");
        let target = b"hello".to_vec();
        let mut delta = delta_size(base.len() as u64 + 1);
        delta.extend(delta_size(target.len() as u64));
        delta.extend([0x90, 5]);
        let e = ref_delta(&base_id, &delta, blob_id(&target));
        install(b, &dir, &[blob(&base), e], false);
        b.cases("h-delta-base-size", &dir, options);
    }

    // A delta with the reserved instruction 0.
    {
        let dir = fresh(b, "delta-op-zero");
        let mut delta = delta_size(base.len() as u64);
        delta.extend(delta_size(1));
        delta.extend([0, 1, b'x']);
        let e = ref_delta(&base_id, &delta, blob_id(b"x"));
        install(b, &dir, &[blob(&base), e], false);
        b.cases("h-delta-op-zero", &dir, options);
    }

    // A REF_DELTA on a base that is in no pack and not loose.
    {
        let dir = fresh(b, "delta-missing-base");
        let mut delta = delta_size(4);
        delta.extend(delta_size(1));
        delta.extend([1, b'x']);
        let e = ref_delta(&unhex(&"2".repeat(40)), &delta, blob_id(b"x"));
        install(b, &dir, &[e], false);
        b.cases("h-delta-missing-base", &dir, options);
    }

    // An entry of reserved type 5 and one whose header varint never ends.
    {
        let dir = fresh(b, "type-five");
        let mut e = blob(&base);
        e.prefix = entry_header(5, base.len() as u64);
        install(b, &dir, &[e], false);
        b.cases("h-type-five", &dir, options);
        let dir = fresh(b, "endless-header");
        let mut e = blob(&base);
        e.prefix = vec![
            0xb0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        install(b, &dir, &[e], false);
        b.cases("h-endless-header", &dir, options);
    }
}
