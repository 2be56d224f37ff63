//! git's per-object checks (`fsck_tree`, `fsck_commit`, `fsck_tag`, `fsck_blob` in `fsck.c`),
//! written against a [`Sink`] that decides, as git's `report()` does, whether each finding is
//! printed and whether it stops the check. Both `git fsck` ([`super::check_object`]) and
//! `git hash-object` ([`super::tree`], [`super::commit`], [`super::tag`]) run them.

use super::MsgId;
use super::names::{
    Order, at, first_nul, is_hfs_dot, is_link, is_ntfs_dot, is_ntfs_dotgit, plain_name,
    simple_mode, tag_name_ok, verify_ordered,
};
use crate::gitconfig::Config;
use crate::{Kind, ObjectFormat};

/// Where the checks send what they find.
pub(crate) trait Sink {
    /// git's `report()`: `true` when it returns non-zero (an error that stops commit and tag
    /// checks where git stops them), `false` for a warning or an ignored message.
    fn report_bytes(&mut self, id: MsgId, text: &[u8]) -> bool;
    /// [`Sink::report_bytes`] for a text that is all UTF-8.
    fn report(&mut self, id: MsgId, text: &str) -> bool {
        self.report_bytes(id, text.as_bytes())
    }
    /// A plain `error:` line from git's tree parser (printed before the `badTree` finding).
    fn parse_error(&mut self, text: &str);
    /// `--strict` (or hash-object): `100664` is a bad mode.
    fn strict(&self) -> bool;
    /// Longest entry name before `largePathname` (`fsck.largePathname=<type>:<len>`).
    fn max_tree_entry_len(&self) -> i64;
    /// A tree entry named `.gitmodules` (or a name the file systems take for it).
    fn gitmodules(&mut self, _id: &[u8]) {}
    /// A tree entry named `.gitattributes` (or a name the file systems take for it).
    fn gitattributes(&mut self, _id: &[u8]) {}
}

/// One decoded tree entry.
pub(crate) struct TreeEntry<'a> {
    /// Offset of the entry's first byte (its mode) in the tree.
    pub(crate) start: usize,
    /// The mode as git keeps it: octal digits accumulated in 32 bits, then cut to 16.
    pub(crate) mode: u16,
    pub(crate) name: &'a [u8],
    pub(crate) id: &'a [u8],
    /// Offset just after the entry.
    pub(crate) end: usize,
    /// For one of the five modes git writes, spelled as git spells it: the type a link to the
    /// entry names (`None`: a gitlink).
    pub(crate) simple: Option<Option<Kind>>,
}

/// Decodes the entry at `start`, as git's tree walker does (`decode_tree_entry`): the whole
/// rest of the tree must be long enough and have a NUL where the last entry's name ends. The
/// error is git's message.
pub(crate) fn decode_tree_entry(
    tree: &[u8],
    start: usize,
    raw: usize,
) -> Result<TreeEntry<'_>, &'static str> {
    let rest = tree.get(start..).unwrap_or_default();
    let size = rest.len();
    if size < raw + 3 || at(rest, size - (raw + 1)) != 0 {
        return Err("too-short tree object");
    }
    if at(rest, 0) == b' ' {
        return Err("malformed mode in tree entry");
    }
    let (mut mode, mut i, simple): (u32, usize, _) = match simple_mode(rest) {
        Some((len, kind, value)) => (u32::from(value), len, Some(kind)),
        None => (0, 0, None),
    };
    while simple.is_none() {
        // A NUL comes before the end (checked above), and ends the loop as malformed.
        let c = at(rest, i);
        i += 1;
        if c == b' ' {
            break;
        }
        if !(b'0'..=b'7').contains(&c) {
            return Err("malformed mode in tree entry");
        }
        mode = (mode << 3).wrapping_add(u32::from(c - b'0'));
    }
    if at(rest, i) == 0 {
        return Err("empty filename in tree entry");
    }
    let tail = rest.get(i..).unwrap_or_default();
    let name_len = first_nul(tail).ok_or("too-short tree object")?;
    let name = &tail[..name_len];
    let id_at = i + name_len + 1;
    let id = rest
        .get(id_at..id_at + raw)
        .ok_or("too-short tree object")?;
    Ok(TreeEntry {
        start,
        mode: mode as u16, // git stores the mode in 16 bits
        name,
        id,
        end: start + id_at + raw,
        simple,
    })
}

