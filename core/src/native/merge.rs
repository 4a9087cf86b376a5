//! One order across the files of a session tree: each file's records stay in their file
//! order, and the files interleave by time.
//!
//! Owns: the merge (always take the file whose next record is earliest; a tie goes to the
//! earlier file, the root's first) and the records' `at` (a record without a time takes
//! its file's last; the merged `at` never goes backwards: programs write timestamps a
//! few milliseconds out of order, and the records apply in the merged order anyway).
//! Never: reorders records within a file.

use crate::providers::ProviderRecord;
use crate::tree::Millis;

use super::Place;

/// A file's translated records: where each came from, its time, and the record.
pub(super) type Lane = Vec<(Place, Option<Millis>, ProviderRecord)>;

/// Merges `lanes` (in file order, the root's first) into one stream.
pub(super) fn merge(lanes: Vec<Lane>) -> Vec<(Place, ProviderRecord)> {
    let total = lanes.iter().map(Vec::len).sum();
    let mut lanes: Vec<_> = lanes
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    let mut last: Vec<Option<Millis>> = vec![None; lanes.len()];
    let mut out = Vec::with_capacity(total);
    let mut latest: Option<Millis> = None;
    loop {
        let mut best: Option<(usize, Option<Millis>)> = None;
        for (i, lane) in lanes.iter_mut().enumerate() {
            let Some((_, at, _)) = lane.peek() else {
                continue;
            };
            let at = at.or(last.get(i).copied().flatten());
            let earlier = match best {
                None => true,
                Some((_, best_at)) => matches!((at, best_at), (Some(a), Some(b)) if a < b),
            };
            if earlier {
                best = Some((i, at));
            }
        }
        let Some((i, at)) = best else { break };
        let Some((place, _, mut record)) = lanes.get_mut(i).and_then(Iterator::next) else {
            break;
        };
        if let Some(slot) = last.get_mut(i) {
            *slot = at;
        }
        latest = latest.max(at);
        record.at = latest;
        out.push((place, record));
    }
    out
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
}
