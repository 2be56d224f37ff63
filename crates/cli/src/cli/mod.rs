//! The command-line definitions: one static table per program, from which the parser, `--help`,
//! the error messages and (at package time) man pages and shell completions are all produced.
//!
//! Why not clap: `flagsplit sha1sum /dev/null` is meant to start no slower than
//! `git hash-object /dev/null` (about 410 K instructions under callgrind); a clap-derive CLI of
//! this shape measured about 487 K, this table plus `lexopt` about 313 K. The table is plain data,
//! so a packaging tool can still turn it into a `clap::Command` for `clap_mangen` and
//! `clap_complete` without the shipped binaries linking clap.
//!
//! Parsing follows GNU `getopt_long`, as coreutils does: options and operands may be mixed, `--`
//! ends options, short options bundle (`-bc`), long options take `--name=value` or
//! `--name value` and may be abbreviated to any unambiguous prefix. A command that follows
//! coreutils' conventions ([`Conventions::Coreutils`]) has `--help` and `--version` but no `-h`,
//! and, as `getopt_long` does, stops taking options at the first operand when `POSIXLY_CORRECT` is
//! set. A command that follows git's conventions ([`Conventions::Git`]) is parsed by git's rules
//! instead ([`git`]): `--no-` forms, git's abbreviation and ambiguity rules, git's messages and
//! exit status 129.

pub mod flagsplit;
pub mod git;
pub mod imap_send;

use std::ffi::{OsStr, OsString};
use std::fmt::{self, Write as _};

/// One option.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// Long name without `--`.
    pub long: &'static str,
    /// Short name without `-`.
    pub short: Option<char>,
    /// The value's name in help, for an option that takes one.
    pub value: Option<&'static str>,
    /// One-line help (may contain `\n` for continuation lines).
    pub help: &'static str,
    /// Help section: options sharing a section are listed under its heading.
    pub section: Option<&'static str>,
    /// Only `-short` is accepted and shown: `long` is the option's key in [`Matches`] and its id
    /// in man pages and completions, not something a user may type (git's `-t` and `-w` of
    /// `hash-object` have no long form).
    pub short_only: bool,
    /// In a [`Conventions::Git`] command: flagsplit's own option, which git's command does not
    /// have. An abbreviation is matched against these only when it matches none of git's own
    /// options, so that every spelling git accepts or refuses means the same here.
    pub extension: bool,
}

impl Opt {
    /// A flag without a value.
    pub const fn flag(short: Option<char>, long: &'static str, help: &'static str) -> Opt {
        Opt {
            long,
            short,
            value: None,
            help,
            section: None,
            short_only: false,
            extension: false,
        }
    }

    /// An option taking a value.
    pub const fn with_value(
        short: Option<char>,
        long: &'static str,
        value: &'static str,
        help: &'static str,
    ) -> Opt {
        Opt {
            long,
            short,
            value: Some(value),
            help,
            section: None,
            short_only: false,
            extension: false,
        }
    }

    /// The same option listed under a section heading.
    pub const fn in_section(self, section: &'static str) -> Opt {
        Opt {
            section: Some(section),
            ..self
        }
    }

    /// The same option with no long form ([`Opt::short_only`]); it must have a short name.
    pub const fn without_long(self) -> Opt {
        Opt {
            short_only: true,
            ..self
        }
    }

    /// The same option marked as flagsplit's own in a git-compatible command ([`Opt::extension`]).
    pub const fn flagsplit_extension(self) -> Opt {
        Opt {
            extension: true,
            ..self
        }
    }

    /// The long name a user may type, if any.
    pub fn long_name(&self) -> Option<&'static str> {
        (!self.short_only).then_some(self.long)
    }
}

/// The `--help` option every command has.
pub const HELP: Opt = Opt::flag(Some('h'), "help", "display this help and exit");

/// The options every coreutils-style command has in place of [`HELP`] (coreutils' wording).
pub static COREUTILS_OPTIONS: [Opt; 2] = [
    Opt::flag(None, "help", "display this help and exit"),
    Opt::flag(None, "version", "output version information and exit"),
];

/// Whose command-line conventions a command follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conventions {
    /// flagsplit's (and git's): `-h`/`--help`; options and operands mix freely.
    Flagsplit,
    /// GNU coreutils': `--help` and `--version`, no `-h`; with `POSIXLY_CORRECT` in the
    /// environment the first operand ends the options (everything after it, `--` included, is an
    /// operand).
    Coreutils,
    /// git's `parse-options`, for a command compatible with one of git's: every long option has a
    /// `--no-` form that undoes it, abbreviations and ambiguity as git resolves them, `--` and
    /// `--end-of-options`, `-h` (usage on standard output), git's messages, and exit status 129
    /// for every usage error (see [`git`]). `--help` as the first argument prints the help and
    /// exits 0 (where git would open the manual).
    Git,
}

