//! `cfg(...)` expressions, as Cargo writes them in `[target.'cfg(...)']` tables, evaluated against
//! the target a build script builds for (Cargo's `CARGO_CFG_*` variables), never against the
//! machine running the build script.
//!
//! ```text
//! cfg(unix)   cfg(target_os = "linux")   cfg(all(target_arch = "x86_64", not(windows)))
//! ```

// Without the TOML reader (feature `config-file`) no file names a scope: only `Scope::All` and
// the target's values are used.
#![cfg_attr(not(feature = "config-file"), allow(dead_code))]

use std::fmt;

/// The target's `cfg` values: `target_os` → `["linux"]`, `unix` → `[]` (a name that is set).
// Sorted by name, each name once (a sorted vector rather than a map: less code to compile in every
// build script); its Debug form is a map's.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TargetCfg(Vec<(String, Vec<String>)>);

impl fmt::Debug for TargetCfg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Map<'a>(&'a [(String, Vec<String>)]);
        impl fmt::Debug for Map<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_map()
                    .entries(self.0.iter().map(|(k, v)| (k, v)))
                    .finish()
            }
        }
        f.debug_tuple("TargetCfg").field(&Map(&self.0)).finish()
    }
}

impl TargetCfg {
    /// From Cargo's variables for build scripts: `CARGO_CFG_TARGET_OS=linux` gives
    /// `target_os = "linux"`, `CARGO_CFG_UNIX=` gives `unix`; a comma-separated value
    /// (`CARGO_CFG_TARGET_FEATURE=fxsr,sse`) gives each value. Other variables are ignored.
    pub fn from_cargo_vars<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> TargetCfg {
        let mut cfg = TargetCfg::default();
        for (name, value) in vars {
            cfg.set(name, value);
        }
        cfg
    }

    // One variable of `from_cargo_vars` (a later one of the same name replaces an earlier one).
    fn set(&mut self, name: &str, value: &str) {
        if let Some(key) = name.strip_prefix("CARGO_CFG_") {
            // An empty value is a value (`target_abi = ""` holds on x86_64-unknown-linux-gnu);
            // a name-only cfg (`unix`) is set with it too, and asked for without a value.
            let mut values: Vec<String> = Vec::new();
            for v in value.split(',') {
                values.push(v.to_string());
            }
            let key = key.to_ascii_lowercase();
            match self.find(&key) {
                Ok(i) => self.0[i].1 = values,
                Err(i) => self.0.insert(i, (key, values)),
            }
        }
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    fn holds(&self, key: &str, value: Option<&str>) -> bool {
        match (self.find(key).ok().map(|i| &self.0[i].1), value) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(values), Some(v)) => values.iter().any(|x| x == v),
        }
    }
}

/// A parsed `cfg(...)` expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CfgExpr {
    /// `unix`, or `target_os = "linux"`.
    Is(String, Option<String>),
    /// `all(...)`: true when every one is (an empty `all()` is true).
    All(Vec<CfgExpr>),
    /// `any(...)`: true when one is (an empty `any()` is false).
    Any(Vec<CfgExpr>),
    /// `not(...)`.
    Not(Box<CfgExpr>),
}

/// Why a `cfg(...)` text does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgParseError {
    /// The text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for CfgParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a cfg expression: {}",
            self.text, self.reason
        )
    }
}

impl CfgExpr {
    /// Parses `cfg(<predicate>)`.
    pub fn parse(text: &str) -> Result<CfgExpr, CfgParseError> {
        let fail = |reason: &str| CfgParseError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = text.trim();
        let inner = trimmed
            .strip_prefix("cfg(")
            .and_then(|rest| rest.strip_suffix(')'))
            .ok_or_else(|| fail("expected cfg(...)"))?;
        let mut parser = Parser {
            bytes: inner.as_bytes(),
            at: 0,
        };
        let expr = parser.predicate().map_err(|r| fail(&r))?;
        parser.skip_spaces();
        if parser.at != parser.bytes.len() {
            return Err(fail("unexpected text after the predicate"));
        }
        Ok(expr)
    }

    /// Every name it asks about (`target_os` of `target_os = "linux"`).
    pub fn names(&self) -> Vec<&str> {
        match self {
            CfgExpr::Is(key, _) => vec![key.as_str()],
            CfgExpr::All(list) | CfgExpr::Any(list) => {
                let mut names = Vec::new();
                for e in list {
                    names.extend(e.names());
                }
                names
            }
            CfgExpr::Not(e) => e.names(),
        }
    }

