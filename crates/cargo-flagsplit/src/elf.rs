//! What the ELF files of a build hold: an executable's `DT_NEEDED` entries and the symbols it
//! defines, and the symbols an archive (`lib*.a`) defines. Files are read through object's
//! `ReadCache`, which reads only the ranges asked for: the section headers, `.dynamic` and
//! `.dynstr` for `NEEDED`, `.symtab` and `.strtab` for symbols, an archive's index, never a
//! whole file.

use anyhow::{Context, Result, bail};
use object::read::ReadCache;
use object::read::archive::ArchiveFile;
use object::read::elf::{Dyn, FileHeader, SectionHeader, Sym};
use object::{FileKind, ReadRef, elf};
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

/// The symbol names a file defines, each with a flag (see [`defined_symbols`] and
/// [`archive_symbols`]).
pub type Symbols = HashMap<Box<[u8]>, bool>;

/// What an executable's headers say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers {
    /// `DT_NEEDED` in file order; `None` without a dynamic section (a static executable).
    pub needed: Option<Vec<String>>,
    /// It has a `.symtab` (false: stripped).
    pub has_symtab: bool,
}

fn open(path: &Path) -> Result<ReadCache<File>> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(ReadCache::new(file))
}

/// The `NEEDED` entries of the ELF file at `path`, and whether it has a symbol table.
pub fn headers(path: &Path) -> Result<Headers> {
    let cache = open(path)?;
    headers_in(&cache).with_context(|| format!("cannot read the ELF headers of {}", path.display()))
}

/// As [`headers`], of any readable data.
pub fn headers_in<'d, R: ReadRef<'d>>(data: R) -> Result<Headers> {
    match FileKind::parse(data)? {
        FileKind::Elf32 => headers_of::<elf::FileHeader32<object::Endianness>, R>(data),
        FileKind::Elf64 => headers_of::<elf::FileHeader64<object::Endianness>, R>(data),
        other => bail!("not an ELF file ({other:?})"),
    }
}

fn headers_of<'d, H: FileHeader<Endian = object::Endianness>, R: ReadRef<'d>>(
    data: R,
) -> Result<Headers> {
    let header = H::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let has_symtab = sections
        .iter()
        .any(|s| s.sh_type(endian) == elf::SHT_SYMTAB);
    let Some((entries, strings_index)) = sections.dynamic(endian, data)? else {
        return Ok(Headers {
            needed: None,
            has_symtab,
        });
    };
    let strings = sections.strings(endian, data, strings_index)?;
    let mut needed = Vec::new();
    for entry in entries {
        match entry.tag32(endian) {
            Some(elf::DT_NULL) => break,
            Some(elf::DT_NEEDED) => {
                let offset = u32::try_from(entry.d_val(endian).into())
                    .map_err(|_| anyhow::anyhow!("a NEEDED entry's name offset is out of range"))?;
                let name = strings
                    .get(offset)
                    .map_err(|()| anyhow::anyhow!("a NEEDED entry's name is outside .dynstr"))?;
                needed.push(String::from_utf8_lossy(name).into_owned());
            }
            _ => {}
        }
    }
    Ok(Headers {
        needed: Some(needed),
        has_symtab,
    })
}

/// Where an executable's build records were read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordPlace {
    /// The `.note.flagsplit` section.
    Section,
    /// A `PT_NOTE` segment (a file whose section headers were removed).
    Segment,
    /// Neither holds a flagsplit note.
    Absent,
}

/// The largest note section or segment read, in bytes: records are about 2 KiB each.
pub const MAX_NOTES: u64 = 1024 * 1024;

