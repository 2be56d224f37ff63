//! `flagsplit fsck --json`: each finding as one JSON object on a line of standard output, and a
//! last line with the exit status. The schema is in the book's chapter on the commands (book/src/commands.md).

use std::io::{self, BufWriter, Write};

use flagsplit::fsck::bits;
use flagsplit::fsck::finding::{Counts, Finding, Sink};
use flagsplit::json;

/// The names of git's exit bits, lowest first.
const BITS: [(u8, &str); 8] = [
    (bits::OBJECT, "object"),
    (bits::REACHABLE, "reachable"),
    (bits::PACK, "pack"),
    (bits::REFS, "refs"),
    (bits::COMMIT_GRAPH, "commit-graph"),
    (bits::MULTI_PACK_INDEX, "multi-pack-index"),
    (bits::PACK_REV_INDEX, "pack-rev-index"),
    (bits::BITMAP, "bitmap"),
];

/// Writes findings as JSON lines to `out`.
pub struct JsonSink<W: Write> {
    out: W,
    counts: Counts,
}

impl JsonSink<BufWriter<io::Stdout>> {
    /// To standard output.
    pub fn stdout() -> Self {
        JsonSink::new(BufWriter::new(io::stdout()))
    }
}

impl<W: Write> JsonSink<W> {
    /// To `out`.
    pub fn new(out: W) -> Self {
        JsonSink {
            out,
            counts: Counts::default(),
        }
    }

    /// The line of one finding.
    fn line(f: &Finding) -> String {
        let text = String::from_utf8_lossy(&f.line);
        let opt_num = |v: Option<u64>| v.map_or_else(|| "null".to_string(), |v| v.to_string());
        format!(
            "{{\"type\":\"finding\",\"level\":{},\"what\":{},\"msg_id\":{},\"object\":{},\"object_type\":{},\"path\":{},\"pack\":{},\"offset\":{},\"exit_bit\":{},\"stream\":{},\"line\":{}}}",
            json::string(f.level.name()),
            json::string(f.what.name()),
            json::opt_string(f.msg_id.as_deref()),
            json::opt_string(f.object.as_deref()),
            json::opt_string(f.object_type),
            json::opt_string(f.path.as_deref()),
            json::opt_string(f.pack.as_deref()),
            opt_num(f.offset),
            opt_num(f.bit.map(u64::from)),
            json::string(f.stream.name()),
            json::string(&text),
        )
    }
}

impl<W: Write> Sink for JsonSink<W> {
    fn finding(&mut self, f: Finding) {
        self.counts.add(&f);
        let _ = writeln!(self.out, "{}", Self::line(&f));
    }

    fn finish(&mut self, status: u8) {
        let names: Vec<String> = if status == flagsplit::fsck::FATAL {
            Vec::new()
        } else {
            BITS.iter()
                .filter(|(b, _)| status & b != 0)
                .map(|(_, n)| json::string(n))
                .collect()
        };
        let Counts {
            fatal,
            errors,
            warnings,
            info,
        } = self.counts;
        let _ = writeln!(
            self.out,
            "{{\"type\":\"summary\",\"exit_status\":{status},\"exit_bits\":[{}],\"died\":{},\"errors\":{errors},\"warnings\":{warnings},\"info\":{info}}}",
            names.join(","),
            fatal > 0 || status == flagsplit::fsck::FATAL,
        );
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
