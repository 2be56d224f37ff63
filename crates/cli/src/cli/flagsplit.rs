//! The `flagsplit` program's commands and options.

use super::{Command, Conventions, OperandKind, Operands, Opt, Program};

const SUM_CHECK: &str = "The following five options are useful only when verifying checksums:";

macro_rules! sum_options {
    ($($extra:expr),* $(,)?) => {
        [
            Opt::flag(Some('b'), "binary", "read in binary mode"),
            Opt::flag(Some('c'), "check", "read checksums from the FILEs and check them"),
            Opt::flag(None, "tag", "create a BSD-style checksum"),
            Opt::flag(Some('t'), "text", "read in text mode (default)"),
            Opt::flag(
                Some('z'),
                "zero",
                "end each output line with NUL, not newline,\nand disable file name escaping",
            ),
            $($extra,)*
            Opt::flag(None, "ignore-missing", "don't fail or report status for missing files")
                .in_section(SUM_CHECK),
            Opt::flag(None, "quiet", "don't print OK for each successfully verified file")
                .in_section(SUM_CHECK),
            Opt::flag(None, "status", "don't output anything, status code shows success")
                .in_section(SUM_CHECK),
            Opt::flag(None, "strict", "exit non-zero for improperly formatted checksum lines")
                .in_section(SUM_CHECK),
            Opt::flag(Some('w'), "warn", "warn about improperly formatted checksum lines")
                .in_section(SUM_CHECK),
        ]
    };
}

static SHA1SUM_OPTIONS: [Opt; 11] = sum_options!(Opt::flag(
    None,
    "no-collision-detection",
    "hash with the sha1-unsafe provider, without collision\ndetection (also FLAGSPLIT_SHA1DC=0)",
));
static MD5SUM_OPTIONS: [Opt; 10] = sum_options!();
static SHA256SUM_OPTIONS: [Opt; 10] = sum_options!();

const SUM_PREAMBLE: &str = "With no FILE, or when FILE is -, read standard input.";

const SUM_EPILOGUE: &str =
    "The sums are computed as described in the algorithm's standard. When checking, the input
should be a former output of this program. The default mode is to print a line with:
checksum, a space, a character indicating input mode ('*' for binary, ' ' for text
or where binary is insignificant), and name for each FILE.

There is no difference between binary mode and text mode on GNU systems.";

/// `flagsplit sha1sum`.
pub const SHA1SUM: Command = Command {
    name: "sha1sum",
    about: "Print or check SHA1 (160-bit) checksums, like coreutils sha1sum.",
    usage: "[OPTION]... [FILE]...",
    preamble: SUM_PREAMBLE,
    options: &SHA1SUM_OPTIONS,
    epilogue: "A file that is part of a SHA-1 collision attack gets no checksum: it is reported\n\
               on standard error and the exit status is 1 (with the collision-detecting provider).\n\n\
               The sums are computed as described in FIPS-180-1. When checking, the input\n\
               should be a former output of this program. The default mode is to print a line with:\n\
               checksum, a space, a character indicating input mode ('*' for binary, ' ' for text\n\
               or where binary is insignificant), and name for each FILE.",
    operands: Some(Operands::files("FILE")),
    hidden: false,
    conventions: Conventions::Coreutils,
};

/// `flagsplit md5sum`.
pub const MD5SUM: Command = Command {
    name: "md5sum",
    about: "Print or check MD5 (128-bit) checksums, like coreutils md5sum.",
    usage: "[OPTION]... [FILE]...",
    preamble: SUM_PREAMBLE,
    options: &MD5SUM_OPTIONS,
    epilogue: SUM_EPILOGUE,
    operands: Some(Operands::files("FILE")),
    hidden: false,
    conventions: Conventions::Coreutils,
};

/// `flagsplit sha256sum`.
pub const SHA256SUM: Command = Command {
    name: "sha256sum",
    about: "Print or check SHA256 (256-bit) checksums, like coreutils sha256sum.",
    usage: "[OPTION]... [FILE]...",
    preamble: SUM_PREAMBLE,
    options: &SHA256SUM_OPTIONS,
    epilogue: "The sums are computed as described in FIPS-180-2. When checking, the input\n\
               should be a former output of this program. The default mode is to print a line with:\n\
               checksum, a space, a character indicating input mode ('*' for binary, ' ' for text\n\
               or where binary is insignificant), and name for each FILE.\n\n\
               There is no difference between binary mode and text mode on GNU systems.",
    operands: Some(Operands::files("FILE")),
    hidden: false,
    conventions: Conventions::Coreutils,
};