/// The build records an ELF file carries (`flagsplit_info::note`), each as its JSON text, with
/// where they were found. Reads the file's header, its section headers, the section names and the
/// note section (or, without section headers, the program headers and each note segment), never
/// the whole file. A note section that is damaged, or larger than [`MAX_NOTES`], is an error.
pub fn records_in<'d, R: ReadRef<'d>>(data: R) -> Result<(Vec<String>, RecordPlace)> {
    match data.read_bytes_at(0, 4) {
        Ok(magic) if magic == b"\x7fELF" => {}
        Ok(_) => bail!("not an ELF file (no ELF magic number): build records are ELF notes"),
        Err(()) => bail!("not an ELF file: shorter than an ELF header's first four bytes"),
    }
    match FileKind::parse(data)? {
        FileKind::Elf32 => records_of::<elf::FileHeader32<object::Endianness>, R>(data),
        FileKind::Elf64 => records_of::<elf::FileHeader64<object::Endianness>, R>(data),
        other => bail!("not an ELF file ({other:?}): build records are ELF notes"),
    }
}

fn records_of<'d, H: FileHeader<Endian = object::Endianness>, R: ReadRef<'d>>(
    data: R,
) -> Result<(Vec<String>, RecordPlace)> {
    use object::read::elf::ProgramHeader;
    let header = H::parse(data)?;
    let endian = header.endian()?;
    let big = object::Endian::is_big_endian(endian);
    let read = |offset: u64, size: u64, what: &str| -> Result<&'d [u8]> {
        if size > MAX_NOTES {
            bail!(
                "{what} is {size} bytes, more than the {MAX_NOTES} a note section can have here (the file is damaged or not what it claims)"
            );
        }
        data.read_bytes_at(offset, size).map_err(|()| {
            anyhow::anyhow!("{what} ({size} bytes at offset {offset}) lies beyond the end of the file: it is truncated")
        })
    };
    let decode = |bytes: &[u8], what: &str| -> Result<Vec<String>> {
        let texts = flagsplit_info::note::decode(bytes, big).with_context(|| what.to_string())?;
        Ok(texts.into_iter().map(str::to_string).collect())
    };
    let sections = header.sections(endian, data).map_err(|e| {
        anyhow::anyhow!(
            "its section headers cannot be read ({e}): the file is truncated or damaged"
        )
    })?;
    if !sections.is_empty() {
        for section in sections.iter() {
            let name = sections.section_name(endian, section).unwrap_or_default();
            if name == flagsplit_info::note::SECTION.as_bytes() {
                let what = flagsplit_info::note::SECTION;
                let bytes = read(
                    section.sh_offset(endian).into(),
                    section.sh_size(endian).into(),
                    what,
                )?;
                return Ok((decode(bytes, what)?, RecordPlace::Section));
            }
        }
        return Ok((Vec::new(), RecordPlace::Absent));
    }
    let mut found = Vec::new();
    for segment in header.program_headers(endian, data)? {
        if segment.p_type(endian) != elf::PT_NOTE {
            continue;
        }
        let bytes = read(
            segment.p_offset(endian).into(),
            segment.p_filesz(endian).into(),
            "a PT_NOTE segment",
        )?;
        // A segment holds every note section of the file (the toolchain's too): only the
        // flagsplit notes are kept.
        found.extend(decode(bytes, "a PT_NOTE segment")?);
    }
    let place = if found.is_empty() {
        RecordPlace::Absent
    } else {
        RecordPlace::Segment
    };
    Ok((found, place))
}

/// [`records_in`] and [`headers_in`] of the file at `path`, opened once: the ranges both read
/// (the file header, the section headers) are read once.
pub fn executable(path: &Path) -> Result<(Vec<String>, RecordPlace, Headers)> {
    let cache = open(path)?;
    let (records, place) = records_in(&cache)
        .with_context(|| format!("cannot read the build records of {}", path.display()))?;
    let headers = headers_in(&cache)
        .with_context(|| format!("cannot read the ELF headers of {}", path.display()))?;
    Ok((records, place, headers))
}

