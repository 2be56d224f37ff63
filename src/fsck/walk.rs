//! What fsck needs to know of each object's content: what it links to (git's `fsck_walk`), and
//! git's per-object checks at their configured severities; and the configuration they read.

use crate::gitconfig::Config;
use crate::object::{Kind, ObjectFormat};

use super::table::Oid;
use super::{Fatal, Repo};

/// One link.
#[derive(Clone, Debug)]
pub struct Target {
    /// The type the link names.
    pub kind: Kind,
    /// The target's id (raw).
    pub id: Vec<u8>,
}

/// What an object links to, in git's walk order, and what git prints on the way.
#[derive(Clone, Debug, Default)]
pub struct Links {
    /// The links.
    pub targets: Vec<Target>,
    /// `error:` lines (without the prefix) git prints while parsing or walking.
    pub errors: Vec<String>,
    /// git's `parse_object_buffer` fails (it then says `object corrupt or missing`).
    pub parse_failed: bool,
    /// The walk reported a problem (an entry with a bad mode): `broken links`.
    pub walk_failed: bool,
    /// A commit's number of parents.
    pub parents: usize,
    /// A tag's name.
    pub tag_name: Option<Vec<u8>>,
}

/// The links of an object of `kind` with content `buf`.
pub fn links(kind: Kind, buf: &[u8], format: ObjectFormat) -> Links {
    let raw = format.raw_len();
    let hex = format.hex_len();
    let mut l = Links::default();
    let parse_hex = |s: &[u8]| -> Option<Vec<u8>> {
        if s.len() < hex {
            return None;
        }
        let mut out = Vec::with_capacity(raw);
        for pair in s[..hex].chunks(2) {
            let d = |c: u8| (c as char).to_digit(16);
            out.push((d(pair[0])? * 16 + d(pair[1])?) as u8);
        }
        Some(out)
    };
    match kind {
        Kind::Blob => {}
        Kind::Commit => {
            let Some(rest) = buf.strip_prefix(b"tree ") else {
                l.parse_failed = true;
                return l;
            };
            let Some(tree) = parse_hex(rest).filter(|_| rest.get(hex) == Some(&b'\n')) else {
                l.parse_failed = true;
                return l;
            };
            l.targets.push(Target {
                kind: Kind::Tree,
                id: tree,
            });
            let mut at = 5 + hex + 1;
            while let Some(rest) = buf.get(at..).and_then(|r| r.strip_prefix(b"parent ")) {
                match parse_hex(rest).filter(|_| rest.get(hex) == Some(&b'\n')) {
                    Some(p) => {
                        l.targets.push(Target {
                            kind: Kind::Commit,
                            id: p,
                        });
                        l.parents += 1;
                    }
                    None => {
                        l.parse_failed = true;
                        return l;
                    }
                }
                at += 7 + hex + 1;
            }
        }
        Kind::Tag => {
            let Some(rest) = buf.strip_prefix(b"object ") else {
                l.parse_failed = true;
                return l;
            };
            let Some(id) = parse_hex(rest) else {
                l.parse_failed = true;
                return l;
            };
            let after = &rest[hex..];
            let Some(t) = after.strip_prefix(b"\ntype ") else {
                l.parse_failed = true;
                return l;
            };
            let end = t.iter().position(|&b| b == b'\n').unwrap_or(t.len());
            let Some(k) = Kind::from_bytes(&t[..end]) else {
                l.parse_failed = true;
                return l;
            };
            let tag_line = t.get(end + 1..).and_then(|r| r.strip_prefix(b"tag "));
            l.tag_name = tag_line.map(|r| {
                let e = r.iter().position(|&b| b == b'\n').unwrap_or(r.len());
                r[..e].to_vec()
            });
            l.targets.push(Target { kind: k, id });
        }
        Kind::Tree => {
            let mut at = 0;
            while at < buf.len() {
                let Some(sp) = buf[at..].iter().position(|&b| b == b' ') else {
                    break;
                };
                let mode = &buf[at..at + sp];
                let Some(nul) = buf[at + sp..].iter().position(|&b| b == 0) else {
                    break;
                };
                let name_end = at + sp + nul;
                let Some(id) = buf.get(name_end + 1..name_end + 1 + raw) else {
                    break;
                };
                let m = mode
                    .iter()
                    .fold(0u32, |m, &c| m.wrapping_mul(8).wrapping_add(u32::from(c.wrapping_sub(b'0'))));
                match m & 0o170000 {
                    0o040000 => l.targets.push(Target {
                        kind: Kind::Tree,
                        id: id.to_vec(),
                    }),
                    0o160000 => {}
                    0o100000 | 0o120000 => l.targets.push(Target {
                        kind: Kind::Blob,
                        id: id.to_vec(),
                    }),
                    _ => l.walk_failed = true,
                }
                at = name_end + 1 + raw;
            }
        }
    }
    l
}

/// One finding of git's checks.
#[derive(Clone, Debug)]
pub struct Finding {
    /// An error (else a warning).
    pub error: bool,
    /// What git prints after `error in TYPE ID: `: `msgId: text`.
    pub message: String,
}

/// git's checks with the repository's `fsck.*` configuration.
pub struct Checks {
    strict: bool,
}

impl Checks {
    /// Configured from `config`.
    pub fn new(_config: &Config, strict: bool, _format: ObjectFormat) -> Result<Checks, Fatal> {
        Ok(Checks { strict })
    }

    /// The findings for one object (`data` is `None` for a streamed blob).
    pub fn check(
        &mut self,
        kind: Kind,
        _id: &Oid,
        data: Option<&[u8]>,
        format: ObjectFormat,
    ) -> Vec<Finding> {
        let Some(data) = data else {
            return Vec::new();
        };
        let report = match kind {
            Kind::Blob => return Vec::new(),
            Kind::Tree => crate::object::fsck::tree(data, format),
            Kind::Commit => crate::object::fsck::commit(data, format),
            Kind::Tag => crate::object::fsck::tag(data, format),
        };
        let _ = self.strict;
        report
            .errors
            .iter()
            .filter_map(|e| e.strip_prefix("object fails fsck: "))
            .map(|m| Finding {
                error: true,
                message: m.to_string(),
            })
            .collect()
    }
}

/// The repository's configuration, as git reads it for fsck.
pub fn load_config(repo: &Repo) -> Result<Config, Fatal> {
    Config::load_for_repo(&repo.git_dir, &repo.common_dir).map_err(|e| Fatal(e.lines.join("\n")))
}

/// `core.bigFileThreshold` (git's default: 512 MiB).
pub fn big_file_threshold(config: &Config) -> u64 {
    config
        .get_ulong("core.bigfilethreshold")
        .ok()
        .flatten()
        .unwrap_or(512 << 20)
}