/// The options a [`Program`] takes in place of a command (`flagsplit --help`, `flagsplit
/// --version`).
pub static PROGRAM_OPTIONS: [Opt; 2] = [
    HELP,
    Opt::flag(Some('V'), "version", "print the version and exit"),
];

/// flagsplit's version, which every program prints: this crate's, which is the workspace's and so
/// the root package's (the two share it in the workspace's `Cargo.toml`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a [`Program`]'s usage line shows after its name.
pub const PROGRAM_USAGE: &str = "COMMAND [ARGS]...";

/// A command's operands: its arguments that are not options.
#[derive(Clone, Copy, Debug)]
pub struct Operands {
    /// Their name in man pages and completions (`FILE`), as the usage line writes it.
    pub name: &'static str,
    /// Whether the command takes several (`[FILE]...`). Documentation only: the parser collects
    /// every operand, and the command decides what too many means.
    pub many: bool,
    /// What they are, for shell completion.
    pub kind: OperandKind,
}

/// What a command's operands are (for shell completion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// File names.
    Path,
    /// The name of another command of the same program.
    Command,
    /// One of these words.
    Words(&'static [&'static str]),
}

impl Operands {
    /// Any number of file names.
    pub const fn files(name: &'static str) -> Operands {
        Operands {
            name,
            many: true,
            kind: OperandKind::Path,
        }
    }

    /// At most one operand of `kind`.
    pub const fn one(name: &'static str, kind: OperandKind) -> Operands {
        Operands {
            name,
            many: false,
            kind,
        }
    }
}

/// One command (`flagsplit sha1sum`).
#[derive(Clone, Copy, Debug)]
pub struct Command {
    /// Name as typed.
    pub name: &'static str,
    /// One-line summary.
    pub about: &'static str,
    /// What follows the command name in the usage line.
    pub usage: &'static str,
    /// Text printed between the usage line and the options.
    pub preamble: &'static str,
    /// Options, in help order (`--help` is added automatically).
    pub options: &'static [Opt],
    /// Text printed after the options.
    pub epilogue: &'static str,
    /// The operands the command takes, if any (an operand is refused otherwise).
    pub operands: Option<Operands>,
    /// Hidden from the command list (still accepted).
    pub hidden: bool,
    /// Whose conventions it follows (`-h`, `--version`, `POSIXLY_CORRECT`).
    pub conventions: Conventions,
}

/// A program: its name and commands.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// Executable name.
    pub name: &'static str,
    /// One-line summary.
    pub about: &'static str,
    /// Commands.
    pub commands: &'static [Command],
    /// Text after the command list.
    pub epilogue: &'static str,
}

impl Program {
    /// The options the program takes in place of a command: [`PROGRAM_OPTIONS`].
    pub fn options(&self) -> &'static [Opt] {
        &PROGRAM_OPTIONS
    }

    /// Looks a command up by its exact name.
    pub fn command(&self, name: &str) -> Option<&'static Command> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The program's own `--help`.
    pub fn help(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Usage: {} {PROGRAM_USAGE}", self.name);
        let _ = writeln!(s, "{}\n\nCommands:", self.about);
        let width = self
            .commands
            .iter()
            .map(|c| c.name.len())
            .max()
            .unwrap_or(0);
        for c in self.commands.iter().filter(|c| !c.hidden) {
            let _ = writeln!(s, "  {:width$}  {}", c.name, c.about);
        }
        let _ = writeln!(
            s,
            "\n'{} COMMAND --help' describes one command; '{} --version' prints the version.",
            self.name, self.name
        );
        if !self.epilogue.is_empty() {
            let _ = writeln!(s, "\n{}", self.epilogue);
        }
        s
    }
}

