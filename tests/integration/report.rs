//! `flagsplit report` on the reference machine's reports (`benchmarks/reference/*.json`: one of
//! `scripts/bench-builds.sh` and the `flagsplit bench --json` reports of its default and
//! sha1-block builds) and a broken file, then the page as a person sees it: rendered by headless
//! Chromium (Debian's `chromium`, which the test command installs), its DOM read back and a
//! screenshot taken at a desktop's width and at a phone's.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support;

const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

fn reference() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks/reference");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

/// The page for the reference reports and a broken file: exit status 1, the broken file named,
/// both builds named by their build options.
fn page(dir: &Path) -> (PathBuf, String) {
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"schema\": 2, \"figures\": [").expect("write");
    let out = dir.join("results.html");
    let run = Command::new(FLAGSPLIT)
        .arg("report")
        .args(reference())
        .arg(&broken)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("flagsplit report");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: not JSON", broken.display())),
        "{stderr}"
    );
    let html = std::fs::read_to_string(&out).expect("the page is written");
    (out, html)
}

#[test]
fn two_builds_and_a_broken_file() {
    let dir = tempfile_dir("report-page");
    let (_, html) = page(&dir);
    assert!(html.contains("sha1=dc"), "the default build is not named");
    assert!(
        html.contains("sha1=block"),
        "the sha1-block build is not named"
    );
    assert!(html.contains("not read: ") && html.contains("broken.json"));
    assert!(!html.contains("<script") && !html.contains("<link") && !html.contains("src="));
    // --markdown: the same comparison as tables.
    let md = Command::new(FLAGSPLIT)
        .arg("report")
        .arg("--markdown")
        .args(reference())
        .output()
        .expect("flagsplit report --markdown");
    assert!(md.status.success());
    let md = String::from_utf8_lossy(&md.stdout);
    for title in [
        "Throughput per algorithm and size",
        "Start-up",
        "The real load",
    ] {
        assert!(md.contains(title), "{title} missing from\n{md}");
    }
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("flagsplit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn chromium() -> Option<&'static str> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// Chromium headless as this machine needs it (no sandbox as root, nothing fetched).
fn headless(bin: &str, profile: &Path, width: u32, args: &[&str], url: &str) -> Vec<u8> {
    let out = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={width},2000"))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The distinct colours of a PNG screenshot (8-bit RGB or RGBA, as Chromium writes them),
/// decoded by Python's zlib: a blank page has one.
fn colours(png: &Path) -> usize {
    let script = r#"
import sys, zlib, struct
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n'
i, idat, w, h, ct = 8, b'', 0, 0, 0
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i+8])
    c = d[i+8:i+8+n]
    if t == b'IHDR':
        w, h, bd, ct = struct.unpack('>IIBB', c[:10])
        assert bd == 8 and ct in (2, 6)
    elif t == b'IDAT':
        idat += c
    i += 12 + n
bpp = 3 if ct == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, o = bytearray(stride), set(), 0
for y in range(h):
    f, line = raw[o], bytearray(raw[o+1:o+1+stride]); o += 1 + stride
    for x in range(stride):
        a = line[x-bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x-bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p-a), abs(p-b), abs(p-c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 2):
            seen.add(bytes(line[x:x+3]))
    prev = line
print(len(seen))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(png)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a count")
}

#[test]
fn the_page_as_chromium_renders_it() {
    let Some(bin) = chromium() else {
        support::skip(
            "report::the_page_as_chromium_renders_it",
            "chromium is not installed (the test command installs Debian's chromium)",
        );
        return;
    };
    let dir = tempfile_dir("report-chromium");
    let (out, html) = page(&dir);
    let profile = dir.join("profile");
    let url = format!("file://{}", out.display());
    // The DOM Chromium built: one <svg> per chart (each chart has a heading), each with text
    // labels naming providers and the unit.
    let dom =
        String::from_utf8_lossy(&headless(bin, &profile, 1280, &["--dump-dom"], &url)).into_owned();
    let charts = html.matches("<h2>").count() - 1; // the first heading is the list of runs
    let svgs: Vec<&str> = dom.split("<svg").skip(1).collect();
    assert_eq!(svgs.len(), charts, "one <svg> per chart");
    assert!(charts >= 3, "throughput, start-up and the fsck load");
    for (svg, unit) in svgs.iter().zip(["MB/s", "instructions", "s"]) {
        let svg = &svg[..svg.find("</svg>").expect("closed")];
        assert!(svg.matches("<text").count() > 3, "labels");
        assert!(svg.contains(&format!(" {unit}")), "unit {unit}");
    }
    assert!(
        svgs[0].contains(">dc<") && svgs[0].contains(">block<"),
        "providers named"
    );
    assert!(
        svgs[2].contains("git fsck --full") && svgs[2].contains("gix"),
        "peers named"
    );
    // No sideways scrolling at a desktop's width or a phone's: the page is put in a frame of
    // that width (headless Chromium's window is at least 500 px wide) and the frame's document
    // measured by a script of the harness (the page itself has no script).
    for width in [1280u32, 390] {
        let harness = dir.join(format!("harness-{width}.html"));
        let srcdoc = html.replace('&', "&amp;").replace('"', "&quot;");
        let page = format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe id=\"f\" style=\"border:0;width:{width}px;height:2000px\" srcdoc=\"{srcdoc}\"></iframe><script>const f = document.getElementById('f'); f.onload = () => document.documentElement.setAttribute('data-scroll-width', f.contentDocument.documentElement.scrollWidth + ' ' + f.contentDocument.documentElement.clientWidth);</script></body></html>"
        );
        std::fs::write(&harness, page).expect("harness");
        let url = format!("file://{}", harness.display());
        let window = width.max(500);
        let dom = headless(bin, &profile, window, &["--dump-dom"], &url);
        let dom = String::from_utf8_lossy(&dom);
        let at = dom.find("data-scroll-width=\"").expect("the harness ran")
            + "data-scroll-width=\"".len();
        let mut measured = dom[at..]
            .split('"')
            .next()
            .unwrap_or_default()
            .split(' ')
            .map(|n| n.parse::<u32>().expect("a width"));
        let (scroll, client) = (measured.next().unwrap_or(0), measured.next().unwrap_or(0));
        assert_eq!(client, width, "the frame is {client} px wide, not {width}");
        assert!(scroll <= width, "scrollWidth {scroll} > {width}");
        let shot = dir.join(format!("page-{width}.png"));
        headless(
            bin,
            &profile,
            window,
            &[&format!("--screenshot={}", shot.display())],
            &url,
        );
        let n = colours(&shot);
        assert!(n > 8, "the {width}px screenshot has {n} colours: blank?");
        eprintln!(
            "report: {} ({n} colours, scrollWidth {scroll})",
            shot.display()
        );
    }
}

