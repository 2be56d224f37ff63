//! git's tree checks on arbitrary bytes (`flagsplit::object::fsck::check_tree_links`, the one
//! pass fsck makes over a tree): never panics, and when it calls a tree well-formed, the links it
//! collects are exactly the entries git's walk visits (`object::links::links_for`, a parser of
//! its own), with their names.
#![no_main]

use flagsplit::object::fsck::{Options, SpecialBlobs, check_tree_links};
use flagsplit::object::{Kind, ObjectFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
        let raw = format.raw_len();
        let id = vec![0u8; raw];
        // The promisor set's reader (every entry, gitlinks included) stops where the walk does:
        // the walk's targets are the entries it gives, in order, less the gitlinks.
        let mut every: Vec<Vec<u8>> = Vec::new();
        flagsplit::object::links::tree_entry_ids(data, format, |t| every.push(t.to_vec()));
        let walk = flagsplit::object::links::links_for(Kind::Tree, &id, data, format);
        let mut rest = every.iter();
        for t in &walk.targets {
            assert!(
                rest.any(|e| *e == t.id),
                "a walked entry the promisor reader did not give"
            );
        }
        let opts = Options::new(false);
        let mut special = SpecialBlobs::default();
        let mut findings = Vec::new();
        let mut links = Vec::new();
        let simple = check_tree_links(
            &id,
            data,
            format,
            &opts,
            &mut special,
            &mut findings,
            &mut links,
        )
        .simple;
        if !simple {
            continue;
        }
        let walked = flagsplit::object::links::links_for(Kind::Tree, &id, data, format);
        let ours: Vec<(Kind, &[u8], &[u8])> = links
            .iter()
            .map(|e| {
                let (name, at) = (e.name as usize, e.id as usize);
                (e.kind, &data[name..at - 1], &data[at..at + raw])
            })
            .collect();
        let theirs: Vec<(Kind, &[u8], &[u8])> = walked
            .targets
            .iter()
            .map(|t| (t.kind, t.name.as_slice(), t.id.as_slice()))
            .collect();
        assert_eq!(ours, theirs);
        assert!(walked.errors.is_empty() && !walked.walk_failed);
    }
});