impl Command {
    /// Every option including `--help` (and `--version` for [`Conventions::Coreutils`]).
    pub fn all_options(&self) -> impl Iterator<Item = &Opt> {
        let common: &'static [Opt] = match self.conventions {
            Conventions::Flagsplit | Conventions::Git => std::slice::from_ref(&HELP),
            Conventions::Coreutils => &COREUTILS_OPTIONS,
        };
        self.options.iter().chain(common)
    }

    /// The command's `--help`, in coreutils' layout.
    pub fn help(&self, program: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Usage: {program} {} {}", self.name, self.usage);
        let _ = writeln!(s, "{}", self.about);
        if !self.preamble.is_empty() {
            let _ = writeln!(s, "\n{}", self.preamble);
        }
        let mut section = None;
        let mut first = true;
        for opt in self.all_options() {
            if first || opt.section != section {
                section = opt.section;
                match section {
                    Some(heading) => {
                        let _ = writeln!(s, "\n{heading}");
                    }
                    None if first => s.push('\n'),
                    None => s.push('\n'),
                }
            }
            first = false;
            let mut left = match (opt.short, opt.long_name()) {
                (Some(c), None) => format!("  -{c}"),
                (Some(c), Some(long)) => format!("  -{c}, --{long}"),
                (None, long) => format!("      --{}", long.unwrap_or(opt.long)),
            };
            if let Some(v) = opt.value {
                let sep = if opt.long_name().is_some() { '=' } else { ' ' };
                let _ = write!(left, "{sep}{v}");
            }
            let mut lines = opt.help.lines();
            let head = lines.next().unwrap_or("");
            if left.len() < 28 {
                let _ = writeln!(s, "{left:28}{head}");
            } else {
                let _ = writeln!(s, "{left}\n{:28}{head}", "");
            }
            for more in lines {
                let _ = writeln!(s, "{:30}{more}", "");
            }
        }
        if !self.epilogue.is_empty() {
            let _ = writeln!(s, "\n{}", self.epilogue);
        }
        s
    }

    /// Parses the arguments after the command name.
    pub fn parse<I>(&'static self, args: I) -> Result<Matches, CliError>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        use lexopt::Arg;
        if self.conventions == Conventions::Git {
            return git::parse(self, args.into_iter().map(Into::into).collect());
        }
        let posix_order = self.conventions == Conventions::Coreutils
            && std::env::var_os("POSIXLY_CORRECT").is_some();
        let mut parser = lexopt::Parser::from_args(args);
        let mut m = Matches::new(self);
        loop {
            let arg = match parser.next() {
                Ok(Some(arg)) => arg,
                Ok(None) => break,
                Err(e) => return Err(self.error(CliErrorKind::Other(e.to_string()))),
            };
            let long = matches!(arg, Arg::Long(_));
            let opt = match arg {
                Arg::Value(v) => {
                    if self.operands.is_none() {
                        return Err(self
                            .error(CliErrorKind::ExtraOperand(v.to_string_lossy().into_owned())));
                    }
                    m.operands.push(v);
                    if posix_order {
                        // Nothing is pending after an operand, so the rest is available raw.
                        if let Ok(rest) = parser.raw_args() {
                            m.operands.extend(rest);
                        }
                        break;
                    }
                    continue;
                }
                Arg::Short(c) => match self.all_options().find(|o| o.short == Some(c)) {
                    Some(o) => o,
                    None => return Err(self.error(CliErrorKind::InvalidShort(c))),
                },
                Arg::Long(name) => self.find_long(name)?,
            };
            let value = if opt.value.is_some() {
                match parser.value() {
                    Ok(v) => Some(v),
                    Err(_) => return Err(self.error(CliErrorKind::MissingValue(*opt, long))),
                }
            } else {
                // Only `--flag=value` can carry a value; after a short flag the rest of the
                // bundle is more flags (`-bc`).
                if let Some(v) = long.then(|| parser.optional_value()).flatten() {
                    return Err(self.error(CliErrorKind::UnexpectedValue(
                        *opt,
                        v.to_string_lossy().into_owned(),
                    )));
                }
                None
            };
            m.options.push((opt.long, value));
        }
        Ok(m)
    }

    fn find_long(&'static self, name: &str) -> Result<&'static Opt, CliError> {
        if let Some(exact) = self.all_options().find(|o| o.long == name) {
            return Ok(exact);
        }
        let candidates: Vec<&Opt> = self
            .all_options()
            .filter(|o| o.long.starts_with(name))
            .collect();
        match candidates.as_slice() {
            [one] => Ok(one),
            [] => Err(self.error(CliErrorKind::UnknownLong(name.to_string()))),
            many => Err(self.error(CliErrorKind::Ambiguous(
                name.to_string(),
                many.iter().map(|o| o.long).collect(),
            ))),
        }
    }

    fn error(&'static self, kind: CliErrorKind) -> CliError {
        CliError {
            command: self,
            kind,
        }
    }
}