/// Whether `name` is `.gitmodules` for HFS+ or NTFS.
pub(crate) fn is_gitmodules(name: &[u8]) -> bool {
    is_hfs_dot(name, b"gitmodules") || is_ntfs_dot(name, b"gitmodules", b"gi7eba")
}

/// Whether `name` is `.gitattributes` for HFS+ or NTFS.
pub(crate) fn is_gitattributes(name: &[u8]) -> bool {
    is_hfs_dot(name, b"gitattributes") || is_ntfs_dot(name, b"gitattributes", b"gi7d29")
}

/// A tree's links, collected by [`tree_with`] as it checks the entries.
pub(crate) struct TreeLinks<'v> {
    /// Every entry but gitlinks and those in `runs`, in order.
    pub(crate) out: &'v mut Vec<super::TreeEntryAt>,
    /// The runs of entries a delta copied from its base, not checked again.
    pub(crate) runs: &'v mut Vec<super::Run>,
    /// Whether every entry parsed and has one of the five modes git writes, spelled as git
    /// spells it (else `out` is incomplete).
    pub(crate) simple: bool,
    /// Whether none of git's tree findings applies (set at the end).
    pub(crate) clean: bool,
}

/// git's `fsck_tree`: `true` when any report returned non-zero.
pub(crate) fn tree(buf: &[u8], format: ObjectFormat, s: &mut dyn Sink) -> bool {
    tree_with::<super::TreeEntryAt>(buf, format, s, None, None)
}

/// The entry at `at`, if the tree does not end there.
fn entry_after(buf: &[u8], at: usize, raw: usize) -> Result<Option<TreeEntry<'_>>, &'static str> {
    if at < buf.len() {
        decode_tree_entry(buf, at, raw).map(Some)
    } else {
        Ok(None)
    }
}

/// Where one copy of a delta's leads: the base entries `first..=last` that the tree has at
/// `at` (the start of `first` there), byte for byte, when the entry there is the start of a
/// base entry, every one of them lies whole inside one copy, and their names are plain and in
/// an order git checked without keeping a candidate.
fn copied_run<B: super::BaseEntry>(
    d: &super::DeltaOf<'_, B>,
    cursor: &mut usize,
    at: usize,
    raw: usize,
) -> Option<(u32, u32, usize)> {
    while d.copies.get(*cursor).is_some_and(|c| c.to + c.len <= at) {
        *cursor += 1;
    }
    let c = d.copies.get(*cursor).filter(|c| c.to <= at)?;
    let from = c.from + (at - c.to);
    let limit = c.from + c.len;
    let first = d.entries.partition_point(|e| e.span(raw).0 < from);
    let e = d.entries.get(first)?;
    let (start, mut end) = e.span(raw);
    if start != from || end > limit || !e.plain() {
        return None;
    }
    let mut last = first;
    while let Some(n) = d.entries.get(last + 1) {
        let (s, e) = n.span(raw);
        if s != end || e > limit || !n.plain() || n.after_candidate() {
            break;
        }
        last += 1;
        end = e;
    }
    Some((first as u32, last as u32, end - from))
}

