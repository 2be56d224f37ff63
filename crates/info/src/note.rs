//! The build record inside an executable: what each flagsplit-config library of the executable
//! decided, kept in the ELF section `.note.flagsplit` so that a tool reads it from the binary
//! alone (`cargo flagsplit inspect`), long after the build.
//!
//! # Format (version 1)
//!
//! The section holds ELF notes (the System V ABI's note format, in the target's byte order), one
//! per library, each 4-byte aligned:
//!
//! | field | size | value |
//! |---|---|---|
//! | `namesz` | 4 | 10: the name's length with its NUL |
//! | `descsz` | 4 | the record's length in bytes |
//! | `type` | 4 | [`NT_RECORD`] (1): a build record as JSON |
//! | name | 12 | `flagsplit\0`, padded to 4 bytes |
//! | desc | `descsz`, padded to 4 bytes | one [`BuildRecord`](crate::record::BuildRecord) as one line of UTF-8 JSON |
//!
//! The record is the one `OUT_DIR/flagsplit-config.json` holds, trimmed to what a binary needs
//! ([`BuildRecord::for_binary`](crate::record::BuildRecord::for_binary): each facility's providers,
//! selection and origin, the graph-wide policies and the C libraries found, no variables, features
//! or config file) and written without defaults ([`BuildRecord::to_compact_json`](crate::record::BuildRecord::to_compact_json)). Its
//! paths follow `--remap-path-prefix`, as the build options do. A reader skips notes of another
//! name or type, so a later version adds types rather than changing this one; the record's own
//! `schema` field versions its JSON.
//!
//! The build script writes the notes' bytes to `OUT_DIR/flagsplit-record.note`
//! ([`encode`]), and the generated `build_info.rs` places them with [`record!`](crate::record!):
//! a `#[used]` static in `.note.flagsplit`, which linkers keep (a note section is not collected by
//! `--gc-sections`) and `strip` leaves (it is allocated, part of the loaded image), and which costs
//! nothing at run time.

/// The notes' name.
pub const NAME: &str = "flagsplit";
/// The ELF section the notes are in.
pub const SECTION: &str = ".note.flagsplit";
/// The note type of a build record as JSON.
pub const NT_RECORD: u32 = 1;
/// The largest record a reader accepts, in bytes: a record is about 2 KiB.
pub const MAX_RECORD: usize = 64 * 1024;

/// The bytes of a note section's static, 4-byte aligned as notes must be. Made by [`record!`].
#[doc(hidden)]
#[repr(C, align(4))]
pub struct Aligned<const N: usize>(pub [u8; N]);

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// One note of type [`NT_RECORD`] holding `record`, in the byte order `big_endian` says (the
/// target's).
pub fn encode(record: &str, big_endian: bool) -> Vec<u8> {
    let word = |n: u32| {
        if big_endian {
            n.to_be_bytes()
        } else {
            n.to_le_bytes()
        }
    };
    let mut out = Vec::with_capacity(24 + pad4(record.len()));
    out.extend_from_slice(&word(NAME.len() as u32 + 1));
    out.extend_from_slice(&word(record.len() as u32));
    out.extend_from_slice(&word(NT_RECORD));
    out.extend_from_slice(NAME.as_bytes());
    out.push(0);
    out.resize(12 + pad4(NAME.len() + 1), 0);
    out.extend_from_slice(record.as_bytes());
    out.resize(12 + pad4(NAME.len() + 1) + pad4(record.len()), 0);
    out
}

/// Why a note section could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoteError {
    /// The section ends inside a note's header or its name or record.
    Truncated {
        /// Where the note starts in the section.
        offset: usize,
        /// The bytes the note says it has.
        wanted: usize,
        /// The bytes left in the section.
        left: usize,
    },
    /// A record larger than [`MAX_RECORD`] (or a name larger than 4 KiB).
    TooLarge {
        /// Where the note starts in the section.
        offset: usize,
        /// Its size.
        size: usize,
    },
    /// A record that is not UTF-8.
    NotUtf8 {
        /// Where the note starts in the section.
        offset: usize,
    },
}

impl std::fmt::Display for NoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoteError::Truncated {
                offset,
                wanted,
                left,
            } => write!(
                f,
                "the note at byte {offset} of {SECTION} is cut short: it needs {wanted} bytes and {left} are left (the file is truncated or damaged)"
            ),
            NoteError::TooLarge { offset, size } => write!(
                f,
                "the note at byte {offset} of {SECTION} declares {size} bytes, more than the {MAX_RECORD} a record can have (the file is damaged or not what it claims)"
            ),
            NoteError::NotUtf8 { offset } => write!(
                f,
                "the record in the note at byte {offset} of {SECTION} is not UTF-8 text"
            ),
        }
    }
}

