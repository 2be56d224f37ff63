//! Configuration errors. Each one says what asked (variable, `FILE:LINE:COL`, feature), what is
//! wrong, and the exact fix. The first line is the headline; the following lines start with two
//! spaces.

use std::fmt;

use crate::knobs::{self, CONFIG_VAR};
use crate::model::{Facility, Feature, FeatureSet, Provider};

/// A position in the config file, 1-based, the column counted in characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePos {
    /// The path as `FLAGSPLIT_CONFIG` gave it.
    pub path: String,
    /// Line number.
    pub line: u32,
    /// Column number.
    pub column: u32,
}

impl fmt::Display for FilePos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.path, self.line, self.column)
    }
}

/// Who asked for a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requester {
    /// A `FLAGSPLIT_*_PROVIDER` variable.
    Env(&'static str),
    /// `provider = "..."` in the config file.
    File(FilePos),
}

/// One configuration error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// A `FLAGSPLIT_*` variable nobody reads (most likely a typo).
    UnknownVariable {
        /// The name as set.
        name: String,
    },
    /// A build-time variable set to the empty string.
    EmptyVariable {
        /// The variable.
        name: &'static str,
    },
    /// A `FLAGSPLIT_*` variable whose value is not UTF-8.
    NotUnicode {
        /// The variable.
        name: String,
    },
    /// `FLAGSPLIT_CONFIG` names a file that cannot be read.
    FileUnreadable {
        /// The value of `FLAGSPLIT_CONFIG`.
        named: String,
        /// The path tried (made absolute against the package root).
        resolved: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The file is not valid TOML.
    Syntax {
        /// Where.
        at: FilePos,
        /// The parser's message.
        message: String,
    },
    /// A top-level table that is not a facility.
    UnknownTable {
        /// Where the name is.
        at: FilePos,
        /// The name.
        name: String,
    },
    /// A facility name bound to something other than a table (`sha1 = "dc"`).
    NotATable {
        /// Where the value is.
        at: FilePos,
        /// The facility.
        facility: Facility,
        /// The TOML type found.
        found: &'static str,
        /// The provider to suggest in the fix (the value written, when it is a valid one).
        suggestion: Provider,
    },
    /// A key other than `provider` inside a facility table.
    UnknownKey {
        /// Where the key is.
        at: FilePos,
        /// The table.
        facility: Facility,
        /// The key.
        key: String,
    },
    /// A facility table without `provider`.
    MissingProvider {
        /// Where the table is.
        at: FilePos,
        /// The table.
        facility: Facility,
    },
    /// `provider` bound to something other than a string.
    WrongType {
        /// Where the value is.
        at: FilePos,
        /// The table.
        facility: Facility,
        /// The TOML type found.
        found: &'static str,
    },
    /// A provider name this facility does not have.
    UnknownProvider {
        /// Who asked.
        by: Requester,
        /// The facility.
        facility: Facility,
        /// The value given.
        value: String,
    },
    /// A provider whose Cargo feature is off.
    FeatureOff {
        /// Who asked.
        by: Requester,
        /// The facility.
        facility: Facility,
        /// The provider asked for.
        provider: Provider,
        /// The feature that would compile it.
        feature: Feature,
        /// The features that are on.
        features: FeatureSet,
    },
}