/// [`tree`], collecting the tree's links into `links` on the way; for a delta of a clean tree
/// (`delta`), the entries it copied whole are not checked again.
pub(crate) fn tree_with<B: super::BaseEntry>(
    buf: &[u8],
    format: ObjectFormat,
    s: &mut dyn Sink,
    mut links: Option<&mut TreeLinks<'_>>,
    delta: Option<super::DeltaOf<'_, B>>,
) -> bool {
    let raw = format.raw_len();
    let mut failed = false;
    if let Some(t) = links.as_deref_mut() {
        t.out.clear();
        t.runs.clear();
        t.simple = buf.len() < u32::MAX as usize;
        t.clean = false;
    }
    // Runs are only worth finding, and only recorded, when the links are collected.
    let delta = delta.filter(|_| links.as_ref().is_some_and(|t| t.simple));
    let mut cursor = 0usize;
    if buf.is_empty() {
        return false;
    }
    let mut entry = match decode_tree_entry(buf, 0, raw) {
        Ok(e) => e,
        Err(why) => {
            if let Some(t) = links.as_deref_mut() {
                t.simple = false;
            }
            s.parse_error(why);
            return s.report(MsgId::BadTree, "cannot be parsed as a tree");
        }
    };
    let max_len = s.max_tree_entry_len();
    let strict = s.strict();
    let mut null_id = false;
    let mut full_path = false;
    let mut empty_name = false;
    let mut dot = false;
    let mut dotdot = false;
    let mut dotgit = false;
    let mut zero_pad = false;
    let mut bad_modes = false;
    let mut duplicates = false;
    let mut unsorted = false;
    let mut large_name = false;
    let mut previous: Option<(u16, &[u8])> = None;
    let mut candidates: Vec<&[u8]> = Vec::new();
    loop {
        let (mode, name) = (entry.mode, entry.name);
        let plain = plain_name(name);
        if let Some(t) = links.as_deref_mut()
            && t.simple
        {
            match entry.simple {
                Some(Some(kind)) => t.out.push(super::TreeEntryAt {
                    kind,
                    name: (entry.end - raw - 1 - entry.name.len()) as u32,
                    id: (entry.end - raw) as u32,
                    plain,
                    after_candidate: false,
                }),
                Some(None) => {}
                None => t.simple = false,
            }
        }
        null_id |= entry.id.iter().all(|&b| b == 0);
        zero_pad |= at(buf, entry.start) == b'0';
        large_name |= i64::try_from(name.len()).unwrap_or(i64::MAX) > max_len;
        if !plain {
            full_path |= name.contains(&b'/');
            empty_name |= name.is_empty();
            dot |= name == b".";
            dotdot |= name == b"..";
            dotgit |= is_hfs_dot(name, b"git") || is_ntfs_dotgit(name);

            if is_gitmodules(name) {
                if !is_link(mode) {
                    s.gitmodules(entry.id);
                } else {
                    failed |= s.report(MsgId::GitmodulesSymlink, ".gitmodules is a symbolic link");
                }
            }
            if is_gitattributes(name) {
                if !is_link(mode) {
                    s.gitattributes(entry.id);
                } else {
                    failed |= s.report(MsgId::GitattributesSymlink, ".gitattributes is a symlink");
                }
            }
            if is_link(mode) {
                if is_hfs_dot(name, b"gitignore") || is_ntfs_dot(name, b"gitignore", b"gi250a") {
                    failed |= s.report(MsgId::GitignoreSymlink, ".gitignore is a symlink");
                }
                if is_hfs_dot(name, b"mailmap") || is_ntfs_dot(name, b"mailmap", b"maba30") {
                    failed |= s.report(MsgId::MailmapSymlink, ".mailmap is a symlink");
                }
            }
            // A backslash is a directory separator on NTFS: each part after one is checked too.
            for (i, _) in name.iter().enumerate().filter(|(_, b)| **b == b'\\') {
                let after = name.get(i + 1..).unwrap_or_default();
                dotgit |= is_ntfs_dotgit(after);
                if is_ntfs_dot(after, b"gitmodules", b"gi7eba") {
                    if !is_link(mode) {
                        s.gitmodules(entry.id);
                    } else {
                        failed |=
                            s.report(MsgId::GitmodulesSymlink, ".gitmodules is a symbolic link");
                    }
                }
            }
        }

        let mut next = match entry_after(buf, entry.end, raw) {
            Ok(next) => next,
            Err(why) => {
                if let Some(t) = links.as_deref_mut() {
                    t.simple = false;
                }
                s.parse_error(why);
                failed |= s.report(MsgId::BadTree, "cannot be parsed as a tree");
                break;
            }
        };

        match mode {
            0o100755 | 0o100644 | 0o120000 | 0o040000 | 0o160000 => {}
            // Early git wrote these; only strict mode calls them bad.
            0o100664 if !strict => {}
            _ => bad_modes = true,
        }
        if let Some((o_mode, o_name)) = previous {
            let kept = candidates.len();
            match verify_ordered(o_mode, o_name, mode, name, &mut candidates) {
                Order::Unordered => unsorted = true,
                Order::Duplicate => duplicates = true,
                Order::Ok => {}
            }
            if candidates.len() > kept
                && entry.simple.is_some_and(|k| k.is_some())
                && let Some(t) = links.as_deref_mut()
                && let Some(last) = t.out.last_mut()
            {
                last.after_candidate = true;
            }
        }
        previous = Some((mode, name));
        // A delta's copy of its base's entries from the next one on: checked in the base, they
        // and the order between them are not checked again. The order of the next one after
        // this one is checked here (without a candidate kept, else no run); the one after the
        // run is checked against its last entry as usual.
        if let (Some(d), Some(n)) = (&delta, &next)
            && candidates.is_empty()
            && links.as_ref().is_some_and(|t| t.simple)
            && let Some((first, last, len)) = copied_run(d, &mut cursor, n.start, raw)
        {
            let mut probe = Vec::new();
            let ordered = matches!(
                verify_ordered(mode, name, n.mode, n.name, &mut probe),
                Order::Ok
            ) && probe.is_empty();
            let tail = d.entries.get(last as usize).map(|e| e.span(raw));
            let end = n.start + len;
            if let (true, Some((ls, le))) = (ordered, tail)
                && let Ok(l) = decode_tree_entry(
                    buf,
                    n.start + (ls - d.entries[first as usize].span(raw).0),
                    raw,
                )
                && l.end == end
                && le - ls == l.end - l.start
                // An entry after the run that does not parse is left to the entry-by-entry walk,
                // which reports it where git does.
                && let Ok(after) = entry_after(buf, end, raw)
                && let Some(t) = links.as_deref_mut()
            {
                t.runs.push(super::Run {
                    at: t.out.len() as u32,
                    first,
                    last,
                    to: n.start as u32,
                });
                previous = Some((l.mode, l.name));
                next = after;
            }
        }
        match next {
            Some(e) => entry = e,
            None => break,
        }
    }
    let findings = [
        (
            null_id,
            MsgId::NullSha1,
            "contains entries pointing to null sha1",
        ),
        (full_path, MsgId::FullPathname, "contains full pathnames"),
        (empty_name, MsgId::EmptyName, "contains empty pathname"),
        (dot, MsgId::HasDot, "contains '.'"),
        (dotdot, MsgId::HasDotdot, "contains '..'"),
        (dotgit, MsgId::HasDotgit, "contains '.git'"),
        (
            zero_pad,
            MsgId::ZeroPaddedFilemode,
            "contains zero-padded file modes",
        ),
        (bad_modes, MsgId::BadFilemode, "contains bad file modes"),
        (
            duplicates,
            MsgId::DuplicateEntries,
            "contains duplicate file entries",
        ),
        (unsorted, MsgId::TreeNotSorted, "not properly sorted"),
        (
            large_name,
            MsgId::LargePathname,
            "contains excessively large pathname",
        ),
    ];
    let mut any = false;
    for (found, id, text) in findings {
        if found {
            any = true;
            failed |= s.report(id, text);
        }
    }
    if let Some(t) = links {
        t.clean = !any && !failed;
    }
    failed
}

