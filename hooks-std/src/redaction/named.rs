//! Secrets found by their name rather than their shape: assignments and headers in text
//! (`DB_PASSWORD=...`, `api_key: '...'`, `"client_secret": "..."`, `--password ...`,
//! `Authorization: Basic ...`, `<secret>...</secret>`), and the password of `curl -u user:pass`.
//!
//! The name says where a secret may be; the value decides whether one is there: a reference
//! (`${DB_PASSWORD}`), a placeholder (`<your key here>`), a value made of words
//! (`config.db.password`) or a short one stays. Only the value is masked, so that the
//! assignment still reads.

use super::placeholder::{
    entropy, is_identifier_like, is_password_word, is_placeholder, reads_as_words,
};

/// Literals one of which every name holds (the prefilter; any ASCII case).
pub(crate) const KEYWORDS: &[&str] = &[
    "pass", "pwd", "secret", "token", "key", "auth", "cred", "session",
];

/// Literals of the `curl -u user:password` rule (exact case).
pub(crate) const USER_FLAGS: &[&str] = &["-u", "--user"];

/// What kind of secret a name announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A password: any value that is not a placeholder, six characters or more.
    Password,
    /// A key, token or other secret: a value that reads as random, eight characters or more.
    Secret,
    /// An `Authorization` header or field: the credentials after the scheme.
    Authorization,
}

impl Kind {
    /// The name in the replacement.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Password => "password",
            Kind::Secret | Kind::Authorization => "secret",
        }
    }
}

/// A secret found: its byte range in the text and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: Kind,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The name around the keyword found at `at..end`: its byte range.
pub(crate) fn name_around(text: &[u8], at: usize, end: usize) -> (usize, usize) {
    let start = text[..at]
        .iter()
        .rposition(|&b| !is_name_byte(b))
        .map_or(0, |p| p + 1);
    let stop = text[end..]
        .iter()
        .position(|&b| !is_name_byte(b))
        .map_or(text.len(), |p| end + p);
    (start, stop)
}

/// What a name announces, if anything: it must end with the keyword (after a number or
/// `_value`), so that `kms_key_id`, `keyframe` and `access_token_url` announce nothing.
fn kind_of(name: &str) -> Option<Kind> {
    let name = name.trim_start_matches('-');
    let ends_with = |stem: &str, word: &str| {
        stem.len() >= word.len()
            && stem.as_bytes()[stem.len() - word.len()..].eq_ignore_ascii_case(word.as_bytes())
    };
    let contains = |word: &str| {
        name.as_bytes()
            .windows(word.len())
            .any(|window| window.eq_ignore_ascii_case(word.as_bytes()))
    };
    if contains("public") || contains("publishable") {
        return None;
    }
    let mut stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    for suffix in ["_value", "-value", "value"] {
        if ends_with(stem, suffix) {
            stem = &stem[..stem.len() - suffix.len()];
            break;
        }
    }
    let stem = stem.trim_end_matches(['_', '-', '.']);
    if ["password", "passwd", "passphrase", "pass", "pwd"]
        .iter()
        .any(|word| ends_with(stem, word))
    {
        return Some(Kind::Password);
    }
    if ends_with(stem, "authorization") || stem.eq_ignore_ascii_case("auth") {
        return Some(Kind::Authorization);
    }
    [
        "secret",
        "secrets",
        "token",
        "key",
        "auth",
        "credential",
        "credentials",
        "creds",
        "session",
    ]
    .iter()
    .any(|word| ends_with(stem, word))
    .then_some(Kind::Secret)
}

