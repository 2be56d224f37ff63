//! The little JSON the reports need (`bench --json`, `version --build-options --json`): string and
//! number literals. The reports are fixed shapes written directly; their tests parse them back with
//! serde_json.

// The string escaper is flagsplit-info's, which flagsplit-config's JSON build options use too.
pub use flagsplit_info::json::{opt_string, string};

/// A JSON number (`null` when not finite), three decimals.
pub fn number(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "null".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape() {
        assert_eq!(string("a\"b\\c\n\u{1}"), "\"a\\\"b\\\\c\\n\\u0001\"");
        assert_eq!(number(f64::NAN), "null");
        assert_eq!(opt_string(None), "null");
    }
}