impl std::error::Error for NoteError {}

/// The records in a note section (or a `PT_NOTE` segment) in the byte order `big_endian` says:
/// each note named [`NAME`] of type [`NT_RECORD`], in order; other notes are skipped. Reads only
/// `data`, allocates only the list, and stops at the first malformed note.
pub fn decode(data: &[u8], big_endian: bool) -> Result<Vec<&str>, NoteError> {
    let word = |b: &[u8]| {
        let b = [b[0], b[1], b[2], b[3]];
        if big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let mut out = Vec::new();
    let mut at = 0;
    // Linkers may pad a note section with zeros to its alignment: trailing zeros end it.
    while at < data.len() && data[at..].iter().any(|&b| b != 0) {
        let left = data.len() - at;
        if left < 12 {
            return Err(NoteError::Truncated {
                offset: at,
                wanted: 12,
                left,
            });
        }
        let namesz = word(&data[at..]) as usize;
        let descsz = word(&data[at + 4..]) as usize;
        let kind = word(&data[at + 8..]);
        if descsz > MAX_RECORD {
            return Err(NoteError::TooLarge {
                offset: at,
                size: descsz,
            });
        }
        if namesz > 4096 {
            return Err(NoteError::TooLarge {
                offset: at,
                size: namesz,
            });
        }
        let wanted = 12 + pad4(namesz) + pad4(descsz);
        if wanted > left {
            return Err(NoteError::Truncated {
                offset: at,
                wanted,
                left,
            });
        }
        let name = &data[at + 12..at + 12 + namesz];
        let name = name.strip_suffix(&[0]).unwrap_or(name);
        if name == NAME.as_bytes() && kind == NT_RECORD {
            let start = at + 12 + pad4(namesz);
            let desc = &data[start..start + descsz];
            let text = std::str::from_utf8(desc).map_err(|_| NoteError::NotUtf8 { offset: at })?;
            out.push(text);
        }
        at += wanted;
    }
    Ok(out)
}

/// Places this crate's build record (`OUT_DIR/flagsplit-record.note`, written by
/// flagsplit-config's build script) in the executables that link the crate. The generated
/// `build_info.rs` invokes it, so a library that includes that file needs nothing more; on targets
/// whose executables are not ELF it expands to nothing.
///
/// The attributes are this macro's, so a crate that forbids `unsafe_code` or is written in
/// edition 2024 (where `link_section` is an unsafe attribute) compiles it unchanged.
#[macro_export]
macro_rules! record {
    () => {
        #[cfg(all(unix, not(target_vendor = "apple")))]
        const _: () = {
            #[used]
            #[link_section = ".note.flagsplit"]
            static RECORD: $crate::note::Aligned<
                { include_bytes!(concat!(env!("OUT_DIR"), "/flagsplit-record.note")).len() },
            > = $crate::note::Aligned(*include_bytes!(concat!(
                env!("OUT_DIR"),
                "/flagsplit-record.note"
            )));
        };
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_reads_back_in_both_byte_orders() {
        for big in [false, true] {
            let mut section = encode(r#"{"schema":2,"crate":"a"}"#, big);
            assert_eq!(section.len() % 4, 0);
            section.extend(encode("{\"crate\":\"bc\"}", big));
            // Another tool's note in between is skipped; zero padding at the end ends the list.
            let mut other = encode("x", big);
            other[12..21].copy_from_slice(b"GNU\0\0\0\0\0\0");
            section.extend(other);
            section.extend([0; 8]);
            let records = decode(&section, big).expect("well formed");
            assert_eq!(
                records,
                [r#"{"schema":2,"crate":"a"}"#, "{\"crate\":\"bc\"}"]
            );
        }
        assert_eq!(
            &encode("{}", false)[..12],
            &[10, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0]
        );
    }

    #[test]
    fn damaged_notes_are_errors_not_panics() {
        let note = encode(r#"{"schema":2,"crate":"abcdef"}"#, false);
        for cut in 1..note.len() {
            let r = decode(&note[..cut], false);
            assert!(
                matches!(r, Err(NoteError::Truncated { .. })),
                "cut at {cut}: {r:?}"
            );
        }
        let mut huge = note.clone();
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = decode(&huge, false).unwrap_err();
        assert!(matches!(e, NoteError::TooLarge { .. }));
        assert!(e.to_string().contains("more than the 65536"), "{e}");
        let mut bad = note;
        bad[24] = 0xff;
        assert_eq!(decode(&bad, false), Err(NoteError::NotUtf8 { offset: 0 }));
        assert!(decode(&[], false).unwrap().is_empty());
    }
}
