//! The check of a delta tree that does not check again the entries the delta copied from its
//! clean base, against the check of every entry, on pairs of trees and deltas made from the
//! input (`flagsplit::object::fsck::delta_oracle`): the findings, special blobs and links agree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    flagsplit::object::fsck::delta_oracle::check(data);
});