/// The secret named at the name `start..stop`, if its value is one.
pub(crate) fn at_name(text: &str, start: usize, stop: usize) -> Option<Found> {
    let bytes = text.as_bytes();
    let name = &text[start..stop];
    let kind = kind_of(name)?;
    let flag = name.starts_with('-');
    let xml = start > 0 && bytes[start - 1] == b'<';
    let mut at = stop;
    // The closing quote of a quoted name (`"name": `, `\"name\":`, `['name'] =`).
    let quoted_name = start > 0 && matches!(bytes[start - 1], b'"' | b'\'');
    if bytes.get(at) == Some(&b'\\') && matches!(bytes.get(at + 1), Some(b'"')) {
        at += 1;
    }
    if matches!(bytes.get(at), Some(b'"' | b'\'')) {
        at += 1;
    }
    if bytes.get(at) == Some(&b']') {
        at += 1;
    }
    if xml {
        return (bytes.get(at) == Some(&b'>'))
            .then(|| in_element(text, at + 1, name, kind))
            .flatten();
    }
    let spaces = skip_blanks(bytes, at);
    at += spaces;
    // `const name string = "..."`: a type between the name and `=`.
    if spaces > 0 && bytes[at..].starts_with(b"string") {
        let after = at + "string".len();
        let blanks = skip_blanks(bytes, after);
        if blanks > 0 {
            at = after + blanks;
        }
    }
    let rest = &bytes[at..];
    let must_quote;
    if rest.starts_with(b":=") || rest.starts_with(b"=>") {
        at += 2;
        must_quote = false;
    } else if rest.starts_with(b"==") || rest.starts_with(b"::") {
        return None;
    } else if matches!(rest.first(), Some(b'=' | b':')) {
        at += 1;
        must_quote = false;
    } else if rest.first() == Some(&b'(') || (quoted_name && rest.first() == Some(&b',')) {
        at += 1;
        must_quote = true;
    } else if spaces > 0 && rest.first() == Some(&b'-') && rest.get(1) == Some(&b' ') {
        // `name token - 'value'`, as some logs and fixtures write it.
        at += 1;
        must_quote = true;
    } else if spaces > 0 && flag {
        must_quote = false;
    } else if spaces > 0 && matches!(rest.first(), Some(b'"' | b'\'')) {
        must_quote = true;
    } else {
        return None;
    }
    at += skip_blanks(bytes, at);
    let (value_start, value_end, quoted) = value_at(bytes, at, must_quote)?;
    let (value_start, value_end) = if kind == Kind::Authorization {
        after_scheme(bytes, value_start, value_end, quoted)?
    } else {
        (value_start, value_end)
    };
    let value = &text[value_start..value_end];
    is_secret(value, kind, quoted).then_some(Found {
        start: value_start,
        end: value_end,
        kind,
    })
}

