//! Storing the messages: one MULTIAPPEND when offered, else one APPEND per message (pipelined
//! with LITERAL+), each message accounted for; and after a lost connection, a new session that
//! looks up the messages whose fate is unknown.

use crate::error::ImapError;
use crate::mbox::Message;
use crate::response::{Code, StatusKind, Untagged};
use crate::search::find_identical;
use crate::send::{Failure, Job, Outcome, Report, find_folder};
use crate::session::{Arg, Session};
use crate::utf7;

/// Opens another logged-in session (after a lost connection).
pub(crate) type Reopen<'r, 'a> = dyn FnMut() -> Result<Session<'a>, ImapError> + 'r;

/// The upload over a logged-in `session`: the folder (created when missing), the duplicate
/// search, the APPENDs, and after a lost connection the lookup over a session from `reopen`.
pub(crate) fn run<'a>(
    job: &Job<'_>,
    mut session: Session<'a>,
    reopen: &mut Reopen<'_, 'a>,
    messages: &[Message],
    stored: &[Vec<u8>],
) -> Result<Report, Box<Failure>> {
    let folder = find_folder(job, &mut session)?;
    let wire = utf7::encode(&folder);
    let mut report = Report {
        folder: folder.clone(),
        outcomes: vec![Outcome::NotStored; messages.len()],
        created: false,
    };

    // The folder, its UIDNEXT (to tell our messages from older ones after a lost connection).
    let examine = session.run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?;
    let mut mark = Mark::default();
    let exists = examine.status.kind == StatusKind::Ok;
    let shown = crate::response::printable(folder.as_bytes(), usize::MAX);
    if exists {
        mark = Mark::from(&examine.data);
    } else if job.dry_run {
        job.ui.info(&format!(
            "folder '{shown}' does not exist: it would be created"
        ));
    } else {
        session
            .run(&[Arg::Raw("CREATE"), Arg::Str(wire.as_bytes())])?
            .ok(format!("CREATE '{shown}'"))?;
        job.ui.info(&format!("created missing folder '{shown}'"));
        report.created = true;
        if let Ok(done) = session.run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())]) {
            mark = Mark::from(&done.data);
        }
    }

    // Messages whose search got no usable answer: neither skipped nor stored.
    let mut unsearched = Vec::new();
    if exists && !job.allow_duplicates {
        let all: Vec<usize> = (0..messages.len()).collect();
        let search = find_identical(&mut session, messages, stored, &all, None)?;
        for (i, uid) in search.found {
            report.outcomes[i] = Outcome::Duplicate(uid);
        }
        for &i in &search.failed {
            report.outcomes[i] = Outcome::Unknown;
        }
        unsearched = search.failed;
    }
    let todo: Vec<usize> = (0..messages.len())
        .filter(|&i| report.outcomes[i] == Outcome::NotStored)
        .collect();
    let searches_failed = |report: Report| -> Result<Report, Box<Failure>> {
        if unsearched.is_empty() {
            return Ok(report);
        }
        Err(Box::new(Failure {
            error: ImapError::SearchFailed {
                messages: unsearched.clone(),
            },
            report: Some(report),
            recovery_error: None,
        }))
    };
    if job.dry_run {
        for &i in &todo {
            report.outcomes[i] = Outcome::WouldStore;
        }
        session.logout();
        return searches_failed(report);
    }
    if todo.is_empty() {
        session.logout();
        return searches_failed(report);
    }

    let result = if session.has("MULTIAPPEND") && todo.len() > 1 {
        append_multi(job, &mut session, &wire, stored, &todo, &mut report)
    } else {
        append_each(job, &mut session, &wire, stored, &todo, &mut report)
    };
    match result {
        Ok(()) => {
            session.logout();
            searches_failed(report)
        }
        Err(error) => {
            drop(session);
            let mut recovery_error = None;
            // The messages never sent stay out of the lookup.
            for &i in &unsearched {
                report.outcomes[i] = Outcome::NotStored;
            }
            if report.unknown() > 0
                && let Err(e) = recover(job, reopen, &wire, messages, stored, &mut report, mark)
            {
                recovery_error = Some(e);
            }
            for &i in &unsearched {
                report.outcomes[i] = Outcome::Unknown;
            }
            Err(Box::new(Failure {
                error,
                report: Some(report),
                recovery_error,
            }))
        }
    }
}

