//! `flagsplit hash-object`: git object ids, compatible with `git hash-object` for reading (no `-w`).
//!
//! The object format is the repository's (`extensions.objectFormat`, found as git finds the
//! repository; SHA-1 outside one) unless `--object-format` says otherwise. Commits, trees and tags
//! go through git's checks unless `--literally`. Many paths are hashed in parallel, and the ids
//! are printed in input order. With `--stdin-paths` the paths are read as they arrive and each id
//! is flushed as soon as every id before it is known, so a program can use it as a coprocess
//! (write a path, read the id), as git-svn does with git's.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::process::ExitCode;

use flagsplit::cli::Command;
use flagsplit::hash::collision_detection_from_env;
use flagsplit::object::{self, Kind, ObjectError, ObjectFormat, ObjectHasher, ObjectId, Warnings};
use flagsplit::os_error::strerror;
use flagsplit_git::hash_object::{self as schedule, Paths, Schedule};

const NAME: &str = "flagsplit hash-object";

/// git's status for usage errors (and for `-h`).
const USAGE_STATUS: u8 = 129;

/// git's status for fatal errors.
const FATAL_STATUS: u8 = 128;

/// A write to a closed pipe: the status of a process killed by `SIGPIPE` (128 + 13), as git and
/// coreutils end. Nothing is printed.
const BROKEN_PIPE_STATUS: u8 = 141;

/// A file up to this size is read whole and hashed in one call.
const SMALL_FILE: usize = 64 * 1024;

/// Content from a pipe is kept in memory up to this size, spooled to a file beyond it.
const PIPE_IN_MEMORY: usize = 16 * 1024 * 1024;

/// Read buffer for large files. Mapping files instead (as git does above 32 KiB) measured no
/// faster over a tree of 118,000 files: the copy it saves came back as hashing time, the data
/// no longer arriving in a buffer that stays in cache.
const READ_SIZE: usize = 128 * 1024;

/// How a command ends early: git's `error:` lines, then its `fatal:` line (none for a broken
/// pipe), and the exit status.
struct Fatal {
    errors: Vec<String>,
    message: String,
    status: u8,
}

impl Fatal {
    fn new(message: String) -> Fatal {
        Fatal {
            errors: Vec::new(),
            message,
            status: FATAL_STATUS,
        }
    }

    fn broken_pipe() -> Fatal {
        Fatal {
            errors: Vec::new(),
            message: String::new(),
            status: BROKEN_PIPE_STATUS,
        }
    }

    /// Prints the messages and returns the status.
    fn report(&self) -> u8 {
        for e in &self.errors {
            eprintln!("{NAME}: error: {}", printable(e));
        }
        if !self.message.is_empty() {
            eprintln!("{NAME}: fatal: {}", printable(&self.message));
        }
        self.status
    }
}

/// A message as git prints it: control characters other than tab and newline become `?`.
fn printable(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_ascii_control() && c != '\t' && c != '\n' {
                '?'
            } else {
                c
            }
        })
        .collect()
}

fn write_error(e: io::Error) -> Fatal {
    match e.kind() {
        io::ErrorKind::BrokenPipe => Fatal::broken_pipe(),
        _ => Fatal::new(format!("write error: {}", strerror(&e))),
    }
}

/// `-t`'s value.
#[derive(Clone)]
enum Type {
    Known(Kind),
    /// With `--literally`: any name goes into the header, and nothing is checked.
    Literal(Vec<u8>),
    /// Not a type git knows (an error once there is something to hash, as in git).
    Invalid(String),
}

/// What every object is hashed with.
#[derive(Clone)]
struct Options {
    format: ObjectFormat,
    ty: Type,
    detect: bool,
}

fn fatal_for(path: &OsStr, e: ObjectError) -> Fatal {
    let name = path.to_string_lossy();
    match e {
        ObjectError::Io(e) if e.kind() == io::ErrorKind::IsADirectory => {
            Fatal::new(format!("Unable to hash {name}"))
        }
        ObjectError::Io(e) => Fatal::new(format!("could not read '{name}': {}", strerror(&e))),
        ObjectError::SizeChanged { .. } => Fatal {
            errors: vec![format!("short read while indexing {name}")],
            message: format!("Unable to hash {name}"),
            status: FATAL_STATUS,
        },
        ObjectError::Malformed { errors } => Fatal {
            errors,
            message: "refusing to create malformed object".into(),
            status: FATAL_STATUS,
        },
        other => Fatal::new(format!("{other}: {name}")),
    }
}