    /// Whether it holds for `target`.
    pub fn eval(&self, target: &TargetCfg) -> bool {
        match self {
            CfgExpr::Is(key, None) if key == "true" => true,
            CfgExpr::Is(key, None) if key == "false" => false,
            CfgExpr::Is(key, value) => target.holds(key, value.as_deref()),
            CfgExpr::All(list) => list.iter().all(|e| e.eval(target)),
            CfgExpr::Any(list) => list.iter().any(|e| e.eval(target)),
            CfgExpr::Not(e) => !e.eval(target),
        }
    }
}

/// Where a config-file entry applies: everywhere (a top-level table), to one target triple
/// (`[target.x86_64-unknown-linux-gnu]`), or to the targets a `cfg(...)` expression holds for
/// (`[target.'cfg(unix)']`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every target.
    All,
    /// One target triple.
    Triple(String),
    /// The targets the expression holds for; the text as written.
    Cfg(CfgExpr, String),
}

impl Scope {
    /// The `[target.<...>]` key as written; `None` for every target.
    pub fn text(&self) -> Option<&str> {
        match self {
            Scope::All => None,
            Scope::Triple(t) => Some(t),
            Scope::Cfg(_, text) => Some(text),
        }
    }

    /// The scope of a `[target.<key>]` table: `cfg(...)` or a triple (a name with a `-`).
    pub fn parse(key: &str) -> Result<Scope, CfgParseError> {
        if key.trim_start().starts_with("cfg(") {
            let expr = CfgExpr::parse(key)?;
            // What is not the target's: a crate's own features, the profile, test builds.
            // Cargo's [target.'cfg(...)'] tables do not take them either.
            if let Some(name) = expr
                .names()
                .into_iter()
                .find(|n| matches!(*n, "feature" | "debug_assertions" | "test" | "proc_macro"))
            {
                return Err(CfgParseError {
                    text: key.to_string(),
                    reason: format!(
                        "`{name}` does not describe the target (it differs from crate to crate or with the profile)"
                    ),
                });
            }
            return Ok(Scope::Cfg(expr, key.to_string()));
        }
        let triple_like = key.contains('-')
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
        if triple_like {
            Ok(Scope::Triple(key.to_string()))
        } else {
            Err(CfgParseError {
                text: key.to_string(),
                reason: "a [target.<...>] table is named by a target triple (x86_64-unknown-linux-gnu) or a cfg(...) expression".to_string(),
            })
        }
    }

