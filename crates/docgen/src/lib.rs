//! Man pages and shell completions for flagsplit's two executables, generated at package time from
//! the same static tables (`flagsplit_cli::cli`) that the shipped binaries parse with and print as
//! `--help`, and from the facility table (`flagsplit_spec`).
//!
//! The binaries do not link clap (start-up cost, see `flagsplit_cli::cli`); this crate turns each table
//! into a `clap::Command` ([`program_to_clap`], [`command_to_clap`]) and hands that to
//! `clap_mangen` and `clap_complete`. It is a workspace member that nothing depends on.
//!
//! Output ([`generate`]) is reproducible: the only date in it is the man pages' `.TH` date, taken
//! from `SOURCE_DATE_EPOCH` ([`man_date_from_env`]) and left empty without it; nothing else depends
//! on the time, the machine or the directories involved.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, ValueHint};
use clap_complete::{Generator, Shell};
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};
use flagsplit_cli::cli::{self, Command, OperandKind, Operands, Opt, Program};

/// One shipped executable and the table that defines its arguments.
#[derive(Clone, Copy, Debug)]
pub enum Binary {
    /// A program with commands (`flagsplit sha1sum ...`).
    Program(&'static Program),
    /// An executable that is one command, run under its own name.
    Command {
        /// The executable's name.
        name: &'static str,
        /// Its arguments.
        command: &'static Command,
    },
}

/// The executables the root package installs: `flagsplit`, and `flagsplit-imap-send`, which
/// `flagsplit imap-send` runs (git-style: `flagsplit-<command>`) and whose table is the
/// `imap-send` command's.
pub static BINARIES: [Binary; 2] = [
    Binary::Program(&cli::flagsplit::PROGRAM),
    Binary::Command {
        name: "flagsplit-imap-send",
        command: &cli::imap_send::IMAP_SEND,
    },
];

impl Binary {
    /// The executable's name.
    pub fn name(&self) -> &'static str {
        match self {
            Binary::Program(p) => p.name,
            Binary::Command { name, .. } => name,
        }
    }

    /// The executable's arguments as a `clap::Command`.
    pub fn to_clap(&self) -> clap::Command {
        match self {
            Binary::Program(p) => program_to_clap(p),
            Binary::Command { name, command } => command_to_clap(name, name, command, &[]),
        }
    }
}

/// Errors of the generator.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `SOURCE_DATE_EPOCH` is set but is not a number of seconds.
    #[error(
        "SOURCE_DATE_EPOCH={0:?} is not a whole, non-negative number of seconds since 1970-01-01 UTC"
    )]
    SourceDateEpoch(String),
    /// A page could not be rendered.
    #[error("rendering the man page {page}: {source}")]
    Render {
        /// The page's name.
        page: String,
        /// What failed.
        source: io::Error,
    },
    /// clap_mangen rendered an option section's heading differently from what this crate
    /// rewrites (a clap_mangen change).
    #[error("the man page {page} has no heading for the option section {section:?}")]
    Heading {
        /// The page's name.
        page: String,
        /// The section, as the table writes it.
        section: String,
    },
    /// A file or directory could not be written.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// What was being written.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
}

/// The name positional operands get as a clap id (option ids are their long names, which never
/// contain spaces).
const OPERANDS_ID: &str = "operands list";

/// Help lines continue on further lines in `--help`; clap, roff and the shells fill them.
fn one_line(text: &str) -> String {
    text.lines().collect::<Vec<_>>().join(" ")
}

/// What a shell should complete for an option's value. The tables name values, they do not type
/// them: a value named like a path completes file names, anything else completes nothing.
fn value_hint(value_name: &str) -> ValueHint {
    match value_name {
        "FILE" | "PATH" => ValueHint::FilePath,
        "DIR" | "DIRECTORY" => ValueHint::DirPath,
        _ => ValueHint::Other,
    }
}

