//! Placeholders and look-alikes: what a value that has a secret's place or a secret's prefix is
//! when it is not a secret. Documentation and configuration templates are full of them
//! (`ghp_xxxx...`, `${DB_PASSWORD}`, `<your key here>`, `AKIA...EXAMPLE`), and masking them
//! hides what a model needs to read without protecting anything.
//!
//! The checks are on the value alone, so that the provider formats and the secrets found by
//! name share them.

/// Words that make a value a placeholder wherever they appear in it (lowercase, as templates
/// write them; a random key that happens to hold `EXAMPLE` in capitals is still a key).
const PLACEHOLDER_WORDS: &[&str] = &[
    "example",
    "Example",
    "placeholder",
    "changeme",
    "change_me",
    "your_",
    "your-",
    "yourkey",
    "invalid",
    "redacted",
    "dummy",
    "goes_here",
    "goes-here",
    "_here",
    "-here",
];

/// The same in capitals, as environment-style templates write them.
const PLACEHOLDER_WORDS_UPPER: &[&str] = &["YOUR_", "YOUR-", "_HERE", "-HERE", "PLACEHOLDER"];

/// Words that make a value made only of letters a placeholder (`somefakekey`, `notapassword`):
/// with digits around them they are as likely a random key's letters.
const WORDS_WITHOUT_DIGITS: &[&str] = &[
    "fake", "sample", "password", "passwd", "secret", "token", "test", "insert", "here", "none",
    "null", "empty", "todo", "apikey",
];

/// Whether `value` is a placeholder or look-alike, not a secret: a reference to a variable or
/// a template, a run of one character, masked, `x`-filled, sequential, a documented example,
/// or a value made of placeholder words.
pub(crate) fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    value.is_empty()
        // Redacted already, by this module or another.
        || value.contains("[REDACTED")
        || is_reference(value)
        || is_filled(value)
        || is_sequential(value)
        || has_placeholder_word(value)
}

/// A reference to something else: `$VAR`, `${VAR}`, `$(cmd)`, `{{ template }}`, `<name>`,
/// `%s`, `[PASSWORD]`, `{Name}`, a backquoted command, or several of them with punctuation
/// between (`${USER}:${PASSWORD}`).
pub(crate) fn is_reference(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.first() == Some(&b'`') {
        return true;
    }
    let mut found = false;
    let mut at = 0;
    while at < bytes.len() {
        let skipped = reference_at(bytes, at);
        if skipped > 0 {
            found = true;
            at += skipped;
        } else if bytes[at].is_ascii_alphanumeric() {
            // Something besides references and punctuation.
            return false;
        } else {
            at += 1;
        }
    }
    found
}