/// The symbols the ELF file at `path` defines (its `.symtab`; empty when it has none), each
/// with whether it is global (its binding is not `STB_LOCAL`).
pub fn defined_symbols(path: &Path) -> Result<Symbols> {
    let cache = open(path)?;
    defined_in(&cache, Which::Executable)
        .with_context(|| format!("cannot read the symbols of {}", path.display()))
}

/// As [`defined_symbols`], of any readable data.
pub fn defined_symbols_in<'d, R: ReadRef<'d>>(data: R) -> Result<Symbols> {
    defined_in(data, Which::Executable)
}

/// Which symbols a symbol table gives, and what the flag beside each says.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    /// Every defined symbol; the flag: it is global.
    Executable,
    /// The global defined symbols of an object of an archive; the flag: its visibility is not
    /// default (hidden, protected, internal), so that the link makes it local.
    ArchiveMember,
}

fn defined_in<'d, R: ReadRef<'d>>(data: R, which: Which) -> Result<Symbols> {
    match FileKind::parse(data)? {
        FileKind::Elf32 => defined_of::<elf::FileHeader32<object::Endianness>, R>(data, which),
        FileKind::Elf64 => defined_of::<elf::FileHeader64<object::Endianness>, R>(data, which),
        other => bail!("not an ELF file ({other:?})"),
    }
}

/// The defined symbols of `.symtab`. The symbol table and its string table are each read in one
/// piece (a name at a time would be a read each through a `ReadCache`).
fn defined_of<'d, H: FileHeader<Endian = object::Endianness>, R: ReadRef<'d>>(
    data: R,
    which: Which,
) -> Result<Symbols> {
    let header = H::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let mut out = Symbols::new();
    let Some(symtab) = sections
        .iter()
        .find(|s| s.sh_type(endian) == elf::SHT_SYMTAB)
    else {
        return Ok(out);
    };
    let strtab = sections.section(object::SectionIndex(symtab.sh_link(endian) as usize))?;
    let symbols: &[H::Sym] = symtab
        .data_as_array(endian, data)
        .map_err(|e| anyhow::anyhow!("the symbol table: {e}"))?;
    let strings: &[u8] = strtab
        .data(endian, data)
        .map_err(|e| anyhow::anyhow!("the symbol names: {e}"))?;
    for sym in symbols {
        let local = sym.st_bind() == elf::STB_LOCAL;
        if sym.st_shndx(endian) == elf::SHN_UNDEF || (which == Which::ArchiveMember && local) {
            continue;
        }
        let start = sym.st_name(endian) as usize;
        let Some(rest) = strings.get(start..) else {
            bail!("a symbol's name is outside the string table");
        };
        let name = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
        if name.is_empty() {
            continue;
        }
        let flag = match which {
            Which::Executable => !local,
            Which::ArchiveMember => sym.st_visibility() != elf::STV_DEFAULT,
        };
        out.insert(name.into(), flag);
    }
    Ok(out)
}

/// The global symbols the object files of the archive at `path` define, each with whether the
/// link makes it local (a visibility other than default). Each member's symbol table is read
/// where it lies; a member that is no ELF object (LLVM bitcode) is skipped, and an archive with
/// no ELF member gives its index's names, each taken as possibly local.
pub fn archive_symbols(path: &Path) -> Result<Symbols> {
    let cache = open(path)?;
    archive_symbols_in(&cache)
        .with_context(|| format!("cannot read the archive {}", path.display()))
}

fn archive_symbols_in(data: &ReadCache<File>) -> Result<Symbols> {
    let archive = ArchiveFile::parse(data)?;
    let mut out = Symbols::new();
    let mut objects = 0;
    for member in archive.members() {
        let member = member?;
        let (offset, size) = member.file_range();
        let range = data.range(offset, size);
        if !matches!(
            FileKind::parse(range),
            Ok(FileKind::Elf32 | FileKind::Elf64)
        ) {
            continue;
        }
        objects += 1;
        for (name, hidden) in defined_in(range, Which::ArchiveMember)? {
            // A name defined twice: the weaker claim (hidden) keeps it matchable.
            *out.entry(name).or_insert(hidden) |= hidden;
        }
    }
    if objects == 0
        && let Some(index) = archive.symbols()?
    {
        for symbol in index {
            out.insert(symbol?.name().into(), true);
        }
    }
    Ok(out)
}

