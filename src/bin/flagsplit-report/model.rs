//! Benchmark reports read into one model: runs (a report each, labelled with its machine and
//! build) and charts (groups of bars, each bar a figure of one run).
//!
//! Two schemas are read. Schema 1 is `flagsplit bench --json` (one build: `machine`, `build`,
//! `throughput`, `startup`, `fsck`). Schema 2 is `scripts/bench-builds.sh`'s report (several
//! builds: `generator`, `machine`, `tools`, `builds`, `figures`, each figure with `section`,
//! `label`, `build`, `algorithm`, `metric`, `value`, `unit`, `method`, `rounds`).

use serde_json::Value;

/// One report.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Where it came from (the file name as given).
    pub file: String,
    /// The machine: CPU model and logical CPUs.
    pub machine: String,
    /// What made it and with which builds (schema 1: the build's providers, `sha1=dc ...`).
    pub build: String,
    /// The figures, in the report's order.
    pub figures: Vec<Figure>,
}

impl Run {
    /// How the run is named on the page: its machine and its build.
    pub fn label(&self) -> String {
        format!("{} · {}", self.machine, self.build)
    }
}

/// One measured figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// `throughput`, `startup`, `fsck`, `tree` or `memory`.
    pub section: String,
    /// What was measured (a command, or `PROVIDER, SIZE`).
    pub label: String,
    /// The algorithm (throughput), else empty.
    pub algorithm: String,
    /// What the number is: `mb_per_s`, `instructions`, `wall_s`, ...
    pub metric: String,
    /// The number.
    pub value: f64,
    /// Its unit (`MB/s`, `instructions`, `s`, `MiB`).
    pub unit: String,
    /// How it was measured, and in how many rounds.
    pub method: String,
    /// Rounds.
    pub rounds: u64,
}

/// Why a file is not a report.
#[derive(Debug, PartialEq, Eq)]
pub struct Unreadable(pub String);

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn machine_of(v: &Value) -> String {
    let m = &v["machine"];
    let cpu = text(m, "cpu_model");
    let cpus = m.get("logical_cpus").and_then(Value::as_u64).unwrap_or(0);
    match (cpu.is_empty(), cpus) {
        (true, _) => "unknown machine".to_string(),
        (false, 0) => cpu,
        (false, n) => format!("{cpu}, {n} CPUs"),
    }
}

/// Reads one report's text. `file` names it in the run and in errors.
pub fn parse(file: &str, json: &str) -> Result<Run, Unreadable> {
    let v: Value =
        serde_json::from_str(json).map_err(|e| Unreadable(format!("{file}: not JSON: {e}")))?;
    let schema = v.get("schema").and_then(Value::as_u64);
    match schema {
        Some(1) => schema_1(file, &v),
        Some(2) => schema_2(file, &v),
        Some(n) => Err(Unreadable(format!(
            "{file}: schema {n} is not one this version reads (1: flagsplit bench --json, 2: scripts/bench-builds.sh)"
        ))),
        None => Err(Unreadable(format!(
            "{file}: no \"schema\" number: not a flagsplit benchmark report"
        ))),
    }
}