/// `flagsplit version`.
pub const VERSION: Command = Command {
    name: "version",
    about: "Print the version, and with --build-options how this build was configured.",
    usage: "[--build-options [--json]] [--all-knobs]",
    preamble: "",
    options: &[
        Opt::flag(
            None,
            "build-options",
            "also print the providers selected, where each choice came from,\nthe OpenSSL linked and the CPU features detected",
        ),
        Opt::flag(
            None,
            "json",
            "with --build-options: the same facts as JSON, for a packager's CI",
        ),
        Opt::flag(
            None,
            "all-knobs",
            "print every build knob (feature, config key, variable), its values,\nits default and what each binary then links (Markdown)",
        ),
    ],
    epilogue: "",
    operands: None,
    hidden: false,
    conventions: Conventions::Flagsplit,
};

/// `flagsplit hash-object`.
pub const HASH_OBJECT: Command = Command {
    name: "hash-object",
    about: "Compute git object ids, like `git hash-object` (it never writes objects).",
    usage: "[-t TYPE] [--path=FILE | --no-filters] [--stdin [--literally]] [--object-format=FORMAT] [--] [FILE]...\n   or: flagsplit hash-object [-t TYPE] [--no-filters] [--object-format=FORMAT] --stdin-paths",
    preamble: "Prints the id git would give each FILE (or standard input) as an object of TYPE, in the\n\
               object format of the repository it runs in (extensions.objectFormat; SHA-1 outside a\n\
               repository). Commits, trees and tags get git's checks: what git refuses is refused.\n\
               Many files are hashed in parallel on all cores; the ids come out in input order.\n\
               Memory stays constant whatever the size (standard input from a pipe is spooled to a\n\
               temporary file when it is large).",
    options: &[
        Opt::with_value(
            Some('t'),
            "type",
            "TYPE",
            "object type: blob (default), commit, tree or tag",
        )
        .without_long(),
        Opt::flag(
            Some('w'),
            "write",
            "refused: flagsplit computes ids only (use git hash-object -w)",
        )
        .without_long(),
        Opt::flag(
            None,
            "stdin",
            "read the object from standard input (before any FILE)",
        ),
        Opt::flag(
            None,
            "stdin-paths",
            "read file names from standard input, one per line, as git\nreads them (a CR before the LF is dropped, a name ends\nat a NUL byte, a line starting with a double quote is\nC-unquoted up to its closing quote); ids are written\nas soon as they are known",
        ),
        Opt::flag(
            None,
            "no-filters",
            "accepted for compatibility: flagsplit never filters",
        ),
        Opt::flag(
            None,
            "literally",
            "skip the checks, and take any TYPE (git's escape hatch\nfor making corrupt objects)",
        ),
        Opt::with_value(
            None,
            "path",
            "FILE",
            "accepted for compatibility: the path whose attributes\nwould choose git's filters (flagsplit never filters)",
        ),
        Opt::with_value(
            None,
            "object-format",
            "FORMAT",
            "sha1 or sha256 instead of the repository's format\n(a flagsplit extension: git has no such option)",
        )
        .flagsplit_extension(),
        Opt::flag(
            None,
            "no-collision-detection",
            "hash SHA-1 with the sha1-unsafe provider, without\ncollision detection (also FLAGSPLIT_SHA1DC=0)\n(a flagsplit extension)",
        )
        .flagsplit_extension(),
    ],
    epilogue: "Options follow git's rules: a long option may be shortened to any prefix that names only\n\
               it (git's options are matched first, flagsplit's own only by a prefix that names none of\n\
               git's), --no-OPTION undoes an option (--filters undoes --no-filters), -- or\n\
               --end-of-options ends the options, and the errors are git's, with status 129\n\
               (error: ambiguous option: st (could be --stdin or --stdin-paths)).\n\n\
               A malformed commit, tree or tag is refused with git's messages (`error: object fails fsck:\n\
               zeroPaddedFilemode: ...`, then `fatal: refusing to create malformed object`, exit 128);\n\
               other errors too are git's (`fatal: could not open 'F' for reading: ...`, 128). Usage\n\
               errors exit 129, and so does -h (which prints this help, as git's -h prints its usage);\n\
               a closed output pipe ends it with 141. Content that is part of a SHA-1 collision attack\n\
               is refused with the collision-detecting provider, as git refuses it.",
    operands: Some(Operands::files("FILE")),
    hidden: false,
    conventions: Conventions::Git,
};

