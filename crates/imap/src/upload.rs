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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::Settings;
    use crate::mbox::{self, Format};
    use crate::script::{Script, Step, client, server};
    use crate::send::{CredentialSource, Ui};
    use crate::session::{NoTrace, Trace};
    use crate::transport::{Stream, Transport};

    struct Quiet;

    impl Ui for Quiet {
        fn info(&self, _: &str) {}
        fn warn(&self, _: &str) {}
        fn progress(&self, _: usize, _: usize) {}
        fn trace(&self) -> &dyn Trace {
            &NoTrace
        }
    }

    fn messages(n: usize) -> (Vec<Message>, Vec<Vec<u8>>) {
        let mut mbox = String::new();
        for i in 1..=n {
            mbox.push_str(&format!(
                "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\nFrom: A U Thor <a@example.org>\nDate: Tue, 14 Nov 2023 22:13:20 +0000\nMessage-ID: <m{i}@x>\nSubject: [PATCH {i}/{n}] change {i}\n\nbody {i}\n"
            ));
        }
        let messages = mbox::split(mbox.as_bytes(), Format::Mboxo).unwrap();
        let stored = messages.iter().map(Message::to_crlf).collect();
        (messages, stored)
    }

    /// A PREAUTH session over `steps`, with `caps`; the script, to check it was played out.
    fn session(caps: &str, steps: Vec<Step>) -> (Session<'static>, Script) {
        let mut all = vec![server(format!("* PREAUTH [CAPABILITY {caps}] hi\r\n"))];
        all.extend(steps);
        let script = Script::new(all);
        let transport = Transport::new(
            Stream::Other(Box::new(script.clone())),
            Duration::from_secs(30),
        );
        let s = Session::start(transport, "scripted", &NoTrace).unwrap();
        (s, script)
    }

    fn examine(tag: &str, next: u32) -> Vec<Step> {
        vec![
            client(format!("{tag} EXAMINE \"Drafts\"\r\n")),
            server(format!(
                "* OK [UIDVALIDITY 7] v\r\n* OK [UIDNEXT {next}] n\r\n{tag} OK done\r\n"
            )),
        ]
    }

    fn logout(tag: &str) -> Vec<Step> {
        vec![
            client(format!("{tag} LOGOUT\r\n")),
            server(format!("* BYE bye\r\n{tag} OK bye\r\n")),
        ]
    }

    fn append(tag: &str, body: &[u8], plus: bool) -> Vec<u8> {
        let mut v = format!(
            "{tag} APPEND \"Drafts\" (\\Seen) {{{}{}}}\r\n",
            body.len(),
            if plus { "+" } else { "" }
        )
        .into_bytes();
        v.extend_from_slice(body);
        v.extend_from_slice(b"\r\n");
        v
    }

    fn job<'a>(settings: &'a Settings, ui: &'a Quiet, allow_duplicates: bool) -> Job<'a> {
        Job {
            settings,
            tls: None,
            dry_run: false,
            allow_duplicates,
            credentials: CredentialSource::ConfigOnly,
            ui,
        }
    }

    fn settings() -> Settings {
        Settings {
            folder: Some("Drafts".into()),
            ..Settings::default()
        }
    }

    fn no_reopen() -> Result<Session<'static>, ImapError> {
        Err(ImapError::Protocol("no reconnection in this test".into()))
    }

    /// The upload of `stored` to "Drafts" over `s`, reconnecting with `reopen`.
    fn upload<'a>(
        s: Session<'a>,
        reopen: &mut Reopen<'_, 'a>,
        allow_duplicates: bool,
        messages: &[Message],
        stored: &[Vec<u8>],
    ) -> Result<Report, Box<Failure>> {
        let (settings, ui) = (settings(), Quiet);
        run(
            &job(&settings, &ui, allow_duplicates),
            s,
            reopen,
            messages,
            stored,
        )
    }

    /// An APPEND with a synchronising literal: the command line up to the literal, and the rest.
    fn split_at_literal(command: &[u8]) -> (Step, Step) {
        let head = command.iter().position(|&b| b == b'\n').unwrap() + 1;
        (
            Step::Client(command[..head].to_vec()),
            Step::Client(command[head..].to_vec()),
        )
    }

    #[test]
    fn appends_are_pipelined_with_literal_plus() {
        let (messages, stored) = messages(3);
        // All three APPENDs are written before any answer is read.
        let mut all = Vec::new();
        for (k, body) in stored.iter().enumerate() {
            all.extend(append(&format!("f{}", k + 2), body, true));
        }
        let mut steps = examine("f1", 1);
        steps.push(Step::Client(all));
        steps.push(server(
            "f2 OK [APPENDUID 7 1] a\r\nf3 OK [APPENDUID 7 2] b\r\nf4 OK [APPENDUID 7 3] c\r\n",
        ));
        steps.extend(logout("f5"));
        let (s, script) = session("IMAP4rev1 LITERAL+ UIDPLUS", steps);
        let report = upload(s, &mut no_reopen, true, &messages, &stored).unwrap();
        assert_eq!(report.outcomes, [1, 2, 3].map(|u| Outcome::Stored(Some(u))));
        assert!(script.left().is_empty(), "{:?}", script.left());
    }

    #[test]
    fn one_append_per_message_with_synchronising_literals() {
        let (messages, stored) = messages(2);
        let mut steps = examine("f1", 1);
        for (k, body) in stored.iter().enumerate() {
            let tag = format!("f{}", k + 2);
            let (head, literal) = split_at_literal(&append(&tag, body, false));
            steps.push(head);
            steps.push(server("+ go ahead\r\n"));
            steps.push(literal);
            steps.push(server(format!("{tag} OK [APPENDUID 7 {}] ok\r\n", k + 5)));
        }
        steps.extend(logout("f4"));
        let (s, script) = session("IMAP4rev1 UIDPLUS", steps);
        let report = upload(s, &mut no_reopen, true, &messages, &stored).unwrap();
        assert_eq!(
            report.outcomes,
            [Outcome::Stored(Some(5)), Outcome::Stored(Some(6))]
        );
        assert!(script.left().is_empty(), "{:?}", script.left());
    }

    #[test]
    fn refusal_before_a_literal_sends_no_literal_and_stores_nothing() {
        let (messages, stored) = messages(2);
        let (head, _) = split_at_literal(&append("f2", &stored[0], false));
        let mut steps = examine("f1", 1);
        steps.push(head);
        steps.push(server("f2 NO [OVERQUOTA] \x1b[2Jfull\r\n"));
        // The literal is never sent: the next thing written is LOGOUT.
        steps.extend(logout("f3"));
        let (s, script) = session("IMAP4rev1 UIDPLUS", steps);
        let f = upload(s, &mut no_reopen, true, &messages, &stored).unwrap_err();
        assert_eq!(
            f.error.to_string(),
            "APPEND of message 1 to 'Drafts' failed: the server said \"NO [OVERQUOTA] \\u{1b}[2Jfull\""
        );
        let report = f.report.unwrap();
        assert_eq!(report.outcomes, [Outcome::NotStored, Outcome::NotStored]);
        assert!(f.recovery_error.is_none());
        assert!(script.left().is_empty(), "{:?}", script.left());
    }

    #[test]
    fn recovery_after_a_cut_looks_the_messages_up() {
        let (messages, stored) = messages(2);
        let mut command = append("f2", &stored[0], true);
        command.truncate(command.len() - 2);
        command.extend(b" (\\Seen) ");
        command.extend(format!("{{{}+}}\r\n", stored[1].len()).as_bytes());
        command.extend(&stored[1]);
        command.extend(b"\r\n");
        let mut steps = examine("f1", 10);
        steps.push(Step::Client(command));
        steps.push(Step::Cut);
        let (s, first) = session("IMAP4rev1 LITERAL+ UIDPLUS MULTIAPPEND", steps);
        // The second session: the folder, one SEARCH per message (no ESEARCH), one FETCH.
        let mut again = examine("f1", 12);
        again.extend([
            client("f2 UID SEARCH HEADER Message-ID \"<m1@x>\"\r\n"),
            server("* SEARCH 10\r\nf2 OK s\r\n"),
            client("f3 UID SEARCH HEADER Message-ID \"<m2@x>\"\r\n"),
            server("* SEARCH 11\r\nf3 OK s\r\n"),
            client("f4 UID FETCH 10,11 (UID BODY.PEEK[])\r\n"),
        ]);
        let mut fetched = Vec::new();
        for (k, body) in stored.iter().enumerate() {
            fetched.extend(
                format!(
                    "* {} FETCH (UID {} BODY[] {{{}}}\r\n",
                    k + 1,
                    k + 10,
                    body.len()
                )
                .as_bytes(),
            );
            fetched.extend(body);
            fetched.extend(b")\r\n");
        }
        fetched.extend(b"f4 OK f\r\n");
        again.push(Step::Server(fetched));
        again.extend(logout("f5"));
        let mut second = Some(session("IMAP4rev1 LITERAL+ UIDPLUS MULTIAPPEND", again));
        let mut second_script = None;
        let mut reopen = || {
            let (s, script) = second.take().ok_or(ImapError::Protocol("twice".into()))?;
            second_script = Some(script);
            Ok(s)
        };
        let f = upload(s, &mut reopen, true, &messages, &stored).unwrap_err();
        assert!(f.error.is_connection_lost(), "{}", f.error);
        assert!(f.recovery_error.is_none(), "{:?}", f.recovery_error);
        assert_eq!(
            f.report.unwrap().outcomes,
            [Outcome::Stored(Some(10)), Outcome::Stored(Some(11))]
        );
        assert_eq!(first.left().len(), 1, "only the cut is left");
        let left = second_script.map(|s| s.left());
        assert_eq!(left.map(|l| l.len()), Some(0));
    }

    #[test]
    fn a_search_without_its_result_is_unknown_and_nothing_is_stored() {
        let (messages, stored) = messages(2);
        let mut steps = examine("f1", 1);
        steps.extend([
            client(
                "f2 UID SEARCH RETURN (ALL) HEADER Message-ID \"<m1@x>\"\r\nf3 UID SEARCH RETURN (ALL) HEADER Message-ID \"<m2@x>\"\r\n",
            ),
            // No ESEARCH for f2 (mangled); an empty one for f3 (no match).
            server("* ESEARCHLL 2\r\nf2 OK s\r\n* ESEARCH (TAG \"f3\") UID\r\nf3 OK s\r\n"),
        ]);
        // Message 2 is stored; message 1 is not known to be absent.
        steps.push(Step::Client(append("f4", &stored[1], true)));
        steps.push(server("f4 OK [APPENDUID 7 1] ok\r\n"));
        steps.extend(logout("f5"));
        let (s, script) = session("IMAP4rev1 LITERAL+ UIDPLUS ESEARCH", steps);
        let f = upload(s, &mut no_reopen, false, &messages, &stored).unwrap_err();
        assert!(matches!(f.error, ImapError::SearchFailed { ref messages } if messages == &[0]));
        assert_eq!(
            f.report.unwrap().outcomes,
            [Outcome::Unknown, Outcome::Stored(Some(1))]
        );
        assert!(script.left().is_empty(), "{:?}", script.left());
    }
}
