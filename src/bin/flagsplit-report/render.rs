//! The page (HTML with inline SVG bar charts, no script) and the Markdown tables.

use std::fmt::Write as _;

use super::model::{Chart, Run};

/// Text for HTML and SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('`', "")
}

/// A number as the charts show it: three significant figures, thousands apart.
pub fn num(v: f64) -> String {
    if v >= 1000.0 {
        let n = v.round() as u64;
        let s = n.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// One colour per run (up to eight, then again).
const COLOURS: [&str; 8] = [
    "#3366cc", "#dc7a12", "#2a9d4b", "#b8336a", "#6c4ab6", "#0f8b8d", "#8d6e00", "#555555",
];

/// Width of every chart's drawing, in its own units: the page scales it to the column (at most
/// `svg.chart`'s max-width), so a phone shows it at about its own size.
const W: f64 = 420.0;
/// Height of one bar's row: its label above, the bar and its value below.
const ROW: f64 = 34.0;
/// The longest bar, leaving room for the value after it (`3,184,451 instructions (×8.03)`).
const BAR: f64 = 190.0;

/// One chart as an `<svg>`: per group a heading, per figure its label, its bar and its value
/// with the unit (and the ratio within its run).
fn svg(chart: &Chart, runs: &[Run]) -> String {
    let rows: usize = chart.groups.iter().map(|g| g.bars.len()).sum();
    let heads = chart.groups.len();
    let h = 28.0 + heads as f64 * 22.0 + rows as f64 * ROW + 6.0;
    let max = chart
        .groups
        .iter()
        .flat_map(|g| g.bars.iter().map(|b| b.value))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" viewBox=\"0 0 {W} {h}\" width=\"100%\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(&chart.title)
    );
    let _ = write!(
        s,
        "<text x=\"0\" y=\"16\" class=\"unit\">{}; {}</text>",
        esc(&chart.unit),
        if chart.higher_is_better {
            "longer is better"
        } else {
            "shorter is better"
        }
    );
    let mut y = 28.0;
    for g in &chart.groups {
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{:.0}\" class=\"group\">{}</text>",
            y + 16.0,
            esc(&g.name)
        );
        y += 22.0;
        for b in &g.bars {
            let w = (b.value / max * BAR).max(1.0);
            let colour = COLOURS[b.run % COLOURS.len()];
            let mut label = esc(&b.label);
            if label.chars().count() > 62 {
                label = label.chars().take(61).collect::<String>() + "…";
            }
            let _ = write!(
                s,
                "<text x=\"0\" y=\"{:.0}\" class=\"label\"><title>{} — {}</title>{label}</text>",
                y + 12.0,
                esc(&b.label),
                esc(&runs[b.run].label()),
            );
            let _ = write!(
                s,
                "<rect x=\"0\" y=\"{:.0}\" width=\"{w:.1}\" height=\"12\" fill=\"{colour}\"/>",
                y + 16.0
            );
            let ratio = b
                .ratio
                .map(|r| format!(" (×{})", num(r)))
                .unwrap_or_default();
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.0}\" class=\"value\">{} {}{ratio}</text>",
                w + 4.0,
                y + 27.0,
                num(b.value),
                esc(&chart.unit)
            );
            y += ROW;
        }
    }
    s.push_str("</svg>");
    s
}

