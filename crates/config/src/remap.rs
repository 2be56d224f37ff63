//! rustc's `--remap-path-prefix`, applied to the paths the build script writes into the binary as
//! data (the build-options table), so that they follow the same mapping as the paths rustc itself
//! embeds (panic locations, debug information).
//!
//! Without it, a `FLAGSPLIT_CONFIG` made absolute (`[env] FLAGSPLIT_CONFIG = { value = "...",
//! relative = true }` does that) or an `OPENSSL_DIR` inside the build tree would appear verbatim in
//! `version --build-options`, and two builds of the same source in different directories would
//! differ although both pass the `--remap-path-prefix` flags book/src/packaging.md documents.
//!
//! Pure: the caller passes the value of `CARGO_ENCODED_RUSTFLAGS` (which Cargo gives every build
//! script: the flags, `RUSTFLAGS` or `build.rustflags`, separated by `\x1f`).

use std::path::Path;

use crate::clib::LibraryFound;
use crate::model::{Choice, Origin, Selection};

/// The `--remap-path-prefix FROM=TO` mappings of one compiler command line, in command-line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PathRemap {
    mappings: Vec<(String, String)>,
}

impl PathRemap {
    /// The mappings in `CARGO_ENCODED_RUSTFLAGS` (flags separated by `\x1f`), in both spellings
    /// rustc accepts: `--remap-path-prefix=FROM=TO` and `--remap-path-prefix` `FROM=TO`.
    pub(crate) fn from_encoded_rustflags(flags: &str) -> PathRemap {
        let mut mappings = Vec::new();
        let mut args = flags.split('\x1f').filter(|a| !a.is_empty());
        while let Some(arg) = args.next() {
            let value = match arg.strip_prefix("--remap-path-prefix") {
                Some("") => args.next(),
                Some(rest) => rest.strip_prefix('='),
                None => None,
            };
            // As rustc: FROM may contain `=`, TO may not.
            if let Some((from, to)) = value.and_then(|v| v.rsplit_once('=')) {
                mappings.push((from.to_string(), to.to_string()));
            }
        }
        PathRemap { mappings }
    }

