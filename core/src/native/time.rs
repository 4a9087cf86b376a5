//! Record timestamps as native files write them: RFC 3339 / ISO 8601 text
//! (`2026-12-01T15:01:26.610Z`, `…+01:00`, a space for `T`) or a number of milliseconds.
//!
//! Owns: turning such a value into milliseconds since the Unix epoch, without a clock or a
//! calendar crate (proleptic Gregorian, UTC offsets applied).
//! Never: guesses a time: anything else is `None`.

use serde_json::Value;

use crate::tree::Millis;

/// Milliseconds since the epoch of a timestamp value: ISO text or a non-negative number
/// of milliseconds.
///
/// ```
/// use lineage_core::native::parse_timestamp;
/// use serde_json::json;
/// assert_eq!(parse_timestamp(&json!("1970-01-01T00:00:01.5Z")), Some(1500));
/// assert_eq!(parse_timestamp(&json!("2026-12-01T16:01:26.610+01:00")), Some(1796137286610));
/// assert_eq!(parse_timestamp(&json!(1796137286610u64)), Some(1796137286610));
/// assert_eq!(parse_timestamp(&json!("yesterday")), None);
/// ```
pub fn parse_timestamp(value: &Value) -> Option<Millis> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => iso(s),
        _ => None,
    }
}

fn iso(text: &str) -> Option<Millis> {
    let b = text.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().try_fold(0i64, |acc, d| {
            d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
        })
    };
    let sep = |at: usize, ok: &[u8]| b.get(at).is_some_and(|c| ok.contains(c));
    if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut at = 19;
    let mut millis = 0i64;
    if sep(at, b".,") {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let digits = b.get(start..at)?;
        if digits.is_empty() {
            return None;
        }
        for (i, d) in digits.iter().take(3).enumerate() {
            millis += i64::from(d - b'0') * [100, 10, 1].get(i).copied().unwrap_or(0);
        }
    }
    let offset_minutes = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if sep(at + 3, b":") && at + 6 == b.len() => {
            let m = num(at + 1, 2)? * 60 + num(at + 4, 2)?;
            if *sign == b'-' { -m } else { m }
        }
        None => 0,
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    u64::try_from(seconds * 1000 + millis).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn iso_timestamps_of_both_programs_read_as_milliseconds() {
        // Codex rollout and Claude transcript timestamps (UTC, milliseconds).
        assert_eq!(
            parse_timestamp(&json!("2026-12-01T15:01:26.610Z")),
            Some(1_796_137_286_610)
        );
        assert_eq!(
            parse_timestamp(&json!("2000-02-29T00:00:00Z")),
            Some(951_782_400_000)
        );
        assert_eq!(
            parse_timestamp(&json!("2026-12-01 15:01:26Z")),
            Some(1_796_137_286_000)
        );
        assert_eq!(
            parse_timestamp(&json!("2026-12-01T15:01:26.6104567Z")),
            Some(1_796_137_286_610)
        );
        assert_eq!(
            parse_timestamp(&json!("2026-12-01T10:01:26.610-05:00")),
            Some(1_796_137_286_610)
        );
    }

    #[test]
    fn anything_else_is_no_time() {
        for bad in [
            json!("2026-13-01T00:00:00Z"),
            json!("2026-12-01T15:01:26.Z"),
            json!("2026-12-01T15:01:26.610Zjunk"),
            json!("1969-12-31T23:59:59Z"),
            json!(-5),
            json!(1.5),
            json!(null),
            json!("２０２６-12-01T15:01:26Z"),
        ] {
            assert_eq!(parse_timestamp(&bad), None, "{bad}");
        }
    }
}
