//! The mbox splitter on arbitrary bytes, in both formats; what it accepts must be consistent:
//! every message has a From: and Subject: header and converts to CRLF without bare LF.
#![no_main]

use flagsplit_imap::mbox::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [Format::Mboxo, Format::Mboxrd] {
        if let Ok(messages) = mbox::split(data, format) {
            assert!(!messages.is_empty());
            for m in &messages {
                assert!(m.header("From").is_some() && m.header("Subject").is_some());
                let crlf = m.to_crlf();
                assert!(!crlf.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r'));
                let _ = mbox::wrap_in_html(&m.raw);
            }
        }
    }
});
