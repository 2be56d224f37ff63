//! git's option rules, for the commands compatible with one of git's
//! ([`Conventions::Git`](super::Conventions::Git)): what git 2.47's `parse-options.c` accepts,
//! refuses, and prints, implemented over the same [`Command`] tables as the other commands.
//!
//! - Arguments are read in order; options and operands mix, `--` or `--end-of-options` ends the
//!   options, `-` is an operand.
//! - Short options bundle (`-wt blob`); a short option that takes a value takes the rest of its
//!   argument (`-tblob`, `-t=blob` gives `=blob`) or the next argument, whatever it is.
//! - A long option takes `--name=value` or `--name value`. Every long option has a `--no-` form
//!   that undoes it (resets it to its default), and one whose name starts with `no-` is undone by
//!   the name without it (`--filters` undoes `--no-filters`); `--no-no-NAME` undoes `--no-NAME`.
//! - A long option may be abbreviated to a prefix, `--no-` forms included. git registers, in table
//!   order, every option the prefix could name (and, for `--n`, `--no` and `--no-`, the `--no-`
//!   form of every option, a second time for `--no-`); one registration is the option, two or
//!   more are ambiguous, and the message names the last two registered. flagsplit's own options
//!   ([`Opt::extension`]) are matched only by a prefix that matches none of git's options.
//!   `GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS` (a git boolean) makes any abbreviation fatal, as in
//!   git's test suite.
//! - `-h` (alone, anywhere in a bundle, or `--help` after the first argument) prints the usage
//!   on standard output and exits 129; `--help-all` likewise. `--help` as the first argument is
//!   the command's help, exit 0 (git opens the manual). A lone `--git-completion-helper` (or
//!   `-all`) prints the long options for git's bash completion and exits 0.
//! - Errors, each `error: ...` and exit 129 (one is `fatal:` and 128), with the usage after them on
//!   standard error where git prints it (on standard output after an ambiguous option, as git
//!   does): ``unknown option `NAME=VALUE'``, ``unknown switch `c'``, ``unknown non-ascii option in
//!   string: `-é'`` (these with the usage); ``ambiguous option: st (could be --stdin or
//!   --stdin-paths)`` (usage on standard output); ``option `path' requires a value``, ``switch
//!   `t' requires a value``, ``option `stdin' takes no value``, ``option `no-stdin' takes no
//!   value``, ``did you mean `--stdin` (with two dashes)?`` for `-stdin` (no usage).

use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::{CliError, CliErrorKind, Command, Matches, Opt};

/// git's exit status for usage errors and for `-h`.
pub const USAGE_STATUS: u8 = 129;

/// git's exit status for `fatal:`.
pub const FATAL_STATUS: u8 = 128;

/// Where the usage goes after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// Not printed.
    None,
    /// On standard output (after an ambiguous option; `-h`).
    Stdout,
    /// On standard error (after an unknown option).
    Stderr,
}

/// Where git's option parser stops instead of running the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `error: MESSAGE`, then the usage where `usage` says; exit 129.
    Error {
        /// The text after `error: `.
        message: String,
        /// Where the usage follows.
        usage: Usage,
    },
    /// `fatal: MESSAGE`, exit 128.
    Fatal(String),
    /// `-h`, `--help-all`, `--help` after the first argument: the usage on standard output,
    /// exit 129.
    Usage,
    /// `--git-completion-helper`: this line on standard output, exit 0.
    Completion(String),
}

impl Stop {
    fn error(message: String, usage: Usage) -> Stop {
        Stop::Error { message, usage }
    }

    /// Prints the messages and the usage (`command`'s help) as git would, and returns the exit
    /// status. `program` is the name the messages start with (`flagsplit COMMAND: error: ...`).
    pub fn report(&self, program: &str, command: &Command) -> u8 {
        let usage = || command.help(program);
        let prefix = format!("{program} {}", command.name);
        // A closed standard output or error changes nothing about the status.
        match self {
            Stop::Error { message, usage: u } => {
                eprintln!("{prefix}: error: {message}");
                match u {
                    Usage::None => {}
                    Usage::Stdout => {
                        let _ = std::io::stdout().write_all(usage().as_bytes());
                    }
                    Usage::Stderr => {
                        let _ = std::io::stderr().write_all(usage().as_bytes());
                    }
                }
                USAGE_STATUS
            }
            Stop::Fatal(message) => {
                eprintln!("{prefix}: fatal: {message}");
                FATAL_STATUS
            }
            Stop::Usage => {
                let _ = std::io::stdout().write_all(usage().as_bytes());
                USAGE_STATUS
            }
            Stop::Completion(line) => {
                let _ = std::io::stdout().write_all(line.as_bytes());
                0
            }
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Error { message, .. } => write!(f, "error: {message}"),
            Stop::Fatal(message) => write!(f, "fatal: {message}"),
            Stop::Usage => f.write_str("usage requested"),
            Stop::Completion(_) => f.write_str("completion requested"),
        }
    }
}

