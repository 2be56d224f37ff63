//! `flagsplit-docgen --out-dir DIR`: writes flagsplit's man pages and shell completions (see the
//! library's documentation).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Arg, Command, value_parser};

fn cli() -> Command {
    let mut install = String::from(
        "Writes DIR/man/man1/*.1 and DIR/completions/SHELL/* for flagsplit and flagsplit-imap-send,\n\
         from the option tables the binaries themselves use.\n\n\
         The man pages' date is SOURCE_DATE_EPOCH's day (UTC); without SOURCE_DATE_EPOCH they have\n\
         no date. Nothing else depends on the time or the machine: the same source gives the same\n\
         bytes.\n\nInstall (Debian paths):\n",
    );
    for (generated, to, note) in flagsplit_docgen::INSTALL_PATHS {
        install.push_str(&format!(
            "  DIR/{generated:30} -> {to}\n  {:35}({note})\n",
            ""
        ));
    }
    Command::new("flagsplit-docgen")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Generate flagsplit's man pages and shell completions (run at package time)")
        .arg(
            Arg::new("out-dir")
                .long("out-dir")
                .value_name("DIR")
                .required(true)
                .value_parser(value_parser!(PathBuf))
                .help("where to write man/ and completions/ (created; same-named files replaced)"),
        )
        .after_help(install)
}

fn main() -> Result<()> {
    let matches = cli().get_matches();
    let out_dir = matches
        .get_one::<PathBuf>("out-dir")
        .context("--out-dir is required")?;
    let date = flagsplit_docgen::man_date_from_env()?;
    let written = flagsplit_docgen::generate(out_dir, date.as_deref())?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
}
