//! The commit-graph verifier's tests.

use super::*;

#[test]
fn commit_dates() {
    let c = b"author A <a> 5 +0000\ncommitter C <c> 1234567890 +0100\n\nmsg\n";
    assert_eq!(parse_commit_date(c), 1_234_567_890);
    assert_eq!(
        parse_commit_date(b"author A <a> 5\ncommitter C <c> -1 +0\n"),
        u64::MAX
    );
    assert_eq!(
        parse_commit_date(b"author A <a> 5\ncommitter C <c> x +0\n"),
        0
    );
    assert_eq!(
        parse_commit_date(b"author A <a> 5\ncommitter C <c> 99999999999999999999999 +0\n"),
        u64::MAX
    );
    assert_eq!(parse_commit_date(b"author A\ncommitter C <c> 12"), 0);
}

#[test]
fn commit_buffers() {
    let t = "a".repeat(40);
    let p = "b".repeat(40);
    let buf = format!("tree {t}\nparent {p}\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\nm\n");
    let c = parse_commit_buffer(buf.as_bytes(), ObjectFormat::Sha1).ok();
    assert_eq!(c.map(|c| (c.parents.len(), c.date)), Some((1, 2)));
    assert_eq!(
        parse_commit_buffer(b"tree x\n", ObjectFormat::Sha1),
        Err("bogus commit object")
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    let mut seed = 5u32;
    for len in [0usize, 100, 1100, 1200, 1500, 2000] {
        for round in 0..40 {
            let mut data: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (seed >> 16) as u8
                })
                .collect();
            if len > 8 {
                data[..4].copy_from_slice(b"CGPH");
                data[4] = 1;
                data[5] = 1;
                data[6] = (round % 6) as u8;
            }
            let mut out = Outcome::default();
            if let Some(g) = parse(&data, ObjectFormat::Sha1, Settings::default(), &mut out) {
                let layers = [g];
                let _ = run::<crate::test_hashes::TestHashes>(
                    &layers,
                    ObjectFormat::Sha1,
                    &mut |_| Commit::Missing,
                    false,
                    out,
                    Progress::OFF,
                );
            }
        }
    }
}
