//! git's `wildmatch` (the `gitdir:` conditions' patterns).

use super::parser::is_space;

/// git's `wildmatch` (`*`, `?`, `[...]` with ranges, `!`/`^` and `[:class:]`; with `pathname`,
/// `*` and `?` stop at `/` and `**/` spans directories).
pub fn wildmatch(pattern: &[u8], text: &[u8], pathname: bool, icase: bool) -> bool {
    matches!(dowild(pattern, text, pathname, icase), Match::Yes)
}

#[derive(PartialEq, Eq)]
pub(super) enum Match {
    Yes,
    No,
    AbortAll,
    AbortToStarStar,
}

pub(super) fn fold(c: u8, icase: bool) -> u8 {
    if icase { c.to_ascii_lowercase() } else { c }
}

pub(super) fn dowild(p: &[u8], text: &[u8], pathname: bool, icase: bool) -> Match {
    let mut pi = 0;
    let mut ti = 0;
    while let Some(&pc) = p.get(pi) {
        let t = text.get(ti).copied();
        if t.is_none() && pc != b'*' {
            return Match::AbortAll;
        }
        let tc = t.unwrap_or(0);
        match pc {
            b'\\' => {
                pi += 1;
                let Some(&lit) = p.get(pi) else {
                    return Match::No;
                };
                if fold(tc, icase) != fold(lit, icase) {
                    return Match::No;
                }
            }
            b'?' => {
                if pathname && tc == b'/' {
                    return Match::No;
                }
            }
            b'*' => {
                let mut match_slash = false;
                pi += 1;
                if p.get(pi) == Some(&b'*') {
                    let prev_ok = pi < 2 || p.get(pi - 2) == Some(&b'/');
                    while p.get(pi) == Some(&b'*') {
                        pi += 1;
                    }
                    if !pathname {
                        match_slash = true;
                    } else if prev_ok && (p.get(pi).is_none() || p.get(pi) == Some(&b'/')) {
                        if p.get(pi) == Some(&b'/')
                            && dowild(&p[pi + 1..], &text[ti..], pathname, icase) == Match::Yes
                        {
                            return Match::Yes;
                        }
                        match_slash = true;
                    }
                } else {
                    match_slash = !pathname;
                }
                if pi >= p.len() {
                    if !match_slash && text[ti..].contains(&b'/') {
                        return Match::No;
                    }
                    return Match::Yes;
                } else if !match_slash && p.get(pi) == Some(&b'/') {
                    match text[ti..].iter().position(|&c| c == b'/') {
                        Some(k) => ti += k,
                        None => return Match::AbortAll,
                    }
                    continue;
                }
                loop {
                    if ti > text.len() {
                        return Match::AbortAll;
                    }
                    let r = dowild(&p[pi..], &text[ti..], pathname, icase);
                    if r != Match::No && (!match_slash || r != Match::AbortToStarStar) {
                        return r;
                    }
                    match text.get(ti) {
                        None => return Match::AbortAll,
                        Some(&b'/') if !match_slash => return Match::AbortToStarStar,
                        Some(_) => ti += 1,
                    }
                }
            }
            b'[' => {
                pi += 1;
                let negate = matches!(p.get(pi), Some(b'!' | b'^'));
                if negate {
                    pi += 1;
                }
                let mut matched = false;
                let mut prev: u8 = 0;
                let mut first = true;
                loop {
                    let Some(&c) = p.get(pi) else {
                        return Match::AbortAll;
                    };
                    if c == b']' && !first {
                        break;
                    }
                    first = false;
                    if c == b'\\' {
                        pi += 1;
                        let Some(&c) = p.get(pi) else {
                            return Match::AbortAll;
                        };
                        if fold(tc, icase) == fold(c, icase) {
                            matched = true;
                        }
                        prev = c;
                    } else if c == b'-' && prev != 0 && p.get(pi + 1).is_some_and(|&n| n != b']') {
                        pi += 1;
                        let mut hi = p[pi];
                        if hi == b'\\' {
                            pi += 1;
                            match p.get(pi) {
                                Some(&h) => hi = h,
                                None => return Match::AbortAll,
                            }
                        }
                        if (prev..=hi).contains(&tc)
                            || (icase && (prev..=hi).contains(&tc.to_ascii_lowercase()))
                            || (icase && (prev..=hi).contains(&tc.to_ascii_uppercase()))
                        {
                            matched = true;
                        }
                        prev = 0;
                    } else if c == b'['
                        && p.get(pi + 1) == Some(&b':')
                        && let Some(end) = p[pi + 2..].windows(2).position(|w| w == b":]")
                    {
                        let class = &p[pi + 2..pi + 2 + end];
                        let ok = match class {
                            b"alnum" => tc.is_ascii_alphanumeric(),
                            b"alpha" => tc.is_ascii_alphabetic(),
                            b"blank" => tc == b' ' || tc == b'\t',
                            b"cntrl" => tc.is_ascii_control(),
                            b"digit" => tc.is_ascii_digit(),
                            b"graph" => tc.is_ascii_graphic(),
                            b"lower" => {
                                tc.is_ascii_lowercase() || (icase && tc.is_ascii_uppercase())
                            }
                            b"print" => tc.is_ascii_graphic() || tc == b' ',
                            b"punct" => tc.is_ascii_punctuation(),
                            b"space" => is_space(tc),
                            b"upper" => {
                                tc.is_ascii_uppercase() || (icase && tc.is_ascii_lowercase())
                            }
                            b"xdigit" => tc.is_ascii_hexdigit(),
                            _ => return Match::AbortAll,
                        };
                        matched |= ok;
                        pi += 2 + end + 1;
                        prev = 0;
                    } else {
                        if fold(tc, icase) == fold(c, icase) {
                            matched = true;
                        }
                        prev = c;
                    }
                    pi += 1;
                }
                if matched == negate || (pathname && tc == b'/') {
                    return Match::No;
                }
            }
            _ => {
                if fold(tc, icase) != fold(pc, icase) {
                    return Match::No;
                }
            }
        }
        pi += 1;
        ti += 1;
    }
    if ti >= text.len() {
        Match::Yes
    } else {
        Match::No
    }
}