/// What the parser found.
#[derive(Debug)]
pub struct Matches {
    /// The command parsed.
    pub command: &'static Command,
    /// Options in command-line order, by long name, with their values. Under
    /// [`Conventions::Git`] a negation (`--no-stdin`) is an entry too, without a value, whose
    /// index is in `negated`.
    pub options: Vec<(&'static str, Option<OsString>)>,
    /// The indices in `options` of negations: each undoes what came before it of the same
    /// option (git's `--no-` forms reset an option to its default).
    pub negated: Vec<usize>,
    /// Operands in order.
    pub operands: Vec<OsString>,
}

impl Matches {
    fn new(command: &'static Command) -> Matches {
        Matches {
            command,
            options: Vec::new(),
            negated: Vec::new(),
            operands: Vec::new(),
        }
    }

    /// Where the entries of `long` that still count begin: after its last negation.
    fn live_from(&self, long: &str) -> usize {
        self.negated
            .iter()
            .rev()
            .find(|&&i| self.options[i].0 == long)
            .map_or(0, |&i| i + 1)
    }

    /// The values of the entries of `long` that still count.
    fn live<'a>(&'a self, long: &'a str) -> impl DoubleEndedIterator<Item = &'a Option<OsString>> {
        self.options[self.live_from(long)..]
            .iter()
            .filter(move |(l, _)| *l == long)
            .map(|(_, v)| v)
    }

    /// Whether `long` was given (and not undone by its `--no-` form since).
    pub fn flag(&self, long: &str) -> bool {
        self.live(long).next().is_some()
    }

    /// How many times `long` was given (since its last negation).
    pub fn count(&self, long: &str) -> usize {
        self.live(long).count()
    }

    /// The last value given for `long` (none if negated since).
    pub fn value(&self, long: &str) -> Option<&OsStr> {
        self.options[self.live_from(long)..]
            .iter()
            .rev()
            .find(|(l, _)| *l == long)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value given for `long`, in order (since its last negation).
    pub fn values<'a>(&'a self, long: &'a str) -> impl Iterator<Item = &'a OsStr> {
        self.live(long).filter_map(|v| v.as_deref())
    }

    /// Which of `longs` was given last (for mutually overriding flags like `-b`/`-t`).
    pub fn last_of(&self, longs: &[&str]) -> Option<&'static str> {
        self.options
            .iter()
            .enumerate()
            .rev()
            .find(|(i, (l, _))| longs.contains(l) && !self.negated.contains(i))
            .map(|(_, (l, _))| *l)
    }

    /// The options in command-line order, each with whether it was given (`true`) or negated
    /// (`false`): for options that share one setting, as git's `-v`, `-q`, `--no-verbose` and
    /// `--no-quiet` share its verbosity.
    pub fn events(&self) -> impl Iterator<Item = (&'static str, bool)> + '_ {
        self.options
            .iter()
            .enumerate()
            .map(|(i, (l, _))| (*l, !self.negated.contains(&i)))
    }
}

/// A usage error.
#[derive(Debug)]
pub struct CliError {
    /// The command being parsed.
    pub command: &'static Command,
    /// What went wrong.
    pub kind: CliErrorKind,
}

/// The kinds of usage error, with getopt's wording.
#[derive(Debug)]
pub enum CliErrorKind {
    /// `-x` unknown.
    InvalidShort(char),
    /// `--xyz` unknown.
    UnknownLong(String),
    /// `--s` matches several.
    Ambiguous(String, Vec<&'static str>),
    /// An option that needs a value got none (`true` when it was given in its long form).
    MissingValue(Opt, bool),
    /// A flag got `=value`.
    UnexpectedValue(Opt, String),
    /// An operand for a command that takes none.
    ExtraOperand(String),
    /// Anything else the tokenizer reported.
    Other(String),
    /// Where git's option parser stops (only under [`Conventions::Git`]).
    Git(git::Stop),
}

impl fmt::Display for CliErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliErrorKind::InvalidShort(c) => write!(f, "invalid option -- '{c}'"),
            CliErrorKind::UnknownLong(name) => write!(f, "unrecognized option '--{name}'"),
            CliErrorKind::Ambiguous(name, candidates) => {
                write!(f, "option '--{name}' is ambiguous; possibilities:")?;
                for c in candidates {
                    write!(f, " '--{c}'")?;
                }
                Ok(())
            }
            CliErrorKind::MissingValue(opt, long) => match opt.short {
                Some(c) if !long => write!(f, "option requires an argument -- '{c}'"),
                _ => write!(f, "option '--{}' requires an argument", opt.long),
            },
            CliErrorKind::UnexpectedValue(opt, _) => {
                write!(f, "option '--{}' doesn't allow an argument", opt.long)
            }
            CliErrorKind::ExtraOperand(v) => write!(f, "extra operand '{v}'"),
            CliErrorKind::Other(text) => f.write_str(text),
            CliErrorKind::Git(stop) => fmt::Display::fmt(stop, f),
        }
    }
}