/// One option of a table as a clap argument: `Set` with its value name when it takes a value,
/// `SetTrue` otherwise; listed in table order, under its section's heading; with `--long` unless
/// it is [`Opt::short_only`].
pub fn option_to_clap(opt: &Opt, order: usize) -> Arg {
    let mut arg = Arg::new(opt.long)
        .help(one_line(opt.help))
        .display_order(order);
    // An option without a long form (`-t` of hash-object) keeps its key as the id only.
    if let Some(long) = opt.long_name() {
        arg = arg.long(long);
    }
    if let Some(short) = opt.short {
        arg = arg.short(short);
    }
    arg = match opt.value {
        Some(value) => arg
            .action(ArgAction::Set)
            .value_name(value)
            .value_hint(value_hint(value)),
        None => arg.action(ArgAction::SetTrue),
    };
    if let Some(section) = opt.section {
        arg = arg.help_heading(section);
    }
    arg
}

/// A command's operands as a positional argument. `commands` are the names an operand of kind
/// [`OperandKind::Command`] may take.
pub fn operands_to_clap(operands: &Operands, commands: &[&'static str]) -> Arg {
    // zsh shows the help as the operands' description.
    let mut arg = Arg::new(OPERANDS_ID)
        .value_name(operands.name)
        .help(operands.name);
    arg = if operands.many {
        arg.action(ArgAction::Append).num_args(1..)
    } else {
        arg.action(ArgAction::Set)
    };
    match operands.kind {
        OperandKind::Path => arg.value_hint(ValueHint::AnyPath),
        OperandKind::Command => arg.value_parser(PossibleValuesParser::new(commands.to_vec())),
        OperandKind::Words(words) => arg.value_parser(PossibleValuesParser::new(words.to_vec())),
    }
}

/// The usage forms of `command` run as `invocation` (`flagsplit sha1sum`): the table's usage
/// lines, each a whole command line.
fn usage_forms(invocation: &str, command: &Command) -> Vec<String> {
    command
        .usage
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                format!("{invocation} {line}")
            } else {
                let line = line.trim();
                line.strip_prefix("or:").unwrap_or(line).trim().to_string()
            }
        })
        .collect()
}

/// The text of a DESCRIPTION: the summary, then the preamble.
fn description(about: &str, preamble: &str) -> String {
    if preamble.is_empty() {
        about.to_string()
    } else {
        format!("{about}\n\n{preamble}")
    }
}

/// A clap command with the tables' conventions: no clap-made `--help`, `--version` or `help`
/// command (the tables list their own), and, as the runtime parser allows, any option repeated.
fn base(name: &'static str, about: &str, long_about: String) -> clap::Command {
    clap::Command::new(name)
        .about(about.to_string())
        .long_about(long_about)
        .version(cli::VERSION)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .disable_help_subcommand(true)
        .args_override_self(true)
}

/// One command of a table as a clap command named `name`, run as `invocation` (`flagsplit
/// sha1sum`, or `flagsplit-imap-send` for the standalone executable). `commands` are the names
/// the program's `help COMMAND` accepts.
pub fn command_to_clap(
    name: &'static str,
    invocation: &str,
    command: &Command,
    commands: &[&'static str],
) -> clap::Command {
    let mut cmd = base(
        name,
        command.about,
        description(command.about, command.preamble),
    )
    .override_usage(usage_forms(invocation, command).join("\n"))
    .hide(command.hidden)
    .args(
        command
            .all_options()
            .enumerate()
            .map(|(i, opt)| option_to_clap(opt, i)),
    );
    if let Some(operands) = &command.operands {
        cmd = cmd.arg(operands_to_clap(operands, commands));
    }
    if !command.epilogue.is_empty() {
        cmd = cmd.after_help(command.epilogue);
    }
    cmd
}

/// A program and its commands as a clap command with subcommands.
pub fn program_to_clap(program: &Program) -> clap::Command {
    let commands: Vec<&'static str> = program
        .commands
        .iter()
        .filter(|c| !c.hidden)
        .map(|c| c.name)
        .collect();
    let mut cmd = base(program.name, program.about, program.about.to_string())
        .bin_name(program.name)
        .override_usage(format!("{} {}", program.name, cli::PROGRAM_USAGE))
        .subcommand_required(true)
        .subcommand_value_name("COMMAND")
        .subcommand_help_heading("COMMANDS")
        .args(
            program
                .options()
                .iter()
                .enumerate()
                .map(|(i, opt)| option_to_clap(opt, i)),
        );
    if !program.epilogue.is_empty() {
        cmd = cmd.after_help(program.epilogue);
    }
    for (i, c) in program.commands.iter().enumerate() {
        let invocation = format!("{} {}", program.name, c.name);
        cmd = cmd.subcommand(command_to_clap(c.name, &invocation, c, &commands).display_order(i));
    }
    cmd
}

/// A rendered man page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The page's name (`flagsplit-sha1sum`); its file is `NAME.1`.
    pub name: String,
    /// The roff source.
    pub roff: String,
}

