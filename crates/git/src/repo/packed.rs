//! The `packed-refs` file as git's packed ref store reads it (`create_snapshot`,
//! `next_record`, `find_reference_location`), byte for byte: git checks little when it loads the
//! file (the header, the last line, and for a file not marked `sorted` every line's length) and
//! the rest as it iterates, dying with `unexpected line in <path>: <line>` or
//! `unterminated line in <path>: <line>` (a line of 80 bytes or more is cut to 75 and `...`).

use crate::ObjectFormat;

/// One record as the iterator yields it, before the name is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PackedEntry {
    pub name: Vec<u8>,
    pub id: Vec<u8>,
}

/// A loaded `packed-refs` file: the records after the header, sorted unless the header said
/// `sorted`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Snapshot {
    body: Vec<u8>,
    hexsz: usize,
    rawsz: usize,
    path: String,
}

/// C's `%.*s`: the bytes up to a NUL.
fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(bytes.get(..end).unwrap_or_default()).into_owned()
}

/// `die_unterminated_line(path, p, len)` with `rest` = `p[..len]`.
fn unterminated(path: &str, rest: &[u8]) -> String {
    if rest.len() < 80 {
        format!("unterminated line in {path}: {}", c_text(rest))
    } else {
        format!(
            "unterminated line in {path}: {}...",
            c_text(rest.get(..75).unwrap_or_default())
        )
    }
}

/// `die_invalid_line(path, p, len)` with `rest` = `p[..len]`.
fn invalid(path: &str, rest: &[u8]) -> String {
    match rest.iter().position(|&b| b == b'\n') {
        None => unterminated(path, rest),
        Some(eol) if eol < 80 => format!(
            "unexpected line in {path}: {}",
            c_text(rest.get(..eol).unwrap_or_default())
        ),
        Some(_) => format!(
            "unexpected line in {path}: {}...",
            c_text(rest.get(..75).unwrap_or_default())
        ),
    }
}

/// git's `isspace`.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// `find_start_of_record`: back from `p` to the start of its record (a `^` line belongs to the
/// record before it).
fn start_of_record(buf: &[u8], lo: usize, mut p: usize) -> usize {
    while p > lo && (buf.get(p - 1) != Some(&b'\n') || buf.get(p) == Some(&b'^')) {
        p -= 1;
    }
    p
}

/// `find_end_of_record`: forward from `p` past its record.
fn end_of_record(buf: &[u8], mut p: usize, end: usize) -> usize {
    loop {
        p += 1;
        if p >= end || (buf.get(p - 1) == Some(&b'\n') && buf.get(p) != Some(&b'^')) {
            return p.min(end);
        }
    }
}

/// A record's name: after the id and its separator, up to a newline.
fn record_name(buf: &[u8], rec: usize, hexsz: usize) -> &[u8] {
    let rest = buf.get(rec + hexsz + 1..).unwrap_or_default();
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest.get(..end).unwrap_or_default()
}

impl Snapshot {
    /// `create_snapshot` on the file's bytes (`path` names it in messages).
    pub fn load(data: &[u8], format: ObjectFormat, path: &str) -> Result<Snapshot, String> {
        let hexsz = format.hex_len();
        let mut start = 0;
        let mut sorted = false;
        if data.first() == Some(&b'#') {
            let Some(eol) = data.iter().position(|&b| b == b'\n') else {
                return Err(unterminated(path, data));
            };
            let header = data.get(..eol).unwrap_or_default();
            let header = header.split(|&b| b == 0).next().unwrap_or_default();
            let Some(traits) = header.strip_prefix(b"# pack-refs with:") else {
                return Err(invalid(path, data));
            };
            sorted = traits.split(|&b| b == b' ').any(|t| t == b"sorted");
            start = eol + 1;
        }
        let body = data.get(start..).unwrap_or_default().to_vec();
        let mut snapshot = Snapshot {
            body,
            hexsz,
            rawsz: format.raw_len(),
            path: path.to_string(),
        };
        snapshot.verify_buffer_safe()?;
        if !sorted {
            snapshot.sort()?;
            snapshot.verify_buffer_safe()?;
        }
        Ok(snapshot)
    }

    /// `verify_buffer_safe`: the last record ends with a newline and is long enough for an id.
    fn verify_buffer_safe(&self) -> Result<(), String> {
        let buf = &self.body;
        if buf.is_empty() {
            return Ok(());
        }
        let last = start_of_record(buf, 0, buf.len() - 1);
        if buf.last() != Some(&b'\n') || buf.len() - last < self.hexsz + 2 {
            return Err(invalid(&self.path, buf.get(last..).unwrap_or_default()));
        }
        Ok(())
    }