/// `flagsplit fsck`.
pub const FSCK: Command = Command {
    name: "fsck",
    about: "Verify a git repository as `git fsck --full` does (it writes only for --lost-found).",
    usage: "[--tags] [--root] [--unreachable] [--cache] [--no-reflogs]\n         [--[no-]full] [--strict] [--verbose] [--lost-found]\n         [--[no-]dangling] [--[no-]progress] [--connectivity-only]\n         [--[no-]name-objects] [--threads N] [--low-memory] [--json]\n         [OBJECT]...",
    preamble: "Gives git 2.47's verdict on the repository it runs in (found as git finds it: the current\n\
               directory upwards, or GIT_DIR): the same exit status (git's bits: 1 objects, 2\n\
               reachability, 4 packs, 8 refs, 16 commit-graph, 32 multi-pack-index, 64 reverse\n\
               indexes, 128 bitmaps) and the same lines. Every loose and packed object is inflated\n\
               with the zlib facility's provider, its deltas applied, hashed with the sha1 facility's\n\
               (collision-detecting) provider and checked as git checks it (fsck.<msg-id> and\n\
               fsck.skipList from the configuration apply); pack trailers and idx CRCs are verified,\n\
               the idx trailer with the sha1-unsafe provider; then refs, reflogs, every worktree's\n\
               HEAD and index, and the connectivity between them.",
    options: &[
        Opt::flag(Some('v'), "verbose", "be verbose"),
        Opt::flag(None, "unreachable", "show unreachable objects"),
        Opt::flag(None, "dangling", "show dangling objects (default)"),
        Opt::flag(None, "tags", "report tags"),
        Opt::flag(None, "root", "report root nodes"),
        Opt::flag(None, "cache", "make index objects head nodes"),
        Opt::flag(None, "reflogs", "make reflogs head nodes (default)"),
        Opt::flag(
            None,
            "full",
            "also consider packs and alternate objects (default)",
        ),
        Opt::flag(None, "connectivity-only", "check only connectivity"),
        Opt::flag(None, "strict", "enable more strict checking"),
        Opt::flag(
            None,
            "lost-found",
            "write dangling objects in .git/lost-found (implies --full\nand --no-reflogs; the only write fsck makes)",
        ),
        Opt::flag(
            None,
            "progress",
            "show progress (default: when standard error is a terminal)",
        ),
        Opt::flag(
            None,
            "name-objects",
            "show verbose names for reachable objects",
        ),
        Opt::with_value(
            None,
            "threads",
            "N",
            "check packs on N threads (default: one per core) (a\nflagsplit extension)",
        )
        .flagsplit_extension(),
        Opt::flag(
            None,
            "low-memory",
            "check packs without their delta trees: each delta's base\nmade from its chain through a 32 MiB cache, as git does\n(slower; 13 bytes an entry instead of ~30; chosen by itself\nwhen a tree would take half the memory available) (a\nflagsplit extension)",
        )
        .flagsplit_extension(),
        Opt::flag(
            None,
            "json",
            "write each line git would print as a JSON object on\nstandard output (its level, git's message id, the object,\npath, pack and offset, the exit bit, git's line), then a\nsummary with the exit status (a flagsplit extension)",
        )
        .flagsplit_extension(),
    ],
    epilogue: "Options follow git's rules (unique prefixes, --no-OPTION, git's messages, status 129).\n\n\
               Structures flagsplit does not verify are named on standard error, one line each:\n\
               `notice: not checked: PATH (WHAT)`. A damaged pack is reported as git reports it and\n\
               the other objects are still checked; where git would die or never finish (a delta that\n\
               declares a result of 2^62 bytes, a cycle of REF_DELTA bases) the entry is named with its\n\
               pack and offset instead. No object larger than 4 GiB is held in memory.",
    operands: Some(Operands::files("OBJECT")),
    hidden: false,
    conventions: Conventions::Git,
};