impl Page {
    /// The page's file name, in section 1.
    pub fn file_name(&self) -> String {
        format!("{}.1", self.name)
    }
}

/// What a page shows that clap does not hold.
struct PageText<'a> {
    name: String,
    /// Extra SYNOPSIS lines (the standalone executable's form).
    extra_forms: Vec<String>,
    /// The option section headings of the table (rendered as subsections of OPTIONS).
    sections: Vec<&'static str>,
    epilogue: &'a str,
    see_also: Vec<String>,
}

/// `render` into a string without roff's apostrophe preamble, which the page has once, first.
fn section(
    page: &str,
    render: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> Result<String, Error> {
    let mut buf = Vec::new();
    render(&mut buf).map_err(|source| Error::Render {
        page: page.to_string(),
        source,
    })?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let preamble = Roff::new().render();
    Ok(text
        .strip_prefix(&preamble)
        .map(str::to_string)
        .unwrap_or(text))
}

/// The tables' text as roff: lines are filled into paragraphs, a blank line starts a new one.
/// A line that ends in a word and is followed by one that starts with a capital letter ends
/// there (`Typical use: ... | flagsplit imap-send` / `Settings come from ...`): the tables break
/// lines there without a blank line.
fn paragraphs(roff: &mut Roff, text: &str) {
    let mut previous: Option<&str> = None;
    for line in text.lines() {
        if line.trim().is_empty() {
            roff.control("PP", []);
            previous = None;
            continue;
        }
        if let Some(before) = previous
            && before.ends_with(|c: char| c.is_alphanumeric())
            && line.starts_with(|c: char| c.is_uppercase())
        {
            roff.control("br", []);
        }
        roff.text([roman(line)]);
        previous = Some(line);
    }
}

/// Renders one page: clap_mangen's NAME, SYNOPSIS, OPTIONS, COMMANDS and VERSION sections, with
/// the title line, DESCRIPTION (summary and preamble), the option subsections, NOTES (the
/// epilogue) and SEE ALSO written here.
fn render_page(
    mut cmd: clap::Command,
    text: &PageText<'_>,
    date: Option<&str>,
) -> Result<Page, Error> {
    let page = text.name.as_str();
    // The operands are in the SYNOPSIS (the table's usage) and the DESCRIPTION; the table has no
    // help text of their own to list under OPTIONS.
    if cmd.get_arguments().any(|a| a.get_id() == OPERANDS_ID) {
        cmd = cmd.mut_arg(OPERANDS_ID, |a| a.hide(true));
    }
    let description = cmd
        .get_long_about()
        .or_else(|| cmd.get_about())
        .map(|about| about.to_string())
        .unwrap_or_default();
    let has_args = cmd.get_arguments().any(|a| !a.is_hide_set());
    let has_subcommands = cmd.get_subcommands().any(|c| !c.is_hide_set());
    let man = Man::new(cmd);

    let mut out = Roff::new().render();
    // clap_mangen drops an empty date from `.TH`, which shifts the later fields into its place:
    // the title line is written here, with `""` for no date.
    let title = page.to_uppercase().replace('-', "\\-");
    let source = format!("flagsplit {}", cli::VERSION);
    out.push_str(
        &Roff::new()
            .control(
                "TH",
                [
                    title.as_str(),
                    "1",
                    date.unwrap_or("\"\""),
                    source.as_str(),
                    "flagsplit Manual",
                ],
            )
            .to_roff(),
    );
    out.push_str(&section(page, |w| man.render_name_section(w))?);
    let mut synopsis = section(page, |w| man.render_synopsis_section(w))?;
    for form in &text.extra_forms {
        let (name, rest) = form.split_once(' ').unwrap_or((form, ""));
        let mut roff = Roff::new();
        roff.control("br", [])
            .text([bold(name), roman(format!(" {rest}"))]);
        synopsis.push_str(&section(page, |w| roff.to_writer(w))?);
    }
    out.push_str(&synopsis);
    let mut roff = Roff::new();
    roff.control("SH", ["DESCRIPTION"]);
    paragraphs(&mut roff, &description);
    out.push_str(&section(page, |w| roff.to_writer(w))?);
    if has_args {
        let mut options = section(page, |w| man.render_options_section(w))?;
        // clap_mangen makes each help heading a section of its own, upper-cased; in the tables
        // (and `--help`) it introduces a group of the command's options.
        for heading in &text.sections {
            let from = Roff::new()
                .control("SH", [heading.to_uppercase().as_str()])
                .to_roff();
            let to = Roff::new().control("SS", [*heading]).to_roff();
            if !options.contains(&from) {
                return Err(Error::Heading {
                    page: page.to_string(),
                    section: heading.to_string(),
                });
            }
            options = options.replace(&from, &to);
        }
        out.push_str(&options);
    }
    if has_subcommands {
        out.push_str(&section(page, |w| man.render_subcommands_section(w))?);
    }
    let mut tail = Roff::new();
    if !text.epilogue.is_empty() {
        tail.control("SH", ["NOTES"]);
        paragraphs(&mut tail, text.epilogue);
    }
    build_sections(&mut tail, page);
    out.push_str(&section(page, |w| tail.to_writer(w))?);
    out.push_str(&section(page, |w| man.render_version_section(w))?);
    if !text.see_also.is_empty() {
        let mut see = Roff::new();
        see.control("SH", ["SEE ALSO"]);
        let mut line = Vec::new();
        for (i, other) in text.see_also.iter().enumerate() {
            if i > 0 {
                line.push(roman(", "));
            }
            line.push(bold(other.as_str()));
            line.push(roman("(1)"));
        }
        see.text(line);
        out.push_str(&section(page, |w| see.to_writer(w))?);
    }
    Ok(Page {
        name: page.to_string(),
        roff: out,
    })
}

/// For a program's own page: BUILD OPTIONS (the facilities it uses, their providers, the feature that
/// compiles each, what it links, the default — from the facility table that the build resolves) and
/// ENVIRONMENT (the variables it reads when it runs).
fn build_sections(roff: &mut Roff, page: &str) {
    let spec = &flagsplit_spec::SPEC;
    if !spec.binaries.contains(&page) {
        return;
    }
    roff.control("SH", ["BUILD OPTIONS"]);
    paragraphs(
        roff,
        &format!(
            "Each facility's provider is chosen when {page} is built: by the {} variables, the file FLAGSPLIT_CONFIG names, or config.toml at the top of the source tree (config.example.toml documents it), else the default. `{page} {}--build-options` prints what this build chose. This program uses:",
            spec.var_prefix() + "<FACILITY>_PROVIDER",
            if page == "flagsplit" { "version " } else { "" }
        ),
    );
    for facility in spec.facilities.iter().filter(|f| f.used_by.contains(&page)) {
        roff.control("TP", []);
        roff.text([
            bold(facility.name),
            roman(format!(" ({})", spec.env_var(facility))),
        ]);
        let providers: Vec<String> = facility
            .providers
            .iter()
            .map(|p| {
                let mut extra = Vec::new();
                if let Some(feature) = p.feature {
                    extra.push(format!("feature {feature}"));
                }
                if !p.links.is_empty() {
                    extra.push(format!("links {}", p.links.join(" and ")));
                }
                if extra.is_empty() {
                    format!("{}: {}", p.name, p.summary)
                } else {
                    format!("{}: {} ({})", p.name, p.summary, extra.join("; "))
                }
            })
            .collect();
        roff.text([roman(format!(
            "{}. Providers: {}. Default: {}.",
            facility.purpose,
            providers.join("; "),
            facility.default_text(spec.role)
        ))]);
    }
    let run: Vec<&flagsplit_config::Variable> = spec
        .variables
        .iter()
        .chain(spec.foreign_variables)
        .filter(|v| v.when == flagsplit_config::When::Run)
        .collect();
    if !run.is_empty() {
        roff.control("SH", ["ENVIRONMENT"]);
        for v in run {
            roff.control("TP", []);
            roff.text([bold(v.name)]);
            roff.text([roman(format!("{} (default: {}).", v.help, v.default))]);
        }
    }
}

/// The option section headings of a table, in order.
fn sections<'a>(options: impl Iterator<Item = &'a Opt>) -> Vec<&'static str> {
    let mut sections = Vec::new();
    for opt in options {
        if let Some(s) = opt.section
            && !sections.contains(&s)
        {
            sections.push(s);
        }
    }
    sections
}