    /// How closely it applies to a build for `triple` with `cfg`: 2 for the triple itself, 1 for a
    /// `cfg(...)` that holds, 0 for every target; `None` when it does not apply.
    pub fn rank(&self, triple: &str, cfg: &TargetCfg) -> Option<u8> {
        match self {
            Scope::All => Some(0),
            Scope::Triple(t) => (t == triple).then_some(2),
            Scope::Cfg(e, _) => e.eval(cfg).then_some(1),
        }
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_spaces();
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Result<String, String> {
        self.skip_spaces();
        let start = self.at;
        while self.at < self.bytes.len()
            && (self.bytes[self.at].is_ascii_alphanumeric() || self.bytes[self.at] == b'_')
        {
            self.at += 1;
        }
        if start == self.at || self.bytes[start].is_ascii_digit() {
            return Err("expected a name".to_string());
        }
        Ok(String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned())
    }

    fn string(&mut self) -> Result<String, String> {
        if !self.eat(b'"') {
            return Err("expected a quoted value after `=`".to_string());
        }
        let start = self.at;
        while self.at < self.bytes.len() && self.bytes[self.at] != b'"' {
            self.at += 1;
        }
        if self.at == self.bytes.len() {
            return Err("unterminated string".to_string());
        }
        let value = String::from_utf8_lossy(&self.bytes[start..self.at]).into_owned();
        self.at += 1;
        Ok(value)
    }

    fn predicate(&mut self) -> Result<CfgExpr, String> {
        let name = self.ident()?;
        match name.as_str() {
            "all" | "any" | "not" => {
                if !self.eat(b'(') {
                    return Err(format!("expected `(` after {name}"));
                }
                let mut list = Vec::new();
                let mut trailing_comma = false;
                loop {
                    if self.eat(b')') {
                        break;
                    }
                    list.push(self.predicate()?);
                    trailing_comma = false;
                    if self.eat(b',') {
                        trailing_comma = true;
                        continue;
                    }
                    if self.eat(b')') {
                        break;
                    }
                    return Err(format!("expected `,` or `)` in {name}(...)"));
                }
                match name.as_str() {
                    "all" => Ok(CfgExpr::All(list)),
                    "any" => Ok(CfgExpr::Any(list)),
                    _ => {
                        if list.len() != 1 || trailing_comma {
                            return Err("not(...) takes exactly one predicate".to_string());
                        }
                        Ok(CfgExpr::Not(Box::new(list.remove(0))))
                    }
                }
            }
            _ => {
                if self.eat(b'=') {
                    let value = self.string()?;
                    Ok(CfgExpr::Is(name, Some(value)))
                } else {
                    Ok(CfgExpr::Is(name, None))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux_x86_64() -> TargetCfg {
        TargetCfg::from_cargo_vars([
            ("CARGO_CFG_TARGET_OS", "linux"),
            ("CARGO_CFG_TARGET_ARCH", "x86_64"),
            ("CARGO_CFG_TARGET_FAMILY", "unix"),
            ("CARGO_CFG_UNIX", ""),
            ("CARGO_CFG_TARGET_FEATURE", "fxsr,sse,sse2"),
            ("TARGET", "x86_64-unknown-linux-gnu"),
        ])
    }

    #[test]
    fn evaluates_like_cargo() {
        let t = linux_x86_64();
        let holds = |text: &str| CfgExpr::parse(text).unwrap().eval(&t);
        assert!(holds("cfg(unix)"));
        assert!(!holds("cfg(windows)"));
        assert!(holds("cfg(target_os = \"linux\")"));
        assert!(!holds("cfg(target_os = \"macos\")"));
        assert!(holds("cfg(target_feature = \"sse2\")"));
        assert!(holds("cfg(all(unix, target_arch = \"x86_64\"))"));
        assert!(!holds("cfg(all(unix, target_arch = \"aarch64\"))"));
        assert!(holds("cfg(any(windows, target_family = \"unix\"))"));
        assert!(holds("cfg(not(windows))"));
        assert!(holds("cfg(all())"));
        assert!(!holds("cfg(any())"));
        assert!(holds(" cfg( all( unix , not( windows ) , ) ) "));
        assert!(holds("cfg(true)") && !holds("cfg(false)"));
        let gnu = TargetCfg::from_cargo_vars([
            ("CARGO_CFG_TARGET_ABI", ""),
            ("CARGO_CFG_TARGET_ENV", "gnu"),
        ]);
        assert!(CfgExpr::parse("cfg(target_abi = \"\")").unwrap().eval(&gnu));
        assert!(!CfgExpr::parse("cfg(target_env = \"\")").unwrap().eval(&gnu));
    }

    #[test]
    fn scopes_rank_triple_over_cfg_over_all() {
        let t = linux_x86_64();
        let triple = "x86_64-unknown-linux-gnu";
        let rank = |key: &str| Scope::parse(key).unwrap().rank(triple, &t);
        assert_eq!(rank("x86_64-unknown-linux-gnu"), Some(2));
        assert_eq!(rank("aarch64-unknown-linux-gnu"), None);
        assert_eq!(rank("cfg(unix)"), Some(1));
        assert_eq!(rank("cfg(windows)"), None);
        assert_eq!(Scope::All.rank(triple, &t), Some(0));
        assert!(Scope::parse("linux").is_err());
        assert!(Scope::parse("cfg(unix").is_err());
        for not_target in [
            "cfg(feature = \"x\")",
            "cfg(all(unix, debug_assertions))",
            "cfg(test)",
        ] {
            let e = Scope::parse(not_target).unwrap_err().to_string();
            assert!(e.contains("does not describe the target"), "{e}");
        }
    }

    #[test]
    fn rejects_what_cargo_rejects() {
        for bad in [
            "unix",
            "cfg(",
            "cfg()",
            "cfg(target_os = linux)",
            "cfg(target_os = \"linux)",
            "cfg(not(unix, windows))",
            "cfg(all(unix windows))",
            "cfg(unix) x",
            "cfg(unix windows)",
            "cfg(1abc)",
            "cfg(not(unix,))",
        ] {
            let e = CfgExpr::parse(bad).expect_err(bad);
            assert!(e.to_string().starts_with(&format!("`{bad}`")), "{e}");
        }
    }
}
