//! The authentication methods and their wire forms: LOGIN (the IMAP command), and the SASL
//! mechanisms PLAIN (RFC 4616), CRAM-MD5 (RFC 2195; HMAC-MD5 over the MD5 provider the caller
//! names, so it works without OpenSSL), XOAUTH2 (Google/Microsoft) and OAUTHBEARER (RFC 7628).

use std::fmt;

use crate::Md5Provider;
use zeroize::{Zeroize, Zeroizing};

use crate::secret::Secret;

/// An authentication method (`imap.authMethod`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// The `LOGIN` command (git's default).
    Login,
    /// `AUTHENTICATE PLAIN`.
    Plain,
    /// `AUTHENTICATE CRAM-MD5`.
    CramMd5,
    /// `AUTHENTICATE XOAUTH2` (the password is an OAuth 2 access token).
    Xoauth2,
    /// `AUTHENTICATE OAUTHBEARER` (the password is an OAuth 2 access token).
    Oauthbearer,
}

impl AuthMethod {
    /// Every method.
    pub const ALL: [AuthMethod; 5] = [
        AuthMethod::Login,
        AuthMethod::Plain,
        AuthMethod::CramMd5,
        AuthMethod::Xoauth2,
        AuthMethod::Oauthbearer,
    ];

    /// As written in `imap.authMethod` and in the capability (`AUTH=...`).
    pub fn name(self) -> &'static str {
        match self {
            AuthMethod::Login => "LOGIN",
            AuthMethod::Plain => "PLAIN",
            AuthMethod::CramMd5 => "CRAM-MD5",
            AuthMethod::Xoauth2 => "XOAUTH2",
            AuthMethod::Oauthbearer => "OAUTHBEARER",
        }
    }

    /// Parses `imap.authMethod` (case-insensitive).
    pub fn from_name(name: &str) -> Option<AuthMethod> {
        AuthMethod::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether the secret itself crosses the wire (in base64 or as a literal), so that it must
    /// only be sent over TLS or a tunnel. CRAM-MD5 sends only an HMAC of a server challenge.
    pub fn reveals_secret(self) -> bool {
        !matches!(self, AuthMethod::CramMd5)
    }

    /// The secret is an OAuth token rather than a password.
    pub fn uses_token(self) -> bool {
        matches!(self, AuthMethod::Xoauth2 | AuthMethod::Oauthbearer)
    }
}

impl fmt::Display for AuthMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `\0user\0password` (authorization identity empty).
pub fn plain(user: &str, pass: &Secret) -> Secret {
    let mut raw = Zeroizing::new(Vec::with_capacity(user.len() + pass.len() + 2));
    raw.push(0);
    raw.extend_from_slice(user.as_bytes());
    raw.push(0);
    raw.extend_from_slice(pass.expose().as_bytes());
    Secret::from_bytes(base64_encode(&raw))
}

/// `parts` joined in one allocation of the exact size (never reallocated, so no uncleared copy
/// of a secret part is left behind), cleared when dropped.
fn concat(parts: &[&str]) -> Zeroizing<String> {
    let mut s = Zeroizing::new(String::with_capacity(parts.iter().map(|p| p.len()).sum()));
    for p in parts {
        s.push_str(p);
    }
    s
}

/// `user=<u>\x01auth=Bearer <token>\x01\x01`.
pub fn xoauth2(user: &str, token: &Secret) -> Secret {
    let raw = concat(&[
        "user=",
        user,
        "\x01auth=Bearer ",
        token.expose(),
        "\x01\x01",
    ]);
    Secret::from_bytes(base64_encode(raw.as_bytes()))
}

/// `n,a=<user>,\x01host=<h>\x01port=<p>\x01auth=Bearer <token>\x01\x01` (RFC 7628 §3.1).
pub fn oauthbearer(user: &str, host: &str, port: u16, token: &Secret) -> Secret {
    let user = user.replace('=', "=3D").replace(',', "=2C");
    let port = port.to_string();
    let raw = concat(&[
        "n,a=",
        &user,
        ",\x01host=",
        host,
        "\x01port=",
        &port,
        "\x01auth=Bearer ",
        token.expose(),
        "\x01\x01",
    ]);
    Secret::from_bytes(base64_encode(raw.as_bytes()))
}

/// The CRAM-MD5 answer to a base64 `challenge`: base64 of `user hex(HMAC-MD5(password, challenge))`,
/// MD5 by `M`.
pub fn cram_md5<M: Md5Provider>(user: &str, pass: &Secret, challenge_b64: &[u8]) -> Option<String> {
    let challenge = base64_decode(challenge_b64)?;
    let digest = hmac_md5::<M>(pass.expose().as_bytes(), &challenge);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(base64_encode(format!("{user} {hex}").as_bytes()))
}

