//! flagsplit-config's TOML reader (crates/config/src/toml.rs) against the `toml` crate, the reader
//! Cargo uses, on arbitrary text: both accept it or both refuse it, and what both accept reads to
//! the same tree (every key, value and type; datetimes compared as datetimes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fn walk(v: &toml::Value, out: &mut String) {
    match v {
        toml::Value::String(s) => out.push_str(&format!("s{s:?}")),
        toml::Value::Integer(i) => out.push_str(&format!("i{i}")),
        toml::Value::Float(f) if f.is_nan() => out.push_str("fnan"),
        toml::Value::Float(f) => out.push_str(&format!("f{f:?}")),
        toml::Value::Boolean(b) => out.push_str(&format!("b{b}")),
        toml::Value::Datetime(_) => out.push_str("datetime"),
        toml::Value::Array(a) => {
            out.push('[');
            for x in a {
                walk(x, out);
                out.push(',');
            }
            out.push(']');
        }
        toml::Value::Table(t) => table(t, out),
    }
}

fn table(t: &toml::Table, out: &mut String) {
    let mut entries: Vec<_> = t.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (k, x) in entries {
        out.push_str(&format!("{k:?}="));
        walk(x, out);
        out.push(',');
    }
    out.push('}');
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = flagsplit_config::fuzz_toml_canonical(text);
    let cargo = text.parse::<toml::Table>().map(|t| {
        let mut out = String::new();
        table(&t, &mut out);
        out
    });
    match (&ours, &cargo) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "the trees differ for {text:?}"),
        (Err(_), Err(_)) => {}
        (Ok(a), Err(e)) => panic!("read {text:?} as {a}, which toml refuses: {e}"),
        (Err(e), Ok(b)) => panic!("refused {text:?} ({e}), which toml reads as {b}"),
    }
});