/// How many of an archive's symbols an executable holds: each defined in the executable, global
/// there unless the archive's visibility made it local (a local symbol of the same name from
/// elsewhere is no evidence).
pub fn held(archive: &Symbols, exe: &Symbols) -> usize {
    archive
        .iter()
        .filter(|(name, hidden)| exe.get(*name).is_some_and(|global| **hidden || *global))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_binary_needs_libc_and_has_symbols() {
        let exe = std::env::current_exe().expect("current_exe");
        let h = headers(&exe).expect("an ELF test binary");
        let needed = h.needed.expect("a dynamic section");
        assert!(
            needed.iter().any(|n| n.starts_with("libc.so")),
            "{needed:?}"
        );
        assert!(h.has_symtab);
        let symbols = defined_symbols(&exe).unwrap();
        assert_eq!(
            symbols.get(&b"main"[..]),
            Some(&true),
            "{} symbols",
            symbols.len()
        );
    }

    #[test]
    fn not_elf() {
        assert!(headers_in(&b"#!/bin/sh\necho hi\n"[..]).is_err());
        assert!(headers(Path::new("/nonexistent/exe")).is_err());
    }

    /// An archive made here with the system's `ar` from an object of the system C compiler,
    /// once with its symbol index and once without (`ar qS`).
    #[test]
    fn archives_with_and_without_an_index() {
        let dir = std::env::temp_dir().join(format!("cargo-flagsplit-ar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.c"), "int flagsplit_probe_symbol(void) { return 1; }\n__attribute__((visibility(\"hidden\"))) int flagsplit_hidden(void) { return 3; }\nstatic int local(void) { return 2; }\nint (*keep)(void) = local;\n").unwrap();
        let run = |cmd: &mut std::process::Command| {
            cmd.current_dir(&dir).status().is_ok_and(|s| s.success())
        };
        if !run(std::process::Command::new("cc").args(["-c", "a.c", "-o", "a.o"])) {
            eprintln!("SKIPPED: no C compiler");
            return;
        }
        assert!(run(
            std::process::Command::new("ar").args(["rcs", "libx.a", "a.o"])
        ));
        assert!(run(
            std::process::Command::new("ar").args(["qS", "liby.a", "a.o"])
        ));
        for lib in ["libx.a", "liby.a"] {
            let symbols = archive_symbols(&dir.join(lib)).unwrap();
            let get = |n: &str| symbols.get(n.as_bytes()).copied();
            assert_eq!(
                get("flagsplit_probe_symbol"),
                Some(false),
                "{lib}: {symbols:?}"
            );
            assert_eq!(get("flagsplit_hidden"), Some(true), "{lib}: {symbols:?}");
            assert_eq!(get("local"), None, "{lib}: {symbols:?}");
        }
        // The executable's side: a global symbol matches; a local one of the same name matches
        // only a symbol the archive's visibility makes local.
        let archive = archive_symbols(&dir.join("libx.a")).unwrap();
        let exe = |entries: &[(&str, bool)]| -> Symbols {
            entries
                .iter()
                .map(|(n, g)| (n.as_bytes().into(), *g))
                .collect()
        };
        let locals = exe(&[
            ("flagsplit_probe_symbol", false),
            ("flagsplit_hidden", false),
        ]);
        assert_eq!(held(&archive, &locals), 1);
        let globals = exe(&[
            ("flagsplit_probe_symbol", true),
            ("flagsplit_hidden", false),
        ]);
        assert_eq!(held(&archive, &globals), 2);
        std::fs::write(dir.join("empty.a"), "!<arch>\n").unwrap();
        assert!(archive_symbols(&dir.join("empty.a")).unwrap().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
