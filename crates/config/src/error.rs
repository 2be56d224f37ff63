//! Configuration errors. Each one says what asked (variable, `FILE:LINE:COL`, feature), what is
//! wrong, and the exact fix. The first line is the headline; the following lines start with two
//! spaces.

use std::fmt;

pub use crate::model::FilePos;
use crate::model::{Facility, FeatureSet, Provider, Role, Spec, names};

/// Who asked for a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Requester {
    /// A `<PREFIX>_*_PROVIDER` variable.
    Env(String),
    /// `provider = "..."` in a config file.
    File(FilePos),
}

/// One configuration error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// A `<PREFIX>_*` variable nobody reads (most likely a typo).
    UnknownVariable {
        /// The name as set.
        name: String,
        /// The valid build-time names.
        valid: Vec<String>,
        /// The closest valid name, when it is close enough to be a likely typo.
        suggestion: Option<String>,
    },
    /// A build-time variable set to the empty string.
    EmptyVariable {
        /// The variable.
        name: String,
        /// The facility it selects for (`None` for the config-file variable).
        facility: Option<&'static Facility>,
    },
    /// A `<PREFIX>_*` variable whose value is not UTF-8.
    NotUnicode {
        /// The variable.
        name: String,
    },
    /// The config file cannot be read.
    FileUnreadable {
        /// Who named it: `FLAGSPLIT_CONFIG=myconf.toml`, or `config.toml`.
        named: String,
        /// The path tried.
        resolved: String,
        /// The operating system's reason.
        reason: String,
        /// How to fix it.
        fix: String,
    },
    /// A config file is named, but this build reads none (feature `config-file` is off).
    NoFileReader {
        /// Who named it: `DEMO_CONFIG=demo.toml`, or `config.toml`.
        named: String,
        /// The crate whose build script reads its configuration.
        crate_name: &'static str,
        /// Its variable prefix, for the fix.
        prefix: &'static str,
    },
    /// The file is not valid TOML.
    Syntax {
        /// Where.
        at: FilePos,
        /// The parser's message.
        message: String,
        /// Where the format is documented ([`Spec::format_hint`]).
        format: String,
    },
    /// A top-level table that is not a facility.
    UnknownTable {
        /// Where the name is.
        at: FilePos,
        /// The name.
        name: String,
        /// The valid tables.
        valid: String,
    },
    /// A facility name bound to something other than a table (`sha1 = "dc"`).
    NotATable {
        /// Where the value is.
        at: FilePos,
        /// The facility.
        facility: &'static Facility,
        /// The TOML type found.
        found: &'static str,
        /// The provider to suggest in the fix (the value written, when it is a valid one).
        suggestion: &'static str,
    },
    /// A key other than `provider` inside a facility table.
    UnknownKey {
        /// Where the key is.
        at: FilePos,
        /// The table.
        facility: &'static Facility,
        /// The key.
        key: String,
    },
    /// A facility table without `provider`.
    MissingProvider {
        /// Where the table is.
        at: FilePos,
        /// The table.
        facility: &'static Facility,
    },
    /// `provider` bound to something other than a string.
    WrongType {
        /// Where the value is.
        at: FilePos,
        /// The table.
        facility: &'static Facility,
        /// The TOML type found.
        found: &'static str,
    },
    /// A provider name this facility does not have.
    UnknownProvider {
        /// Who asked.
        by: Requester,
        /// The facility.
        facility: &'static Facility,
        /// The value given.
        value: String,
    },
    /// A provider whose Cargo feature is off.
    FeatureOff {
        /// Who asked.
        by: Requester,
        /// The facility.
        facility: &'static Facility,
        /// The provider asked for.
        provider: &'static Provider,
        /// The feature that would compile it.
        feature: &'static str,
        /// The features that are on, as text (`(none)` for none).
        features: String,
        /// The providers this build compiles.
        available: String,
        /// The crate, when it is a [`crate::Role::Library`]: the feature is then turned on where
        /// the application depends on it, not with `--features`.
        library: Option<&'static str>,
    },
}