/// Every man page, by name: `flagsplit.1`, `flagsplit-COMMAND.1` for each command that is not
/// hidden (git-style), and a page for each standalone executable that is not already one of
/// those (`flagsplit-imap-send.1` is the `imap-send` command's page, which also gives the
/// standalone form). `date` is the `.TH` date (`YYYY-MM-DD`), empty when `None`.
pub fn man_pages(date: Option<&str>) -> Result<Vec<Page>, Error> {
    let mut pages: Vec<Page> = Vec::new();
    let standalone = |page: &str| {
        BINARIES.iter().find_map(|b| match b {
            Binary::Command { name, command } if *name == page => Some(*command),
            _ => None,
        })
    };
    for binary in &BINARIES {
        match binary {
            Binary::Program(program) => {
                let mut top = program_to_clap(program);
                top.build();
                for sub in top.get_subcommands().filter(|s| !s.is_hide_set()) {
                    let Some(command) = program.command(sub.get_name()) else {
                        continue;
                    };
                    let name = format!("{}-{}", program.name, command.name);
                    let extra_forms = match standalone(&name) {
                        Some(alone) => usage_forms(&name, alone).into_iter().take(1).collect(),
                        None => Vec::new(),
                    };
                    let text = PageText {
                        extra_forms,
                        sections: sections(command.all_options()),
                        epilogue: command.epilogue,
                        see_also: vec![program.name.to_string()],
                        name,
                    };
                    pages.push(render_page(sub.clone(), &text, date)?);
                }
                let text = PageText {
                    name: program.name.to_string(),
                    extra_forms: Vec::new(),
                    sections: sections(program.options().iter()),
                    epilogue: program.epilogue,
                    see_also: Vec::new(),
                };
                pages.push(render_page(top, &text, date)?);
            }
            Binary::Command { name, command } => {
                if pages.iter().any(|p| p.name == *name) {
                    continue;
                }
                let text = PageText {
                    name: name.to_string(),
                    extra_forms: Vec::new(),
                    sections: sections(command.all_options()),
                    epilogue: command.epilogue,
                    see_also: Vec::new(),
                };
                pages.push(render_page(binary.to_clap(), &text, date)?);
            }
        }
    }
    pages.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(pages)
}

