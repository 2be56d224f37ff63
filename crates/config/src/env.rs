//! The build environment of a build script (feature `build-script`), injectable so that tests feed
//! a foreign target or what `openssl-sys` published without touching the process environment.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::ffi::OsString;
use std::path::Path;

use crate::clib::TargetInfo;
use crate::model::Spec;

/// The build environment. [`Env::process`] reads the real one and prints
/// `cargo:rerun-if-env-changed` for every variable the build's outcome depends on, so Cargo reruns
/// the build script exactly when one changes; [`Env::fixed`] is a given set of variables, for
/// tests that feed a foreign target.
pub struct Env {
    // Sorted by name, one value per name (a sorted vector rather than a map: less code to compile
    // in every build script).
    fixed: Option<Vec<(String, OsString)>>,
    // Sorted, each name once.
    read: RefCell<Vec<String>>,
}

impl Env {
    /// The process environment of a build script.
    pub fn process() -> Env {
        Env {
            fixed: None,
            read: RefCell::default(),
        }
    }

    /// A fixed set of variables (nothing is printed).
    pub fn fixed<K: Into<String>, V: Into<OsString>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        let mut fixed = Vec::new();
        for (k, v) in vars {
            set_fixed(&mut fixed, k.into(), v.into());
        }
        Env {
            fixed: Some(fixed),
            read: RefCell::default(),
        }
    }

    fn get(&self, name: &str) -> Option<OsString> {
        match &self.fixed {
            Some(vars) => vars
                .binary_search_by(|(k, _)| k.as_str().cmp(name))
                .ok()
                .map(|i| vars[i].1.clone()),
            None => env::var_os(name),
        }
    }

    /// A variable the user sets, recorded with `rerun-if-env-changed`.
    pub fn var(&self, name: &str) -> Option<OsString> {
        let first = {
            let mut read = self.read.borrow_mut();
            match read.binary_search_by(|n| n.as_str().cmp(name)) {
                Ok(_) => false,
                Err(i) => {
                    read.insert(i, name.to_string());
                    true
                }
            }
        };
        if first && self.fixed.is_none() {
            println!("cargo:rerun-if-env-changed={name}");
        }
        self.get(name)
    }

    /// A variable as UTF-8 text (a non-UTF-8 value counts as unset).
    pub fn var_string(&self, name: &str) -> Option<String> {
        self.var(name).and_then(|v| v.into_string().ok())
    }

    /// A variable Cargo itself sets for build scripts (`TARGET`, `CARGO_CFG_*`, `CARGO_FEATURE_*`,
    /// `DEP_*`, `OUT_DIR`): not recorded (Cargo reruns the script when they change, and a
    /// `rerun-if-env-changed` on them would compare against Cargo's own environment).
    pub fn cargo_var(&self, name: &str) -> Option<String> {
        self.get(name).and_then(|v| v.into_string().ok())
    }

    /// The target triple (`TARGET`).
    pub fn target_triple(&self) -> String {
        self.cargo_var("TARGET").unwrap_or_default()
    }

    /// The target being built for, from `TARGET`, `HOST` and `CARGO_CFG_TARGET_*`.
    pub fn target(&self) -> TargetInfo {
        let cfg = |name: &str| {
            self.cargo_var(&format!("CARGO_CFG_TARGET_{name}"))
                .unwrap_or_default()
        };
        TargetInfo {
            triple: self.target_triple(),
            host: self.cargo_var("HOST").unwrap_or_default(),
            arch: cfg("ARCH"),
            os: cfg("OS"),
            env: cfg("ENV"),
            vendor: cfg("VENDOR"),
            pointer_width: cfg("POINTER_WIDTH").parse().unwrap_or(0),
        }
    }

    /// A variable that also has a target-prefixed form (`AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR`),
    /// which wins, as in `openssl-sys`. Both forms are recorded.
    pub fn target_var(&self, name: &str) -> Option<OsString> {
        let prefixed = self.var(&crate::clib::target_prefixed(&self.target_triple(), name));
        let plain = self.var(name);
        prefixed.or(plain)
    }

    /// [`Env::target_var`] as UTF-8 text.
    pub fn target_var_string(&self, name: &str) -> Option<String> {
        self.target_var(name).and_then(|v| v.into_string().ok())
    }

    /// A file or directory whose change must rerun the build script (`rerun-if-changed`; nothing is
    /// printed for a fixed environment).
    pub fn watch_path(&self, path: &Path) {
        if self.fixed.is_none() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }

    /// The names read so far (recorded for `rerun-if-env-changed`).
    // Inline: compiled only in the crates that call it (tests), not in every build script.
    #[inline]
    pub fn read_names(&self) -> BTreeSet<String> {
        self.read.borrow().iter().cloned().collect()
    }

    /// Every variable of the environment, not recorded (for checks of names nobody reads, such as
    /// a misspelt graph-wide name): its value, `None` when not UTF-8.
    pub fn all_vars(&self) -> Vec<(String, Option<String>)> {
        let mut all = Vec::new();
        for (k, v) in self.present() {
            all.push((k, v.into_string().ok()));
        }
        all
    }

    // Every variable whose name is UTF-8, with its value.
    fn present(&self) -> Vec<(String, OsString)> {
        match &self.fixed {
            Some(vars) => vars.clone(),
            None => {
                let mut present = Vec::new();
                for (k, v) in env::vars_os() {
                    if let Ok(k) = k.into_string() {
                        present.push((k, v));
                    }
                }
                present
            }
        }
    }

    /// Every variable whose name starts with `spec`'s prefix, plus a record of every build-time
    /// one, so that setting one later reruns the build script. (A misspelt name set after a
    /// successful build is caught the next time the script runs: Cargo cannot watch names it is
    /// not told.)
    pub fn prefixed_vars(&self, spec: &Spec) -> BTreeMap<String, Option<String>> {
        for name in spec.build_variable_names() {
            self.var(&name);
        }
        let prefix = spec.var_prefix();
        let mut found = BTreeMap::new();
        for (name, value) in self.present() {
            if name.starts_with(&prefix) {
                self.var(&name);
                found.insert(name, value.into_string().ok());
            }
        }
        found
    }
}

