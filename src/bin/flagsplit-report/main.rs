//! `flagsplit-report` (also run as `flagsplit report`): benchmark reports side by side, as one
//! self-contained HTML page of charts or as Markdown tables. An executable of its own, so that
//! the JSON reader and the page cost the `flagsplit` binary's commands nothing at start-up.

mod model;
mod render;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use flagsplit::cli::flagsplit::REPORT;

fn main() -> ExitCode {
    let mut args = std::env::args_os();
    args.next();
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("flagsplit report: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(args: impl Iterator<Item = OsString>) -> Result<ExitCode> {
    let m = match REPORT.parse(args) {
        Ok(m) => m,
        Err(e) => return Ok(ExitCode::from(e.report("flagsplit"))),
    };
    if m.flag("help") {
        io::stdout().write_all(REPORT.help("flagsplit").as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    if m.operands.is_empty() {
        eprintln!("flagsplit report: no report given (flagsplit report REPORT.json...)");
        return Ok(ExitCode::from(1));
    }
    let mut runs = Vec::new();
    let mut problems = Vec::new();
    for f in &m.operands {
        let name = f.to_string_lossy().into_owned();
        let read = std::fs::read_to_string(f)
            .map_err(|e| model::Unreadable(format!("{name}: {e}")))
            .and_then(|text| model::parse(&name, &text));
        match read {
            Ok(r) => runs.push(r),
            Err(model::Unreadable(why)) => {
                eprintln!("flagsplit report: {why}");
                problems.push(why);
            }
        }
    }
    let charts = model::charts(&runs);
    if m.flag("markdown") {
        io::stdout().write_all(render::markdown(&runs, &charts).as_bytes())?;
    } else {
        let out = m
            .value("output")
            .map_or_else(|| PathBuf::from("results.html"), PathBuf::from);
        let page = render::html(&runs, &charts, &problems);
        // Written whole or not at all: a temporary file beside it, then renamed.
        let tmp = out.with_extension("html.part");
        std::fs::write(&tmp, page).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &out).with_context(|| format!("writing {}", out.display()))?;
        eprintln!(
            "flagsplit report: {} ({} run{}, {} chart{})",
            out.display(),
            runs.len(),
            if runs.len() == 1 { "" } else { "s" },
            charts.len(),
            if charts.len() == 1 { "" } else { "s" }
        );
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