fn schema_1(file: &str, v: &Value) -> Result<Run, Unreadable> {
    let providers = v["build"]["providers"]
        .as_object()
        .map(|p| {
            p.iter()
                .map(|(f, v)| {
                    // `{"provider": "dc", ...}` as `version --build-options` has it, or a name.
                    let name = v.as_str().or_else(|| v["provider"].as_str()).unwrap_or("?");
                    format!("{f}={name}")
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .ok_or_else(|| Unreadable(format!("{file}: schema 1 without build.providers")))?;
    let mut figures = Vec::new();
    for t in v["throughput"].as_array().into_iter().flatten() {
        let (Some(size), Some(mbs)) = (t["size_bytes"].as_u64(), t["mb_per_s"].as_f64()) else {
            continue;
        };
        figures.push(Figure {
            section: "throughput".into(),
            label: text(t, "provider"),
            algorithm: format!("{} {}", text(t, "facility"), size_label(size)),
            metric: "mb_per_s".into(),
            value: mbs,
            unit: "MB/s".into(),
            method: "flagsplit bench, in-process, best round".into(),
            rounds: 1,
        });
    }
    // The checksum commands timed as whole processes (`commands`, added to schema 1): bars in the
    // same group as the in-process figure of their algorithm and size, so both show side by side.
    for c in v["commands"].as_array().into_iter().flatten() {
        let (Some(size), Some(mbs)) = (c["size_bytes"].as_u64(), c["mb_per_s"].as_f64()) else {
            continue;
        };
        figures.push(Figure {
            section: "throughput".into(),
            label: format!(
                "{}, whole command `flagsplit {}`",
                text(c, "provider"),
                text(c, "command")
            ),
            algorithm: format!("{} {}", text(c, "facility"), size_label(size)),
            metric: "mb_per_s".into(),
            value: mbs,
            unit: "MB/s".into(),
            method: "flagsplit bench, the whole process on a file in the page cache, median".into(),
            rounds: 1,
        });
    }
    if let Some(n) = v["startup"]["instructions"].as_f64() {
        figures.push(Figure {
            section: "startup".into(),
            label: command_name(&text(&v["startup"], "command")),
            algorithm: String::new(),
            metric: "instructions".into(),
            value: n,
            unit: "instructions".into(),
            method: "callgrind total Ir".into(),
            rounds: 1,
        });
    }
    if let Some(w) = v["fsck"]["wall_s"].as_f64() {
        figures.push(Figure {
            section: "fsck".into(),
            label: format!(
                "flagsplit fsck ({} threads) on {}",
                v["fsck"]["threads"].as_u64().unwrap_or(0),
                text(&v["fsck"], "repo")
            ),
            algorithm: String::new(),
            metric: "wall_s".into(),
            value: w,
            unit: "s".into(),
            method: "wall clock, one run".into(),
            rounds: 1,
        });
    }
    if figures.is_empty() {
        return Err(Unreadable(format!(
            "{file}: schema 1 report with no figures"
        )));
    }
    Ok(Run {
        file: file.to_string(),
        machine: machine_of(v),
        build: providers,
        figures,
    })
}

fn schema_2(file: &str, v: &Value) -> Result<Run, Unreadable> {
    let list = v["figures"]
        .as_array()
        .ok_or_else(|| Unreadable(format!("{file}: schema 2 without a figures list")))?;
    let mut figures = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let value = f["value"].as_f64();
        let section = text(f, "section");
        let metric = text(f, "metric");
        let Some(value) = value else {
            // A figure that could not be measured (a peer that failed) has a null value.
            if f["value"].is_null() {
                continue;
            }
            return Err(Unreadable(format!("{file}: figure {i} has no number")));
        };
        if section.is_empty() || metric.is_empty() {
            return Err(Unreadable(format!(
                "{file}: figure {i} lacks its section or metric"
            )));
        }
        figures.push(Figure {
            section,
            label: text(f, "label"),
            algorithm: text(f, "algorithm"),
            metric,
            value,
            unit: text(f, "unit"),
            method: text(f, "method"),
            rounds: f["rounds"].as_u64().unwrap_or(1),
        });
    }
    let builds = v["builds"]
        .as_object()
        .map(|b| b.keys().cloned().collect::<Vec<_>>().join(", "))
        .unwrap_or_default();
    let generator = text(&v["generator"], "name");
    Ok(Run {
        file: file.to_string(),
        machine: machine_of(v),
        build: format!(
            "{} ({builds})",
            if generator.is_empty() {
                "bench-builds"
            } else {
                &generator
            }
        ),
        figures,
    })
}

/// A command line as a reader names it: the program without its directory
/// (`/x/release/flagsplit sha1sum /dev/null` is `flagsplit sha1sum /dev/null`).
fn command_name(line: &str) -> String {
    match line.split_once(' ') {
        Some((program, rest)) => {
            let name = program.rsplit('/').next().unwrap_or(program);
            format!("{name} {rest}")
        }
        None => line.rsplit('/').next().unwrap_or(line).to_string(),
    }
}

/// `64 B`, `1 KiB`, `300 MiB`.
pub fn size_label(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// One chart: a title, a unit, and groups of bars.
#[derive(Debug, PartialEq)]
pub struct Chart {
    /// What it shows.
    pub title: String,
    /// The unit of every bar.
    pub unit: String,
    /// Whether more is better (throughput) or less (time, instructions).
    pub higher_is_better: bool,
    /// Groups: a name, and bars (label, run, value, the ratio within that run if any).
    pub groups: Vec<Group>,
}

/// Bars that are compared with each other.
#[derive(Debug, PartialEq)]
pub struct Group {
    /// The group's name (an algorithm and size, or a section).
    pub name: String,
    /// The bars.
    pub bars: Vec<Bar>,
}

/// One bar.
#[derive(Debug, PartialEq)]
pub struct Bar {
    /// What it measures.
    pub label: String,
    /// The run it comes from (index into the runs).
    pub run: usize,
    /// The number.
    pub value: f64,
    /// Against the reference of the same run (`× git fsck --full`), when the run has one.
    pub ratio: Option<f64>,
}

/// The charts of `runs`: throughput per algorithm and size, start-up per build, the fsck load.
pub fn charts(runs: &[Run]) -> Vec<Chart> {
    let mut out = Vec::new();
    // Throughput: one group per algorithm (and size), bars per provider and run.
    let mut groups: Vec<Group> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        for f in run
            .figures
            .iter()
            .filter(|f| f.section == "throughput" && f.metric == "mb_per_s")
        {
            let name = if f.algorithm.is_empty() {
                "throughput".to_string()
            } else {
                f.algorithm.clone()
            };
            let bar = Bar {
                label: f.label.clone(),
                run: r,
                value: f.value,
                ratio: None,
            };
            match groups.iter_mut().find(|g| g.name == name) {
                Some(g) => g.bars.push(bar),
                None => groups.push(Group {
                    name,
                    bars: vec![bar],
                }),
            }
        }
    }
    if !groups.is_empty() {
        out.push(Chart {
            title: "Throughput per algorithm and size".into(),
            unit: "MB/s".into(),
            higher_is_better: true,
            groups,
        });
    }
    for (section, metric, title, unit, reference) in [
        (
            "startup",
            "instructions",
            "Start-up: instructions of one run (callgrind)",
            "instructions",
            "git hash-object",
        ),
        (
            "fsck",
            "wall_s",
            "The real load: fsck of a whole repository (wall clock)",
            "s",
            "git fsck --full",
        ),
    ] {
        let mut bars = Vec::new();
        for (r, run) in runs.iter().enumerate() {
            let mine: Vec<&Figure> = run
                .figures
                .iter()
                .filter(|f| f.section == section && f.metric == metric)
                .collect();
            // Ratios only within the run: against its own reference, if it measured one.
            let base = mine
                .iter()
                .find(|f| f.label.replace('`', "").starts_with(reference))
                .map(|f| f.value);
            for f in mine {
                bars.push(Bar {
                    label: f.label.clone(),
                    run: r,
                    value: f.value,
                    ratio: base.filter(|b| *b > 0.0).map(|b| f.value / b),
                });
            }
        }
        if !bars.is_empty() {
            out.push(Chart {
                title: title.into(),
                unit: unit.into(),
                higher_is_better: false,
                groups: vec![Group {
                    name: section.into(),
                    bars,
                }],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"schema": 1, "machine": {"cpu_model": "CPU X", "logical_cpus": 2},
        "build": {"providers": {"sha1": {"provider": "dc"}, "md5": "builtin"}},
        "throughput": [{"facility": "sha1", "provider": "dc", "size_bytes": 65536, "mb_per_s": 1500.5, "ns_per_message": 1}],
        "startup": {"command": "/x/release/flagsplit sha1sum /dev/null", "instructions": 377538},
        "commands": [{"facility": "sha1", "provider": "dc", "command": "sha1sum", "size_bytes": 65536, "wall_s": 0.001, "mb_per_s": 900.25}],
        "fsck": null}"#;

    #[test]
    fn reads_both_schemas_and_names_what_it_cannot() {
        let run = parse("a.json", ONE).expect("schema 1");
        assert_eq!(run.build, "md5=builtin sha1=dc");
        assert_eq!(run.machine, "CPU X, 2 CPUs");
        assert_eq!(run.figures.len(), 3);
        assert_eq!(run.figures[0].algorithm, "sha1 64 KiB");
        assert_eq!(run.figures[1].algorithm, "sha1 64 KiB");
        assert_eq!(
            run.figures[1].label,
            "dc, whole command `flagsplit sha1sum`"
        );
        assert_eq!(run.figures[2].label, "flagsplit sha1sum /dev/null");
        let two = r#"{"schema": 2, "generator": {"name": "scripts/bench-builds.sh"},
            "machine": {"cpu_model": "CPU Y"}, "builds": {"default": {}, "sha1-block": {}},
            "figures": [
              {"section": "fsck", "label": "git fsck --full", "metric": "wall_s", "value": 58.0, "unit": "s", "method": "best", "rounds": 1},
              {"section": "fsck", "label": "flagsplit fsck (default)", "build": "default", "metric": "wall_s", "value": 8.8, "unit": "s", "method": "best", "rounds": 1},
              {"section": "fsck", "label": "gix", "metric": "wall_s", "value": null, "unit": "s", "method": "failed", "rounds": 1}]}"#;
        let run2 = parse("b.json", two).expect("schema 2");
        assert_eq!(run2.figures.len(), 2);
        assert_eq!(run2.build, "scripts/bench-builds.sh (default, sha1-block)");
        assert!(
            parse("c.json", "{")
                .unwrap_err()
                .0
                .starts_with("c.json: not JSON")
        );
        assert!(
            parse("d.json", r#"{"schema": 9}"#)
                .unwrap_err()
                .0
                .contains("schema 9")
        );
        assert!(
            parse("e.json", "[]")
                .unwrap_err()
                .0
                .contains("no \"schema\"")
        );
        let charts = charts(&[run, run2]);
        assert_eq!(charts.len(), 3);
        // The whole command beside the in-process figure of the same algorithm and size.
        let values: Vec<f64> = charts[0].groups[0].bars.iter().map(|b| b.value).collect();
        assert_eq!(values, [1500.5, 900.25]);
        let fsck = &charts[2].groups[0].bars;
        // The ratio is taken within the second run only.
        assert_eq!(fsck[1].ratio.map(|r| (r * 100.0).round()), Some(15.0));
    }
}
