//! The submodule names and URLs git's fsck refuses in `.gitmodules` (`check_submodule_name`
//! and `check_submodule_url` in git's `submodule-config.c`, with the URL normalisation of its
//! `urlmatch.c` and the decoding of its `url.c`).

/// A directory separator on any platform.
fn is_sep(c: u8) -> bool {
    c == b'/' || c == b'\\'
}

/// git's `check_submodule_name`: not empty, and no `..` path component.
pub(super) fn name_ok(name: &[u8]) -> bool {
    if name.is_empty() {
        return false;
    }
    let dotdot_at = |i: usize| {
        name.get(i) == Some(&b'.')
            && name.get(i + 1) == Some(&b'.')
            && name.get(i + 2).is_none_or(|&c| is_sep(c))
    };
    if dotdot_at(0) {
        return false;
    }
    !name
        .iter()
        .enumerate()
        .any(|(i, &c)| is_sep(c) && dotdot_at(i + 1))
}

fn starts_with_dot_slash(s: &[u8]) -> bool {
    s.first() == Some(&b'.') && s.get(1).is_some_and(|&c| is_sep(c))
}

fn starts_with_dot_dot_slash(s: &[u8]) -> bool {
    s.starts_with(b"..") && s.get(2).is_some_and(|&c| is_sep(c))
}

/// git's `hex2chr`: the byte `%XX` stands for.
fn hex2chr(s: &[u8]) -> Option<u8> {
    let hi = (*s.first()? as char).to_digit(16)?;
    let lo = (*s.get(1)? as char).to_digit(16)?;
    Some((hi * 16 + lo) as u8)
}

/// git's `url_decode`, up to the first NUL (git's result is a C string): the scheme part
/// before the first `:` kept, `%XX` decoded except `%00`.
fn url_decode(url: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(url.len());
    let mut i = 0;
    if let Some(colon) = url.iter().position(|&c| c == b':')
        && colon > 0
    {
        out.extend_from_slice(&url[..colon]);
        i = colon;
    }
    while let Some(&c) = url.get(i) {
        if c == 0 {
            break;
        }
        if c == b'%'
            && url.len() - i >= 3
            && let Some(v) = url.get(i + 1..).and_then(hex2chr)
            && v > 0
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(c);
        i += 1;
    }
    let end = out.iter().position(|&c| c == 0).unwrap_or(out.len());
    out.truncate(end);
    out
}

const UNSAFE: &[u8] = b" <>\"%{}|\\^`";
const RESERVED: &[u8] = b":/?#[]@!$&'()*+,;=";

/// git's `append_normalized_escapes` with no extra escapes: `None` for a bad `%XX`.
fn append_escapes(out: &mut Vec<u8>, from: &[u8]) -> Option<()> {
    let mut i = 0;
    while let Some(&c) = from.get(i) {
        i += 1;
        let (ch, was_esc) = if c == b'%' {
            if from.len() - i < 2 {
                return None;
            }
            let v = hex2chr(&from[i..])?;
            i += 2;
            (v, true)
        } else {
            (c, false)
        };
        if ch <= 0x1f || ch >= 0x7f || UNSAFE.contains(&ch) || (was_esc && RESERVED.contains(&ch)) {
            out.extend_from_slice(format!("%{ch:02X}").as_bytes());
        } else {
            out.push(ch);
        }
    }
    Some(())
}

