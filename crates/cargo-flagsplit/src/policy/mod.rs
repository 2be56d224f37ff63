//! The policy file: `[[deny]]`, `[[require]]` and `[[libraries]]` rules. [`parse`] reads one with
//! the place of every value, [`eval`] checks it against a build's [`Report`](crate::model::Report)
//! (what breaks it, and every name it gives that matches nothing), [`render`] turns each finding
//! into a diagnostic.

pub mod eval;
pub mod parse;
pub mod render;

use crate::model::{Facility, LinkMode, Provider};
use crate::source::Span;
use std::fmt;

/// A value of the policy and where it is (a string's span includes its quotes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field<T> {
    pub value: T,
    pub span: Span,
}

/// What a `[[deny]]` or `[[require]]` rule names: a provider name, a shared name, or a property
/// a provider declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Provider(String),
    Shared(String),
    Property(String),
}

impl Choice {
    /// Whether the facility's selected provider is this choice.
    pub fn selected_by(&self, facility: &Facility) -> bool {
        match self {
            Choice::Provider(p) => facility.selected == *p,
            _ => facility.selected_provider().is_some_and(|p| self.is(p)),
        }
    }

    /// Whether `provider` is this choice.
    pub fn is(&self, provider: &Provider) -> bool {
        match self {
            Choice::Provider(n) => provider.name == *n,
            Choice::Shared(s) => provider.answers_to.as_deref() == Some(s.as_str()),
            Choice::Property(p) => provider.properties.iter().any(|x| x == p),
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Provider(p) => write!(f, "provider = {p:?}"),
            Choice::Shared(s) => write!(f, "shared = {s:?}"),
            Choice::Property(p) => write!(f, "property = {p:?}"),
        }
    }
}

/// Whether a rule denies or requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Deny,
    Require,
}

impl Which {
    pub fn table(self) -> &'static str {
        match self {
            Which::Deny => "deny",
            Which::Require => "require",
        }
    }
}

/// A `[[deny]]` or `[[require]]` rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectionRule {
    pub which: Which,
    /// The whole table.
    pub table: Span,
    pub choice: Field<Choice>,
    pub kind: Option<Field<String>>,
    pub krate: Option<Field<String>>,
    pub reason: Option<String>,
}

impl SelectionRule {
    /// The rule as written, for messages: `shared = "openssl", kind = "tls"`.
    pub fn describe(&self) -> String {
        let mut s = self.choice.value.to_string();
        if let Some(k) = &self.kind {
            s.push_str(&format!(", kind = {:?}", k.value));
        }
        if let Some(c) = &self.krate {
            s.push_str(&format!(", crate = {:?}", c.value));
        }
        s
    }
}

/// A `[[libraries]]` rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryRule {
    pub table: Span,
    pub library: Field<String>,
    /// The executables allowed to carry it; every one when absent.
    pub only: Option<Vec<Field<String>>>,
    /// The only link mode allowed.
    pub link: Option<Field<LinkMode>>,
    /// `bundled = false`: no copy a `-sys` crate built.
    pub bundled: Option<Field<bool>>,
    pub reason: Option<String>,
}

/// A parsed policy file, its rules in file order within each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub selections: Vec<SelectionRule>,
    pub libraries: Vec<LibraryRule>,
    /// `[binaries] without-record = "allow"`: `check --binaries` judges an executable without a
    /// build record by its dynamic section instead of refusing it.
    pub allow_without_record: bool,
}

impl Policy {
    /// How many rules it has.
    pub fn len(&self) -> usize {
        self.selections.len() + self.libraries.len()
    }

    /// Whether it has no rule.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::eval::{Vocabulary, evaluate};
    use super::parse::parse;
    use super::render::diagnostic;
    use crate::diag::{Code, Diagnostic, Severity};
    use crate::model::*;
    use crate::source::SourceFile;