fn list(providers: &[Provider], quoted: bool) -> String {
    providers
        .iter()
        .map(|p| {
            if quoted {
                format!("\"{p}\"")
            } else {
                p.name().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn build_variable_names() -> String {
    knobs::build_variables()
        .map(|v| v.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownVariable { name } => {
                writeln!(
                    f,
                    "unknown variable {name} in the build environment (the shell or .cargo/config.toml [env])"
                )?;
                writeln!(f, "  valid build-time names: {}", build_variable_names())?;
                if let Some(near) = knobs::suggest(name) {
                    writeln!(f, "  did you mean {near}?")?;
                }
                write!(f, "  fix: rename or unset {name}")
            }
            ConfigError::EmptyVariable { name } => {
                writeln!(f, "{name} is set but empty")?;
                match facility_of_var(name) {
                    Some(facility) => write!(
                        f,
                        "  fix: unset it, or set one of: {}",
                        list(facility.providers(), false)
                    ),
                    None => write!(f, "  fix: unset it, or name a config file"),
                }
            }
            ConfigError::NotUnicode { name } => {
                writeln!(f, "{name} is not valid UTF-8")?;
                write!(
                    f,
                    "  fix: set it to one of the documented values, or unset it"
                )
            }
            ConfigError::FileUnreadable {
                named,
                resolved,
                reason,
            } => {
                writeln!(
                    f,
                    "{CONFIG_VAR}={named} names a config file that cannot be read: {resolved}: {reason}"
                )?;
                write!(
                    f,
                    "  fix: create the file (its format is documented in config.example.toml) or unset {CONFIG_VAR}; a relative path resolves against the package root"
                )
            }
            ConfigError::Syntax { at, message } => {
                writeln!(f, "{at}: invalid TOML: {message}")?;
                write!(
                    f,
                    "  fix: correct the syntax; config.example.toml shows the format"
                )
            }
            ConfigError::UnknownTable { at, name } => {
                writeln!(f, "{at}: unknown table [{name}]")?;
                writeln!(f, "  valid tables: {}", table_names())?;
                write!(f, "  fix: rename or remove [{name}]")
            }
            ConfigError::NotATable {
                at,
                facility,
                found,
                suggestion,
            } => {
                writeln!(f, "{at}: `{facility}` must be a table, found {found}")?;
                write!(
                    f,
                    "  fix: write it as\n    [{facility}]\n    provider = \"{suggestion}\""
                )
            }
            ConfigError::UnknownKey { at, facility, key } => {
                writeln!(f, "{at}: unknown key `{key}` in [{facility}]")?;
                writeln!(f, "  valid keys: provider")?;
                write!(f, "  fix: rename or remove `{key}`")
            }
            ConfigError::MissingProvider { at, facility } => {
                writeln!(f, "{at}: [{facility}] has no `provider` key")?;
                write!(
                    f,
                    "  fix: add provider = one of {}, or remove the table",
                    list(facility.providers(), true)
                )
            }
            ConfigError::WrongType {
                at,
                facility,
                found,
            } => {
                writeln!(
                    f,
                    "{at}: [{facility}] provider must be a string, found {found}"
                )?;
                write!(f, "  valid values: {}", list(facility.providers(), true))
            }
            ConfigError::UnknownProvider {
                by,
                facility,
                value,
            } => {
                match by {
                    Requester::Env(var) => writeln!(
                        f,
                        "{var}={value}: `{value}` is not a provider of {facility}"
                    )?,
                    Requester::File(at) => writeln!(
                        f,
                        "{at}: [{facility}] provider = \"{value}\": `{value}` is not a provider of {facility}"
                    )?,
                }
                let quoted = matches!(by, Requester::File(_));
                write!(f, "  valid values: {}", list(facility.providers(), quoted))
            }
            ConfigError::FeatureOff {
                by,
                facility,
                provider,
                feature,
                features,
            } => {
                let asked = match by {
                    Requester::Env(var) => format!("{var}={provider}"),
                    Requester::File(at) => format!("{at}: [{facility}] provider = \"{provider}\""),
                };
                writeln!(
                    f,
                    "{asked} selects the {provider} {facility} provider, which this build does not compile: Cargo feature `{feature}` is off (features on: {features})"
                )?;
                let available: Vec<Provider> = facility
                    .providers()
                    .iter()
                    .copied()
                    .filter(|p| facility.is_available(*p, *features))
                    .collect();
                let undo = match by {
                    Requester::Env(var) => format!("unset {var}"),
                    Requester::File(at) => format!("change {}", at.path),
                };
                write!(
                    f,
                    "  fix: build with `--features {feature}`, or {undo} to select a compiled provider ({})",
                    list(&available, false)
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

fn facility_of_var(name: &str) -> Option<Facility> {
    Facility::ALL.into_iter().find(|f| f.env_var() == name)
}

fn table_names() -> String {
    Facility::ALL
        .iter()
        .map(|f| format!("[{f}]"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every error found in one pass (a build reports them all, not just the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Errors(pub Vec<ConfigError>);

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}