/// How an option was named: git's messages name it by that.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Named {
    Short,
    Long,
    /// Its `--no-` form (for an option named `no-X`: `--X`).
    Negated,
}

fn optname(opt: &Opt, named: Named) -> String {
    match named {
        Named::Short => format!("switch `{}'", opt.short.unwrap_or('?')),
        Named::Long => format!("option `{}'", opt.long),
        Named::Negated => format!("option `no-{}'", opt.long),
    }
}

/// Lossy text of bytes, for messages.
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The parser's state: the arguments, the next one, what has been found.
struct Parser {
    command: &'static Command,
    args: Vec<OsString>,
    next: usize,
    matches: Matches,
    disallow_abbreviations: bool,
}

/// Parses `args` (the arguments after the command's name) by git's rules.
pub fn parse(command: &'static Command, args: Vec<OsString>) -> Result<Matches, CliError> {
    let wrap = |stop| CliError {
        command,
        kind: CliErrorKind::Git(stop),
    };
    let mut matches = Matches::new(command);
    // flagsplit's help, where `git COMMAND --help` opens the manual (without parsing options).
    if args.first().is_some_and(|a| a == "--help") {
        matches.options.push(("help", None));
        return Ok(matches);
    }
    let disallow_abbreviations =
        env_bool("GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS").map_err(|e| wrap(Stop::Fatal(e)))?;
    let mut p = Parser {
        command,
        args,
        next: 0,
        matches,
        disallow_abbreviations,
    };
    p.run().map_err(wrap)?;
    Ok(p.matches)
}

/// `git_env_bool`: unset is false; `true`, `yes`, `on` (any case) or a non-zero integer is true;
/// empty, `false`, `no`, `off` or zero is false; anything else is git's fatal error.
fn env_bool(name: &str) -> Result<bool, String> {
    let Some(value) = std::env::var_os(name) else {
        return Ok(false);
    };
    let v = value.to_string_lossy().to_ascii_lowercase();
    match v.as_str() {
        "" | "false" | "no" | "off" => Ok(false),
        "true" | "yes" | "on" => Ok(true),
        other => match other.parse::<i64>() {
            Ok(n) => Ok(n != 0),
            Err(_) => Err(format!(
                "bad boolean environment value '{}' for '{name}'",
                value.to_string_lossy()
            )),
        },
    }
}

impl Parser {
    fn options(&self) -> impl Iterator<Item = &'static Opt> + '_ {
        self.command.options.iter()
    }

    fn run(&mut self) -> Result<(), Stop> {
        let total = self.args.len();
        while self.next < self.args.len() {
            let arg = self.args[self.next].as_bytes().to_vec();
            self.next += 1;
            if arg.first() != Some(&b'-') || arg.len() == 1 {
                self.matches.operands.push(OsString::from_vec(arg));
                continue;
            }
            if total == 1 {
                match arg.as_slice() {
                    b"-h" => return Err(Stop::Usage),
                    b"--git-completion-helper" => return Err(Stop::Completion(self.completion())),
                    b"--git-completion-helper-all" => {
                        return Err(Stop::Completion(self.completion()));
                    }
                    _ => {}
                }
            }
            if arg[1] != b'-' {
                self.short_cluster(&arg[1..], &arg)?;
                continue;
            }
            match &arg[2..] {
                b"" | b"end-of-options" => {
                    let rest = self.args.split_off(self.next);
                    self.matches.operands.extend(rest);
                    break;
                }
                b"help-all" | b"help" => return Err(Stop::Usage),
                body => self.long(body)?,
            }
        }
        Ok(())
    }

