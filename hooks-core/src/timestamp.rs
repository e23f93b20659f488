//! RFC 3339 timestamps (UTC, milliseconds) for event data, without a date-time dependency.

use std::cell::RefCell;
use std::time::{SystemTime, UNIX_EPOCH};

/// Formats `time` as RFC 3339 in UTC with millisecond precision, e.g.
/// `2024-01-15T10:30:00.000Z`. Times before the Unix epoch are clamped to it.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_millis(1_705_314_600_250);
/// assert_eq!(hooks_core::timestamp::rfc3339(t), "2024-01-15T10:30:00.250Z");
/// ```
pub fn rfc3339(time: SystemTime) -> String {
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since_epoch.as_secs();
    let (year, month, day) = civil_from_days(secs / 86_400);
    let of_day = secs % 86_400;
    // Written digit by digit: `format!` with padding costs ten times as much, and every emit
    // with a listener pays for one timestamp.
    let mut text = *b"0000-00-00T00:00:00.000Z";
    put_digits(&mut text[0..4], year);
    put_digits(&mut text[5..7], month);
    put_digits(&mut text[8..10], day);
    put_digits(&mut text[11..13], of_day / 3600);
    put_digits(&mut text[14..16], of_day % 3600 / 60);
    put_digits(&mut text[17..19], of_day % 60);
    put_digits(&mut text[20..23], u64::from(since_epoch.subsec_millis()));
    // Only ASCII digits and separators were written, so this never falls back.
    String::from_utf8(text.to_vec()).unwrap_or_default()
}

/// Writes the lowest `out.len()` decimal digits of `value`, zero-padded.
fn put_digits(out: &mut [u8], mut value: u64) {
    for slot in out.iter_mut().rev() {
        // `value % 10` is below 10, so the cast cannot truncate.
        *slot = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// The current time as RFC 3339.
///
/// Each thread keeps the text of the last millisecond it formatted: a busy emitter formats a
/// timestamp once per millisecond and otherwise only copies 24 bytes.
pub fn now() -> String {
    thread_local! {
        static LAST: RefCell<((u64, u32), String)> = const { RefCell::new(((0, 0), String::new())) };
    }
    let time = SystemTime::now();
    let since_epoch = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    // Seconds and milliseconds compared as they are: cheaper than a 128-bit millisecond count.
    let millis = (since_epoch.as_secs(), since_epoch.subsec_millis());
    LAST.with_borrow_mut(|(last_millis, text)| {
        if *last_millis != millis || text.is_empty() {
            *text = rfc3339(time);
            *last_millis = millis;
        }
        text.clone()
    })
}

/// Year, month and day of the proleptic Gregorian calendar for a count of days since
/// 1970-01-01 (Howard Hinnant's `civil_from_days`, for non-negative day counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> String {
        rfc3339(UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(1_709_208_000), "2024-02-29T12:00:00.000Z");
        assert_eq!(at(1_735_689_599), "2024-12-31T23:59:59.000Z");
        assert_eq!(at(4_102_444_800), "2100-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_millis(1_705_314_600_007)),
            "2024-01-15T10:30:00.007Z"
        );
    }

    #[test]
    fn now_is_a_current_well_formed_timestamp() {
        let before = rfc3339(SystemTime::now());
        let first = now();
        let second = now();
        let after = rfc3339(SystemTime::now());
        for stamp in [&first, &second] {
            assert_eq!(stamp.len(), 24, "{stamp}");
            assert!(before.as_str() <= stamp.as_str() && stamp.as_str() <= after.as_str());
        }
        assert!(first <= second);
    }

    #[test]
    fn clamps_times_before_the_epoch() {
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_secs(10)),
            "1970-01-01T00:00:00.000Z"
        );
    }
}