/// git's `verify_headers`: the header (up to the blank line) must hold no NUL and end with a
/// newline. `true` when the check must stop (the report returned non-zero).
fn verify_headers(buf: &[u8], s: &mut dyn Sink) -> bool {
    for (i, &c) in buf.iter().enumerate() {
        match c {
            0 => {
                return s.report(
                    MsgId::NulInHeader,
                    &format!("unterminated header: NUL at offset {i}"),
                );
            }
            b'\n' if i + 1 < buf.len() && at(buf, i + 1) == b'\n' => return false,
            _ => {}
        }
    }
    if buf.last() == Some(&b'\n') {
        return false;
    }
    s.report(MsgId::UnterminatedHeader, "unterminated header")
}

/// Whether `buf[i..]` starts with `prefix`; on success `i` moves past it.
fn skip_prefix(buf: &[u8], i: &mut usize, prefix: &[u8]) -> bool {
    if buf.get(*i..).is_some_and(|rest| rest.starts_with(prefix)) {
        *i += prefix.len();
        true
    } else {
        false
    }
}

/// An id in hexadecimal (either case) at `i`; returns the offset after it.
pub(crate) fn parse_hex_id(buf: &[u8], i: usize, format: ObjectFormat) -> Option<usize> {
    let n = format.hex_len();
    (0..n)
        .all(|k| at(buf, i + k).is_ascii_hexdigit())
        .then_some(i + n)
}

