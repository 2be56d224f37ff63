//! Loose objects: each object directory's files checked as git's `fsck_loose` does, and read.

use crate::Providers;
use std::path::Path;

use crate::loose;
use flagsplit_zlib::Inflater;

use crate::fsck::odb::Mapped;
use crate::fsck::table::{Oid, oid};
use crate::fsck::{Fatal, Fsck, bits, odb};
use crate::{Kind, ObjectFormat};

use super::{MAX_OBJECT, zlib_line};

/// git's `fsck_object_dir` for every object directory (with `check` off, as for
/// `--connectivity-only`, the objects are only recorded as present).
pub fn loose_objects<P: Providers>(
    f: &mut Fsck<'_, P>,
    dirs: &[odb::ObjectDir],
    check: bool,
) -> Result<(), Fatal> {
    let format = f.repo.format;
    let mut z = P::Inflater::new().map_err(Fatal::msg)?;
    for dir in dirs {
        if check && f.opts.verbose {
            f.out.err("Checking object directory");
        }
        let files = odb::loose_files(&dir.path, format.hex_len());
        if check {
            for c in &files.cruft {
                f.out.err(&format!("bad sha1 file: {}", c.display()));
            }
        }
        for (hexid, path) in &files.objects {
            let Some(raw) = crate::repo::parse_hex(hexid.as_bytes(), format.raw_len()) else {
                continue;
            };
            let id = oid(&raw);
            let i = f.table.unknown(&id);
            f.table.or_flags(i, crate::fsck::table::PRESENT);
            f.stored.loose.entry(id).or_insert_with(|| path.clone());
            f.stored.loose_order.push(id);
            if check {
                check_loose(f, &mut z, &id, path);
            } else {
                let i = f.table.unknown(&id);
                f.table.or_flags(i, crate::fsck::table::HAS_OBJ);
            }
        }
        if check {
            // git's meter is never updated per directory (its callback is handed the meter before
            // the meter exists): it shows 100% once the directory is done.
            let mut meter = f.out.progress().start("Checking object directories", 256);
            meter.display(256);
            meter.stop();
        }
    }
    Ok(())
}

/// What reading a loose object found.
pub enum LooseRead {
    /// The header named this type and the content inflated in full.
    Ok {
        /// The type's name as written.
        type_name: Vec<u8>,
        /// The content.
        data: Vec<u8>,
    },
    /// A blob larger than the threshold, hashed as it was inflated (git streams these).
    Streamed {
        /// Its id, or the collision-detecting hash's message.
        id: Result<Oid, String>,
    },
    /// The stream ended before the size its header gives: what git computes as its id.
    Short {
        /// The id of the content padded to its size, or the hash's refusal.
        id: Result<Oid, String>,
    },
    /// git's `error:` lines (without the prefix).
    Bad(Vec<String>),
    /// The file could not be opened, or is empty: git's lines.
    Unmapped(Vec<String>),
    /// For [`LooseBy::StoreType`]: the type's name as the header writes it.
    Header {
        /// The type's name.
        type_name: Vec<u8>,
    },
}

/// The type's name in the header of a loose object file, as git's `oid_object_info` reads it
/// (`Err`: git's lines).
pub fn read_loose_header<P: Providers>(
    z: &mut P::Inflater,
    path: &Path,
    hexid: &str,
) -> Result<Vec<u8>, Vec<String>> {
    match read_loose::<P>(z, path, hexid, None, LooseBy::StoreType) {
        LooseRead::Header { type_name } | LooseRead::Ok { type_name, .. } => Ok(type_name),
        LooseRead::Bad(lines) | LooseRead::Unmapped(lines) => Err(lines),
        LooseRead::Streamed { .. } | LooseRead::Short { .. } => Err(Vec::new()),
    }
}

/// How a loose object is read, which decides git's messages: by fsck's scan of the files
/// (`read_loose_object`, which names the file) or through the object store
/// (`loose_object_info`, which names the object; a stream shorter than its header says is then
/// read as its content padded with zeros, whose hash does not match).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum LooseBy {
    /// fsck's scan.
    Scan,
    /// The object store.
    Store,
    /// The object store, for the type alone (git's `oid_object_info`): only the header is
    /// inflated ([`LooseRead::Header`]).
    StoreType,
}