/// `flagsplit bench`.
pub const BENCH: Command = Command {
    name: "bench",
    about: "Measure this build's providers and start-up cost on this machine.",
    usage: "[--quick] [--json] [--repo DIR]",
    preamble: "Throughput of the selected checked SHA-1, unchecked SHA-1, MD5 and SHA-256 providers at 64 B,\n\
               1 KiB, 64 KiB and 300 MiB (in memory, best of the rounds); MB/s of inflated output of the\n\
               selected zlib provider on one 16 MiB stream and on 1000 git-object-sized streams (100 B to\n\
               20 KB, back to back as in a pack); beside the in-memory figures, the checksum commands as a\n\
               user runs them (`flagsplit sha1sum FILE` and the others as new processes on one 300 MiB\n\
               file in the page cache, median wall time); the start-up cost of\n\
               `flagsplit sha1sum /dev/null` (wall time, and instructions under callgrind when valgrind is\n\
               installed); and the real load: `flagsplit-fsck` on the repository it runs in (or --repo\n\
               DIR), wall and CPU time and peak RSS. The default run takes well under a minute, plus the\n\
               fsck.",
    options: &[
        Opt::flag(None, "quick", "a few seconds instead of most of a minute"),
        Opt::flag(
            None,
            "json",
            "print a shareable JSON report (machine, build, every figure)\ninstead of the table",
        ),
        Opt::with_value(
            None,
            "repo",
            "DIR",
            "measure fsck on the repository DIR is in (default: the\ncurrent directory's)",
        ),
    ],
    epilogue: "Only the providers this build selected are measured: a binary does not link a provider\n\
               only to benchmark it. To compare providers: `cargo bench` (every compiled provider) and\n\
               scripts/bench-builds.sh (whole builds side by side).",
    operands: None,
    hidden: false,
    conventions: Conventions::Flagsplit,
};

/// `flagsplit help`.
pub const HELP: Command = Command {
    name: "help",
    about: "Describe a command.",
    usage: "[COMMAND]",
    preamble: "",
    options: &[],
    epilogue: "",
    operands: Some(Operands::one("COMMAND", OperandKind::Command)),
    hidden: false,
    conventions: Conventions::Flagsplit,
};

/// `flagsplit report`.
pub const REPORT: Command = Command {
    name: "report",
    about: "Put benchmark reports side by side: one self-contained HTML page of charts, or Markdown tables.",
    usage: "[-o FILE] [--markdown] REPORT.json...",
    preamble: "Reads the JSON reports of `flagsplit bench --json` (schema 1) and of\n\
               scripts/bench-builds.sh (schema 2) and charts them: throughput per algorithm and size,\n\
               per provider and machine; start-up instructions per build; the fsck real load per\n\
               provider beside git and gitoxide. Each run is labelled with its machine and build\n\
               options; ratios are taken only within one run. The page is one file (inline SVG and\n\
               CSS, no script, nothing fetched).",
    options: &[
        Opt::with_value(
            Some('o'),
            "output",
            "FILE",
            "write the page to FILE (default: results.html)",
        ),
        Opt::flag(
            None,
            "markdown",
            "print the same comparison as Markdown tables on standard output\n(no page is written)",
        ),
    ],
    epilogue: "A file that cannot be read, is not JSON or has a schema this version does not know is named\n\
               on standard error; the page is still written from the others, and the exit status is 1.",
    operands: Some(Operands::files("REPORT.json")),
    hidden: false,
    conventions: Conventions::Flagsplit,
};

/// The `flagsplit` program.
pub static PROGRAM: Program = Program {
    name: "flagsplit",
    about: "Hash with the SHA-1, MD5 and SHA-256 providers this build selected, and send patches over IMAP.",
    commands: &[
        SHA1SUM,
        MD5SUM,
        SHA256SUM,
        HASH_OBJECT,
        FSCK,
        super::imap_send::IMAP_SEND,
        BENCH,
        REPORT,
        VERSION,
        HELP,
    ],
    epilogue: "Build configuration: see 'flagsplit version --build-options' and the flagsplit book's Build configuration chapter.",
};
