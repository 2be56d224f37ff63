//! The header of a loose object, once inflated: `<type> <size>\0`, as git's `parse_loose_header`
//! reads it. The type is any run of bytes up to a space (an unknown name is reported by the
//! caller, as git does); the size is canonical decimal (no leading zero, no sign) and is followed
//! by the NUL at once. git inflates at most [`MAX_HEADER_LEN`] bytes to find it.

/// The longest header git looks for (its `MAX_HEADER_LEN`).
pub const MAX_HEADER_LEN: usize = 32;

/// A parsed header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// The type's name as written.
    pub type_name: &'a [u8],
    /// The content's size.
    pub size: u64,
    /// The header's length, NUL included: where the content starts.
    pub len: usize,
}

/// Why a header is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// No NUL within the bytes given (git: the header is too long, or the stream too short).
    NoNul,
    /// Not `<type> <size>\0` in git's canonical form.
    Malformed,
}

/// Parses the header at the start of `inflated`.
pub fn parse_header(inflated: &[u8]) -> Result<Header<'_>, HeaderError> {
    let nul = inflated
        .iter()
        .position(|&b| b == 0)
        .ok_or(HeaderError::NoNul)?;
    let hdr = &inflated[..nul];
    let space = hdr
        .iter()
        .position(|&b| b == b' ')
        .ok_or(HeaderError::Malformed)?;
    let (type_name, digits) = (&hdr[..space], &hdr[space + 1..]);
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(HeaderError::Malformed);
    }
    if digits[0] == b'0' && digits.len() > 1 {
        return Err(HeaderError::Malformed);
    }
    let mut size = 0u64;
    for &d in digits {
        size = size
            .checked_mul(10)
            .and_then(|s| s.checked_add(u64::from(d - b'0')))
            .ok_or(HeaderError::Malformed)?;
    }
    Ok(Header {
        type_name,
        size,
        len: nul + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_git_headers() {
        let h = parse_header(b"blob 12\0hello").unwrap();
        assert_eq!((h.type_name, h.size, h.len), (&b"blob"[..], 12, 8));
        let h = parse_header(b"bogus 0\0").unwrap();
        assert_eq!((h.type_name, h.size), (&b"bogus"[..], 0));
        assert_eq!(parse_header(b"blob 012\0"), Err(HeaderError::Malformed));
        assert_eq!(parse_header(b"blob 1x\0"), Err(HeaderError::Malformed));
        assert_eq!(parse_header(b"blob\0"), Err(HeaderError::Malformed));
        assert_eq!(parse_header(b"blob 1"), Err(HeaderError::NoNul));
        assert_eq!(
            parse_header(b"blob 99999999999999999999999\0"),
            Err(HeaderError::Malformed)
        );
    }
}
