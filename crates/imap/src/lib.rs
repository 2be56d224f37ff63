//! flagsplit's IMAP sender (placeholder; see issue "flagsplit-imap-send").