    /// `sort_snapshot`: records (with their `^` lines) sorted by name when they are not.
    fn sort(&mut self) -> Result<(), String> {
        let buf = &self.body;
        let mut records: Vec<(usize, usize)> = Vec::new();
        let mut pos = 0;
        let mut sorted = true;
        while pos < buf.len() {
            let rest = buf.get(pos..).unwrap_or_default();
            let Some(eol) = rest.iter().position(|&b| b == b'\n') else {
                // verify_buffer_safe ran first: the buffer ends with a newline
                return Err(unterminated(&self.path, rest));
            };
            if eol < self.hexsz + 2 {
                return Err(invalid(&self.path, rest));
            }
            let mut end = pos + eol + 1;
            if buf.get(end) == Some(&b'^') {
                let peeled = buf.get(end..).unwrap_or_default();
                end += peeled
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(peeled.len(), |p| p + 1);
            }
            if sorted
                && let Some(&(prev, _)) = records.last()
                && record_name(buf, prev, self.hexsz) >= record_name(buf, pos, self.hexsz)
            {
                sorted = false;
            }
            records.push((pos, end));
            pos = end;
        }
        if sorted {
            return Ok(());
        }
        records.sort_by(|a, b| {
            record_name(buf, a.0, self.hexsz).cmp(record_name(buf, b.0, self.hexsz))
        });
        let mut body = Vec::with_capacity(buf.len());
        for (s, e) in records {
            body.extend_from_slice(buf.get(s..e).unwrap_or_default());
        }
        self.body = body;
        Ok(())
    }

    /// `next_record` at `*pos`: the record, `None` at the end, or git's fatal message.
    pub fn next_record(&self, pos: &mut usize) -> Result<Option<PackedEntry>, String> {
        let buf = &self.body;
        if *pos >= buf.len() {
            return Ok(None);
        }
        let rest = buf.get(*pos..).unwrap_or_default();
        let bad = || invalid(&self.path, rest);
        if rest.len() < self.hexsz + 2 {
            return Err(bad());
        }
        let id = super::parse_hex(rest.get(..self.hexsz).unwrap_or_default(), self.rawsz)
            .ok_or_else(bad)?;
        if !rest.get(self.hexsz).is_some_and(|&c| is_space(c)) {
            return Err(bad());
        }
        let after = rest.get(self.hexsz + 1..).unwrap_or_default();
        let Some(eol) = after.iter().position(|&b| b == b'\n') else {
            return Err(unterminated(&self.path, rest));
        };
        let name = after.get(..eol).unwrap_or_default().to_vec();
        *pos += self.hexsz + 1 + eol + 1;
        if buf.get(*pos) == Some(&b'^') {
            let peeled = buf.get(*pos..).unwrap_or_default();
            let ok = peeled.len() > self.hexsz + 1
                && super::parse_hex(
                    peeled.get(1..1 + self.hexsz).unwrap_or_default(),
                    self.rawsz,
                )
                .is_some()
                && peeled.get(1 + self.hexsz) == Some(&b'\n');
            if !ok {
                return Err(invalid(&self.path, peeled));
            }
            *pos += self.hexsz + 2;
        }
        Ok(Some(PackedEntry { name, id }))
    }