/// The length of a reference starting at `at`, or 0.
fn reference_at(bytes: &[u8], at: usize) -> usize {
    let rest = &bytes[at..];
    let closing = |open: &[u8], close: u8| -> usize {
        if rest.starts_with(open) {
            rest.iter()
                .skip(open.len())
                .position(|&b| b == close)
                .map_or(0, |end| open.len() + end + 1)
        } else {
            0
        }
    };
    for (open, close) in [
        (&b"{{"[..], b'}'),
        (b"${", b'}'),
        (b"$(", b')'),
        (b"%(", b')'),
        (b"<", b'>'),
    ] {
        let length = closing(open, close);
        // `$(cmd ...` cut at a space: the rest of the value is the command.
        if length == 0 && matches!(open, b"${" | b"$(") && rest.starts_with(open) {
            return rest.len();
        }
        if length > 0 {
            // `{{ x }}` ends with two braces.
            let extra = usize::from(open == b"{{" && rest.get(length) == Some(&b'}'));
            return length + extra;
        }
    }
    match rest {
        [b'$', next, ..] if next.is_ascii_alphabetic() || *next == b'_' => {
            1 + rest[1..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count()
        }
        [b'%', b's' | b'd', ..] => 2,
        // `[PASSWORD]`, `{SumoAccessKey}`: a name in brackets or braces.
        [open @ (b'[' | b'{'), ..] => {
            let close = if *open == b'[' { b']' } else { b'}' };
            let inner: Vec<u8> = rest[1..]
                .iter()
                .copied()
                .take_while(|&b| b != close)
                .collect();
            let named = !inner.is_empty()
                && inner
                    .iter()
                    .all(|b| b.is_ascii_alphabetic() || matches!(b, b'_' | b' ' | b'-' | b'.'));
            if named && rest.get(inner.len() + 1) == Some(&close) {
                inner.len() + 2
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// Masked or filled: `xxxx`, `****`, `####`, `....`, or one character making up half of the
/// value in long runs (`aaaa1111bbbb2222`, `0000...TUVWXYZ`).
pub(crate) fn is_filled(value: &str) -> bool {
    let bytes = value.as_bytes();
    let mut in_runs = 0;
    let mut at = 0;
    while at < bytes.len() {
        let run = bytes[at..]
            .iter()
            .take_while(|b| b.eq_ignore_ascii_case(&bytes[at]))
            .count();
        let filler = matches!(bytes[at].to_ascii_lowercase(), b'x' | b'*' | b'#' | b'.');
        if filler && run >= 4 {
            return true;
        }
        if run >= 3 {
            in_runs += run;
        }
        at += run;
    }
    in_runs * 2 >= bytes.len()
}

/// Made mostly of ascending or descending runs (`abcdef...`, `0123456789...`), the way
/// look-alikes are written: four fifths of the characters in runs of four or more.
fn is_sequential(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() < 8 {
        return false;
    }
    let step = |a: u8, b: u8| -> i8 {
        let same_class = (a.is_ascii_digit() && b.is_ascii_digit())
            || (a.is_ascii_lowercase() && b.is_ascii_lowercase())
            || (a.is_ascii_uppercase() && b.is_ascii_uppercase());
        if !same_class {
            return 0;
        }
        // Digits wrap: `...7890123...` is one run.
        if a == b'9' && b == b'0' {
            return 1;
        }
        if a == b'0' && b == b'9' {
            return -1;
        }
        match i16::from(b) - i16::from(a) {
            1 => 1,
            -1 => -1,
            _ => 0,
        }
    };
    let mut in_runs = 0;
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start + 1;
        if end < bytes.len() {
            let direction = step(bytes[start], bytes[end]);
            if direction != 0 {
                while end < bytes.len() && step(bytes[end - 1], bytes[end]) == direction {
                    end += 1;
                }
            }
        }
        if end - start >= 4 {
            in_runs += end - start;
        }
        start = end;
    }
    in_runs * 5 >= bytes.len() * 4
}

fn has_placeholder_word(value: &str) -> bool {
    if PLACEHOLDER_WORDS.iter().any(|word| value.contains(word))
        || PLACEHOLDER_WORDS_UPPER
            .iter()
            .any(|word| value.contains(word))
        || ends_like_a_documented_example(value)
    {
        return true;
    }
    if value.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    WORDS_WITHOUT_DIGITS.iter().any(|word| lower.contains(word))
}

/// AWS's documentation keys end in `EXAMPLE` or `EXAMPLEKEY`; others copy the style.
fn ends_like_a_documented_example(value: &str) -> bool {
    let trimmed = value.trim_end_matches('=');
    trimmed.ends_with("EXAMPLE") || trimmed.ends_with("EXAMPLEKEY")
}

/// Whether `value` reads as words and small numbers (`my-private-key`, `jjwt-jackson-0.11.2`,
/// `getPagesInConfluenceSpace`, `config.db.password`) rather than random characters.
pub(crate) fn is_identifier_like(value: &str) -> bool {
    let parts: Vec<&str> = value
        .split(['-', '_', '.', '/', ':', ' ', ',', '\\'])
        .filter(|part| !part.is_empty())
        .collect();
    !parts.is_empty() && parts.iter().all(|part| is_word(part))
}

/// Whether `value` reads as lowercase words run together (`mydatabasepasswordgoeshere`):
/// at most two digits, and as many vowels as a language has (a random lowercase key has
/// about one letter in five a vowel, words about two in five).
pub(crate) fn reads_as_words(value: &str) -> bool {
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    let letters = value.bytes().filter(u8::is_ascii_lowercase).count();
    let vowels = value
        .bytes()
        .filter(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'))
        .count();
    value.len() >= 12
        && digits <= 2
        && digits + letters == value.len()
        && vowels * 10 >= letters * 3
}

/// One word: lowercase, capitals, Capitalised, camelCase humps of two letters or more on
/// average, or a number of at most four digits.
fn is_word(part: &str) -> bool {
    let bytes = part.as_bytes();
    if bytes.iter().all(u8::is_ascii_digit) {
        return bytes.len() <= 4;
    }
    if !bytes.iter().all(u8::is_ascii_alphabetic) {
        return false;
    }
    if bytes.iter().all(u8::is_ascii_lowercase) || bytes.iter().all(u8::is_ascii_uppercase) {
        return true;
    }
    // camelCase or PascalCase: an optional lowercase head, then humps of one capital and at
    // least one lowercase letter.
    let mut humps = 0;
    let mut at = bytes.iter().take_while(|b| b.is_ascii_lowercase()).count();
    if at > 0 {
        humps += 1;
    }
    while at < bytes.len() {
        if !bytes[at].is_ascii_uppercase() {
            return false;
        }
        let lower = bytes[at + 1..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        if lower == 0 {
            return false;
        }
        humps += 1;
        at += 1 + lower;
    }
    bytes.len() >= humps * 3
}

/// Shannon entropy of `value` in bits per character.
pub(crate) fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[usize::from(b)] += 1;
    }
    let length = value.len() as f64;
    if length == 0.0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / length;
            -p * p.log2()
        })
        .sum()
}

/// Whether a password in a URL is the word documentation writes in its place
/// (`user:password@host`).
pub(crate) fn is_url_password_word(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "password" | "passwd" | "pwd" | "changeme"
    )
}

/// Whether a password found by its name is one of the words documentation writes in its
/// place.
pub(crate) fn is_password_word(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "password" | "passwd" | "pass" | "pwd" | "secret" | "changeme"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_templates_are_placeholders() {
        for value in [
            "${DB_PASSWORD}",
            "$API_KEY",
            "$(vault read -field=token secret/ci)",
            "{{ .Values.token }}",
            "<your key here>",
            "%s",
            "[PASSWORD]",
            "{ServiceKey}",
            "`pass show ci`",
            "${USER}:${PASSWORD}",
        ] {
            assert!(is_placeholder(value), "{value}");
        }
        // Braces and dollars inside a random value do not make it a reference.
        assert!(!is_reference("q{{r}s)t${u]vw(xy[z>-_$#k9m2}}"));
    }

    #[test]
    fn filled_sequential_and_example_values_are_placeholders() {
        let filled = format!("tok_{}", "x".repeat(30));
        let runs = format!("{}{}{}", "a".repeat(10), "1".repeat(10), "b".repeat(10));
        for value in [
            filled.as_str(),
            "****************",
            runs.as_str(),
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "9876543210zyxwvuts",
            "KEYID7EXAMPLE",
            "insert_key_here",
            "somefakekey",
            "YOUR-TOKEN-HERE",
        ] {
            assert!(is_placeholder(value), "{value}");
        }
        for value in [
            "q7Rt2mVx9LpZk4Ns8WcY",
            "k7Tz3fakeQm9Vx2Lw8Rp",
            "Zq8EXAMPLEr7Tk2Vn5Lm=",
        ] {
            assert!(!is_placeholder(value), "{value}");
        }
    }

    #[test]
    fn words_read_as_identifiers_and_random_text_does_not() {
        for value in [
            "my-private-key",
            "jjwt-jackson-0.11.2",
            "getPagesInSpace",
            "DB_URL",
        ] {
            assert!(is_identifier_like(value), "{value}");
        }
        for value in ["q7Rt2mVx9LpZk4Ns", "rXwGtKCleBsaUfp", "a1b2c3d4"] {
            assert!(!is_identifier_like(value), "{value}");
        }
        assert!(reads_as_words("storagekeybase64encoded"));
        assert!(!reads_as_words("k4zq9wtx7mrp2vbn8hcs"));
    }

    #[test]
    fn entropy_counts_bits_per_character() {
        assert!(entropy("aaaa") < 0.01);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }
}
