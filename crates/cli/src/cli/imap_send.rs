//! The `flagsplit-imap-send` program's options (also reached as `flagsplit imap-send`).

use super::{Command, Conventions, OperandKind, Operands, Opt};

static OPTIONS: [Opt; 13] = [
    Opt::with_value(
        Some('f'),
        "folder",
        "FOLDER",
        "store into FOLDER (overrides imap.folder; default: the\nserver's \\Drafts folder when it marks one)",
    )
    .flagsplit_extension(),
    Opt::flag(None, "list", "list the server's folders and exit")
    .flagsplit_extension(),
    Opt::flag(
        Some('v'),
        "verbose",
        "say more (twice: trace the IMAP protocol, secrets hidden)",
    ),
    Opt::flag(Some('q'), "quiet", "say nothing but errors and warnings"),
    Opt::flag(
        None,
        "curl",
        "accepted for git's scripts, with git's warning that this\nbuild has no libcurl IMAP (flagsplit has one IMAP\nimplementation, git's own kind); --no-curl is silent",
    ),
    Opt::flag(
        None,
        "dry-run",
        "connect, log in and look for duplicates, but store nothing",
    )
    .flagsplit_extension(),
    Opt::with_value(
        Some('c'),
        "config",
        "KEY=VALUE",
        "set an imap.* configuration key for this run (imap.pass is\nrefused: use a git credential helper)",
    )
    .flagsplit_extension(),
    Opt::flag(
        None,
        "mboxrd",
        "the input is mboxrd ('git format-patch --pretty=mboxrd'):\nunescape '>From ' lines",
    )
    .flagsplit_extension(),
    Opt::flag(
        None,
        "allow-duplicates",
        "store messages even when an identical one is in the folder",
    )
    .flagsplit_extension(),
    Opt::flag(
        None,
        "no-progress",
        "no progress display, even on a terminal",
    )
    .flagsplit_extension(),
    Opt::flag(
        None,
        "build-options",
        "print how this build was configured (TLS provider, OpenSSL) and exit",
    )
    .flagsplit_extension(),
    Opt::flag(
        None,
        "json",
        "the per-message report as one JSON document on standard\noutput, for scripts: per message its index, subject (RFC 2047\ndecoded), Message-ID (else Date), status (stored, skipped,\nwould be stored, not stored, unknown) and UID when known;\nwith --build-options: the build's facts as JSON",
    )
    .flagsplit_extension(),
    Opt::flag(Some('V'), "version", "print the version and exit")
    .flagsplit_extension(),
];

/// `flagsplit imap-send` / `flagsplit-imap-send`.
pub const IMAP_SEND: Command = Command {
    name: "imap-send",
    about: "Store a patch series from standard input in an IMAP folder, like git imap-send.",
    usage: "[OPTION]... < MBOX\n   or: flagsplit imap-send version [--build-options]",
    preamble: "Typical use: git format-patch --cover-letter -M --stdout origin/master | flagsplit imap-send\n\
Settings come from git's imap.* keys (git config), as for git imap-send: imap.host\n\
(imaps://HOST or imap://HOST), imap.port, imap.user, imap.pass, imap.folder, imap.tunnel,\n\
imap.sslverify, imap.authMethod, imap.preformattedHTML; and imap.sslCAInfo (CA file),\n\
imap.allowPlaintext, imap.timeout (seconds). A missing user or password comes from\n\
'git credential fill', else from a terminal prompt.",
    options: &OPTIONS,
    epilogue: "Security: certificates and host names are verified (imap.sslverify=false warns on every\n\
run); a password or token is never sent over a connection that is neither TLS nor a tunnel\n\
unless imap.allowPlaintext=true (CRAM-MD5 reveals none and is allowed).\n\
Messages identical to one already in the folder are skipped. On failure the exit status is 1\n\
and each message is reported as stored, not stored or unknown.\n\n\
Options follow git's rules, as git imap-send's do: a long option may be shortened to any prefix\n\
that names only it (git's --verbose, --quiet and --curl are matched first, flagsplit's own\n\
options only by a prefix that names none of them), --no-OPTION undoes one (--no-verbose,\n\
--no-quiet; --progress undoes --no-progress), -v and -q count up and down one verbosity as in\n\
git, and a usage error prints git's message and exits 129, as -h does after printing this help.",
    operands: Some(Operands::one("version", OperandKind::Words(&["version"]))),
    hidden: false,
    conventions: Conventions::Git,
};
