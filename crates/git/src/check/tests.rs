//! The object checks' tests.

use super::*;

#[test]
fn tree_parse_errors_come_first() {
    let r = tree(b"abc\n", ObjectFormat::Sha1);
    assert_eq!(
        r.errors,
        [
            "too-short tree object",
            "object fails fsck: badTree: cannot be parsed as a tree"
        ]
    );
    assert!(r.refused);
}

#[test]
fn table_is_in_declaration_order() {
    for (i, t) in TABLE.iter().enumerate() {
        assert_eq!(t.0 as usize, i, "{}", t.1);
    }
}

#[test]
fn ids_and_severities() {
    assert_eq!(MsgId::all().count(), 60);
    assert_eq!(MsgId::MissingTaggerEntry.camel(), "missingTaggerEntry");
    assert_eq!(MsgId::BadObjectSha1.camel(), "badObjectSha1");
    assert_eq!(MsgId::HasDotgit.camel(), "hasDotgit");
    assert_eq!(
        MsgId::from_config_key("MISSINGTAGGERENTRY"),
        Some(MsgId::MissingTaggerEntry)
    );
    assert_eq!(MsgId::NulInHeader.default(), Severity::Fatal);
    assert_eq!(MsgId::ExtraHeaderEntry.default(), Severity::Ignore);
    let strict = Options::new(true);
    assert_eq!(strict.severity(MsgId::NullSha1), Severity::Error);
    assert_eq!(strict.severity(MsgId::BadFilemode), Severity::Info);
    let mut o = Options::new(false);
    assert_eq!(
        o.set_msg_type(b"nulinheader", b"warn"),
        Err("Cannot demote nulinheader to warn".to_string())
    );
    assert_eq!(
        o.set_msg_type(b"nope", b"warn"),
        Err("Unhandled message id: nope".to_string())
    );
    assert_eq!(
        o.set_msg_type(b"nullsha1", b"Warn"),
        Err("Unknown fsck message type: 'Warn'".to_string())
    );
    o.set_msg_type(b"largepathname", b"error:10").unwrap();
    assert_eq!(o.max_tree_entry_len, 10);
    assert_eq!(o.severity(MsgId::LargePathname), Severity::Error);
}

/// Truncated and bit-flipped objects and `.gitmodules` blobs: the checks, the walk's links
/// and the config parser report, never panic.
#[test]
fn hostile_input_does_not_panic() {
    let h = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let mut t = b"100644 .gitmodules\0".to_vec();
    t.extend_from_slice(&[0x11; 20]);
    t.extend_from_slice(b"40000 d\\.gitattributes\0");
    t.extend_from_slice(&[0x22; 20]);
    let seeds: [(Kind, Vec<u8>); 4] = [
        (Kind::Tree, t),
        (
            Kind::Commit,
            format!("tree {h}\nparent {h}\nauthor A <a> 1 +0000\ncommitter C <c> 1 +0000\n\nm\n")
                .into_bytes(),
        ),
        (
            Kind::Tag,
            format!("object {h}\ntype tree\ntag v1\ntagger T <t> 1 +0000\n\nm\n").into_bytes(),
        ),
        (
            Kind::Blob,
            b"[submodule \"a\"]\n\turl = \"http://h:80/%0a\" ; c\n\tpath = \\\n-p\n".to_vec(),
        ),
    ];
    let opts = Options::new(true);
    for (kind, seed) in seeds {
        let mut variants: Vec<Vec<u8>> = (0..=seed.len()).map(|n| seed[..n].to_vec()).collect();
        for i in 0..seed.len() {
            for bit in [0x01u8, 0x20, 0x80] {
                let mut v = seed.clone();
                v[i] ^= bit;
                variants.push(v);
            }
        }
        for v in variants {
            let mut special = SpecialBlobs::default();
            special.gitmodules_found.insert(&[0x33; 20]);
            special.gitattributes_found.insert(&[0x33; 20]);
            let mut out = Vec::new();
            check_object(
                kind,
                &[0x33; 20],
                &v,
                ObjectFormat::Sha1,
                &opts,
                &mut special,
                &mut out,
            );
            let _ = crate::links::links_for(kind, &[0x33; 20], &v, ObjectFormat::Sha1);
            let _ = tree(&v, ObjectFormat::Sha256);
            let _ = commit(&v, ObjectFormat::Sha256);
            let _ = tag(&v, ObjectFormat::Sha1);
            let _ = gitconfig::Config::parse_blob(&v);
            let _ = gitconfig::Config::parse(&v, std::path::Path::new("f"));
            let mut fin = Vec::new();
            finish(
                &mut special,
                &mut |_| Lookup::Blob(v.clone()),
                &opts,
                &mut fin,
            );
        }
    }
}