/// How many APPEND commands are kept in flight: enough to hide the round trips, few enough that
/// after a lost connection most messages are known to be unsent rather than unknown.
const APPEND_WINDOW: usize = 16;

/// UIDVALIDITY and UIDNEXT of the folder before the upload.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Mark {
    validity: Option<u32>,
    next: Option<u32>,
}

impl Mark {
    pub(crate) fn from(data: &[Untagged]) -> Mark {
        let mut m = Mark::default();
        for d in data {
            if let Untagged::Status(s) = d {
                match s.code {
                    Some(Code::UidValidity(v)) => m.validity = Some(v),
                    Some(Code::UidNext(n)) => m.next = Some(n),
                    _ => {}
                }
            }
        }
        m
    }
}

fn append_uids(status_code: &Option<Code>) -> Option<Vec<u32>> {
    match status_code {
        Some(Code::AppendUid { uids, .. }) => Some(uids.clone()),
        _ => None,
    }
}

fn append_multi(
    job: &Job<'_>,
    session: &mut Session<'_>,
    wire: &str,
    stored: &[Vec<u8>],
    todo: &[usize],
    report: &mut Report,
) -> Result<(), ImapError> {
    let mut args = vec![Arg::Raw("APPEND"), Arg::Str(wire.as_bytes())];
    for &i in todo {
        args.push(Arg::Raw("(\\Seen)"));
        args.push(Arg::Literal(&stored[i]));
    }
    let total = todo.len();
    let mut sent = 0;
    // Once the first byte is out, the server may store the whole series: unknown until answered.
    for &i in todo {
        report.outcomes[i] = Outcome::Unknown;
    }
    let tag = session.send(&args, |arg| {
        if matches!(args.get(arg), Some(Arg::Literal(_))) {
            sent += 1;
            job.ui.progress(sent, total);
        }
    })?;
    let done = session.wait(&tag)?;
    if done.status.kind != StatusKind::Ok {
        for &i in todo {
            report.outcomes[i] = Outcome::NotStored;
        }
        return Err(ImapError::Command {
            command: format!("APPEND of {total} messages to '{}'", report.folder),
            quote: done.status.quote(),
        });
    }
    let uids = append_uids(&done.status.code).filter(|u| u.len() == todo.len());
    for (k, &i) in todo.iter().enumerate() {
        report.outcomes[i] = Outcome::Stored(uids.as_ref().map(|u| u[k]));
    }
    Ok(())
}

