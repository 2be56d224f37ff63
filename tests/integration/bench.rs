//! `flagsplit bench --quick --json` produces a valid report naming every selected provider, with a
//! figure for every size, both zlib inputs and each checksum command run on a file, and the table
//! form has a row per selected provider with the whole command's figure beside the in-process ones.

use std::process::Command;

use flagsplit::bench::{ZLIB_OBJECTS, ZLIB_STREAM, ZlibInput};
use flagsplit::hash::{Md5, Sha1, Sha1Unsafe};
use flagsplit::spec::{MD5, SHA1, SHA1_UNSAFE, ZLIB};
use flagsplit_zlib::Inflater as _;

const FLAGSPLIT: &str = env!("CARGO_BIN_EXE_flagsplit");

#[test]
fn quick_json_report_is_complete() {
    let out = Command::new(FLAGSPLIT)
        .args(["bench", "--quick", "--json"])
        .output()
        .expect("run flagsplit bench");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");

    let providers = &report["build"]["providers"];
    for (facility, provider) in [
        (SHA1, Sha1::PROVIDER),
        (SHA1_UNSAFE, Sha1Unsafe::PROVIDER),
        (MD5, Md5::PROVIDER),
    ] {
        assert_eq!(providers[facility]["provider"], provider, "{facility}");
        // One positive figure per size for each selected hashing provider.
        let cells: Vec<&serde_json::Value> = report["throughput"]
            .as_array()
            .expect("throughput array")
            .iter()
            .filter(|c| c["facility"] == facility)
            .collect();
        assert_eq!(cells.len(), flagsplit::bench::SIZES.len(), "{facility}");
        for c in cells {
            assert_eq!(c["provider"], provider);
            assert!(c["mb_per_s"].as_f64().is_some_and(|v| v > 0.0), "{c}");
        }
    }
    assert!(providers["tls"]["provider"].is_string());
    // Each checksum command timed as a whole process on the file, beside the in-process figures:
    // the command that computes each facility, with this build's provider.
    let commands = report["commands"]
        .as_array()
        .unwrap_or_else(|| panic!("commands: {}", report["commands_note"]));
    assert_eq!(commands.len(), flagsplit::bench::algorithms().len());
    for ((algorithm, facility), c) in flagsplit::bench::algorithms().into_iter().zip(commands) {
        assert_eq!(c["facility"], facility, "{c}");
        assert_eq!(c["provider"], algorithm.provider(), "{c}");
        assert_eq!(
            c["command"],
            flagsplit::bench::sum_command(algorithm).join(" "),
            "{c}"
        );
        assert_eq!(
            c["size_bytes"].as_u64(),
            Some(flagsplit::bench::FILE_SIZE as u64),
            "{c}"
        );
        let wall_s = c["wall_s"].as_f64().expect("wall_s");
        let mb_per_s = c["mb_per_s"].as_f64().expect("mb_per_s");
        assert!(wall_s > 0.0, "{c}");
        let expected = flagsplit::bench::FILE_SIZE as f64 / wall_s / 1e6;
        // Both are rounded in the report (wall_s to the millisecond).
        assert!((mb_per_s - expected).abs() < expected * 0.01, "{c}");
    }
    // The selected zlib provider inflates both inputs, at a positive rate.
    let zlib_provider = flagsplit::zlib::Inflater::PROVIDER;
    assert_eq!(providers[ZLIB]["provider"], zlib_provider);
    let zlib = report["zlib"].as_array().expect("zlib array");
    assert_eq!(zlib.len(), 2, "{}", report["zlib"]);
    for (z, input, streams, inflated) in [
        (&zlib[0], "stream", 1, Some(ZLIB_STREAM)),
        (&zlib[1], "objects", ZLIB_OBJECTS, None),
    ] {
        assert_eq!(z["facility"], ZLIB, "{z}");
        assert_eq!(z["provider"], zlib_provider, "{z}");
        assert_eq!(z["version"], flagsplit::zlib::Inflater::version(), "{z}");
        assert_eq!(z["input"], input, "{z}");
        assert_eq!(z["streams"], streams, "{z}");
        assert_eq!(z["level"], 6, "{z}");
        let inflated_bytes = z["inflated_bytes"].as_u64().expect("inflated_bytes") as usize;
        let compressed_bytes = z["compressed_bytes"].as_u64().expect("compressed_bytes") as usize;
        if let Some(size) = inflated {
            assert_eq!(inflated_bytes, size, "{z}");
        }
        // Git-like content compresses, and not to nothing.
        assert!(
            compressed_bytes < inflated_bytes && compressed_bytes > inflated_bytes / 20,
            "{z}"
        );
        assert!(z["mb_per_s"].as_f64().is_some_and(|v| v > 0.0), "{z}");
        assert!(z["ns_per_stream"].as_f64().is_some_and(|v| v > 0.0), "{z}");
    }
    for key in ["cpu_model", "cpu_flags", "os", "kernel", "arch"] {
        assert!(report["machine"][key].is_string(), "machine.{key}");
    }
    assert!(
        report["build"]["rustc"]
            .as_str()
            .is_some_and(|v| v.starts_with("rustc "))
    );
    assert!(
        report["startup"]["wall_ms_min"]
            .as_f64()
            .is_some_and(|v| v > 0.0)
    );
    // Instructions are counted when valgrind is installed (the test command installs it).
    let has_valgrind = Command::new("valgrind").arg("--version").output().is_ok();
    assert_eq!(
        report["startup"]["instructions"].is_u64(),
        has_valgrind,
        "{}",
        report["startup"]
    );
    // The real load: flagsplit-fsck on the repository the test runs in (the checkout), with the
    // size of its packs as flagsplit-fsck reports it.
    let common = Command::new("git")
        .args(["rev-parse", "--git-common-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(common) = common {
        let dir = std::path::PathBuf::from(String::from_utf8_lossy(&common.stdout).trim());
        let packs: u64 = std::fs::read_dir(dir.join("objects/pack"))
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".pack"))
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let fsck = &report["fsck"];
        assert!(fsck.is_object(), "{}", report["fsck_note"]);
        assert_eq!(fsck["pack_bytes"].as_u64(), Some(packs), "{fsck}");
        assert!(fsck["wall_s"].as_f64().is_some_and(|v| v > 0.0), "{fsck}");
        assert!(
            fsck["max_rss_kib"].as_u64().is_some_and(|v| v > 0),
            "{fsck}"
        );
    }
    // OpenSSL is reported exactly when this build links it for hashing.
    assert_eq!(
        report["build"]["openssl"].is_null(),
        flagsplit::hash::openssl_version().is_none()
    );
}