/// Reads a loose object file as git's `read_loose_object` (or `loose_object_info`) does.
/// With `stream` (the big-file threshold and the object format), a blob larger than the
/// threshold is hashed as it is inflated instead of being held.
pub fn read_loose<P: Providers>(
    z: &mut P::Inflater,
    path: &Path,
    hexid: &str,
    stream: Option<(u64, ObjectFormat)>,
    by: LooseBy,
) -> LooseRead {
    let map = match Mapped::open(path) {
        Ok(m) => m,
        Err(e) if by != LooseBy::Scan => {
            let gone = e.kind() == std::io::ErrorKind::NotFound;
            return LooseRead::Unmapped(if gone {
                Vec::new()
            } else {
                vec![format!(
                    "unable to open loose object {hexid}: {}",
                    crate::os_error::strerror(&e)
                )]
            });
        }
        Err(e) => {
            return LooseRead::Unmapped(vec![format!(
                "unable to mmap {}: {}",
                path.display(),
                crate::os_error::strerror(&e)
            )]);
        }
    };
    let input = map.bytes();
    let mut lines = Vec::new();
    if input.is_empty() {
        // git's map_fd refuses an empty file; fsck's scan then reports the mapping with a stale
        // errno.
        lines.push(format!("object file {} is empty", path.display()));
        if by == LooseBy::Scan {
            lines.push(format!(
                "unable to mmap {}: No such file or directory",
                path.display()
            ));
        }
        return LooseRead::Unmapped(lines);
    }
    let unpack_header = match by {
        LooseBy::Scan => format!("unable to unpack header of {}", path.display()),
        LooseBy::Store | LooseBy::StoreType => format!("unable to unpack {hexid} header"),
    };
    // git inflates at most 32 bytes to find the header.
    z.reset();
    let mut hdr = [0u8; loose::MAX_HEADER_LEN];
    let mut got = 0;
    let mut used = 0;
    let mut ended = false;
    while got < hdr.len() && !ended {
        match z.inflate(&input[used..], &mut hdr[got..]) {
            Ok(step) => {
                used += step.consumed;
                got += step.written;
                ended = step.end;
                if step.consumed == 0 && step.written == 0 {
                    break;
                }
            }
            Err(_) => {
                lines.extend(zlib_line(input, usize::MAX));
                lines.push(unpack_header);
                return LooseRead::Bad(lines);
            }
        }
    }
    let header = match loose::parse_header(&hdr[..got]) {
        Ok(h) => h,
        Err(loose::HeaderError::NoNul) => {
            lines.push(match by {
                LooseBy::Scan => unpack_header,
                LooseBy::Store | LooseBy::StoreType => format!(
                    "header for {hexid} too long, exceeds {} bytes",
                    loose::MAX_HEADER_LEN
                ),
            });
            return LooseRead::Bad(lines);
        }
        Err(loose::HeaderError::Malformed) => {
            lines.push(match by {
                LooseBy::Scan => format!("unable to parse header of {}", path.display()),
                LooseBy::Store | LooseBy::StoreType => format!("unable to parse {hexid} header"),
            });
            return LooseRead::Bad(lines);
        }
    };
    if by == LooseBy::StoreType {
        return LooseRead::Header {
            type_name: header.type_name.to_vec(),
        };
    }
    let size = header.size;
    let type_name = header.type_name.to_vec();
    let streaming =
        matches!(stream, Some((threshold, _)) if type_name == b"blob" && size > threshold);
    // git's streaming check (`check_stream_oid`) says only what is wrong with the stream.
    let corrupt = |lines: &mut Vec<String>, what: &str| {
        lines.push(format!("{what} loose object '{hexid}'"));
        if !streaming && by == LooseBy::Scan {
            lines.push(format!("unable to unpack contents of {}", path.display()));
        }
    };
    if size > MAX_OBJECT {
        corrupt(&mut lines, "corrupt");
        return LooseRead::Bad(lines);
    }
    let mut already = &hdr[header.len..got];
    if already.len() as u64 > size {
        // A stream that already ended holds more than its header says: git keeps the declared
        // size (the object then does not match its name). One that goes on cannot fit.
        if !ended {
            corrupt(&mut lines, "corrupt");
            return LooseRead::Bad(lines);
        }
        already = &already[..size as usize];
    }
    let mut hasher =
        match stream {
            Some((_, format)) if streaming => Some(
                crate::object_id::ObjectHasher::<P::Hasher>::new(format, Kind::Blob, size, true),
            ),
            _ => None,
        };
    let mut data = if hasher.is_some() {
        Vec::new()
    } else {
        Vec::with_capacity((size as usize).min(input.len().saturating_mul(1032) + 64))
    };
    let mut total = already.len();
    match hasher.as_mut() {
        Some(h) => h.update(already),
        None => data.extend_from_slice(already),
    }
    let mut buf = vec![0u8; 64 * 1024];
    while !ended {
        match z.inflate(&input[used..], &mut buf) {
            Ok(step) => {
                used += step.consumed;
                if total + step.written > size as usize {
                    corrupt(&mut lines, "corrupt");
                    return LooseRead::Bad(lines);
                }
                total += step.written;
                match hasher.as_mut() {
                    Some(h) => h.update(&buf[..step.written]),
                    None => data.extend_from_slice(&buf[..step.written]),
                }
                ended = step.end;
                if step.consumed == 0 && step.written == 0 && !ended {
                    corrupt(&mut lines, "corrupt");
                    return LooseRead::Bad(lines);
                }
            }
            Err(_) => {
                lines.extend(zlib_line(input, usize::MAX));
                corrupt(&mut lines, "corrupt");
                return LooseRead::Bad(lines);
            }
        }
    }
    if used < input.len() {
        corrupt(&mut lines, "garbage at end of");
        return LooseRead::Bad(lines);
    }
    match hasher {
        Some(h) => LooseRead::Streamed {
            id: h.finalize().map(|i| i.padded()).map_err(|e| e.to_string()),
        },
        // Through the store, the content (git pads it with zeros; its hash does not match
        // either way, and what follows the real bytes parses as nothing).
        None if (total as u64) < size && by != LooseBy::Scan => LooseRead::Ok { type_name, data },
        None if (total as u64) < size => {
            // A stream shorter than its header says: git hashes its buffer of the declared size
            // (the rest zero), so the object does not match its name. The zeros are hashed, not
            // allocated.
            let format = stream.map_or(ObjectFormat::Sha1, |(_, f)| f);
            let mut h = crate::object_id::ObjectHasher::<P::Hasher>::with_type_name(
                format, &type_name, size, true,
            );
            h.update(&data);
            let zeros = [0u8; 8192];
            let mut left = size - total as u64;
            while left > 0 {
                let n = left.min(zeros.len() as u64) as usize;
                h.update(&zeros[..n]);
                left -= n as u64;
            }
            LooseRead::Short {
                id: h.finalize().map(|i| i.padded()).map_err(|e| e.to_string()),
            }
        }
        None => LooseRead::Ok { type_name, data },
    }
}