    /// `packed_read_raw_ref`: the id of `name` found by git's binary search
    /// (`find_reference_location`), `None` when absent, or git's fatal message when the record
    /// found does not start with an id.
    pub fn lookup(&self, name: &[u8]) -> Result<Option<Vec<u8>>, String> {
        let buf = &self.body;
        let (mut lo, mut hi) = (0usize, buf.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let rec = start_of_record(buf, lo, mid);
            match record_name(buf, rec, self.hexsz).cmp(name) {
                std::cmp::Ordering::Less => lo = end_of_record(buf, mid, hi),
                std::cmp::Ordering::Greater => hi = rec,
                std::cmp::Ordering::Equal => {
                    let rest = buf.get(rec..).unwrap_or_default();
                    return rest
                        .get(..self.hexsz)
                        .and_then(|h| super::parse_hex(h, self.rawsz))
                        .map(Some)
                        .ok_or_else(|| invalid(&self.path, rest));
                }
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "9dbbace5f52438716f05d6c4e25b0f70b43989bd";

    /// splitmix64: a tiny deterministic generator, so every run tests the same inputs (this
    /// crate's tests build from its package, without the workspace's test support).
    struct SplitMix(u64);

    impl SplitMix {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next_u64() % n as u64) as usize
        }
    }

    fn all(s: &Snapshot) -> Result<Vec<Vec<u8>>, String> {
        let mut pos = 0;
        let mut out = Vec::new();
        while let Some(e) = s.next_record(&mut pos)? {
            out.push(e.name);
        }
        Ok(out)
    }

    #[test]
    fn loads_sorts_and_looks_up() {
        let text = format!("{ID} refs/heads/z\n^{ID}\n{ID} refs/heads/a\n");
        let s = Snapshot::load(text.as_bytes(), ObjectFormat::Sha1, "p").unwrap();
        assert_eq!(
            all(&s),
            Ok(vec![b"refs/heads/a".to_vec(), b"refs/heads/z".to_vec()])
        );
        assert!(matches!(s.lookup(b"refs/heads/z"), Ok(Some(_))));
        assert_eq!(s.lookup(b"refs/heads/m"), Ok(None));
        // claimed sorted: the file's order
        let text = format!("# pack-refs with: sorted \n{ID} refs/heads/z\n{ID} refs/heads/a\n");
        let s = Snapshot::load(text.as_bytes(), ObjectFormat::Sha1, "p").unwrap();
        assert_eq!(
            all(&s),
            Ok(vec![b"refs/heads/z".to_vec(), b"refs/heads/a".to_vec()])
        );
    }

    #[test]
    fn messages() {
        let e = Snapshot::load(b"garbage line\n", ObjectFormat::Sha1, ".git/packed-refs");
        assert_eq!(
            e.map(|_| ()),
            Err("unexpected line in .git/packed-refs: garbage line".into())
        );
        let text = format!("{ID} refs/heads/a\n{ID} refs/heads/b");
        let e = Snapshot::load(text.as_bytes(), ObjectFormat::Sha1, "p");
        assert_eq!(
            e.map(|_| ()),
            Err(format!("unterminated line in p: {ID} refs/heads/b"))
        );
        let long = format!("{ID} refs/heads/{}\n", "x".repeat(100));
        let e = Snapshot::load(
            format!("# pack-refs with: sorted\n{}{long}", "y\n").as_bytes(),
            ObjectFormat::Sha1,
            "p",
        )
        .unwrap();
        assert_eq!(all(&e), Err("unexpected line in p: y".into()));
        let s = Snapshot::load(
            format!("# pack-refs with: sorted\n{long}").as_bytes(),
            ObjectFormat::Sha1,
            "p",
        )
        .unwrap();
        assert_eq!(all(&s).map(|v| v.len()), Ok(1));
        let bad = format!("{ID}x{}\n", "y".repeat(100));
        let s = Snapshot::load(
            format!("# pack-refs with: sorted\n{bad}").as_bytes(),
            ObjectFormat::Sha1,
            "p",
        )
        .unwrap();
        assert_eq!(
            all(&s),
            Err(format!("unexpected line in p: {}...", &bad[..75]))
        );
    }

    /// Mutated files (bytes flipped, dropped, newlines moved): never a panic, and every
    /// record the iterator yields is one whose id parses.
    #[test]
    fn mutations_do_not_panic() {
        let mut rng = SplitMix(7);
        let base = format!(
            "# pack-refs with: peeled fully-peeled sorted \n{ID} refs/heads/a\n{ID} refs/tags/t\n^{ID}\n{ID} refs/heads/z\n"
        );
        for _ in 0..20_000 {
            let mut data = base.as_bytes().to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(data.len());
                match rng.below(4) {
                    0 => data[at] ^= 1 << rng.below(8),
                    1 => {
                        data.remove(at);
                    }
                    2 => data[at] = b'\n',
                    _ => data.truncate(at),
                }
                if data.is_empty() {
                    break;
                }
            }
            for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
                if let Ok(s) = Snapshot::load(&data, format, "p") {
                    let mut pos = 0;
                    while let Ok(Some(e)) = s.next_record(&mut pos) {
                        assert_eq!(e.id.len(), format.raw_len());
                    }
                    let _ = s.lookup(b"refs/heads/a");
                    let _ = s.lookup(b"refs/heads/zz");
                }
            }
        }
    }
}
