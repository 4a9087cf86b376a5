//! One order across the files of a session tree: each file's records stay in their file
//! order, and the files interleave by time.
//!
//! Owns: the merge (always take the file whose next record is earliest; a tie goes to the
//! earlier file, the root's first) and the records' `at` (a record without a time takes
//! its file's last; the merged `at` never goes backwards: programs write timestamps a
//! few milliseconds out of order, and the records apply in the merged order anyway).
//! Never: reorders records within a file.

use std::collections::{BTreeMap, BTreeSet};

use crate::providers::ProviderRecord;
use crate::tree::Millis;

use super::Place;

/// A file's translated records: where each came from, its time, and the record.
pub(super) type Lane = Vec<(Place, Option<Millis>, ProviderRecord)>;

/// Merges `lanes` (in file order, the root's first) into one stream.
///
/// The file taken next is the first file that still has records when its next record
/// has no time (neither its own nor an earlier one of its file); otherwise the timed file
/// whose next record is earliest, the earlier file on a tie. Each step costs O(log k)
/// for k files: the timed files wait in a set ordered by (time, file).
pub(super) fn merge(lanes: Vec<Lane>) -> Vec<(Place, ProviderRecord)> {
    let total = lanes.iter().map(Vec::len).sum();
    let mut lanes: Vec<_> = lanes
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    let mut waiting = Waiting::default();
    for (i, lane) in lanes.iter_mut().enumerate() {
        if let Some((_, at, _)) = lane.peek() {
            waiting.put(i, *at);
        }
    }
    let mut out = Vec::with_capacity(total);
    let mut latest: Option<Millis> = None;
    while let Some((i, at)) = waiting.take() {
        let Some(lane) = lanes.get_mut(i) else { break };
        let Some((place, _, mut record)) = lane.next() else {
            continue;
        };
        // A record without a time takes the time of its file's last.
        if let Some((_, next, _)) = lane.peek() {
            waiting.put(i, next.or(at));
        }
        latest = latest.max(at);
        record.at = latest;
        out.push((place, record));
    }
    out
}

/// The files that still have records, each with the time of its next record.
#[derive(Default)]
struct Waiting {
    /// Every file that has records left, with its next record's time.
    files: BTreeMap<usize, Option<Millis>>,
    /// The files whose next record has a time, by (time, file).
    timed: BTreeSet<(Millis, usize)>,
}

impl Waiting {
    fn put(&mut self, file: usize, at: Option<Millis>) {
        self.files.insert(file, at);
        if let Some(at) = at {
            self.timed.insert((at, file));
        }
    }

    /// Removes and returns the file to take next, with its next record's time.
    fn take(&mut self) -> Option<(usize, Option<Millis>)> {
        let (&first, &at) = self.files.first_key_value()?;
        let file = match at {
            None => first,
            Some(_) => self.timed.first().map_or(first, |&(_, file)| file),
        };
        let at = self.files.remove(&file).flatten();
        if let Some(at) = at {
            self.timed.remove(&(at, file));
        }
        Some((file, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lane(file: usize, times: &[Option<u64>]) -> Lane {
        times
            .iter()
            .enumerate()
            .map(|(i, at)| {
                let place = Place { file, line: i + 1 };
                (
                    place,
                    *at,
                    ProviderRecord::new("server", json!({"n": i}), *at),
                )
            })
            .collect()
    }

    fn order(merged: &[(Place, ProviderRecord)]) -> Vec<(usize, usize)> {
        merged.iter().map(|(p, _)| (p.file, p.line)).collect()
    }

    #[test]
    fn files_interleave_by_time_and_keep_their_own_order() {
        let merged = merge(vec![
            lane(0, &[Some(10), Some(30), Some(20)]),
            lane(1, &[Some(15), Some(25)]),
        ]);
        // File 0's third record is earlier than its second: it still follows it.
        assert_eq!(order(&merged), [(0, 1), (1, 1), (1, 2), (0, 2), (0, 3)]);
        let ats: Vec<_> = merged.iter().map(|(_, r)| r.at).collect();
        assert_eq!(ats, [Some(10), Some(15), Some(25), Some(30), Some(30)]);
    }

    #[test]
    fn a_tie_goes_to_the_earlier_file_and_untimed_records_take_their_files_time() {
        let merged = merge(vec![
            lane(0, &[Some(10), None, Some(40)]),
            lane(1, &[Some(10), Some(20)]),
        ]);
        assert_eq!(order(&merged), [(0, 1), (0, 2), (1, 1), (1, 2), (0, 3)]);
    }

    /// The merge as first written: scan every file for the earliest next record.
    fn scan(lanes: Vec<Lane>) -> Vec<(Place, ProviderRecord)> {
        let mut lanes: Vec<_> = lanes
            .into_iter()
            .map(|l| l.into_iter().peekable())
            .collect();
        let mut last: Vec<Option<Millis>> = vec![None; lanes.len()];
        let (mut out, mut latest) = (Vec::new(), None);
        loop {
            let mut best: Option<(usize, Option<Millis>)> = None;
            for (i, lane) in lanes.iter_mut().enumerate() {
                let Some((_, at, _)) = lane.peek() else {
                    continue;
                };
                let at = at.or(last[i]);
                let earlier = match best {
                    None => true,
                    Some((_, b)) => matches!((at, b), (Some(a), Some(b)) if a < b),
                };
                if earlier {
                    best = Some((i, at));
                }
            }
            let Some((i, at)) = best else { break };
            let (place, _, mut record) = lanes[i].next().unwrap();
            last[i] = at;
            latest = latest.max(at);
            record.at = latest;
            out.push((place, record));
        }
        out
    }

    #[test]
    fn the_merge_takes_the_files_in_the_order_a_scan_of_every_file_takes_them() {
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        };
        for _ in 0..2_000 {
            let files = 1 + next(6) as usize;
            let lanes: Vec<Lane> = (0..files)
                .map(|file| {
                    let times: Vec<Option<u64>> = (0..next(6))
                        .map(|_| (next(4) != 0).then(|| next(8)))
                        .collect();
                    lane(file, &times)
                })
                .collect();
            let (fast, slow) = (merge(lanes.clone()), scan(lanes.clone()));
            assert_eq!(order(&fast), order(&slow), "{lanes:?}");
            let ats =
                |m: &[(Place, ProviderRecord)]| m.iter().map(|(_, r)| r.at).collect::<Vec<_>>();
            assert_eq!(ats(&fast), ats(&slow), "{lanes:?}");
        }
    }
}