/// A usage error of flagsplit's own: the message, a pointer to the help, 129.
fn usage(msg: &str) -> ExitCode {
    eprintln!("{NAME}: error: {msg}\nTry '{NAME} --help' for more information.");
    ExitCode::from(USAGE_STATUS)
}

/// A usage error git's hash-object reports after parsing its options: the message, then the
/// usage on standard error, 129.
fn usage_with_help(command: &Command, msg: &str) -> ExitCode {
    eprint!("{NAME}: error: {msg}\n{}", command.help("flagsplit"));
    ExitCode::from(USAGE_STATUS)
}

/// Runs the command on the arguments after its name.
pub fn main(command: &'static Command, args: impl Iterator<Item = OsString>) -> ExitCode {
    // git's option rules (`flagsplit::cli::git`): `-h` prints the usage and exits 129, usage
    // errors exit 129 with git's messages.
    let m = match command.parse(args) {
        Ok(m) => m,
        Err(e) => return ExitCode::from(e.report("flagsplit")),
    };
    if m.flag("help") {
        return match io::stdout().write_all(command.help("flagsplit").as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::from(1),
        };
    }
    if m.flag("write") {
        return usage(
            "-w is not supported: flagsplit computes ids and never writes objects (use git hash-object -w)",
        );
    }
    let stdin_paths = m.flag("stdin-paths");
    let stdin = m.count("stdin");
    // git's checks, in git's order (the second message of the last group wins over the first).
    // `--path` only names the path whose attributes would choose the filters: flagsplit never
    // filters, so it changes nothing else.
    let path = m.value("path").is_some();
    let no_filters = m.flag("no-filters");
    let mut refused = None;
    if stdin_paths {
        if stdin > 0 {
            refused = Some("Can't use --stdin-paths with --stdin");
        } else if !m.operands.is_empty() {
            refused = Some("Can't specify files with --stdin-paths");
        } else if path {
            refused = Some("Can't use --stdin-paths with --path");
        }
    } else {
        if stdin > 1 {
            refused = Some("Multiple --stdin arguments are not supported");
        }
        if path && no_filters {
            refused = Some("Can't use --path with --no-filters");
        }
    }
    if let Some(msg) = refused {
        return usage_with_help(command, msg);
    }
    let format = match m.value("object-format") {
        Some(v) => match v.to_str().and_then(ObjectFormat::from_name) {
            Some(f) => f,
            None => {
                return usage(&format!(
                    "unknown object format '{}' (sha1 or sha256)",
                    v.to_string_lossy()
                ));
            }
        },
        None => match object::repository::current_format() {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{NAME}: fatal: {e}");
                return ExitCode::from(FATAL_STATUS);
            }
        },
    };
    let ty = if m.flag("literally") {
        use std::os::unix::ffi::OsStrExt;
        let name = m
            .value("type")
            .map_or(Kind::Blob.name().as_bytes(), |t| t.as_bytes());
        Type::Literal(name.to_vec())
    } else {
        match m.value("type") {
            None => Type::Known(Kind::Blob),
            Some(t) => match t.to_str().and_then(|t| Kind::from_name(t.as_bytes())) {
                Some(k) => Type::Known(k),
                None => Type::Invalid(t.to_string_lossy().into_owned()),
            },
        }
    };
    let opts = Options {
        format,
        ty,
        detect: !m.flag("no-collision-detection") && collision_detection_from_env(),
    };
    // Standard output as a plain file (a duplicate of descriptor 1): buffered here only, and
    // usable from every worker.
    let stdout = match std::os::fd::AsFd::as_fd(&io::stdout()).try_clone_to_owned() {
        Ok(fd) => File::from(fd),
        Err(e) => {
            eprintln!("{NAME}: fatal: {}", strerror(&e));
            return ExitCode::from(FATAL_STATUS);
        }
    };
    let mut out = BufWriter::with_capacity(64 * 1024, stdout);

    let result = (|| -> Result<(), Fatal> {
        if stdin == 1 {
            let hashed = hash_stdin(&opts).map_err(|e| e.into_fatal(OsStr::new("<stdin>")))?;
            emit(&mut out, hashed)?;
        }
        if stdin_paths {
            let fd = std::os::fd::AsFd::as_fd(&io::stdin())
                .try_clone_to_owned()
                .map_err(|e| Fatal::new(format!("reading paths: {}", strerror(&e))))?;
            let input: Box<dyn Read + Send> = Box::new(File::from(fd));
            let reader = io::BufReader::with_capacity(64 * 1024, input);
            hash_many(Paths::Lines(reader), &opts, &mut out, true)
        } else if m.operands.len() == 1 {
            let mut buf = Vec::new();
            let hashed = hash_path(&m.operands[0], &opts, &mut buf)?;
            emit(&mut out, hashed)
        } else {
            let operands = m.operands.clone();
            hash_many(Paths::List(operands), &opts, &mut out, false)
        }
    })();
    let result = result.and_then(|()| out.flush().map_err(write_error));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(fatal) => {
            // Whatever was printed before the error stays printed (as git's ids before a failure).
            let _ = out.flush();
            ExitCode::from(fatal.report())
        }
    }
}