/// HMAC-MD5 (RFC 2104), MD5 by `M`.
pub fn hmac_md5<M: Md5Provider>(key: &[u8], data: &[u8]) -> [u8; 16] {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        let mut h = M::new();
        h.update(key);
        let Ok(digest) = h.finalize();
        block[..16].copy_from_slice(&digest);
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut ipad = block.map(|b| b ^ 0x36);
    let mut opad = block.map(|b| b ^ 0x5c);
    let mut inner = M::new();
    inner.update(&ipad);
    inner.update(data);
    let Ok(inner) = inner.finalize();
    let mut outer = M::new();
    outer.update(&opad);
    outer.update(&inner);
    // Clear the key's copies.
    block.zeroize();
    ipad.zeroize();
    opad.zeroize();
    let Ok(digest) = outer.finalize();
    digest
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 (padding optional, white space not allowed); `None` when invalid.
pub fn base64_decode(data: &[u8]) -> Option<Vec<u8>> {
    let data = data.trim_ascii();
    let unpadded = data
        .strip_suffix(b"==")
        .or_else(|| data.strip_suffix(b"="))
        .unwrap_or(data);
    let mut out = Vec::with_capacity(unpadded.len() * 3 / 4);
    let mut bits: u32 = 0;
    let mut nbits = 0;
    for &c in unpadded {
        let v = B64.iter().position(|&a| a == c)? as u32;
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    (nbits < 6).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flagsplit_hash::{HashProvider, Visitor, for_each_provider};
    use std::convert::Infallible;

    #[test]
    fn base64_round_trip() {
        for (raw, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
        ] {
            assert_eq!(base64_encode(raw.as_bytes()), enc);
            assert_eq!(base64_decode(enc.as_bytes()).unwrap(), raw.as_bytes());
        }
        assert_eq!(base64_decode(b"Z"), None);
        assert_eq!(base64_decode(b"Z*=="), None);
    }

    /// RFC 2104's HMAC-MD5 vectors and RFC 2195's CRAM-MD5 example, with every MD5 provider
    /// (the others are skipped).
    struct Rfc;

    /// An MD5 provider seen through [`Md5Provider`] (the visitor cannot name the bound).
    #[derive(Clone)]
    struct AsMd5<P>(P);

    impl<P: HashProvider> HashProvider for AsMd5<P> {
        type Output = [u8; 16];
        type Error = Infallible;
        const ALGORITHM: &'static str = P::ALGORITHM;
        const PROVIDER: &'static str = P::PROVIDER;

        fn new() -> Self {
            AsMd5(P::new())
        }

        fn update(&mut self, data: &[u8]) {
            self.0.update(data);
        }

        fn finalize(self) -> Result<[u8; 16], Infallible> {
            let digest = self.0.finalize().expect("MD5 providers cannot refuse");
            Ok(digest
                .as_ref()
                .try_into()
                .expect("an MD5 digest has 16 bytes"))
        }
    }

    impl Visitor for Rfc {
        fn visit<Q: HashProvider>(&mut self) {
            if Q::ALGORITHM != "MD5" {
                return;
            }
            let name = Q::PROVIDER;
            let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
            assert_eq!(
                hex(hmac_md5::<AsMd5<Q>>(&[0x0b; 16], b"Hi There")),
                "9294727a3638bb1c13f48ef8158bfc9d",
                "{name}"
            );
            assert_eq!(
                hex(hmac_md5::<AsMd5<Q>>(
                    b"Jefe",
                    b"what do ya want for nothing?"
                )),
                "750c783e6ab0b503eaa86e310a5db738",
                "{name}"
            );
            assert_eq!(
                hex(hmac_md5::<AsMd5<Q>>(
                    &[0xaa; 80],
                    b"Test Using Larger Than Block-Size Key - Hash Key First"
                )),
                "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd",
                "{name}"
            );
            let challenge = base64_encode(b"<1896.697170952@postoffice.reston.mci.net>");
            let answer = cram_md5::<AsMd5<Q>>(
                "tim",
                &Secret::new("tanstaaftanstaaf"),
                challenge.as_bytes(),
            )
            .unwrap();
            assert_eq!(
                base64_decode(answer.as_bytes()).unwrap(),
                b"tim b913a602c7eda7a495b4e6e7334d3890",
                "{name}"
            );
        }
    }

    #[test]
    fn hmac_md5_and_cram_md5_with_every_compiled_md5_provider() {
        for_each_provider(&mut Rfc);
    }

    #[test]
    fn sasl_forms() {
        let p = plain("u", &Secret::new("p"));
        assert_eq!(base64_decode(p.expose().as_bytes()).unwrap(), b"\0u\0p");
        let x = xoauth2("u@x", &Secret::new("tok"));
        assert_eq!(
            base64_decode(x.expose().as_bytes()).unwrap(),
            b"user=u@x\x01auth=Bearer tok\x01\x01"
        );
        let o = oauthbearer("a,b=c", "h", 993, &Secret::new("t"));
        assert_eq!(
            base64_decode(o.expose().as_bytes()).unwrap(),
            b"n,a=a=2Cb=3Dc,\x01host=h\x01port=993\x01auth=Bearer t\x01\x01"
        );
        assert_eq!(AuthMethod::from_name("cram-md5"), Some(AuthMethod::CramMd5));
        assert_eq!(AuthMethod::from_name("NTLM"), None);
    }
}
