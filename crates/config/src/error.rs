//! Configuration errors. Each one says what asked (variable, `FILE:LINE:COL`, feature), what is
//! wrong, and the exact fix. The first line is the headline; the following lines start with two
//! spaces.

use std::fmt;

use crate::model::FilePos;
use crate::model::{Facility, FeatureSet, Provider, Role, Spec, names};

/// Who asked for a provider.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Requester {
    /// A `<PREFIX>_*_PROVIDER` variable.
    Env(String),
    /// `provider = "..."` in a config file.
    File(FilePos),
    /// A graph-wide variable (`RUST_BACKEND_TLS`, or its target-scoped form).
    Graph(String),
    /// An entry of the graph-wide config file.
    GraphFile(FilePos),
}

impl Requester {
    /// How the request reads: `VAR=value`, `FILE:LINE:COL: [facility] provider = "value"`,
    /// `FILE:LINE:COL: key = "value"` for the graph-wide file.
    pub(crate) fn asked(&self, facility: &Facility, key: &str, value: &str) -> String {
        match self {
            Requester::Env(var) | Requester::Graph(var) => format!("{var}={value}"),
            Requester::File(at) => format!("{at}: [{facility}] provider = \"{value}\""),
            Requester::GraphFile(at) => format!("{at}: {key} = \"{value}\""),
        }
    }

    /// What undoes the request: `unset VAR`, `change FILE`.
    pub(crate) fn undo(&self) -> String {
        match self {
            Requester::Env(var) | Requester::Graph(var) => format!("unset {var}"),
            Requester::File(at) | Requester::GraphFile(at) => format!("change {}", at.path),
        }
    }