/// Where parsing goes on after a bad id line whose report did not stop the check: git moves to
/// the byte after the end of the id (its `parse_oid_hex` leaves that position unset when the
/// id is not hexadecimal; such commits and tags never reach these checks in `git fsck`, whose
/// object parser rejects them first). The next newline stands in for it.
fn after_bad_id(buf: &[u8], i: usize, format: ObjectFormat) -> usize {
    match parse_hex_id(buf, i, format) {
        Some(p) => p + 1,
        None => {
            buf.get(i..)
                .and_then(|r| r.iter().position(|&c| c == b'\n'))
                .map_or(buf.len(), |k| i + k)
                + 1
        }
    }
}

/// The prefix git gives every identity message.
const IDENT: &str = "invalid author/committer line - ";

/// git's `fsck_ident` on the identity (`Name <email> 1234567890 +0100`) at `*i`; `*i` moves to
/// the next line whatever the verdict. `true` when the report returned non-zero.
fn ident(buf: &[u8], i: &mut usize, s: &mut dyn Sink) -> bool {
    let mut p = *i;
    let rest = buf.get(*i..).unwrap_or_default();
    *i = match rest.iter().position(|&c| c == b'\n' || c == 0) {
        Some(k) if at(rest, k) == b'\n' => *i + k + 1,
        Some(k) => *i + k,
        None => buf.len(),
    };
    let mut fail = |id: MsgId, text: &str| s.report(id, &format!("{IDENT}{text}"));
    let span = |p: usize| {
        let mut q = p;
        while !matches!(at(buf, q), 0 | b'<' | b'>' | b'\n') {
            q += 1;
        }
        q
    };
    if at(buf, p) == b'<' {
        return fail(MsgId::MissingNameBeforeEmail, "missing space before email");
    }
    p = span(p);
    if at(buf, p) == b'>' {
        return fail(MsgId::BadName, "bad name");
    }
    if at(buf, p) != b'<' {
        return fail(MsgId::MissingEmail, "missing email");
    }
    if p == 0 || at(buf, p - 1) != b' ' {
        return fail(MsgId::MissingSpaceBeforeEmail, "missing space before email");
    }
    p = span(p + 1);
    if at(buf, p) != b'>' {
        return fail(MsgId::BadEmail, "bad email");
    }
    p += 1;
    if at(buf, p) != b' ' {
        return fail(MsgId::MissingSpaceBeforeDate, "missing space before date");
    }
    p += 1;
    while matches!(at(buf, p), b' ' | b'\t') {
        p += 1;
    }
    if !at(buf, p).is_ascii_digit() {
        return fail(MsgId::BadDate, "bad date");
    }
    if at(buf, p) == b'0' && at(buf, p + 1) != b' ' {
        return fail(MsgId::ZeroPaddedDate, "zero-padded date");
    }
    // strtoumax: saturates at the largest value; git's timestamps must also fit a signed time_t.
    let mut end = p;
    let mut value: u64 = 0;
    while at(buf, end).is_ascii_digit() {
        value = value
            .saturating_mul(10)
            .saturating_add(u64::from(at(buf, end) - b'0'));
        end += 1;
    }
    if value > i64::MAX as u64 {
        return fail(MsgId::BadDateOverflow, "date causes integer overflow");
    }
    if at(buf, end) != b' ' {
        return fail(MsgId::BadDate, "bad date");
    }
    p = end + 1;
    if !matches!(at(buf, p), b'+' | b'-')
        || !(1..=4).all(|k| at(buf, p + k).is_ascii_digit())
        || at(buf, p + 5) != b'\n'
    {
        return fail(MsgId::BadTimezone, "bad time zone");
    }
    false
}