#[test]
fn table_names_every_selected_provider() {
    let out = Command::new(FLAGSPLIT)
        .args(["bench", "--quick"])
        .output()
        .expect("run flagsplit bench");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for label in [
        flagsplit::bench::label(flagsplit::hash::Algorithm::Sha1),
        flagsplit::bench::label(flagsplit::hash::Algorithm::Sha1Unchecked),
        flagsplit::bench::label(flagsplit::hash::Algorithm::Md5),
    ] {
        assert!(
            text.contains(&format!("| {label} |")),
            "{label} missing in\n{text}"
        );
    }
    assert!(text.contains("300 MiB"));
    // The whole command's column, with a figure in every provider's row.
    let header = text.lines().next().unwrap_or_default();
    assert!(
        header.ends_with("| 300 MiB file, whole command |"),
        "{header}"
    );
    for algorithm in flagsplit::bench::algorithms().map(|(a, _)| a) {
        let label = flagsplit::bench::label(algorithm);
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("{label} missing in\n{text}"));
        let last = row
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap_or_default();
        assert!(
            last.trim().ends_with(" s)") && last.contains(" MB/s ("),
            "{row}"
        );
    }
    for (input, streams) in [(ZlibInput::Stream, 1), (ZlibInput::Objects, ZLIB_OBJECTS)] {
        let label = flagsplit::bench::zlib_label(input, streams);
        assert!(
            text.contains(&format!("| {label} | ")),
            "{label} missing in\n{text}"
        );
    }
}
