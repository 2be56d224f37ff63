//! git's readings of a value: booleans, and integers with their unit suffixes.

/// git's `git_parse_maybe_bool`.
pub fn parse_maybe_bool(v: Option<&[u8]>) -> Option<bool> {
    let Some(v) = v else {
        return Some(true);
    };
    if v.is_empty() {
        return Some(false);
    }
    let lower = v.to_ascii_lowercase();
    match &lower[..] {
        b"true" | b"yes" | b"on" => Some(true),
        b"false" | b"no" | b"off" => Some(false),
        _ => parse_signed(v, i64::from(i32::MAX)).ok().map(|n| n != 0),
    }
}

pub(super) fn unit_factor(end: &[u8]) -> Option<u64> {
    match &end.to_ascii_lowercase()[..] {
        b"" => Some(1),
        b"k" => Some(1024),
        b"m" => Some(1024 * 1024),
        b"g" => Some(1024 * 1024 * 1024),
        _ => None,
    }
}

/// `strtoumax(s, &end, 0)` on the digits after optional whitespace and sign: (value, saturated,
/// offset of the end). `None` when no digit was read.
pub(super) fn strtou(s: &[u8]) -> Option<(u64, bool, usize, bool)> {
    let mut i = 0;
    // The C library's isspace, which strtoumax uses: also vertical tab and form feed.
    while s
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
    {
        i += 1;
    }
    let mut negative = false;
    if let Some(&c) = s.get(i)
        && (c == b'+' || c == b'-')
    {
        negative = c == b'-';
        i += 1;
    }
    let (radix, start) = if s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        (16, i + 2)
    } else if s.get(i) == Some(&b'0') {
        (8, i)
    } else {
        (10, i)
    };
    let mut j = start;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(j).and_then(|&c| (c as char).to_digit(radix)) {
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        j += 1;
    }
    if j == start {
        return None;
    }
    Some((value, overflow, j, negative))
}

/// git's `git_parse_unsigned`: the error is git's reason (`invalid unit` or `out of range`).
pub fn parse_unsigned(v: &[u8], max: u64) -> Result<u64, &'static str> {
    if v.is_empty() || v.contains(&b'-') {
        return Err("invalid unit");
    }
    let Some((val, overflow, end, _)) = strtou(v) else {
        return Err("invalid unit");
    };
    if overflow {
        return Err("out of range");
    }
    let factor = unit_factor(&v[end..]).ok_or("invalid unit")?;
    match val.checked_mul(factor) {
        Some(n) if n <= max => Ok(n),
        _ => Err("out of range"),
    }
}

/// git's `git_parse_signed` with a positive `max`.
pub fn parse_signed(v: &[u8], max: i64) -> Result<i64, &'static str> {
    if v.is_empty() {
        return Err("invalid unit");
    }
    let Some((val, overflow, end, negative)) = strtou(v) else {
        return Err("invalid unit");
    };
    if overflow || val > i64::MAX as u64 + u64::from(negative) {
        return Err("out of range");
    }
    let factor = unit_factor(&v[end..]).ok_or("invalid unit")? as i64;
    let val: i64 = if negative {
        (val as i128).wrapping_neg() as i64
    } else {
        val as i64
    };
    if (val < 0 && -max / factor > val) || (val > 0 && max / factor < val) {
        return Err("out of range");
    }
    Ok(val * factor)
}