/// git's `url_normalize` (no globs): `None` where git's fails.
fn url_normalize(url: &[u8]) -> Option<Vec<u8>> {
    let url = url.split(|&c| c == 0).next().unwrap_or(url);
    let scheme_chars = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-');
    let spanned = url.iter().take_while(|&&c| scheme_chars(c)).count();
    if spanned == 0
        || !url.first().is_some_and(u8::is_ascii_alphabetic)
        || spanned + 3 > url.len()
        || &url[spanned..spanned + 3] != b"://"
    {
        return None;
    }
    let mut norm: Vec<u8> = url[..spanned + 3].to_ascii_lowercase();
    let scheme_len = spanned;
    let mut u = &url[spanned + 3..];
    let slash = u.iter().position(|c| b"/?#".contains(c)).unwrap_or(u.len());
    if let Some(at) = u.iter().position(|&c| c == b'@')
        && at < slash
    {
        if at > 0 {
            append_escapes(&mut norm, &u[..at])?;
        }
        norm.push(b'@');
        u = &u[at + 1..];
    }
    let slash = u.iter().position(|c| b"/?#".contains(c)).unwrap_or(u.len());
    let mut host_off = 0;
    if u.is_empty() || b":/?#".contains(&u[0]) {
        if !norm.starts_with(b"file:") {
            return None;
        }
    } else {
        host_off = norm.len();
    }
    // The port's colon: the last `:` before the path that is not inside `[...]`.
    let mut colon = slash;
    if slash > 0 {
        let mut k = slash - 1;
        while k > 0 && u[k] != b':' && u[k] != b']' {
            k -= 1;
        }
        if u.get(k) == Some(&b':') {
            colon = k;
            if host_off == 0 && colon + 1 != slash {
                return None;
            }
        }
    }
    let host_chars = |c: u8| c.is_ascii_alphanumeric() || b".-_[:]".contains(&c);
    if u.iter().take_while(|&&c| host_chars(c)).count() < colon {
        return None;
    }
    norm.extend(u[..colon].iter().map(u8::to_ascii_lowercase));
    if colon < slash {
        let mut port = &u[colon + 1..slash];
        let zeros = port.iter().take_while(|&&c| c == b'0').count();
        port = &port[zeros..];
        if port.is_empty() && zeros > 0 {
            port = b"0";
        }
        let default_port = port.is_empty()
            || (port == b"80" && norm.starts_with(b"http:"))
            || (port == b"443" && norm.starts_with(b"https:"));
        if !default_port {
            if !port.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let n: u64 = if port.len() <= 5 {
                std::str::from_utf8(port)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0)
            } else {
                0
            };
            if n == 0 || n > 65535 {
                return None;
            }
            norm.push(b':');
            norm.extend_from_slice(port);
        }
    }
    let _ = scheme_len;
    u = &u[slash..];
    let path_start = norm.len();
    norm.push(b'/');
    if u.first() == Some(&b'/') {
        u = &u[1..];
    }
    loop {
        let seg_start = norm.len();
        let next = u.iter().position(|c| b"/?#".contains(c)).unwrap_or(u.len());
        append_escapes(&mut norm, &u[..next])?;
        let mut skip_slash = false;
        let seg = norm.get(seg_start..).unwrap_or_default().to_vec();
        if seg == b"." {
            if seg_start == path_start + 1 {
                norm.truncate(norm.len() - 1);
                skip_slash = true;
            } else {
                norm.truncate(norm.len() - 2);
            }
        } else if seg == b".." {
            let mut prev = norm.len().checked_sub(3)?;
            if prev == path_start {
                return None;
            }
            loop {
                prev = prev.checked_sub(1)?;
                if norm.get(prev) == Some(&b'/') {
                    break;
                }
            }
            if prev == path_start {
                norm.truncate(prev + 1);
                skip_slash = true;
            } else {
                norm.truncate(prev);
            }
        }
        u = &u[next..];
        if u.first() != Some(&b'/') {
            break;
        }
        u = &u[1..];
        if !skip_slash {
            norm.push(b'/');
        }
    }
    if !u.is_empty() {
        append_escapes(&mut norm, u)?;
    }
    Some(norm)
}

/// git's `check_submodule_url`.
pub(super) fn url_ok(url: &[u8]) -> bool {
    if url.first() == Some(&b'-') {
        return false;
    }
    if starts_with_dot_slash(url) || starts_with_dot_dot_slash(url) || url.starts_with(b"git://") {
        if url_decode(url).contains(&b'\n') {
            return false;
        }
        let mut next = url;
        let mut dotdots = 0;
        loop {
            if starts_with_dot_dot_slash(next) {
                dotdots += 1;
                next = &next[3..];
            } else if starts_with_dot_slash(next) {
                next = &next[2..];
            } else {
                break;
            }
        }
        if dotdots > 0 && matches!(next.first(), Some(b':' | b'/')) {
            return false;
        }
        return true;
    }
    let curl = ["http::", "https::", "ftp::", "ftps::"]
        .iter()
        .find_map(|p| url.strip_prefix(p.as_bytes()))
        .or_else(|| {
            ["http://", "https://", "ftp://", "ftps://"]
                .iter()
                .any(|p| url.starts_with(p.as_bytes()))
                .then_some(url)
        });
    match curl {
        Some(c) => url_normalize(c).is_some_and(|n| !url_decode(&n).contains(&b'\n')),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for bad in [&b""[..], b"..", b"../x", b"a/..", b"a\\..\\b"] {
            assert!(!name_ok(bad), "{:?}", String::from_utf8_lossy(bad));
        }
        for ok in [&b"a"[..], b"..a", b"a/..b", b"a/b"] {
            assert!(name_ok(ok), "{:?}", String::from_utf8_lossy(ok));
        }
    }

    // The verdicts are `git fsck`'s on a `.gitmodules` blob with each URL (git 2.47).
    #[test]
    fn urls() {
        for bad in [
            &b"-x"[..],
            b"./%0ax",
            b"../:x",
            b"..//x",
            b"http::foo",
            b"https://ex%0a.com/",
            b"http://[::1]:99999/",
            b"http://a b/",
            b"https://example.com/%0a",
            b"http://example.com/../x",
            b"./%00%0a",
            b"http://h/%zz",
            b"http://:80/x",
            b"http://u@/x",
            b"ftp://h:0/x",
            b"http://h:00/x",
        ] {
            assert!(!url_ok(bad), "{:?}", String::from_utf8_lossy(bad));
        }
        for ok in [
            &b"https://example.com/x.git"[..],
            b"../x",
            b"./x",
            b"git://h/x",
            b"ssh://h/x",
            b"http://example.com:80/x",
        ] {
            assert!(url_ok(ok), "{:?}", String::from_utf8_lossy(ok));
        }
    }
}