/// The whole page.
pub fn html(runs: &[Run], charts: &[Chart], problems: &[String]) -> String {
    let mut s = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>flagsplit benchmark reports</title>\n<style>\n\
         body { font-family: system-ui, sans-serif; margin: 0 auto; padding: 0.8em; max-width: 44em; color: #222; }\n\
         h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }\n\
         svg.chart { display: block; width: 100%; max-width: 42em; height: auto; font-size: 11px; }\n\
         svg text.unit { font-weight: bold; } svg text.group { font-weight: bold; fill: #444; }\n\
         svg text.label, svg text.value { fill: #222; }\n\
         ul.runs { padding-left: 1.2em; } .swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em; vertical-align: middle; }\n\
         .problems { color: #a00; } .note { color: #555; font-size: 0.9em; }\n\
         code, .file { overflow-wrap: anywhere; }\n</style>\n</head>\n<body>\n\
         <h1>flagsplit benchmark reports</h1>\n",
    );
    s.push_str("<h2>Runs</h2>\n<ul class=\"runs\">\n");
    for (i, r) in runs.iter().enumerate() {
        let _ = writeln!(
            s,
            "<li><span class=\"swatch\" style=\"background:{}\"></span>{} <span class=\"file\">({})</span></li>",
            COLOURS[i % COLOURS.len()],
            esc(&r.label()),
            esc(&r.file)
        );
    }
    s.push_str("</ul>\n<p class=\"note\">Each bar's colour is its run. Ratios (×) are taken within one run only, against that run's own git figure; figures of different runs are never divided.</p>\n");
    if !problems.is_empty() {
        s.push_str("<ul class=\"problems\">\n");
        for p in problems {
            let _ = writeln!(s, "<li>not read: {}</li>", esc(p));
        }
        s.push_str("</ul>\n");
    }
    for c in charts {
        let _ = writeln!(s, "<h2>{}</h2>", esc(&c.title));
        s.push_str(&svg(c, runs));
        s.push('\n');
    }
    if charts.is_empty() {
        s.push_str("<p>No figures to chart.</p>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}

/// Every figure of one run as tables: one per section, a row per thing measured and a column per
/// metric (with its unit), in the report's order.
fn run_tables(s: &mut String, n: usize, run: &Run) {
    let mut sections: Vec<&str> = Vec::new();
    for f in &run.figures {
        if !sections.contains(&f.section.as_str()) {
            sections.push(&f.section);
        }
    }
    for section in sections {
        let figs: Vec<_> = run
            .figures
            .iter()
            .filter(|f| f.section == section)
            .collect();
        let mut metrics: Vec<(&str, &str)> = Vec::new();
        let mut rows: Vec<(&str, &str)> = Vec::new();
        for f in &figs {
            if !metrics.contains(&(f.metric.as_str(), f.unit.as_str())) {
                metrics.push((&f.metric, &f.unit));
            }
            if !rows.contains(&(f.algorithm.as_str(), f.label.as_str())) {
                rows.push((&f.algorithm, &f.label));
            }
        }
        let method = figs.first().map(|f| f.method.as_str()).unwrap_or_default();
        let _ = writeln!(s, "\n#### Run {n}: {section} ({method})\n");
        let head: Vec<String> = metrics.iter().map(|(m, u)| format!("{m} ({u})")).collect();
        let _ = writeln!(s, "| what | {} |", head.join(" | "));
        let _ = writeln!(s, "|---|{}", "---:|".repeat(metrics.len()));
        for (alg, label) in rows {
            let cells: Vec<String> = metrics
                .iter()
                .map(|(m, _)| {
                    figs.iter()
                        .find(|f| f.algorithm == alg && f.label == label && f.metric == *m)
                        .map(|f| num(f.value))
                        .unwrap_or_default()
                })
                .collect();
            let what = if alg.is_empty() || label.contains(alg) {
                label.to_string()
            } else {
                format!("{alg}: {label}")
            };
            let _ = writeln!(
                s,
                "| {} | {} |",
                what.replace('|', "\\|"),
                cells.join(" | ")
            );
        }
    }
}

/// The same comparison as Markdown tables, then every figure of each run.
pub fn markdown(runs: &[Run], charts: &[Chart]) -> String {
    let mut s = String::new();
    s.push_str("Runs:\n\n");
    for (i, r) in runs.iter().enumerate() {
        let _ = writeln!(s, "{}. {} ({})", i + 1, r.label(), r.file);
    }
    for c in charts {
        let _ = writeln!(s, "\n### {} ({})\n", c.title, c.unit);
        let ratios = c
            .groups
            .iter()
            .any(|g| g.bars.iter().any(|b| b.ratio.is_some()));
        if ratios {
            let _ = writeln!(s, "| group | what | run | {} | × in its run |", c.unit);
            s.push_str("|---|---|---:|---:|---:|\n");
        } else {
            let _ = writeln!(s, "| group | what | run | {} |", c.unit);
            s.push_str("|---|---|---:|---:|\n");
        }
        for g in &c.groups {
            for b in &g.bars {
                let _ = write!(
                    s,
                    "| {} | {} | {} | {} |",
                    g.name,
                    b.label.replace('|', "\\|"),
                    b.run + 1,
                    num(b.value)
                );
                if ratios {
                    let _ = write!(s, " {} |", b.ratio.map(num).unwrap_or_default());
                }
                s.push('\n');
            }
        }
    }
    for (i, r) in runs.iter().enumerate() {
        run_tables(&mut s, i + 1, r);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_the_charts_show_them() {
        assert_eq!(num(377538.0), "377,538");
        assert_eq!(num(1500.4), "1,500");
        assert_eq!(num(123.4), "123");
        assert_eq!(num(8.834), "8.83");
        assert_eq!(num(57.48), "57.5");
    }

    #[test]
    fn the_page_fetches_nothing_and_runs_no_script() {
        let run = super::super::model::parse(
            "a.json",
            r#"{"schema": 1, "machine": {"cpu_model": "<CPU>"}, "build": {"providers": {"sha1": "dc"}},
               "throughput": [{"facility": "sha1", "provider": "dc", "size_bytes": 64, "mb_per_s": 10}],
               "startup": {"command": "c", "instructions": 5}}"#,
        )
        .expect("report");
        let runs = [run];
        let page = html(
            &runs,
            &super::super::model::charts(&runs),
            &["b.json: not JSON".into()],
        );
        assert!(!page.contains("<script") && !page.contains("src=") && !page.contains("<link"));
        // The only address is each SVG's namespace, which is never fetched.
        assert_eq!(page.matches("http").count(), page.matches("<svg").count());
        assert!(page.contains("&lt;CPU&gt;") && page.contains("not read: b.json"));
        assert_eq!(page.matches("<svg").count(), 2);
    }
}