    /// `-abc`: `body` is what follows the dash.
    fn short_cluster(&mut self, body: &[u8], arg: &[u8]) -> Result<(), Stop> {
        let mut pos = 0;
        while pos < body.len() {
            let c = body[pos];
            let found = self
                .options()
                .find(|o| o.short.is_some_and(|s| u32::from(s) == u32::from(c)));
            let Some(opt) = found else {
                if pos == 0 {
                    self.check_typos(body)?;
                }
                if c == b'h' {
                    return Err(Stop::Usage);
                }
                // git reports a later letter of a bundle as if it began an argument of its own:
                // a `-` there makes it a long option (`-w-x`: unknown option `x').
                let message = if pos > 0 && c == b'-' {
                    format!("unknown option `{}'", text(&body[pos + 1..]))
                } else if c.is_ascii() {
                    format!("unknown switch `{}'", c as char)
                } else if pos == 0 {
                    format!("unknown non-ascii option in string: `{}'", text(arg))
                } else {
                    format!(
                        "unknown non-ascii option in string: `-{}'",
                        text(&body[pos..])
                    )
                };
                return Err(Stop::error(message, Usage::Stderr));
            };
            // A bundle that git would take for a long option with one dash (`-curl`) is that
            // typo, even where flagsplit's own short option begins it (`-c`).
            if pos == 0 && opt.extension {
                self.check_typos(body)?;
            }
            pos += 1;
            if opt.value.is_some() {
                let value = if pos < body.len() {
                    OsString::from_vec(body[pos..].to_vec())
                } else {
                    self.next_value(opt, Named::Short)?
                };
                self.matches.options.push((opt.long, Some(value)));
                return Ok(());
            }
            self.matches.options.push((opt.long, None));
            if pos == 1 && pos < body.len() {
                self.check_typos(body)?;
            }
        }
        Ok(())
    }

    /// `-stdin` for `--stdin`: git's guess, from three letters on, when the word after one dash
    /// starts the name of one of git's long options or starts with `no-`.
    fn check_typos(&self, word: &[u8]) -> Result<(), Stop> {
        if word.len() < 3 {
            return Ok(());
        }
        let typo = word.starts_with(b"no-")
            || self
                .options()
                .filter(|o| !o.extension)
                .filter_map(|o| o.long_name())
                .any(|long| long.as_bytes().starts_with(word));
        if typo {
            return Err(Stop::error(
                format!("did you mean `--{}` (with two dashes)?", text(word)),
                Usage::None,
            ));
        }
        Ok(())
    }

    /// The value of an option given without one attached: the next argument.
    fn next_value(&mut self, opt: &Opt, named: Named) -> Result<OsString, Stop> {
        match self.args.get(self.next) {
            Some(v) => {
                self.next += 1;
                Ok(v.clone())
            }
            None => Err(Stop::error(
                format!("{} requires a value", optname(opt, named)),
                Usage::None,
            )),
        }
    }