    /// Whether there is no mapping.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.mappings.is_empty()
    }

    /// `path` as rustc would show it: the last mapping whose FROM is a prefix of `path`, compared
    /// component by component (`/src/a` covers `/src/a/b`, not `/src/ab`), replaces it.
    pub(crate) fn path(&self, path: &str) -> String {
        for (from, to) in self.mappings.iter().rev() {
            if let Ok(rest) = Path::new(path).strip_prefix(from) {
                return if rest.as_os_str().is_empty() {
                    to.clone()
                } else {
                    Path::new(to).join(rest).display().to_string()
                };
            }
        }
        path.to_string()
    }

    /// The selection with the config file paths of its origins remapped.
    pub(crate) fn selection(&self, selection: &Selection) -> Selection {
        let mut choices = Vec::with_capacity(selection.choices.len());
        for choice in &selection.choices {
            let choice = choice.clone();
            choices.push(Choice {
                origin: match choice.origin {
                    Origin::File { path, line, column } => Origin::File {
                        path: self.path(&path),
                        line,
                        column,
                    },
                    Origin::GraphFile { path, line, column } => Origin::GraphFile {
                        path: self.path(&path),
                        line,
                        column,
                    },
                    other => other,
                },
                ..choice
            });
        }
        Selection {
            spec: selection.spec,
            choices,
            link: selection.link.clone().map(|p| self.policy(p)),
            bundled: selection.bundled.clone().map(|p| self.policy(p)),
            ..selection.clone()
        }
    }

    /// A graph-wide policy with the path of a file origin remapped.
    fn policy(&self, mut policy: crate::PolicyChoice) -> crate::PolicyChoice {
        if let Origin::GraphFile { path, .. } = &mut policy.origin {
            *path = self.path(path);
        }
        policy
    }

    /// A probed library's description with its directories remapped: the library directories
    /// and a path in how it was located (`OPENSSL_DIR=/path`, `/path`).
    pub(crate) fn library(&self, found: &LibraryFound) -> LibraryFound {
        let located_by = match found.located_by.split_once('=') {
            Some((name, dir)) if dir.starts_with('/') => format!("{name}={}", self.path(dir)),
            _ if found.located_by.starts_with('/') => self.path(&found.located_by),
            _ => found.located_by.clone(),
        };
        let mut lib_dirs = Vec::with_capacity(found.lib_dirs.len());
        for d in &found.lib_dirs {
            lib_dirs.push(self.path(d));
        }
        LibraryFound {
            located_by,
            lib_dirs,
            ..found.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FeatureSet;
    use crate::test_tables::DEMO;

    fn remap(flags: &[&str]) -> PathRemap {
        PathRemap::from_encoded_rustflags(&flags.join("\x1f"))
    }

    #[test]
    fn parses_both_spellings_and_ignores_other_flags() {
        let r = remap(&[
            "-C",
            "target-cpu=native",
            "--remap-path-prefix=/home/me/.cargo=/cargo-home",
            "--remap-path-prefix",
            "/build/a=b=/src",
            "--cfg=x",
        ]);
        assert_eq!(
            r.mappings,
            [
                ("/home/me/.cargo".to_string(), "/cargo-home".to_string()),
                ("/build/a=b".to_string(), "/src".to_string()),
            ]
        );
        assert!(PathRemap::from_encoded_rustflags("").is_empty());
        assert!(remap(&["-Copt-level=3", "--remap-path-prefix"]).is_empty());
        assert!(remap(&["--remap-path-prefix=no-equals-sign"]).is_empty());
    }

    #[test]
    fn the_last_matching_mapping_wins_component_by_component() {
        let r = remap(&[
            "--remap-path-prefix=/home/me=/home",
            "--remap-path-prefix=/home/me/src/flagsplit=/build/flagsplit",
        ]);
        assert_eq!(
            r.path("/home/me/src/flagsplit/packaging/f.toml"),
            "/build/flagsplit/packaging/f.toml"
        );
        assert_eq!(r.path("/home/me/src/flagsplit"), "/build/flagsplit");
        assert_eq!(
            r.path("/home/me/src/flagsplit-2/f.toml"),
            "/home/src/flagsplit-2/f.toml"
        );
        assert_eq!(r.path("/home/meta/f.toml"), "/home/meta/f.toml");
        assert_eq!(r.path("relative/f.toml"), "relative/f.toml");
        // Order matters: a broader mapping given last shadows the specific one, as in rustc.
        let r = remap(&[
            "--remap-path-prefix=/home/me/src/flagsplit=/build/flagsplit",
            "--remap-path-prefix=/home/me=/home",
        ]);
        assert_eq!(
            r.path("/home/me/src/flagsplit/f.toml"),
            "/home/src/flagsplit/f.toml"
        );
    }

    #[test]
    fn remaps_config_file_origins_only() {
        let r = remap(&["--remap-path-prefix=/tmp/x/tree=/build/flagsplit"]);
        let mut selection = Selection::new(
            &DEMO,
            DEMO.facilities
                .iter()
                .map(|f| f.default_choice(DEMO.role, &FeatureSet::EMPTY))
                .collect(),
        );
        selection.choices[0].origin = Origin::File {
            path: "/tmp/x/tree/packaging/flagsplit.toml".into(),
            line: 2,
            column: 12,
        };
        selection.choices[1].origin = Origin::Env("DEMO_HASH_FAST_PROVIDER".into());
        let shown = r.selection(&selection);
        assert_eq!(
            shown.choices[0].origin.to_string(),
            "/build/flagsplit/packaging/flagsplit.toml:2:12"
        );
        assert_eq!(shown.choices[1].origin, selection.choices[1].origin);
        assert_eq!(shown.choices[2..], selection.choices[2..]);
        assert_eq!(PathRemap::default().selection(&selection), selection);
    }

    #[test]
    fn remaps_library_directories() {
        let r = remap(&["--remap-path-prefix=/tmp/x/tree=/build/flagsplit"]);
        let found = LibraryFound {
            library: "OpenSSL",
            version: Some("OpenSSL 3.0.19".into()),
            located_by: "OPENSSL_DIR=/tmp/x/tree/openssl".into(),
            lib_dirs: vec!["/tmp/x/tree/openssl/lib64".into(), "/usr/lib".into()],
            static_link: true,
            ..LibraryFound::default()
        };
        let shown = r.library(&found);
        assert_eq!(shown.located_by, "OPENSSL_DIR=/build/flagsplit/openssl");
        assert_eq!(
            shown.lib_dirs,
            ["/build/flagsplit/openssl/lib64", "/usr/lib"]
        );
        assert_eq!(
            (shown.version.as_deref(), shown.static_link),
            (Some("OpenSSL 3.0.19"), true)
        );
        let pkg = LibraryFound {
            located_by: "pkg-config".into(),
            ..found
        };
        assert_eq!(r.library(&pkg).located_by, "pkg-config");
    }
}
