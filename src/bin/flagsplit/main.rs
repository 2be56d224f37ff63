//! `flagsplit`: hashing commands over the providers this build selected, `bench`, and `version
//! --build-options`. It never links libssl; it links libcrypto only when an OpenSSL hashing provider
//! is selected. `flagsplit imap-send` runs the separate `flagsplit-imap-send`.

mod bench;
mod hash_object;
mod sum;

use std::io::{self, Write};
use std::process::ExitCode;

use flagsplit::build_options::{self, BUILD_INFO, RuntimeFacts};
use flagsplit::cli::Matches;
use flagsplit::cli::flagsplit::PROGRAM;
use flagsplit::spec::FLAGSPLIT;
use flagsplit::sum::Sum;

/// Records the inherited descriptors and `SIGPIPE` disposition before Rust's runtime changes them
/// (see `flagsplit::inherited`): the C library runs the functions of `.init_array` before `main`.
#[cfg(all(target_os = "linux", not(test)))]
#[used]
// SAFETY: an `.init_array` entry must be a function taking what the C library passes (argc, argv,
// envp, which a C function may ignore) and safe to run before `main`: this one only asks the
// kernel two questions and stores three atomics.
#[unsafe(link_section = ".init_array")]
static CAPTURE_INHERITED: extern "C" fn() = {
    extern "C" fn capture() {
        flagsplit::inherited::capture();
    }
    capture
};

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    args.next();
    let Some(first) = args.next() else {
        eprint!("{}", PROGRAM.help());
        return ExitCode::from(1);
    };
    let name = first.to_string_lossy();
    match name.as_ref() {
        "-h" | "--help" => return print(&PROGRAM.help()),
        "-V" | "--version" => {
            return print(&format!(
                "flagsplit version {}\n",
                env!("CARGO_PKG_VERSION")
            ));
        }
        _ => {}
    }
    if name == "fsck" {
        // Its own executable, so that what only fsck uses costs `flagsplit`'s commands nothing.
        let err = flagsplit::exec_path::exec("flagsplit-fsck", args);
        eprintln!("flagsplit fsck: {err}");
        return ExitCode::from(1);
    }
    if name == "report" {
        // Its own executable: the JSON reader and the page cost `flagsplit`'s commands nothing.
        let err = flagsplit::exec_path::exec("flagsplit-report", args);
        eprintln!("flagsplit report: {err}");
        return ExitCode::from(1);
    }
    if name == "imap-send" {
        // As git runs git-imap-send: a separate executable, so that only it links TLS.
        let err = flagsplit::exec_path::exec("flagsplit-imap-send", args);
        eprintln!("flagsplit imap-send: {err}");
        return ExitCode::from(1);
    }
    let Some(command) = PROGRAM.command(&name) else {
        eprintln!("flagsplit: '{name}' is not a flagsplit command. See 'flagsplit --help'.");
        return ExitCode::from(1);
    };
    if command.name == "hash-object" {
        // git's conventions: usage errors and `-h` exit 129.
        return hash_object::main(command, args);
    }
    let matches = match command.parse(args) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.message(PROGRAM.name));
            return ExitCode::from(1);
        }
    };
    if matches.flag("help") {
        return print(&command.help(PROGRAM.name));
    }
    // Only the coreutils-style commands have --version: flagsplit's own version, as
    // `flagsplit --version` prints it.
    if matches.flag("version") {
        return print(&format!(
            "flagsplit version {}\n",
            env!("CARGO_PKG_VERSION")
        ));
    }
    match command.name {
        "sha1sum" => sum::main(Sum::Sha1, &matches),
        "md5sum" => sum::main(Sum::Md5, &matches),
        "sha256sum" => sum::main(Sum::Sha256, &matches),
        "bench" => bench::main(&matches),
        "version" => version(&matches),
        "help" => help(&matches),
        other => unreachable!("command {other} is in the table but has no handler"),
    }
}

fn print(text: &str) -> ExitCode {
    match io::stdout().write_all(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("flagsplit: write error: {e}");
            ExitCode::from(1)
        }
    }
}

fn version(m: &Matches) -> ExitCode {
    if m.flag("all-knobs") {
        return print(&flagsplit::config::knobs::markdown_table(
            &flagsplit::spec::SPEC,
        ));
    }
    if !m.flag("build-options") {
        if m.flag("json") {
            eprintln!("flagsplit version: --json goes with --build-options");
            return ExitCode::from(1);
        }
        return print(&format!(
            "flagsplit version {}\n",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let facts = RuntimeFacts {
        openssl: flagsplit::hash::openssl_version(),
        tls: None,
        zlib: Some(flagsplit::zlib::version_line()),
    };
    if m.flag("json") {
        return print(&build_options::json(&BUILD_INFO, FLAGSPLIT, &facts));
    }
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = build_options::write(&mut out, &BUILD_INFO, FLAGSPLIT, &facts);
    print(&String::from_utf8_lossy(&out))
}

fn help(matches: &Matches) -> ExitCode {
    match matches.operands.first() {
        None => print(&PROGRAM.help()),
        Some(name) => match PROGRAM.command(&name.to_string_lossy()) {
            Some(c) => print(&c.help(PROGRAM.name)),
            None => {
                eprintln!(
                    "flagsplit: no such command '{}'. See 'flagsplit --help'.",
                    name.to_string_lossy()
                );
                ExitCode::from(1)
            }
        },
    }
}