fn skip_blanks(bytes: &[u8], at: usize) -> usize {
    bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// The value starting at `at`: quoted (to its closing quote on the same line) or bare (to
/// the next space or delimiter). Its range, and whether it was quoted.
fn value_at(bytes: &[u8], at: usize, must_quote: bool) -> Option<(usize, usize, bool)> {
    let mut at = at;
    let escaped = bytes.get(at) == Some(&b'\\') && matches!(bytes.get(at + 1), Some(b'"'));
    if escaped {
        at += 1;
    }
    match bytes.get(at) {
        Some(&quote @ (b'"' | b'\'')) => {
            let start = at + 1;
            let length = bytes[start..]
                .iter()
                .take(4096)
                .position(|&b| b == quote || b == b'\n')?;
            let mut end = start + length;
            if bytes[end] != quote {
                return None;
            }
            if escaped && end > start && bytes[end - 1] == b'\\' {
                end -= 1;
            }
            Some((start, end, true))
        }
        // A backquoted command is not a value.
        Some(b'`') => None,
        Some(_) if !must_quote => {
            let length = bytes[at..]
                .iter()
                .take(4096)
                .position(|&b| {
                    b.is_ascii_whitespace()
                        || matches!(b, b'"' | b'\'' | b'`' | b';' | b',' | b'&' | b'<' | b'>')
                })
                .unwrap_or(bytes.len() - at);
            (length > 0).then_some((at, at + length, false))
        }
        _ => None,
    }
}

/// The credentials of an `Authorization` value: what follows its scheme (`Basic`, `Bearer`,
/// `Token`, ...), read past a bare scheme to the next word.
fn after_scheme(bytes: &[u8], start: usize, end: usize, quoted: bool) -> Option<(usize, usize)> {
    let value = &bytes[start..end];
    let scheme = value.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let is_scheme = scheme > 0
        && matches!(
            value[..scheme].to_ascii_lowercase().as_slice(),
            b"basic" | b"bearer" | b"token" | b"digest" | b"bot" | b"apikey" | b"ssws" | b"key"
        );
    if !is_scheme {
        return Some((start, end));
    }
    if scheme < value.len() {
        let blanks = value[scheme..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        return (blanks > 0).then_some((start + scheme + blanks, end));
    }
    if quoted {
        return None;
    }
    // A bare scheme: the credentials are the next word.
    let at = end + skip_blanks(bytes, end);
    let (value_start, value_end, _) = value_at(bytes, at, false)?;
    Some((value_start, value_end))
}

/// `<secret>...</secret>`: the element's content, when a word in it is a secret.
fn in_element(text: &str, at: usize, name: &str, kind: Kind) -> Option<Found> {
    let rest = text.get(at..)?;
    let close = format!("</{name}>");
    let length = rest.get(..rest.len().min(4096))?.find(&close)?;
    let content = &rest[..length];
    let secret = content
        .split(|c: char| c.is_whitespace() || matches!(c, '{' | '}'))
        .any(|word| is_secret(word, kind, false));
    (secret && !content.trim().is_empty()).then_some(Found {
        start: at,
        end: at + length,
        kind,
    })
}

/// Whether a value given under a secret's name is one.
pub(crate) fn is_secret(value: &str, kind: Kind, quoted: bool) -> bool {
    let value = value.trim();
    if value.is_empty() || is_placeholder(value) {
        return false;
    }
    // `user:password` in base64 (Basic credentials, Docker's `auth`): the password decides.
    if let Some(password) = basic_credentials(value) {
        return !password.is_empty() && !is_placeholder(&password) && !is_password_word(&password);
    }
    // Publishable keys are meant to be seen (Stripe's `pk_live_`).
    if value.starts_with("pk_live_") || value.starts_with("pk_test_") {
        return false;
    }
    // A call or an expression (`getpass()`, `os.environ["X"]`): the value is elsewhere.
    let bare_call = !quoted
        && value
            .find(['(', '['])
            .is_some_and(|at| at > 0 && value[..at].bytes().all(is_name_byte));
    if bare_call {
        return false;
    }
    // A phrase in quotes under a password's or key's name is a passphrase.
    let passphrase = quoted && value.split(' ').filter(|w| !w.is_empty()).count() >= 3;
    if passphrase {
        return value.len() >= 8;
    }
    if is_identifier_like(value) || is_password_word(value) || reads_as_words(value) {
        return false;
    }
    match kind {
        Kind::Password => value.len() >= 6,
        Kind::Secret | Kind::Authorization => value.len() >= 8 && entropy(value) >= 2.5,
    }
}

/// `user:password` when `value` is base64 of printable text holding a colon.
fn basic_credentials(value: &str) -> Option<String> {
    if value.len() < 8 || value.len() > 512 {
        return None;
    }
    let decoded = decode_base64(value)?;
    let text = String::from_utf8(decoded).ok()?;
    if !text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
        return None;
    }
    let (user, password) = text.split_once(':')?;
    (!user.is_empty()).then(|| password.to_owned())
}

/// Standard base64 (with or without padding); `None` for anything else.
fn decode_base64(value: &str) -> Option<Vec<u8>> {
    let digits = value.trim_end_matches('=');
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for b in digits.bytes() {
        let digit = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        buffer = (buffer << 6) | u32::from(digit);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((buffer >> bits) & 0xff) as u8);
        }
    }
    Some(out)
}