const BEGIN: &str = "<!-- report:begin (generated by `flagsplit report --markdown benchmarks/reference/*.json`; tests/integration/report.rs checks it) -->\n";
const END: &str = "<!-- report:end -->";

/// `flagsplit report --markdown` of the reference reports, named as the command line names them
/// from the checkout.
fn generated() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names: Vec<String> = reference()
        .iter()
        .map(|p| {
            p.strip_prefix(root)
                .expect("in the checkout")
                .display()
                .to_string()
        })
        .collect();
    let out = Command::new(FLAGSPLIT)
        .current_dir(root)
        .arg("report")
        .arg("--markdown")
        .args(&names)
        .output()
        .expect("flagsplit report --markdown");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// book/src/benchmarks.md's tables are the reference reports as `flagsplit report --markdown` prints them.
/// After new reference reports, `FLAGSPLIT_BLESS=1 cargo test --test integration report::`
/// rewrites the block.
#[test]
fn benchmarks_md_is_generated_from_the_reference_reports() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/benchmarks.md");
    let text = std::fs::read_to_string(&path).expect("book/src/benchmarks.md");
    let start = text
        .find(BEGIN)
        .expect("book/src/benchmarks.md has the generated block")
        + BEGIN.len();
    let end = start + text[start..].find(END).expect("the block's end");
    let want = generated();
    if std::env::var_os("FLAGSPLIT_BLESS").is_some() {
        let new = format!("{}{want}{}", &text[..start], &text[end..]);
        std::fs::write(&path, new).expect("write book/src/benchmarks.md");
        return;
    }
    assert!(
        text[start..end] == want,
        "book/src/benchmarks.md's generated block differs from the reference reports; run FLAGSPLIT_BLESS=1 cargo test --test integration report::"
    );
}

/// The command the book's chapter on the commands shows, verbatim, from a checkout (the reference reports), with the
/// built binaries first in PATH.
#[test]
fn the_books_command_writes_the_page() {
    let cmd = "flagsplit report benchmarks/reference/*.json -o results.html";
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme =
        std::fs::read_to_string(root.join("book/src/commands.md")).expect("book/src/commands.md");
    assert!(
        readme.contains(&format!("`{cmd}`")),
        "book/src/commands.md shows {cmd}"
    );
    let dir = tempfile_dir("report-readme");
    std::os::unix::fs::symlink(root.join("benchmarks"), dir.join("benchmarks")).expect("symlink");
    let bin = Path::new(FLAGSPLIT).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(&dir)
        .env("PATH", path)
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(dir.join("results.html")).expect("results.html");
    assert!(page.matches("<svg").count() >= 3);
}