fn append_each(
    job: &Job<'_>,
    session: &mut Session<'_>,
    wire: &str,
    stored: &[Vec<u8>],
    todo: &[usize],
    report: &mut Report,
) -> Result<(), ImapError> {
    let total = todo.len();
    let mut in_flight: Vec<(usize, String)> = Vec::new();
    let mut answered = 0;
    let mut first_error: Option<ImapError> = None;
    let finish = |session: &mut Session<'_>,
                  (i, tag): (usize, String),
                  report: &mut Report,
                  answered: &mut usize,
                  first_error: &mut Option<ImapError>|
     -> Result<(), ImapError> {
        let done = session.wait(&tag)?;
        *answered += 1;
        job.ui.progress(*answered, total);
        if done.status.kind == StatusKind::Ok {
            let uid = append_uids(&done.status.code).and_then(|u| u.first().copied());
            report.outcomes[i] = Outcome::Stored(uid);
        } else {
            report.outcomes[i] = Outcome::NotStored;
            if first_error.is_none() {
                *first_error = Some(ImapError::Command {
                    command: format!("APPEND of message {} to '{}'", i + 1, report.folder),
                    quote: done.status.quote(),
                });
            }
        }
        Ok(())
    };
    for &i in todo {
        if first_error.is_some() {
            break;
        }
        report.outcomes[i] = Outcome::Unknown;
        let sent = session.send(
            &[
                Arg::Raw("APPEND"),
                Arg::Str(wire.as_bytes()),
                Arg::Raw("(\\Seen)"),
                Arg::Literal(&stored[i]),
            ],
            |_| {},
        );
        let tag = match sent {
            Ok(tag) => tag,
            Err(ImapError::Command { quote, .. }) => {
                // Refused before the literal was sent (synchronising literal): not stored.
                report.outcomes[i] = Outcome::NotStored;
                first_error = Some(ImapError::Command {
                    command: format!("APPEND of message {} to '{}'", i + 1, report.folder),
                    quote,
                });
                break;
            }
            Err(e) => return Err(e),
        };
        in_flight.push((i, tag));
        if in_flight.len() >= APPEND_WINDOW || !session.has("LITERAL+") {
            let batch: Vec<_> = in_flight
                .drain(..in_flight.len().saturating_sub(APPEND_WINDOW / 2).max(1))
                .collect();
            for item in batch {
                finish(session, item, report, &mut answered, &mut first_error)?;
            }
        }
    }
    for item in std::mem::take(&mut in_flight) {
        finish(session, item, report, &mut answered, &mut first_error)?;
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// After a lost connection: reconnect and look up every message whose fate is unknown.
fn recover<'a>(
    job: &Job<'_>,
    reopen: &mut Reopen<'_, 'a>,
    wire: &str,
    messages: &[Message],
    stored: &[Vec<u8>],
    report: &mut Report,
    mark: Mark,
) -> Result<(), ImapError> {
    job.ui
        .info("connection lost: reconnecting to find out which messages were stored");
    let mut session = reopen()?;
    let examine = session
        .run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?
        .ok(format!("EXAMINE '{}'", report.folder))?;
    let now = Mark::from(&examine.data);
    if mark.validity.is_some() && now.validity != mark.validity {
        return Err(ImapError::Protocol(
            "the folder's UIDVALIDITY changed: cannot tell which messages were stored".into(),
        ));
    }
    let unknown: Vec<usize> = (0..messages.len())
        .filter(|&i| report.outcomes[i] == Outcome::Unknown)
        .collect();
    // Without the duplicate check, an identical message may predate the upload: only UIDs
    // from the folder's UIDNEXT before the upload count then.
    let min_uid = if job.allow_duplicates {
        match mark.next {
            Some(n) => Some(n),
            None => {
                return Err(ImapError::Protocol(
                    "the server gave no UIDNEXT: with --allow-duplicates the stored messages cannot be told from older copies".into(),
                ));
            }
        }
    } else {
        mark.next
    };
    // The server may still be finishing the old connection's commands (a message received in
    // full but not yet committed when we looked): look again while the folder's UIDNEXT moves.
    let mut missing = unknown;
    let mut next = now.next;
    for round in 0..6u32 {
        let search = find_identical(&mut session, messages, stored, &missing, min_uid)?;
        for (i, uid) in search.found {
            report.outcomes[i] = Outcome::Stored(Some(uid));
        }
        // No usable answer for these: they stay unknown.
        missing.retain(|&i| report.outcomes[i] == Outcome::Unknown && !search.failed.contains(&i));
        if missing.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100 << round.min(3)));
        let again = session
            .run(&[Arg::Raw("EXAMINE"), Arg::Str(wire.as_bytes())])?
            .ok(format!("EXAMINE '{}'", report.folder))?;
        let later = Mark::from(&again.data).next;
        if round > 0 && later == next {
            break;
        }
        next = later;
    }
    for i in missing {
        report.outcomes[i] = Outcome::NotStored;
    }
    session.logout();
    Ok(())
}