/// The shells completions are generated for: (shell, directory under `completions/`).
pub const SHELLS: [(Shell, &str); 5] = [
    (Shell::Bash, "bash"),
    (Shell::Zsh, "zsh"),
    (Shell::Fish, "fish"),
    (Shell::Elvish, "elvish"),
    (Shell::PowerShell, "powershell"),
];

/// The file name `shell` expects for the completions of `binary`: bash-completion loads
/// `completions/NAME` on first use, zsh's `compinit` autoloads `_NAME` from `$fpath`, fish
/// loads `NAME.fish`.
pub fn completion_file_name(shell: Shell, binary: &str) -> String {
    match shell {
        Shell::Bash => binary.to_string(),
        Shell::Zsh => format!("_{binary}"),
        Shell::Fish => format!("{binary}.fish"),
        Shell::Elvish => format!("{binary}.elv"),
        Shell::PowerShell => format!("_{binary}.ps1"),
        other => other.file_name(binary),
    }
}

/// A generated file: its path under the output directory and its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// Relative path (`man/man1/flagsplit.1`, `completions/bash/flagsplit`).
    pub path: PathBuf,
    /// Content.
    pub content: Vec<u8>,
}

/// Single-quoted for fish.
fn fish_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// What clap_complete's fish script leaves out: the words an operand may be (`flagsplit help
/// COMMAND`, `flagsplit-imap-send version`). Lines for the end of the script, which has defined
/// `__fish_NAME_using_subcommand` for a program by then.
fn fish_operand_words(binary: &Binary) -> String {
    let mut out = String::new();
    let mut add = |name: &str, condition: Option<String>, words: Vec<(&str, &str)>| {
        for (word, about) in words {
            out.push_str(&format!("complete -c {name}"));
            if let Some(condition) = &condition {
                out.push_str(&format!(" -n {}", fish_quote(condition)));
            }
            out.push_str(&format!(" -f -a {}", fish_quote(word)));
            if !about.is_empty() {
                out.push_str(&format!(" -d {}", fish_quote(&one_line(about))));
            }
            out.push('\n');
        }
    };
    let words =
        |command: &Command, program: Option<&Program>| -> Vec<(&'static str, &'static str)> {
            match command.operands.map(|o| o.kind) {
                Some(OperandKind::Words(words)) => words.iter().map(|w| (*w, "")).collect(),
                Some(OperandKind::Command) => program
                    .map(|p| {
                        p.commands
                            .iter()
                            .filter(|c| !c.hidden)
                            .map(|c| (c.name, c.about))
                            .collect()
                    })
                    .unwrap_or_default(),
                Some(OperandKind::Path) | None => Vec::new(),
            }
        };
    match binary {
        Binary::Program(program) => {
            let using = format!("__fish_{}_using_subcommand", program.name.replace('-', "_"));
            for command in program.commands {
                let condition = format!("{using} {}", command.name);
                add(program.name, Some(condition), words(command, Some(program)));
            }
        }
        Binary::Command { name, command } => add(name, None, words(command, None)),
    }
    out
}