    pub(crate) fn tls_crate(
        name: &str,
        selected: &str,
        origin: &str,
        origin_kind: &str,
    ) -> CrateReport {
        let prefix = name.to_uppercase().replace('-', "_");
        // A schema-1 record, as a build before flagsplit-config 0.5 wrote it, read as the
        // collector reads it (upgraded).
        let mut report = CrateReport {
            name: name.into(),
            version: "0.1.0".into(),
            package_id: format!("path+file:///ws/{name}#0.1.0"),
            build: Copy::Target,
            out_dir: format!("/t/debug/build/{name}-0/out"),
            options: Options {
                schema: 1,
                crate_name: name.into(),
                prefix: prefix.clone(),
                role: "library".into(),
                target: "x86_64-unknown-linux-gnu".into(),
                features: vec!["openssl".into()],
                facilities: vec![Facility {
                    name: "tls".into(),
                    kind: Some("tls".into()),
                    variable: format!("{prefix}_TLS_PROVIDER"),
                    providers: vec![
                        Provider {
                            name: "none".into(),
                            compiled: true,
                            answers_to: Some("none".into()),
                            ..Default::default()
                        },
                        Provider {
                            name: "openssl".into(),
                            feature: Some("openssl".into()),
                            compiled: true,
                            answers_to: Some("openssl".into()),
                            links: vec!["libssl".into(), "libcrypto".into()],
                            properties: vec!["fips-capable".into()],
                        },
                    ],
                    selected: selected.into(),
                    origin: origin.into(),
                    origin_kind: origin_kind.into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
        };
        report.options.upgrade();
        report
    }

    fn lib(name: &str, file: &str, link: LinkMode, bundled: bool, by: &str) -> CarriedLibrary {
        CarriedLibrary {
            name: name.into(),
            file: file.into(),
            link,
            bundled,
            held: Held::Yes,
            evidence: "NEEDED".into(),
            archive: None,
            linked_by: vec![LinkedBy {
                package: by.into(),
                version: "1.0.0".into(),
                directive: name.into(),
            }],
            found_by: vec![],
            selected_by: vec![],
        }
    }

    pub(crate) fn report(crates: Vec<CrateReport>, libs: Vec<CarriedLibrary>) -> Report {
        Report {
            target: None,
            crates,
            executables: vec![Executable {
                name: "app".into(),
                package: "app".into(),
                path: "/t/debug/app".into(),
                needed: libs
                    .iter()
                    .filter(|l| l.link == LinkMode::Dynamic)
                    .map(|l| l.file.clone())
                    .collect(),
                dynamic: true,
                symbols: true,
                libraries: libs,
                not_carried: vec![],
            }],
            settings: vec![],
        }
    }

    fn vocab() -> Vocabulary {
        Vocabulary {
            built: ["tls-a", "tls-b", "app", "openssl-sys", "libz-sys"]
                .map(String::from)
                .into(),
            locked: [
                "tls-a",
                "tls-b",
                "app",
                "openssl-sys",
                "libz-sys",
                "flagsplit-tls-openssl",
            ]
            .map(String::from)
            .into(),
            bins: ["app", "tool"].map(String::from).into(),
        }
    }

    fn check(policy: &str, r: &Report) -> Vec<Diagnostic> {
        let p = parse(&SourceFile::new("p.toml", policy)).expect("valid");
        evaluate(&p, r, &vocab()).iter().map(diagnostic).collect()
    }

    fn codes(d: &[Diagnostic]) -> Vec<(&'static str, Severity)> {
        d.iter().map(|d| (d.code.as_str(), d.severity)).collect()
    }

    fn note<'a>(d: &'a Diagnostic, name: &str) -> Vec<&'a str> {
        d.notes
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
            .collect()
    }

    #[test]
    fn deny_names_the_crate_the_facility_and_the_origin() {
        let policy = "[[deny]]\nshared = \"openssl\"\nkind = \"tls\"\nreason = \"rustls only\"\n";
        let r = report(
            vec![
                tls_crate(
                    "tls-a",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
                tls_crate("tls-b", "none", "TLS_B_TLS_PROVIDER", "variable"),
            ],
            vec![],
        );
        let d = check(policy, &r);
        assert_eq!(codes(&d), [("denied-provider", Severity::Error)]);
        assert_eq!(
            d[0].message,
            "tls-a v0.1.0: facility `tls` (kind tls) selects openssl, which the policy denies"
        );
        assert_eq!(d[0].location().as_deref(), Some("p.toml:2:10"));
        assert_eq!(note(&d[0], "origin"), ["graph-wide RUST_BACKEND_TLS"]);
        assert_eq!(note(&d[0], "reason"), ["rustls only"]);
        assert_eq!(
            note(&d[0], "fix"),
            [
                "RUST_BACKEND_TLS chose it for every facility of kind tls: change or unset it, or set TLS_A_TLS_PROVIDER=<one of: none> for this crate alone"
            ]
        );
        // The same policy holds with the default selected.
        let r = report(
            vec![tls_crate("tls-a", "none", "default", "default")],
            vec![],
        );
        assert!(check(policy, &r).is_empty());
    }

    #[test]
    fn filters_by_crate_and_kind_and_require_says_how() {
        let r = report(
            vec![
                tls_crate(
                    "tls-a",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
                tls_crate(
                    "tls-b",
                    "openssl",
                    "graph-wide RUST_BACKEND_TLS",
                    "graph-variable",
                ),
            ],
            vec![],
        );
        let d = check(
            "[[deny]]\nprovider = \"openssl\"\ncrate = \"tls-b\"\n[[deny]]\nprovider = \"openssl\"\nkind = \"zlib\"\n",
            &r,
        );
        assert_eq!(
            codes(&d),
            [
                ("denied-provider", Severity::Error),
                ("no-match", Severity::Error)
            ]
        );
        assert!(d[0].message.starts_with("tls-b v0.1.0:"));
        let r = report(
            vec![tls_crate("tls-a", "none", "default", "default")],
            vec![],
        );
        let d = check("[[require]]\nkind = \"tls\"\nshared = \"openssl\"\n", &r);
        assert_eq!(
            d[0].message,
            "tls-a v0.1.0: facility `tls` (kind tls) selects none, where the policy requires a provider answering to openssl"
        );
        assert_eq!(
            note(&d[0], "fix"),
            [
                "select it: TLS_A_TLS_PROVIDER=openssl, or RUST_BACKEND_TLS=openssl for every facility of kind tls"
            ]
        );
    }

    #[test]
    fn a_property_required_or_denied() {
        let policy = "[[require]]\nkind = \"tls\"\nproperty = \"fips-capable\"\n";
        let r = report(
            vec![tls_crate("tls-a", "openssl", "default", "default")],
            vec![],
        );
        assert!(check(policy, &r).is_empty());
        let r = report(
            vec![tls_crate("tls-a", "none", "default", "default")],
            vec![],
        );
        let d = check(policy, &r);
        assert_eq!(codes(&d), [("required-provider", Severity::Error)]);
        assert_eq!(
            d[0].message,
            "tls-a v0.1.0: facility `tls` (kind tls) selects none, where the policy requires a provider with the property fips-capable"
        );
        assert_eq!(
            note(&d[0], "fix"),
            ["select it: TLS_A_TLS_PROVIDER=openssl"]
        );
        let d = check(
            "[[deny]]\nproperty = \"fips-capable\"\n",
            &report(
                vec![tls_crate("tls-a", "openssl", "default", "default")],
                vec![],
            ),
        );
        assert_eq!(codes(&d), [("denied-provider", Severity::Error)]);
        // A property no provider declares: refused, with the one meant.
        let d = check("[[require]]\nproperty = \"fips-capabel\"\n", &r);
        assert_eq!(codes(&d), [("unknown-name", Severity::Error)]);
        assert_eq!(note(&d[0], "help"), ["did you mean `fips-capable`?"]);
    }

    #[test]
    fn libraries_by_executable_link_mode_and_bundled_copy() {
        let r = report(
            vec![],
            vec![
                lib(
                    "ssl",
                    "libssl.so.3",
                    LinkMode::Dynamic,
                    false,
                    "openssl-sys",
                ),
                lib(
                    "crypto",
                    "libcrypto.a",
                    LinkMode::Static,
                    false,
                    "openssl-sys",
                ),
                lib("z", "libz.a", LinkMode::Static, true, "libz-sys"),
            ],
        );
        let d = check(
            "[[libraries]]\nlibrary = \"libssl\"\nonly = [\"tool\"]\n\n\
             [[libraries]]\nlibrary = \"libcrypto\"\nlink = \"dynamic\"\n\n\
             [[libraries]]\nlibrary = \"libz\"\nbundled = false\n\n\
             [[libraries]]\nlibrary = \"libzstd\"\nonly = []\n",
            &r,
        );
        assert_eq!(
            codes(&d),
            [
                ("library-not-allowed", Severity::Error),
                ("absent-name", Severity::Warning),
                ("library-link-mode", Severity::Error),
                ("library-bundled", Severity::Error),
                ("unknown-name", Severity::Error),
            ]
        );
        assert!(d[4].refuses());
    }

    #[test]
    fn library_messages() {
        let r = report(
            vec![],
            vec![
                lib(
                    "crypto",
                    "libcrypto.a",
                    LinkMode::Static,
                    false,
                    "flagsplit",
                ),
                lib("z", "libz.a", LinkMode::Static, true, "libz-sys"),
            ],
        );
        let d = check(
            "[[libraries]]\nlibrary = \"libcrypto\"\nonly = []\n[[libraries]]\nlibrary = \"libz\"\nbundled = false\n",
            &r,
        );
        assert_eq!(
            d[0].message,
            "executable `app` carries libcrypto (static, libcrypto.a), which the policy lets no executable carry"
        );
        assert_eq!(
            note(&d[0], "linked by"),
            ["flagsplit v1.0.0's build script (rustc-link-lib=crypto)"]
        );
        assert_eq!(
            d[1].message,
            "executable `app` carries libz (static, bundled, libz.a), a copy libz-sys built, where the policy allows only the system's"
        );
        assert!(
            note(&d[1], "fix")[0].contains("libz-sys: unset LIBZ_SYS_STATIC or set it to 0"),
            "{:?}",
            d[1].notes
        );
        assert_eq!(d[1].location().as_deref(), Some("p.toml:6:11"));
    }

    #[test]
    fn names_that_match_nothing() {
        let r = report(
            vec![tls_crate("tls-a", "none", "default", "default")],
            vec![],
        );
        let d = check("[[deny]]\nprovider = \"opensll\"\n", &r);
        assert_eq!(d[0].code, Code::UnknownName);
        assert!(d[0].refuses());
        assert_eq!(note(&d[0], "help"), ["did you mean `openssl`?"]);
        let d = check("[[deny]]\nshared = \"openssl\"\ncrate = \"tls-aa\"\n", &r);
        assert_eq!(note(&d[0], "help"), ["did you mean `tls-a`?"]);
        // Known but not in this build: a warning.
        let d = check(
            "[[deny]]\nshared = \"openssl\"\ncrate = \"flagsplit-tls-openssl\"\n",
            &r,
        );
        assert_eq!(codes(&d), [("absent-name", Severity::Warning)]);
        // A crate of the build without flagsplit-config.
        let d = check(
            "[[deny]]\nshared = \"openssl\"\ncrate = \"openssl-sys\"\n",
            &r,
        );
        assert_eq!(codes(&d), [("absent-name", Severity::Warning)]);
        // A library one of the tables declares, carried by nothing here; an executable of the
        // workspace not built; unknown ones.
        let d = check(
            "[[libraries]]\nlibrary = \"libssl\"\nonly = [\"tool\", \"tol\"]\n[[libraries]]\nlibrary = \"libsssl\"\nonly = []\n",
            &r,
        );
        assert_eq!(
            codes(&d),
            [
                ("absent-name", Severity::Warning),
                ("absent-name", Severity::Warning),
                ("unknown-name", Severity::Error),
                ("unknown-name", Severity::Error)
            ]
        );
        assert_eq!(note(&d[2], "help"), ["did you mean `tool`?"]);
        assert_eq!(note(&d[3], "help"), ["did you mean `libssl`?"]);
    }
}