/// Sets `name` in a sorted list of variables (a later value replaces an earlier one).
// Inline: called only by `Env::fixed`, which is compiled in the crates that call it.
#[inline]
fn set_fixed(vars: &mut Vec<(String, OsString)>, name: String, value: OsString) {
    match vars.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
        Ok(i) => vars[i].1 = value,
        Err(i) => vars.insert(i, (name, value)),
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::process()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_with(triple: &str, extra: &[(&str, &str)]) -> Env {
        let (arch, vendor, os, target_env) = match triple {
            "aarch64-unknown-linux-gnu" => ("aarch64", "unknown", "linux", "gnu"),
            "x86_64-unknown-linux-gnu" => ("x86_64", "unknown", "linux", "gnu"),
            "x86_64-pc-windows-msvc" => ("x86_64", "pc", "windows", "msvc"),
            other => panic!("no test description for {other}"),
        };
        let mut vars = vec![
            ("TARGET", triple),
            ("HOST", HOST),
            ("CARGO_CFG_TARGET_ARCH", arch),
            ("CARGO_CFG_TARGET_VENDOR", vendor),
            ("CARGO_CFG_TARGET_OS", os),
            ("CARGO_CFG_TARGET_ENV", target_env),
            ("CARGO_CFG_TARGET_POINTER_WIDTH", "64"),
        ];
        vars.extend_from_slice(extra);
        Env::fixed(vars)
    }

    const HOST: &str = "x86_64-unknown-linux-gnu";

    #[test]
    fn the_target_comes_from_cargo_not_from_the_build_machine() {
        let t = env_with("aarch64-unknown-linux-gnu", &[]).target();
        assert_eq!(t.triple, "aarch64-unknown-linux-gnu");
        assert_eq!(
            (t.arch.as_str(), t.os.as_str(), t.env.as_str()),
            ("aarch64", "linux", "gnu")
        );
        assert_eq!(t.pointer_width, 64);
        assert!(t.is_cross());
        let t = env_with("x86_64-pc-windows-msvc", &[]).target();
        assert!(t.is_msvc() && t.is_cross());
        assert!(!env_with(HOST, &[]).target().is_cross());
    }

    #[test]
    fn target_prefixed_variables_win_and_both_are_recorded() {
        let env = env_with(
            "aarch64-unknown-linux-gnu",
            &[
                ("OPENSSL_DIR", "/usr"),
                ("AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR", "/cross"),
                ("OPENSSL_INCLUDE_DIR", "/plain/include"),
            ],
        );
        assert_eq!(
            env.target_var_string("OPENSSL_DIR").as_deref(),
            Some("/cross")
        );
        assert_eq!(
            env.target_var_string("OPENSSL_INCLUDE_DIR").as_deref(),
            Some("/plain/include")
        );
        let read = env.read_names();
        assert!(
            read.contains("OPENSSL_DIR") && read.contains("AARCH64_UNKNOWN_LINUX_GNU_OPENSSL_DIR")
        );
        assert_eq!(
            env.cargo_var("TARGET").as_deref(),
            Some("aarch64-unknown-linux-gnu")
        );
        assert!(!env.read_names().contains("TARGET"));
    }

    #[test]
    fn prefixed_variables_from_a_fixed_environment() {
        let env = env_with(HOST, &[("DEMO_TLS_PROVIDER", "none"), ("PATH", "/bin")]);
        let vars = env.prefixed_vars(&crate::test_tables::DEMO);
        assert_eq!(vars.len(), 1);
        assert_eq!(vars["DEMO_TLS_PROVIDER"].as_deref(), Some("none"));
        assert!(env.read_names().contains("DEMO_CONFIG"));
    }
}