    fn is_graph(&self) -> bool {
        matches!(self, Requester::Graph(_) | Requester::GraphFile(_))
    }
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
    /// A mistake in the table a package declares in its `Cargo.toml`
    /// (`[package.metadata.flagsplit]`): an unknown key, a wrong type, a missing one.
    Metadata {
        /// Where it is.
        at: FilePos,
        /// What is wrong.
        problem: String,
        /// What to write instead.
        fix: String,
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
    /// A graph-wide setting for a kind that one of this crate's facilities has, naming a shared
    /// provider that none of its providers answers to.
    GraphUnmet {
        /// Who asked.
        by: Requester,
        /// The facility of that kind.
        facility: &'static Facility,
        /// The shared provider name asked for.
        shared: String,
        /// The crate.
        crate_name: &'static str,
        /// The crate's own variable for the facility, which wins over the graph-wide setting.
        variable: String,
    },
    /// A graph-wide name close to one a table reads, seen by `check_environment` (a build
    /// script only warns: the name may be another crate's kind).
    UnknownGraphVariable {
        /// The name as set.
        name: String,
        /// The well-known names.
        valid: Vec<String>,
        /// The name meant.
        suggestion: Option<String>,
    },
    /// A graph-wide setting with a value it does not take.
    BadGraphValue {
        /// Who set it.
        by: Requester,
        /// The setting's name (its variable, or its file key).
        name: String,
        /// The value.
        value: String,
        /// The values it takes (for a kind, those this crate's providers answer to, and the
        /// well-known shared names of a well-known kind).
        valid: Vec<&'static str>,
    },
    /// A `[target.<...>]` table whose name is neither a triple nor a valid `cfg(...)`.
    BadScope {
        /// Where the name is.
        at: FilePos,
        /// The name.
        text: String,
        /// Why.
        reason: String,
    },
    /// Two `[target.'cfg(...)']` tables that both hold for this target give different values.
    ScopeConflict {
        /// The facility table or graph-wide key.
        what: String,
        /// The first value and where it is.
        first: (String, FilePos),
        /// The second.
        second: (String, FilePos),
        /// The target.
        target: String,
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
        /// The crate's own variable for the facility (for a graph-wide request, it selects for
        /// this crate alone).
        variable: String,
        /// The crate.
        crate_name: &'static str,
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
            variable: spec.env_var(facility),
            crate_name: spec.name,
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
                if *prefix == crate::graph::PREFIX {
                    write!(f, "  fix: use the {prefix}_<KIND> variables instead")
                } else {
                    write!(
                        f,
                        "  fix: select with the {prefix}_<FACILITY>_PROVIDER variables instead"
                    )
                }
            }
            ConfigError::Syntax {
                at,
                message,
                format,
            } => {
                writeln!(f, "{at}: invalid TOML: {message}")?;
                write!(f, "  fix: correct the syntax; {format}")
            }
            ConfigError::Metadata { at, problem, fix } => {
                writeln!(f, "{at}: {problem}")?;
                write!(f, "  fix: {fix}")
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
                writeln!(
                    f,
                    "{}: `{value}` is not a provider of {facility}",
                    by.asked(facility, facility.name, value)
                )?;
                let quoted = matches!(by, Requester::File(_) | Requester::GraphFile(_));
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
            ConfigError::GraphUnmet {
                by,
                facility,
                shared,
                crate_name,
                variable,
            } => {
                let kind = facility.kind.unwrap_or_default();
                writeln!(
                    f,
                    "{} selects {shared} for every {kind} facility in the build, but {crate_name}'s {facility} has no provider that answers to {shared}",
                    by.asked(facility, kind, shared)
                )?;
                let answering: Vec<String> = facility
                    .providers
                    .iter()
                    .map(|p| match p.answers_to {
                        Some(a) if a != p.name => format!("{} ({a})", p.name),
                        _ => p.name.to_string(),
                    })
                    .collect();
                writeln!(f, "  its providers: {}", answering.join(", "))?;
                write!(
                    f,
                    "  fix: select one of them for {crate_name} alone with {variable}=<provider> (its own variable wins over the graph-wide setting), or {}",
                    by.undo()
                )
            }
            ConfigError::UnknownGraphVariable {
                name,
                valid,
                suggestion,
            } => {
                writeln!(
                    f,
                    "graph-wide variable {name} in the build environment (the shell or .cargo/config.toml [env]) is close to one a crate reads, but no setting of it"
                )?;
                writeln!(
                    f,
                    "  well-known names: {} (all but {} also as <TARGET>_{}_...); a crate's own kind is RUST_BACKEND_<KIND> too",
                    valid.join(", "),
                    crate::graph::CONFIG,
                    crate::graph::PREFIX
                )?;
                if let Some(near) = suggestion {
                    writeln!(f, "  did you mean {near}?")?;
                }
                write!(f, "  fix: rename or unset {name}")
            }
            ConfigError::BadGraphValue {
                by,
                name,
                value,
                valid,
            } => {
                match by {
                    Requester::GraphFile(at) => writeln!(
                        f,
                        "{at}: {name} = \"{value}\": `{value}` is not a value of {name}"
                    )?,
                    _ => writeln!(f, "{name}={value}: `{value}` is not a value of {name}")?,
                }
                write!(f, "  valid values: {}", valid.join(", "))?;
                if let Some(near) = crate::model::closest(value, valid.iter().copied()) {
                    write!(f, "\n  did you mean {near}?")?;
                }
                Ok(())
            }
            ConfigError::BadScope { at, text, reason } => {
                writeln!(f, "{at}: [target.'{text}'] names no target: {reason}")?;
                write!(
                    f,
                    "  fix: name the table by a triple ([target.x86_64-unknown-linux-gnu]) or a cfg expression ([target.'cfg(target_os = \"linux\")'])"
                )
            }
            ConfigError::ScopeConflict {
                what,
                first,
                second,
                target,
            } => {
                writeln!(
                    f,
                    "{}: {what} = \"{}\" and {}: {what} = \"{}\" both apply to {target} (two [target.'cfg(...)'] tables hold)",
                    first.1, first.0, second.1, second.0
                )?;
                write!(
                    f,
                    "  fix: make the expressions exclusive, or name the triple itself ([target.{target}] wins over cfg tables)"
                )
            }
            ConfigError::FeatureOff {
                by,
                facility,
                provider,
                feature,
                features,
                available,
                library,
                variable,
                crate_name,
            } => {
                let key = facility.kind.unwrap_or(facility.name);
                let asked = by.asked(
                    facility,
                    key,
                    provider
                        .answers_to
                        .filter(|_| by.is_graph())
                        .unwrap_or(provider.name),
                );
                writeln!(
                    f,
                    "{asked} selects the {provider} {facility} provider{}, which this build does not compile: Cargo feature `{feature}` is off (features on: {features})",
                    library
                        .filter(|_| by.is_graph())
                        .map_or(String::new(), |name| format!(" of {name}"))
                )?;
                let undo = if by.is_graph() {
                    format!(
                        "set {variable}=<one of: {available}> for {crate_name} alone (its own variable wins over the graph-wide setting), or {}",
                        by.undo()
                    )
                } else {
                    format!("{} to select a compiled provider ({available})", by.undo())
                };
                match library {
                    None => write!(f, "  fix: build with `--features {feature}`, or {undo}"),
                    Some(name) => write!(
                        f,
                        "  fix: turn the feature on where the application depends on {name}: {name} = {{ version = \"...\", features = [\"{feature}\"] }} (`--features {feature}` when {name} itself is built), or {undo}"
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