impl ConfigError {
    /// A [`ConfigError::FeatureOff`] with its lists filled in.
    pub fn feature_off(
        spec: &Spec,
        by: Requester,
        facility: &'static Facility,
        provider: &'static Provider,
        features: &FeatureSet,
    ) -> ConfigError {
        ConfigError::FeatureOff {
            by,
            facility,
            provider,
            feature: provider.feature.unwrap_or_default(),
            features: features.describe(spec),
            available: names(
                facility
                    .providers
                    .iter()
                    .filter(|p| p.is_available(features)),
                false,
            ),
            library: (spec.role == Role::Library).then_some(spec.name),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownVariable {
                name,
                valid,
                suggestion,
            } => {
                writeln!(
                    f,
                    "unknown variable {name} in the build environment (the shell or .cargo/config.toml [env])"
                )?;
                writeln!(f, "  valid build-time names: {}", valid.join(", "))?;
                if let Some(near) = suggestion {
                    writeln!(f, "  did you mean {near}?")?;
                }
                write!(f, "  fix: rename or unset {name}")
            }
            ConfigError::EmptyVariable { name, facility } => {
                writeln!(f, "{name} is set but empty")?;
                match facility {
                    Some(facility) => write!(
                        f,
                        "  fix: unset it, or set one of: {}",
                        facility.provider_list(false)
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
                fix,
            } => {
                writeln!(
                    f,
                    "{named} names a config file that cannot be read: {resolved}: {reason}"
                )?;
                write!(f, "  fix: {fix}")
            }
            ConfigError::NoFileReader {
                named,
                crate_name,
                prefix,
            } => {
                writeln!(
                    f,
                    "{named} names a config file, but this build of {crate_name} reads none (its configuration crate is built without the feature `config-file`)"
                )?;
                write!(
                    f,
                    "  fix: select with the {prefix}_<FACILITY>_PROVIDER variables instead"
                )
            }
            ConfigError::Syntax {
                at,
                message,
                format,
            } => {
                writeln!(f, "{at}: invalid TOML: {message}")?;
                write!(f, "  fix: correct the syntax; {format}")
            }
            ConfigError::UnknownTable { at, name, valid } => {
                writeln!(f, "{at}: unknown table [{name}]")?;
                writeln!(f, "  valid tables: {valid}")?;
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
                    facility.provider_list(true)
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
                write!(f, "  valid values: {}", facility.provider_list(true))
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
                write!(f, "  valid values: {}", facility.provider_list(quoted))?;
                if let Some(near) =
                    crate::model::closest(value, facility.providers.iter().map(|p| p.name))
                {
                    let near = if quoted {
                        format!("\"{near}\"")
                    } else {
                        near.to_string()
                    };
                    write!(f, "\n  did you mean {near}?")?;
                }
                Ok(())
            }
            ConfigError::FeatureOff {
                by,
                facility,
                provider,
                feature,
                features,
                available,
                library,
            } => {
                let asked = match by {
                    Requester::Env(var) => format!("{var}={provider}"),
                    Requester::File(at) => format!("{at}: [{facility}] provider = \"{provider}\""),
                };
                writeln!(
                    f,
                    "{asked} selects the {provider} {facility} provider, which this build does not compile: Cargo feature `{feature}` is off (features on: {features})"
                )?;
                let undo = match by {
                    Requester::Env(var) => format!("unset {var}"),
                    Requester::File(at) => format!("change {}", at.path),
                };
                match library {
                    None => write!(
                        f,
                        "  fix: build with `--features {feature}`, or {undo} to select a compiled provider ({available})"
                    ),
                    Some(name) => write!(
                        f,
                        "  fix: turn the feature on where the application depends on {name}: {name} = {{ version = \"...\", features = [\"{feature}\"] }} (`--features {feature}` when {name} itself is built), or {undo} to select a compiled provider ({available})"
                    ),
                }
            }
        }
    }
}

impl std::error::Error for ConfigError {}

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
