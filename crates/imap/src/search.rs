//! The duplicate search: which messages are already in the selected folder, byte for byte.
//! One `UID SEARCH` per message by Message-ID (else Date and Subject), pipelined with ESEARCH
//! (RFC 4731), then the candidates fetched and compared as they arrive.

use std::collections::{HashMap, HashSet};

use crate::error::ImapError;
use crate::mbox::Message;
use crate::response::{Limits, Untagged, Value};
use crate::session::{Arg, Session};

/// How many commands are kept in flight when pipelining.
const WINDOW: usize = 64;

/// The search key for a message: its Message-ID, else its Date (and Subject, when plain ASCII).
fn search_args(m: &Message) -> Vec<(&'static str, Vec<u8>)> {
    if let Some(id) = &m.message_id {
        return vec![("HEADER Message-ID", id.clone().into_bytes())];
    }
    let mut keys = Vec::new();
    if let Some(date) = &m.date {
        keys.push(("HEADER Date", date.clone().into_bytes()));
    }
    let subject = m.subject.trim();
    if !subject.is_empty() && subject.is_ascii() && !subject.contains("=?") {
        keys.push(("SUBJECT", subject.as_bytes().to_vec()));
    }
    keys
}

/// What the search found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Search {
    /// Messages with an identical one in the folder, and its UID.
    pub found: Vec<(usize, u32)>,
    /// Messages whose search got no usable answer (no ESEARCH or SEARCH result for it): not
    /// known to be absent.
    pub failed: Vec<usize>,
}

/// For each message `which`, the UID of an identical message in the selected folder (compared
/// byte for byte), if any; with `min_uid`, only UIDs from it on count.
pub(crate) fn find_identical(
    session: &mut Session<'_>,
    messages: &[Message],
    stored: &[Vec<u8>],
    which: &[usize],
    min_uid: Option<u32>,
) -> Result<Search, ImapError> {
    // 1. One UID SEARCH per message. Dovecot runs pipelined commands concurrently and may send
    // their `* SEARCH` results in any order, so plain SEARCH results cannot be told apart when
    // pipelined: with ESEARCH (RFC 4731) each result names its command's tag and the searches
    // are pipelined; without it they run one at a time.
    let esearch = session.has("ESEARCH");
    let window = if esearch { WINDOW } else { 1 };
    let mut candidates: HashMap<usize, Vec<u32>> = HashMap::new();
    let mut failed = Vec::new();
    let mut in_flight: Vec<(usize, String)> = Vec::new();
    let mut collect =
        |session: &mut Session<'_>, (i, tag): (usize, String)| -> Result<(), ImapError> {
            let done = session.wait(&tag)?.ok("SEARCH")?;
            // A reply without its result (RFC 4731 and RFC 3501 require one, empty when
            // nothing matched) is not "no match": the message is not known to be absent.
            let found = if esearch {
                session.take_esearch(&tag)
            } else {
                let mut results = done.data.into_iter().filter_map(|d| match d {
                    Untagged::Search(found) => Some(found),
                    _ => None,
                });
                results
                    .next()
                    .map(|first| first.into_iter().chain(results.flatten()).collect())
            };
            let Some(found) = found else {
                failed.push(i);
                return Ok(());
            };
            let uids: Vec<u32> = found
                .into_iter()
                .filter(|u| min_uid.is_none_or(|m| *u >= m))
                .collect();
            if !uids.is_empty() {
                candidates.insert(i, uids);
            }
            Ok(())
        };
    for &i in which {
        let keys = search_args(&messages[i]);
        let ascii = keys.iter().all(|(_, v)| v.is_ascii());
        let mut args = vec![Arg::Raw("UID SEARCH")];
        if esearch {
            args.push(Arg::Raw("RETURN (ALL)"));
        }
        if !ascii {
            args.push(Arg::Raw("CHARSET UTF-8"));
        }
        for (key, value) in &keys {
            args.push(Arg::Raw(key));
            args.push(Arg::Str(value));
        }
        if keys.is_empty() {
            // Nothing to search by: every message is a candidate.
            args.push(Arg::Raw("ALL"));
        }
        let tag = session.send(&args, |_| {})?;
        in_flight.push((i, tag));
        if in_flight.len() >= window {
            let batch: Vec<_> = in_flight.drain(..window.div_ceil(2)).collect();
            for item in batch {
                collect(session, item)?;
            }
        }
    }
    for item in in_flight.drain(..) {
        collect(session, item)?;
    }
    failed.sort_unstable();
    if candidates.is_empty() {
        return Ok(Search {
            found: Vec::new(),
            failed,
        });
    }
    // 2. Fetch the candidates and compare bytes, each body as it arrives (none is kept). A body
    // longer than the largest message cannot be identical to any: the reader drops it unheld
    // (it arrives as NIL) instead of holding up to a server-chosen size.
    let mut uids: Vec<u32> = candidates.values().flatten().copied().collect();
    uids.sort_unstable();
    uids.dedup();
    let mut wanted: HashMap<u32, Vec<usize>> = HashMap::new();
    for (&i, cands) in &candidates {
        for &uid in cands {
            wanted.entry(uid).or_default().push(i);
        }
    }
    let largest = which.iter().map(|&i| stored[i].len()).max().unwrap_or(0);
    let before = session.limits();
    session.set_limits(Limits {
        literal: largest,
        discard_larger: true,
        response: before.response.saturating_add(largest),
        ..before
    });
    let mut identical: HashSet<(usize, u32)> = HashSet::new();
    let mut fetched = || -> Result<(), ImapError> {
        for chunk in uids.chunks(200) {
            let set: Vec<String> = chunk.iter().map(u32::to_string).collect();
            let set = set.join(",");
            let tag = session.send(
                &[
                    Arg::Raw("UID FETCH"),
                    Arg::Raw(&set),
                    Arg::Raw("(UID BODY.PEEK[])"),
                ],
                |_| {},
            )?;
            session
                .wait_with(&tag, |d| {
                    let Untagged::Fetch { items, .. } = d else {
                        return Some(d);
                    };
                    let mut uid = None;
                    let mut body = None;
                    for (name, value) in items {
                        match (name.as_str(), value) {
                            ("UID", Value::Atom(a)) => uid = a.parse::<u32>().ok(),
                            ("BODY[]", Value::String(b)) => body = Some(b),
                            _ => {}
                        }
                    }
                    if let (Some(uid), Some(body)) = (uid, body)
                        && let Some(is) = wanted.get(&uid)
                    {
                        for &i in is {
                            if body == stored[i] {
                                identical.insert((i, uid));
                            }
                        }
                    }
                    None
                })?
                .ok("FETCH")?;
        }
        Ok(())
    };
    let result = fetched();
    session.set_limits(before);
    result?;
    let mut found = Vec::new();
    let mut taken: Vec<u32> = Vec::new();
    for &i in which {
        let Some(cands) = candidates.get(&i) else {
            continue;
        };
        if let Some(&uid) = cands
            .iter()
            .find(|u| !taken.contains(u) && identical.contains(&(i, **u)))
        {
            taken.push(uid);
            found.push((i, uid));
        }
    }
    Ok(Search { found, failed })
}