/// git's `fsck_commit`: `true` when it returns non-zero.
pub(crate) fn commit(buf: &[u8], format: ObjectFormat, s: &mut dyn Sink) -> bool {
    if verify_headers(buf, s) {
        return true;
    }
    let end = buf.len();
    let mut i = 0;
    if i >= end || !skip_prefix(buf, &mut i, b"tree ") {
        return s.report(MsgId::MissingTree, "invalid format - expected 'tree' line");
    }
    match parse_hex_id(buf, i, format) {
        Some(p) if at(buf, p) == b'\n' => i = p + 1,
        _ => {
            if s.report(MsgId::BadTreeSha1, "invalid 'tree' line format - bad sha1") {
                return true;
            }
            i = after_bad_id(buf, i, format);
        }
    }
    while i < end && skip_prefix(buf, &mut i, b"parent ") {
        match parse_hex_id(buf, i, format) {
            Some(p) if at(buf, p) == b'\n' => i = p + 1,
            _ => {
                if s.report(
                    MsgId::BadParentSha1,
                    "invalid 'parent' line format - bad sha1",
                ) {
                    return true;
                }
                i = after_bad_id(buf, i, format);
            }
        }
    }
    let mut authors = 0;
    while i < end && skip_prefix(buf, &mut i, b"author ") {
        authors += 1;
        if ident(buf, &mut i, s) {
            return true;
        }
    }
    let err = if authors < 1 {
        s.report(
            MsgId::MissingAuthor,
            "invalid format - expected 'author' line",
        )
    } else if authors > 1 {
        s.report(
            MsgId::MultipleAuthors,
            "invalid format - multiple 'author' lines",
        )
    } else {
        false
    };
    if err {
        return true;
    }
    if i >= end || !skip_prefix(buf, &mut i, b"committer ") {
        return s.report(
            MsgId::MissingCommitter,
            "invalid format - expected 'committer' line",
        );
    }
    if ident(buf, &mut i, s) {
        return true;
    }
    if buf.contains(&0) && s.report(MsgId::NulInCommit, "NUL byte in the commit object body") {
        return true;
    }
    false
}

/// git's `fsck_tag_standalone`: `true` when it returns non-zero. A tag whose `tagger` finding
/// is followed by an extra header line returns what the (by default ignored) extra-header
/// report returns, as git does.
pub(crate) fn tag(buf: &[u8], format: ObjectFormat, s: &mut dyn Sink) -> bool {
    if verify_headers(buf, s) {
        return true;
    }
    let end = buf.len();
    let mut i = 0;
    if i >= end || !skip_prefix(buf, &mut i, b"object ") {
        return s.report(
            MsgId::MissingObject,
            "invalid format - expected 'object' line",
        );
    }
    match parse_hex_id(buf, i, format) {
        Some(p) if at(buf, p) == b'\n' => i = p + 1,
        _ => {
            if s.report(
                MsgId::BadObjectSha1,
                "invalid 'object' line format - bad sha1",
            ) {
                return true;
            }
            i = after_bad_id(buf, i, format);
        }
    }
    if i >= end || !skip_prefix(buf, &mut i, b"type ") {
        return s.report(
            MsgId::MissingTypeEntry,
            "invalid format - expected 'type' line",
        );
    }
    let line_end = |i: usize| {
        buf.get(i..)
            .and_then(|r| r.iter().position(|&c| c == b'\n'))
            .map(|k| i + k)
    };
    let Some(eol) = line_end(i) else {
        return s.report(
            MsgId::MissingType,
            "invalid format - unexpected end after 'type' line",
        );
    };
    if crate::Kind::from_name(buf.get(i..eol).unwrap_or_default()).is_none()
        && s.report(MsgId::BadType, "invalid 'type' value")
    {
        return true;
    }
    i = eol + 1;
    if i >= end || !skip_prefix(buf, &mut i, b"tag ") {
        return s.report(
            MsgId::MissingTagEntry,
            "invalid format - expected 'tag' line",
        );
    }
    let Some(eol) = line_end(i) else {
        return s.report(
            MsgId::MissingTag,
            "invalid format - unexpected end after 'type' line",
        );
    };
    let name = buf.get(i..eol).unwrap_or_default();
    if !tag_name_ok(name) && s.report_bytes(MsgId::BadTagName, &cat("invalid 'tag' name: ", name)) {
        return true;
    }
    i = eol + 1;
    let mut ret = false;
    if i >= end || !skip_prefix(buf, &mut i, b"tagger ") {
        // Early tags have no tagger line.
        if s.report(
            MsgId::MissingTaggerEntry,
            "invalid format - expected 'tagger' line",
        ) {
            return true;
        }
    } else {
        ret = ident(buf, &mut i, s);
    }
    if i < end && at(buf, i) != b'\n' {
        // Extra header lines after the tagger: their (normally ignored) report's verdict
        // replaces the tagger's.
        ret = s.report(
            MsgId::ExtraHeaderEntry,
            "invalid format - extra header(s) after 'tagger'",
        );
    }
    ret
}

