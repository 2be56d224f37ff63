//! `DT_NEEDED` entries of an ELF executable.

use anyhow::{Context, Result, bail};
use object::read::elf::{Dyn, FileHeader};
use object::{FileKind, elf};
use std::path::Path;

/// The `NEEDED` entries of the ELF file at `path`, in file order (empty for a static executable).
pub fn needed(path: &Path) -> Result<Vec<String>> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    needed_in(&data).with_context(|| format!("cannot read the ELF headers of {}", path.display()))
}

/// The `NEEDED` entries of an ELF image.
pub fn needed_in(data: &[u8]) -> Result<Vec<String>> {
    match FileKind::parse(data)? {
        FileKind::Elf32 => needed_of::<elf::FileHeader32<object::Endianness>>(data),
        FileKind::Elf64 => needed_of::<elf::FileHeader64<object::Endianness>>(data),
        other => bail!("not an ELF file ({other:?})"),
    }
}

fn needed_of<H: FileHeader<Endian = object::Endianness>>(data: &[u8]) -> Result<Vec<String>> {
    let header = H::parse(data)?;
    let endian = header.endian()?;
    let sections = header.sections(endian, data)?;
    let Some((entries, strings_index)) = sections.dynamic(endian, data)? else {
        return Ok(Vec::new());
    };
    let strings = sections.strings(endian, data, strings_index)?;
    let mut out = Vec::new();
    for entry in entries {
        match entry.tag32(endian) {
            Some(elf::DT_NULL) => break,
            Some(elf::DT_NEEDED) => {
                let name = entry.string(endian, strings)?;
                out.push(String::from_utf8_lossy(name).into_owned());
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_test_binary_needs_libc() {
        let exe = std::env::current_exe().expect("current_exe");
        let needed = needed(&exe).expect("an ELF test binary");
        assert!(
            needed.iter().any(|n| n.starts_with("libc.so")),
            "{needed:?}"
        );
    }

    #[test]
    fn not_elf() {
        assert!(needed_in(b"#!/bin/sh\necho hi\n").is_err());
    }
}