impl CliError {
    /// Prints what the error calls for where it belongs and returns the exit status: under
    /// [`Conventions::Git`] as git's option parser does ([`git::Stop::report`]); otherwise
    /// [`CliError::message`] on standard error, and 1.
    pub fn report(&self, program: &str) -> u8 {
        match &self.kind {
            CliErrorKind::Git(stop) => stop.report(program, self.command),
            _ => {
                eprintln!("{}", self.message(program));
                1
            }
        }
    }

    /// The full message: `PROGRAM COMMAND: problem` and the `Try ... --help` line.
    pub fn message(&self, program: &str) -> String {
        format!(
            "{program} {cmd}: {}\nTry '{program} {cmd} --help' for more information.",
            self.kind,
            cmd = self.command.name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static OPTS: [Opt; 4] = [
        Opt::flag(Some('b'), "binary", "binary"),
        Opt::flag(None, "status", "status"),
        Opt::flag(None, "strict", "strict"),
        Opt::with_value(Some('f'), "folder", "NAME", "folder"),
    ];
    static CMD: Command = Command {
        name: "t",
        about: "test",
        usage: "[OPTION]... [FILE]...",
        preamble: "",
        options: &OPTS,
        epilogue: "",
        operands: Some(Operands::files("FILE")),
        hidden: false,
        conventions: Conventions::Flagsplit,
    };

    fn parse(args: &[&str]) -> Result<Matches, String> {
        CMD.parse(args.iter().copied()).map_err(|e| e.message("p"))
    }

    #[test]
    fn gnu_style() {
        let m = parse(&["a", "-b", "--stat", "--folder=x", "-f", "y", "--", "-b"]).unwrap();
        assert!(m.flag("binary") && m.flag("status") && !m.flag("strict"));
        assert_eq!(m.value("folder"), Some(OsStr::new("y")));
        assert_eq!(m.values("folder").count(), 2);
        assert_eq!(m.operands, vec![OsString::from("a"), OsString::from("-b")]);
        let m = parse(&["-bfz", "-"]).unwrap();
        assert_eq!(m.value("folder"), Some(OsStr::new("z")));
        assert_eq!(m.operands, vec![OsString::from("-")]);
    }

    #[test]
    fn getopt_messages() {
        assert_eq!(
            parse(&["--st"]).unwrap_err(),
            "p t: option '--st' is ambiguous; possibilities: '--status' '--strict'\nTry 'p t --help' for more information."
        );
        assert!(
            parse(&["-x"])
                .unwrap_err()
                .starts_with("p t: invalid option -- 'x'\n")
        );
        assert!(
            parse(&["--nope"])
                .unwrap_err()
                .starts_with("p t: unrecognized option '--nope'\n")
        );
        assert!(
            parse(&["--binary=1"])
                .unwrap_err()
                .starts_with("p t: option '--binary' doesn't allow an argument\n")
        );
        assert!(
            parse(&["-f"])
                .unwrap_err()
                .starts_with("p t: option requires an argument -- 'f'\n")
        );
        assert!(
            parse(&["--folder"])
                .unwrap_err()
                .starts_with("p t: option '--folder' requires an argument\n")
        );
    }

    #[test]
    fn usage_lines_name_the_operands() {
        let commands = flagsplit::PROGRAM
            .commands
            .iter()
            .chain(std::iter::once(&imap_send::IMAP_SEND));
        for c in commands {
            if let Some(operands) = c.operands {
                assert!(c.usage.contains(operands.name), "{}: {}", c.name, c.usage);
            }
        }
        let refuses = flagsplit::PROGRAM.command("version").unwrap();
        assert!(matches!(
            refuses.parse(["x"]).unwrap_err().kind,
            CliErrorKind::ExtraOperand(_)
        ));
    }

    #[test]
    fn help_lists_every_option() {
        let help = CMD.help("p");
        for o in CMD.all_options() {
            assert!(help.contains(&format!("--{}", o.long)), "{help}");
        }
        assert!(help.starts_with("Usage: p t [OPTION]... [FILE]...\n"));
    }
}