/// `prefix` followed by `bytes` (names and values are printed as they are, UTF-8 or not).
fn cat(prefix: &str, bytes: &[u8]) -> Vec<u8> {
    let mut v = prefix.as_bytes().to_vec();
    v.extend_from_slice(bytes);
    v
}

/// git's `ATTR_MAX_FILE_SIZE`: larger `.gitattributes` files are not read.
pub(crate) const ATTR_MAX_FILE_SIZE: usize = 100 * 1024 * 1024;
/// git's `ATTR_MAX_LINE_LENGTH`.
const ATTR_MAX_LINE_LENGTH: usize = 2048;

/// The `.gitmodules` part of git's `fsck_blob`: each `submodule.<name>.<key>` entry checked as
/// git's `fsck_gitmodules_fn` does, then `gitmodulesParse` when the blob is not valid
/// configuration (after the entries before the bad line, as git reads them).
pub(crate) fn gitmodules(buf: &[u8], s: &mut dyn Sink) -> bool {
    let parsed = Config::parse_blob(buf);
    let mut failed = false;
    for e in &parsed.entries {
        let Some(rest) = e.key_bytes.strip_prefix(b"submodule.") else {
            continue;
        };
        let Some(last) = rest.iter().rposition(|&c| c == b'.') else {
            continue;
        };
        let (name, key) = (&rest[..last], &rest[last + 1..]);
        if !super::gitmodules::name_ok(name) {
            failed |= s.report_bytes(
                MsgId::GitmodulesName,
                &cat("disallowed submodule name: ", name),
            );
        }
        let value = e.value_str();
        if key == b"url"
            && let Some(v) = value
            && !super::gitmodules::url_ok(v)
        {
            failed |= s.report_bytes(MsgId::GitmodulesUrl, &cat("disallowed submodule url: ", v));
        }
        if key == b"path"
            && let Some(v) = value
            && v.first() == Some(&b'-')
        {
            failed |= s.report_bytes(
                MsgId::GitmodulesPath,
                &cat("disallowed submodule path: ", v),
            );
        }
        if key == b"update"
            && let Some(v) = value
            && v.first() == Some(&b'!')
        {
            failed |= s.report_bytes(
                MsgId::GitmodulesUpdate,
                &cat("disallowed submodule update setting: ", v),
            );
        }
    }
    if parsed.bad_line.is_some() {
        failed |= s.report(MsgId::GitmodulesParse, "could not parse gitmodules blob");
    }
    failed
}

/// The `.gitattributes` part of git's `fsck_blob`: too large a file, or a line (up to the first
/// NUL, where git's C string ends) of 2048 bytes or more.
pub(crate) fn gitattributes(buf: &[u8], s: &mut dyn Sink) -> bool {
    if buf.len() > ATTR_MAX_FILE_SIZE {
        return s.report(
            MsgId::GitattributesLarge,
            ".gitattributes too large to parse",
        );
    }
    let text = buf.split(|&c| c == 0).next().unwrap_or(buf);
    if text
        .split(|&c| c == b'\n')
        .any(|line| line.len() >= ATTR_MAX_LINE_LENGTH)
    {
        return s.report(
            MsgId::GitattributesLineLength,
            ".gitattributes has too long lines to parse",
        );
    }
    false
}
