//! The tables of a stack read as one (`merged.c`, `pq.c`): every table's iterator seeks the same
//! key, and the records come out in key order through a binary heap; of records with the same
//! key, the newest table's wins and the others are dropped; tombstones (ref and log deletions)
//! are then skipped, as the stack's merged table suppresses them.

use std::sync::Arc;

use super::Fail;
use super::record::{self, Record};
use super::table::{Table, TableIter, has_section};

/// One table's iterator in the merge: tables without the section give nothing.
#[derive(Debug)]
enum Sub {
    Empty,
    Table(Box<TableIter>),
}

impl Sub {
    fn seek(&mut self, want: &Record) -> Result<bool, Fail> {
        match self {
            Sub::Empty => Ok(true),
            Sub::Table(t) => t.seek(want),
        }
    }

    fn next(&mut self, typ: u8) -> Result<Option<Record>, Fail> {
        match self {
            Sub::Empty => Ok(None),
            Sub::Table(t) => t.next(typ),
        }
    }
}

/// `pq_less`: by key, then the newer table (higher index) first.
fn less(a: &(usize, Record), b: &(usize, Record)) -> bool {
    match record::cmp(&a.1, &b.1) {
        0 => a.0 > b.0,
        c => c < 0,
    }
}

/// git's priority queue of (table index, record), kept with its own sift steps so that records
/// whose order is not total (damaged tables) come out as git's do.
#[derive(Debug, Default)]
struct Queue(Vec<(usize, Record)>);

impl Queue {
    fn add(&mut self, e: (usize, Record)) {
        self.0.push(e);
        let mut i = self.0.len() - 1;
        while i > 0 {
            let j = (i - 1) / 2;
            if less(&self.0[j], &self.0[i]) {
                break;
            }
            self.0.swap(i, j);
            i = j;
        }
    }

    fn remove(&mut self) -> Option<(usize, Record)> {
        if self.0.is_empty() {
            return None;
        }
        let e = self.0.swap_remove(0);
        let len = self.0.len();
        let mut i = 0;
        while i < len {
            let mut min = i;
            let (j, k) = (2 * i + 1, 2 * i + 2);
            if j < len && less(&self.0[j], &self.0[i]) {
                min = j;
            }
            if k < len && less(&self.0[k], &self.0[min]) {
                min = k;
            }
            if min == i {
                break;
            }
            self.0.swap(i, min);
            i = min;
        }
        Some(e)
    }
}

/// An iterator over a stack's records of one type (`struct merged_iter`).
#[derive(Debug)]
pub struct MergedIter {
    typ: u8,
    subs: Vec<Sub>,
    pq: Queue,
    advance_index: Option<usize>,
    suppress_deletions: bool,
}

impl MergedIter {
    /// An iterator over `tables` (oldest first) for records of type `typ`.
    pub fn new(tables: &[Arc<Table>], typ: u8, suppress_deletions: bool) -> MergedIter {
        let subs = tables
            .iter()
            .map(|t| {
                if has_section(t, typ) {
                    Sub::Table(Box::new(TableIter::new(t.clone())))
                } else {
                    Sub::Empty
                }
            })
            .collect();
        MergedIter {
            typ,
            subs,
            pq: Queue::default(),
            advance_index: None,
            suppress_deletions,
        }
    }

    /// `merged_iter_advance_subiter`: `Ok(false)` when that table has no more.
    fn advance(&mut self, idx: usize) -> Result<bool, Fail> {
        let typ = self.typ;
        match self
            .subs
            .get_mut(idx)
            .map(|s| s.next(typ))
            .transpose()?
            .flatten()
        {
            Some(rec) => {
                self.pq.add((idx, rec));
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `merged_iter_seek`.
    pub fn seek(&mut self, want: &Record) -> Result<(), Fail> {
        self.advance_index = None;
        for i in 0..self.subs.len() {
            if !self.subs[i].seek(want)? {
                continue;
            }
            self.advance(i)?;
        }
        Ok(())
    }

    /// `merged_iter_next_entry`.
    fn next_entry(&mut self) -> Result<Option<Record>, Fail> {
        let mut empty = self.pq.0.is_empty();
        if let Some(ai) = self.advance_index {
            if empty {
                let typ = self.typ;
                return match self.subs.get_mut(ai) {
                    Some(s) => s.next(typ),
                    None => Ok(None),
                };
            }
            if self.advance(ai)? {
                empty = false;
            }
            self.advance_index = None;
        }
        if empty {
            return Ok(None);
        }
        let Some(entry) = self.pq.remove() else {
            return Ok(None);
        };
        while let Some(top) = self.pq.0.first() {
            if record::cmp(&top.1, &entry.1) > 0 {
                break;
            }
            if let Some((idx, _)) = self.pq.remove() {
                self.advance(idx)?;
            }
        }
        self.advance_index = Some(entry.0);
        Ok(Some(entry.1))
    }

    /// The next record (`merged_iter_next_void`): `Ok(None)` at the end.
    pub fn next_record(&mut self) -> Result<Option<Record>, Fail> {
        loop {
            match self.next_entry()? {
                Some(r) if self.suppress_deletions && r.is_deletion() => continue,
                other => return Ok(other),
            }
        }
    }
}