/// Prints an id, after the messages git prints while still accepting the object.
fn emit(out: &mut impl Write, (id, warnings): (ObjectId, Warnings)) -> Result<(), Fatal> {
    if !warnings.is_empty() {
        out.flush().map_err(write_error)?;
        for w in warnings {
            eprintln!("{NAME}: error: {}", printable(&w));
        }
    }
    let mut hex = [0u8; 64];
    let n = id.write_hex(&mut hex);
    out.write_all(&hex[..n])
        .and_then(|()| out.write_all(b"\n"))
        .map_err(write_error)
}

/// Why one object has no id: a message already in git's words, or an object error to be put in
/// them.
enum Failure {
    Fatal(Fatal),
    Object(ObjectError),
}

impl Failure {
    /// The failure in git's words, for the object read from `path`.
    fn into_fatal(self, path: &OsStr) -> Fatal {
        match self {
            Failure::Fatal(f) => f,
            Failure::Object(e) => fatal_for(path, e),
        }
    }
}

impl From<ObjectError> for Failure {
    fn from(e: ObjectError) -> Self {
        Failure::Object(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Object(ObjectError::Io(e))
    }
}

/// The id of one file. `buf` is a reusable buffer (one per worker).
fn hash_path(
    path: &OsStr,
    opts: &Options,
    buf: &mut Vec<u8>,
) -> Result<(ObjectId, Warnings), Fatal> {
    let (mut file, meta) = open_path(path)?;
    hash_open(path, &mut file, &meta, opts, buf)
}

/// Opens a file named on the command line or in the input, and reads its metadata.
fn open_path(path: &OsStr) -> Result<(File, std::fs::Metadata), Fatal> {
    let file = File::open(path).map_err(|e| {
        Fatal::new(format!(
            "could not open '{}' for reading: {}",
            path.to_string_lossy(),
            strerror(&e)
        ))
    })?;
    let meta = file
        .metadata()
        .map_err(|e| fatal_for(path, ObjectError::Io(e)))?;
    Ok((file, meta))
}

/// The id of a file `open_path` opened.
fn hash_open(
    path: &OsStr,
    file: &mut File,
    meta: &std::fs::Metadata,
    opts: &Options,
    buf: &mut Vec<u8>,
) -> Result<(ObjectId, Warnings), Fatal> {
    hash_file(file, meta, opts, buf).map_err(|e| e.into_fatal(path))
}

/// The id of an open file. A regular file is taken to be as long as `fstat` says, as git does:
/// a special file whose size reads as 0 (`/proc/version`) is the empty blob, a file that grew
/// is hashed up to its size, one that shrank is a short read. Anything else (a pipe, a device)
/// is read to its end.
fn hash_file(
    file: &mut File,
    meta: &std::fs::Metadata,
    opts: &Options,
    buf: &mut Vec<u8>,
) -> Result<(ObjectId, Warnings), Failure> {
    if !meta.is_file() {
        if meta.is_dir() {
            return Err(io::Error::from(io::ErrorKind::IsADirectory).into());
        }
        return hash_stream(file, opts);
    }
    let size = meta.len();
    if let (Type::Known(Kind::Blob), true) = (&opts.ty, size > SMALL_FILE as u64) {
        buf.resize(READ_SIZE, 0);
        let id = object::blob_id_streaming(opts.format, file.take(size), size, buf, opts.detect)?;
        return Ok((id, Vec::new()));
    }
    let want = usize::try_from(size).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
    buf.clear();
    buf.reserve(want);
    let got = file.take(size).read_to_end(buf)?;
    if got != want {
        return Err(ObjectError::SizeChanged {
            expected: size,
            actual: got as u64,
        }
        .into());
    }
    hash_bytes(buf, opts)
}

/// The id of content in memory, with `-t`'s type.
fn hash_bytes(content: &[u8], opts: &Options) -> Result<(ObjectId, Warnings), Failure> {
    match &opts.ty {
        Type::Known(kind) => Ok(object::id_of_bytes(
            opts.format,
            *kind,
            content,
            opts.detect,
        )?),
        Type::Literal(name) => {
            let mut h =
                ObjectHasher::with_type_name(opts.format, name, content.len() as u64, opts.detect);
            h.update(content);
            Ok((h.finalize().map_err(ObjectError::from)?, Vec::new()))
        }
        Type::Invalid(name) => Err(Failure::Fatal(Fatal::new(format!(
            "invalid object type \"{name}\""
        )))),
    }
}

fn hash_stdin(opts: &Options) -> Result<(ObjectId, Warnings), Failure> {
    // Standard input redirected from a regular file: hash it as a file (its size is known).
    if let Ok(fd) = std::os::fd::AsFd::as_fd(&io::stdin()).try_clone_to_owned() {
        let mut file = File::from(fd);
        if let Ok(meta) = file.metadata()
            && meta.is_file()
        {
            let mut buf = Vec::new();
            return hash_file(&mut file, &meta, opts, &mut buf);
        }
    }
    let stdin = io::stdin();
    let mut input = stdin.lock();
    hash_stream(&mut input, opts)
}

/// A stream whose length is unknown: kept in memory up to PIPE_IN_MEMORY bytes; beyond that a
/// blob is spooled to an unlinked temporary file, because the object header needs the length
/// before the content.
fn hash_stream(input: &mut impl Read, opts: &Options) -> Result<(ObjectId, Warnings), Failure> {
    let mut head = Vec::new();
    (&mut *input)
        .take(PIPE_IN_MEMORY as u64 + 1)
        .read_to_end(&mut head)?;
    if head.len() <= PIPE_IN_MEMORY || !matches!(opts.ty, Type::Known(Kind::Blob)) {
        input.read_to_end(&mut head)?;
        return hash_bytes(&head, opts);
    }
    let mut spool = tempfile::tempfile()?;
    spool.write_all(&head)?;
    drop(head);
    io::copy(input, &mut spool)?;
    let len = spool.stream_position()?;
    spool.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0u8; READ_SIZE];
    let id = object::blob_id_streaming(opts.format, spool, len, &mut buf, opts.detect)?;
    Ok((id, Vec::new()))
}