fn check_loose<P: Providers>(f: &mut Fsck<'_, P>, z: &mut P::Inflater, id: &Oid, path: &Path) {
    let was = f.out.set_context(crate::fsck::finding::Context {
        object: Some(f.hex(id)),
        path: Some(path.display().to_string()),
        pack: None,
    });
    check_loose_file(f, z, id, path);
    f.out.set_context(was);
}

/// [`check_loose`] with its findings' context set.
fn check_loose_file<P: Providers>(f: &mut Fsck<'_, P>, z: &mut P::Inflater, id: &Oid, path: &Path) {
    let format = f.repo.format;
    let hexid = f.hex(id);
    let stream = Some((f.settings.big_file_threshold, format));
    let (type_name, data) = match read_loose::<P>(z, path, &hexid, stream, LooseBy::Scan) {
        LooseRead::Ok { type_name, data } => (type_name, data),
        LooseRead::Short { id: real } => {
            match real {
                Ok(real) => {
                    let rh = f.hex(&real);
                    f.out.error(&format!(
                        "{rh}: hash-path mismatch, found at: {}",
                        path.display()
                    ));
                }
                Err(collision) => f.out.error(&collision),
            }
            f.out.bits |= bits::OBJECT;
            return;
        }
        LooseRead::Streamed { id: real } => {
            match real {
                Ok(real) if real == *id => {
                    if f.object_checked(id, Kind::Blob, None, Some(path)) {
                        f.out.bits |= bits::OBJECT;
                    }
                }
                Ok(_) => {
                    f.out.error(&format!(
                        "hash mismatch for {} (expected {hexid})",
                        path.display()
                    ));
                    f.out.error_bit(
                        &format!("{hexid}: object corrupt or missing: {}", path.display()),
                        bits::OBJECT,
                    );
                }
                Err(collision) => {
                    f.out.error(&collision);
                    f.out.error_bit(
                        &format!("{hexid}: object corrupt or missing: {}", path.display()),
                        bits::OBJECT,
                    );
                }
            }
            return;
        }
        // (Not asked for.)
        LooseRead::Header { .. } => return,
        LooseRead::Bad(lines) | LooseRead::Unmapped(lines) => {
            for l in lines {
                f.out.error(&l);
            }
            f.out.error_bit(
                &format!("{hexid}: object corrupt or missing: {}", path.display()),
                bits::OBJECT,
            );
            return;
        }
    };
    let kind = Kind::from_name(&type_name);
    let real = match kind {
        Some(k) => (f.settings.hash)(format, k, &data),
        None => {
            let mut h = crate::object_id::ObjectHasher::<P::Hasher>::with_type_name(
                format,
                &type_name,
                data.len() as u64,
                true,
            );
            h.update(&data);
            h.finalize().map(|i| i.padded()).map_err(|e| e.to_string())
        }
    };
    let mut failed = false;
    match &real {
        Err(collision) => {
            f.out.error(collision);
            f.out.error(&format!(
                "{hexid}: object corrupt or missing: {}",
                path.display()
            ));
            failed = true;
        }
        Ok(real) if real != id => {
            let rh = f.hex(real);
            f.out.error(&format!(
                "{rh}: hash-path mismatch, found at: {}",
                path.display()
            ));
            failed = true;
        }
        Ok(_) => {}
    }
    if kind.is_none() {
        // git names the object by the id it computed when that is not the path's.
        let rh = match &real {
            Ok(r) if failed => f.hex(r),
            _ => hexid.clone(),
        };
        f.out.error(&format!(
            "{rh}: object is of unknown type '{}': {}",
            String::from_utf8_lossy(&type_name),
            path.display()
        ));
        failed = true;
    }
    if failed {
        f.out.bits |= bits::OBJECT;
        return;
    }
    let Some(kind) = kind else { return };
    let stream = kind == Kind::Blob && data.len() as u64 > f.settings.big_file_threshold;
    let err = f.object_checked(
        id,
        kind,
        if stream { None } else { Some(&data) },
        Some(path),
    );
    if err {
        f.out.bits |= bits::OBJECT;
    }
}