/// The completion scripts of every binary for every shell in [`SHELLS`].
pub fn completions() -> Vec<Output> {
    let mut out = Vec::new();
    for binary in &BINARIES {
        let mut cmd = binary.to_clap();
        for (shell, dir) in SHELLS {
            let mut content = Vec::new();
            clap_complete::generate(shell, &mut cmd, binary.name(), &mut content);
            if shell == Shell::Fish {
                content.extend_from_slice(fish_operand_words(binary).as_bytes());
            }
            out.push(Output {
                path: Path::new("completions")
                    .join(dir)
                    .join(completion_file_name(shell, binary.name())),
                content,
            });
        }
    }
    out
}

/// Every file [`generate`] writes, in a stable order.
pub fn outputs(date: Option<&str>) -> Result<Vec<Output>, Error> {
    let mut out: Vec<Output> = man_pages(date)?
        .into_iter()
        .map(|page| Output {
            path: Path::new("man").join("man1").join(page.file_name()),
            content: page.roff.into_bytes(),
        })
        .collect();
    out.extend(completions());
    Ok(out)
}

/// Writes every man page and completion script under `out_dir` (creating it), and returns their
/// paths relative to it. Existing files of the same names are replaced; nothing else is touched.
pub fn generate(out_dir: &Path, date: Option<&str>) -> Result<Vec<PathBuf>, Error> {
    let outputs = outputs(date)?;
    let mut written = Vec::with_capacity(outputs.len());
    for output in outputs {
        let path = out_dir.join(&output.path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|source| Error::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        fs::write(&path, &output.content).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        written.push(output.path);
    }
    Ok(written)
}

/// The man-page date for a `SOURCE_DATE_EPOCH` value: its UTC day as `YYYY-MM-DD`.
pub fn man_date(source_date_epoch: &str) -> Result<String, Error> {
    let bad = || Error::SourceDateEpoch(source_date_epoch.to_string());
    if source_date_epoch.is_empty() || !source_date_epoch.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let seconds: u64 = source_date_epoch.parse().map_err(|_| bad())?;
    let (year, month, day) = civil_from_days(seconds / 86_400);
    Ok(format!("{year:04}-{month:02}-{day:02}"))
}

/// The man-page date from the environment: `SOURCE_DATE_EPOCH`'s day, or `None` when it is unset
/// (the pages then carry no date, so that two runs agree). A malformed value is an error, as
/// reproducible-builds.org asks.
pub fn man_date_from_env() -> Result<Option<String>, Error> {
    match std::env::var_os("SOURCE_DATE_EPOCH") {
        None => Ok(None),
        Some(value) => match value.to_str() {
            Some(v) => man_date(v).map(Some),
            None => Err(Error::SourceDateEpoch(value.to_string_lossy().into_owned())),
        },
    }
}

/// The proleptic Gregorian date `days` days after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Where packagers install what [`generate`] writes: (path under the output directory, where it
/// goes on a Debian-style system, note).
pub const INSTALL_PATHS: [(&str, &str, &str); 6] = [
    (
        "man/man1/*.1",
        "/usr/share/man/man1/",
        "gzip them as the distribution does",
    ),
    (
        "completions/bash/*",
        "/usr/share/bash-completion/completions/",
        "pkg-config --variable=completionsdir bash-completion",
    ),
    (
        "completions/zsh/_*",
        "/usr/share/zsh/vendor-completions/",
        "Fedora and Arch: /usr/share/zsh/site-functions/",
    ),
    (
        "completions/fish/*.fish",
        "/usr/share/fish/vendor_completions.d/",
        "pkg-config --variable=completionsdir fish",
    ),
    (
        "completions/elvish/*.elv",
        "(no system directory)",
        "users copy it to ~/.config/elvish/lib/ and `use` it in rc.elv",
    ),
    (
        "completions/powershell/_*.ps1",
        "(no system directory)",
        "users dot-source it from $PROFILE",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(man_date("0").unwrap(), "1970-01-01");
        // `date -u -d @951782400 +%F` (the leap day of a year divisible by 400).
        assert_eq!(man_date("951782400").unwrap(), "2000-02-29");
        assert_eq!(man_date("1709251199").unwrap(), "2024-02-29");
        assert_eq!(man_date("1709251200").unwrap(), "2024-03-01");
        assert_eq!(man_date("4102444800").unwrap(), "2100-01-01");
        for bad in ["", "-1", "1e9", " 1", "1.5", "99999999999999999999999"] {
            assert!(man_date(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn paragraphs_fill_and_break() {
        let mut roff = Roff::new();
        paragraphs(
            &mut roff,
            "Typical use: a | b\nSettings come from\nthe config. Then\nMore.\n\n'quoted' -x",
        );
        assert_eq!(
            roff.to_roff(),
            "Typical use: a | b\n.br\nSettings come from\nthe config. Then\n.br\nMore.\n.PP\n\\&'quoted' \\-x\n"
        );
    }

    #[test]
    fn clap_accepts_the_tables() {
        for binary in &BINARIES {
            // clap's debug assertions check the ids, shorts and longs for conflicts.
            binary.to_clap().debug_assert();
        }
    }
}