/// A regular file at least this large hands the rest of its batch back before it is hashed, so
/// that the paths behind it go to another worker instead of waiting. Without this, large files
/// that sit close together in the input (the Rust toolchains' libLLVM and librustc_driver, 350
/// MB within a few paths of each other near the end) were hashed one after the other by one
/// worker while the others had nothing left to do.
const HAND_BACK: u64 = 1024 * 1024;

/// The ids, printed in input order.
struct Ids<'w, W>(&'w mut W);

impl<W: Write> schedule::Sink<(ObjectId, Warnings), Fatal> for Ids<'_, W> {
    fn emit(&mut self, hashed: (ObjectId, Warnings)) -> Result<(), Fatal> {
        emit(self.0, hashed)
    }

    fn flush(&mut self) -> Result<(), Fatal> {
        self.0.flush().map_err(write_error)
    }
}

/// Hashes every path in parallel (one worker per core) and prints the ids in input order,
/// stopping at the first error (as git does): the library's scheduler
/// ([`flagsplit_git::hash_object::hash_many`]) with this command's hashing of one path. With
/// `interactive`, output is flushed whenever it has caught up with the input.
fn hash_many<W: Write + Send>(
    paths: Paths,
    opts: &Options,
    out: &mut W,
    interactive: bool,
) -> Result<(), Fatal> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let hash = |path: &OsStr, buf: &mut Vec<u8>, hand_back: &mut dyn FnMut()| {
        let (mut file, meta) = open_path(path)?;
        if meta.is_file() && meta.len() >= HAND_BACK {
            hand_back();
        }
        hash_open(path, &mut file, &meta, opts, buf)
    };
    schedule::hash_many(
        paths,
        Schedule {
            workers,
            interactive,
        },
        &hash,
        &|e| Fatal::new(e.to_string()),
        &mut Ids(out),
    )
}