/// `curl -u user:password` (or `--user`): the password, at the flag found at `at..end`.
pub(crate) fn user_flag(text: &str, at: usize, end: usize) -> Option<Found> {
    let bytes = text.as_bytes();
    if at > 0 && !bytes[at - 1].is_ascii_whitespace() {
        return None;
    }
    let mut i = end;
    let blanks = skip_blanks(bytes, i);
    if blanks > 0 {
        i += blanks;
    } else if bytes.get(i) == Some(&b'=') {
        i += 1;
    } else {
        return None;
    }
    let quote = match bytes.get(i) {
        Some(&q @ (b'"' | b'\'')) => {
            i += 1;
            Some(q)
        }
        _ => None,
    };
    let stops = |b: u8| b.is_ascii_whitespace() || Some(b) == quote || b == b'"' || b == b'\'';
    let pair_length = bytes[i..].iter().take(512).position(|&b| stops(b));
    let pair_end = pair_length.map_or(bytes.len(), |p| i + p);
    let pair = &text[i..pair_end];
    let (_, password) = pair.split_once(':')?;
    if password.is_empty() || is_placeholder(pair) || is_placeholder(password) {
        return None;
    }
    if is_password_word(password) {
        return None;
    }
    Some(Found {
        start: pair_end - password.len(),
        end: pair_end,
        kind: Kind::Password,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<&str> {
        let lower = text.to_ascii_lowercase();
        KEYWORDS.iter().find_map(|keyword| {
            let at = lower.find(keyword)?;
            let (start, stop) = name_around(text.as_bytes(), at, at + keyword.len());
            at_name(text, start, stop).map(|f| &text[f.start..f.end])
        })
    }

    #[test]
    fn names_announce_a_secret_only_when_they_end_with_one() {
        assert_eq!(kind_of("DB_PASSWORD"), Some(Kind::Password));
        assert_eq!(kind_of("--password"), Some(Kind::Password));
        assert_eq!(kind_of("bot_token2"), Some(Kind::Secret));
        assert_eq!(kind_of("secret_value"), Some(Kind::Secret));
        assert_eq!(kind_of("X-Api-Key"), Some(Kind::Secret));
        assert_eq!(kind_of("Authorization"), Some(Kind::Authorization));
        for name in [
            "kms_key_id",
            "Keyframe",
            "access_token_url",
            "public_key",
            "tokenizer",
        ] {
            assert_eq!(kind_of(name), None, "{name}");
        }
    }

    #[test]
    fn values_are_found_after_the_usual_separators() {
        let value = "Q7rT2mVx9LpZk4Ns8WcY";
        for text in [
            format!("API_TOKEN={value}"),
            format!("api_key: '{value}'"),
            format!("\"client_secret\": \"{value}\","),
            format!("auth_token := \"{value}\""),
            format!("--token {value}"),
            format!("getenv(\"service_token\", \"{value}\")"),
            format!("const upstreamKey string = \"{value}\""),
            format!("<secret>{{{value}}}</secret>"),
        ] {
            assert!(found(&text).is_some_and(|f| f.contains(value)), "{text}");
        }
    }

    #[test]
    fn references_words_and_calls_are_not_secrets() {
        for text in [
            "password = \"${DB_PASSWORD}\"",
            "api_key: <your key here>",
            "password = config.db.password",
            "password = getpass()",
            "token: true",
            "secret_key == other_key",
            "Authorization: Bearer $API_TOKEN",
        ] {
            assert_eq!(found(text), None, "{text}");
        }
    }

    #[test]
    fn authorization_masks_the_credentials_and_keeps_the_scheme() {
        let text = "-H 'Authorization: Token 8f3a1c9e77b2d4f0'";
        assert_eq!(found(text), Some("8f3a1c9e77b2d4f0"));
    }

    #[test]
    fn basic_credentials_are_judged_by_their_password() {
        let encode = |plain: &str| -> String {
            const ALPHABET: &[u8] =
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            let mut out = String::new();
            for chunk in plain.as_bytes().chunks(3) {
                let n = chunk
                    .iter()
                    .enumerate()
                    .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
                for i in 0..=chunk.len() {
                    out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
                }
            }
            out
        };
        assert!(is_secret(&encode("deploy:k9Vt2qLm"), Kind::Secret, true));
        assert!(!is_secret(&encode("user:password"), Kind::Secret, true));
    }

    #[test]
    fn curl_user_passwords_are_masked_unless_placeholders() {
        let text = "curl -u deploy:k9Vt2qLm https://api.test";
        let at = text.find("-u").unwrap_or_default();
        let found = user_flag(text, at, at + 2).map(|f| &text[f.start..f.end]);
        assert_eq!(found, Some("k9Vt2qLm"));
        for text in ["curl -u \"$USER:$PASS\" x", "curl --user <user:password> x"] {
            let at = text
                .find("-u")
                .or_else(|| text.find("--user"))
                .unwrap_or_default();
            let flag = if text[at..].starts_with("--user") {
                6
            } else {
                2
            };
            assert_eq!(user_flag(text, at, at + flag), None, "{text}");
        }
    }
}