    /// `--body`.
    fn long(&mut self, body: &[u8]) -> Result<(), Stop> {
        let end = body.iter().position(|&b| b == b'=').unwrap_or(body.len());
        let (negated, no_no, start) = match body.strip_prefix(b"no-") {
            Some(rest) if rest.starts_with(b"no-") => (false, true, 6),
            Some(_) => (true, false, 3),
            None => (false, false, 0),
        };
        let word = &body[start..];
        // An exact name wins wherever it is in the table (git returns at the first one).
        for opt in self.command.options {
            let Some((name, opt_negated)) = candidate(opt, negated, no_no) else {
                continue;
            };
            if let Some(rest) = word.strip_prefix(name) {
                let value = match rest.split_first() {
                    None => None,
                    Some((b'=', v)) => Some(OsString::from_vec(v.to_vec())),
                    Some(_) => continue,
                };
                return self.apply(opt, negated != opt_negated, value);
            }
        }
        let prefix = &word[..end - start];
        let registered = |extensions: bool| {
            let mut abbrev: Option<(&'static Opt, bool)> = None;
            let mut ambiguous: Option<(&'static Opt, bool)> = None;
            let mut register = |opt, unset| {
                if abbrev.is_some() {
                    ambiguous = abbrev;
                }
                abbrev = Some((opt, unset));
            };
            for opt in self
                .command
                .options
                .iter()
                .filter(|o| o.extension == extensions)
            {
                let Some((name, opt_negated)) = candidate(opt, negated, no_no) else {
                    continue;
                };
                if name.starts_with(prefix) {
                    register(opt, negated != opt_negated);
                }
                // `--n`, `--no` and `--no-` abbreviate every option's `--no-` form too.
                if negatable(opt) && b"no-".starts_with(body) {
                    register(opt, !opt_negated);
                }
            }
            (abbrev, ambiguous)
        };
        let (mut abbrev, mut ambiguous) = registered(false);
        if abbrev.is_none() {
            (abbrev, ambiguous) = registered(true);
        }
        if self.disallow_abbreviations && abbrev.is_some() {
            return Err(Stop::Fatal(format!(
                "disallowed abbreviated or ambiguous option '{}'",
                text(&body[..end])
            )));
        }
        if let (Some((a, a_unset)), Some((b, b_unset))) = (ambiguous, abbrev) {
            let no = |unset: bool| if unset { "no-" } else { "" };
            return Err(Stop::error(
                format!(
                    "ambiguous option: {} (could be --{}{} or --{}{})",
                    text(body),
                    no(a_unset),
                    a.long,
                    no(b_unset),
                    b.long
                ),
                Usage::Stdout,
            ));
        }
        match abbrev {
            Some((opt, unset)) => {
                let value =
                    (end < body.len()).then(|| OsString::from_vec(body[end + 1..].to_vec()));
                self.apply(opt, unset, value)
            }
            None => Err(Stop::error(
                format!("unknown option `{}'", text(body)),
                Usage::Stderr,
            )),
        }
    }

    /// Records `opt`, given in a long form (`unset` for a form that undoes it), with the value
    /// attached to it (`=value`), if any.
    fn apply(
        &mut self,
        opt: &'static Opt,
        unset: bool,
        value: Option<OsString>,
    ) -> Result<(), Stop> {
        let named = if unset { Named::Negated } else { Named::Long };
        if value.is_some() && (unset || opt.value.is_none()) {
            return Err(Stop::error(
                format!("{} takes no value", optname(opt, named)),
                Usage::None,
            ));
        }
        if unset {
            self.matches.negated.push(self.matches.options.len());
            self.matches.options.push((opt.long, None));
            return Ok(());
        }
        let value = match (opt.value, value) {
            (None, _) => None,
            (Some(_), Some(v)) => Some(v),
            (Some(_), None) => Some(self.next_value(opt, named)?),
        };
        self.matches.options.push((opt.long, value));
        Ok(())
    }

    /// What `--git-completion-helper` prints: the long options (`=` after those that take a
    /// value), then the negated forms, as git lists them.
    fn completion(&self) -> String {
        let longs: Vec<&'static Opt> = self.options().filter(|o| o.long_name().is_some()).collect();
        let mut words: Vec<String> = longs
            .iter()
            .map(|o| format!("--{}{}", o.long, if o.value.is_some() { "=" } else { "" }))
            .collect();
        let mut no_options = longs.iter().filter(|o| o.long.starts_with("no-")).count();
        for o in longs.iter().filter(|o| negatable(o)) {
            if let Some(positive) = o.long.strip_prefix("no-") {
                words.push(format!("--{positive}"));
            }
        }
        let mut dashdash = false;
        for o in longs
            .iter()
            .filter(|o| negatable(o) && !o.long.starts_with("no-"))
        {
            if no_options > 0 && !dashdash {
                words.push("--".into());
                dashdash = true;
            }
            words.push(format!("--no-{}", o.long));
            no_options += 1;
        }
        format!("{}\n", words.join(" "))
    }
}

/// Whether an option has a `--no-` form: every long option of a git-compatible command does.
fn negatable(opt: &Opt) -> bool {
    opt.long_name().is_some()
}

/// The name an argument is matched against, without a leading `no-`, and whether it had one; or
/// `None` when `opt` cannot be what the argument names: it has no long form, the argument is
/// `--no-no-...` and the name does not start with `no-`.
fn candidate(opt: &Opt, negated: bool, no_no: bool) -> Option<(&'static [u8], bool)> {
    let long = opt.long_name()?;
    let (name, opt_negated) = match long.strip_prefix("no-") {
        Some(rest) => (rest, true),
        None if no_no => return None,
        None => (long, false),
    };
    if negated != opt_negated && !negatable(opt) {
        return None;
    }
    Some((name.as_bytes(), opt_negated))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Conventions, Operands};

    /// git hash-object's options, in git's order, and one flagsplit extension.
    static OPTS: [Opt; 8] = [
        Opt::with_value(Some('t'), "type", "TYPE", "type").without_long(),
        Opt::flag(Some('w'), "write", "write").without_long(),
        Opt::flag(None, "stdin", "stdin"),
        Opt::flag(None, "stdin-paths", "stdin-paths"),
        Opt::flag(None, "no-filters", "no-filters"),
        Opt::flag(None, "literally", "literally"),
        Opt::with_value(None, "path", "FILE", "path"),
        Opt::flag(None, "no-collision-detection", "ext").flagsplit_extension(),
    ];
    static CMD: Command = Command {
        name: "hash-object",
        about: "test",
        usage: "[OPTION]... [FILE]...",
        preamble: "",
        options: &OPTS,
        epilogue: "",
        operands: Some(Operands::files("FILE")),
        hidden: false,
        conventions: Conventions::Git,
    };

    fn parse(args: &[&str]) -> Result<Matches, Stop> {
        CMD.parse(args.iter().copied()).map_err(|e| match e.kind {
            CliErrorKind::Git(stop) => stop,
            other => panic!("not git's: {other}"),
        })
    }

    fn error(args: &[&str]) -> String {
        match parse(args) {
            Err(Stop::Error { message, .. }) => message,
            Err(Stop::Fatal(message)) => format!("fatal: {message}"),
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn negation_and_abbreviation() {
        let m = parse(&["--stdin", "--no-stdin", "--stdin", "--li", "x"]).unwrap();
        assert_eq!(m.count("stdin"), 1);
        assert!(m.flag("literally"));
        let m = parse(&["--no-filters", "--filters", "--no-no-f", "--no-path"]).unwrap();
        assert!(!m.flag("no-filters"));
        assert_eq!(m.value("path"), None);
        let m = parse(&["--pa=a", "--path", "b", "-wtblob", "--no-c"]).unwrap();
        assert_eq!(m.value("path").unwrap(), "b");
        assert_eq!(m.value("type").unwrap(), "blob");
        assert!(m.flag("write") && m.flag("no-collision-detection"));
        let m = parse(&["a", "--", "--stdin"]).unwrap();
        assert_eq!(m.operands, ["a", "--stdin"]);
        assert!(!m.flag("stdin"));
    }

    #[test]
    fn gits_messages() {
        for (args, want) in [
            (
                &["--std"][..],
                "ambiguous option: std (could be --stdin or --stdin-paths)",
            ),
            (
                &["--no-std"],
                "ambiguous option: no-std (could be --no-stdin or --no-stdin-paths)",
            ),
            (
                &["--no"],
                "ambiguous option: no (could be --no-literally or --no-path)",
            ),
            (
                &["--no-"],
                "ambiguous option: no- (could be --no-path or --no-path)",
            ),
            (&["--type=blob"], "unknown option `type=blob'"),
            (&["--no-no-stdin"], "unknown option `no-no-stdin'"),
            (&["--filters=1"], "option `no-no-filters' takes no value"),
            (&["--stdin=1"], "option `stdin' takes no value"),
            (&["--path"], "option `path' requires a value"),
            (&["-t"], "switch `t' requires a value"),
            (&["-x"], "unknown switch `x'"),
            (&["-wx"], "unknown switch `x'"),
            (&["-w-x"], "unknown option `x'"),
            (&["-é"], "unknown non-ascii option in string: `-é'"),
            (&["-stdin"], "did you mean `--stdin` (with two dashes)?"),
            (
                &["-no-filters"],
                "did you mean `--no-filters` (with two dashes)?",
            ),
        ] {
            assert_eq!(error(args), want, "{args:?}");
        }
        assert_eq!(parse(&["-h"]).unwrap_err(), Stop::Usage);
        assert_eq!(parse(&["--stdin", "-wh"]).unwrap_err(), Stop::Usage);
        assert_eq!(parse(&["--stdin", "--help"]).unwrap_err(), Stop::Usage);
        assert!(parse(&["--help", "--bogus"]).unwrap().flag("help"));
    }

    #[test]
    fn completion_line_is_gits() {
        let Err(Stop::Completion(line)) = parse(&["--git-completion-helper"]) else {
            panic!()
        };
        assert_eq!(
            line,
            "--stdin --stdin-paths --no-filters --literally --path= --no-collision-detection \
             --filters --collision-detection -- --no-stdin --no-stdin-paths --no-literally \
             --no-path\n"
        );
    }
}
