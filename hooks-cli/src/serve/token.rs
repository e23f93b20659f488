//! The bearer token of `hooks serve`: kept in a file only its user can read, created with 32
//! random bytes when missing, and compared in constant time.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The shortest token accepted from a file written by hand (hex digits: 128 bits).
const SHORTEST: usize = 32;

/// The secret every request but `/health` carries as `Authorization: Bearer <token>`.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Token(..)")
    }
}

impl Token {
    /// The token in `file`; a new one written there (readable by its owner alone) when the
    /// file does not exist.
    pub fn from_file(file: &Path) -> Result<Self, String> {
        match std::fs::read_to_string(file) {
            Ok(text) => Token::parse(text.trim())
                .map_err(|problem| format!("{}: {problem}", file.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Token::create(file),
            Err(error) => Err(format!(
                "cannot read the token file {}: {error}",
                file.display()
            )),
        }
    }

    fn parse(text: &str) -> Result<Self, String> {
        if text.len() < SHORTEST || !text.chars().all(|c| c.is_ascii_graphic()) {
            return Err(format!(
                "the token must be at least {SHORTEST} printable characters without spaces"
            ));
        }
        Ok(Token(text.to_owned()))
    }

    /// A new random token, written to `file` (which must not exist).
    fn create(file: &Path) -> Result<Self, String> {
        let problem = |error: std::io::Error| {
            format!("cannot write the token file {}: {error}", file.display())
        };
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut random| random.read_exact(&mut bytes))
            .map_err(|error| format!("cannot read random bytes for a token: {error}"))?;
        let token: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(problem)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut written = options.open(file).map_err(problem)?;
        written
            .write_all(format!("{token}\n").as_bytes())
            .map_err(problem)?;
        Ok(Token(token))
    }

    /// Whether the `Authorization` header `value` carries this token. The comparison takes
    /// the same time wherever the first difference is, so timing does not reveal a prefix.
    pub fn admits(&self, value: Option<&[u8]>) -> bool {
        let Some(given) = value.and_then(|value| value.strip_prefix(b"Bearer ")) else {
            return false;
        };
        let expected = self.0.as_bytes();
        given.len() == expected.len()
            && given
                .iter()
                .zip(expected)
                .fold(0u8, |differs, (a, b)| differs | (a ^ b))
                == 0
    }
}

/// Where `hooks serve` keeps its own files by default: `$XDG_STATE_HOME/hooks`, else
/// `~/.local/state/hooks`.
pub fn state_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|value| !value.is_empty());
    var("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".local/state")))
        .map(|base| base.join("hooks"))
}

/// The default token file: `serve-token` in [`state_dir`].
pub fn default_file() -> Option<PathBuf> {
    state_dir().map(|dir| dir.join("serve-token"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_missing_file_gets_a_new_private_token_that_is_read_back() {
        let dir = hooks_testing::scratch_dir("serve-token", "create");
        let file = dir.join("nested").join("token");
        let made = Token::from_file(&file).unwrap();
        assert_eq!(made.0.len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let read = Token::from_file(&file).unwrap();
        assert_eq!(read.0, made.0);
    }

    #[test]
    fn a_short_token_is_refused() {
        let dir = hooks_testing::scratch_dir("serve-token", "short");
        let file = dir.join("token");
        std::fs::write(&file, "secret\n").unwrap();
        let error = Token::from_file(&file).unwrap_err();
        assert!(error.contains("at least 32"), "{error}");
    }

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let token = Token::parse(&"a".repeat(40)).unwrap();
        let bearer = format!("Bearer {}", "a".repeat(40));
        assert!(token.admits(Some(bearer.as_bytes())));
        for wrong in [
            format!("Bearer {}", "a".repeat(39)),
            format!("Bearer {}b", "a".repeat(39)),
            format!("Bearer {}", "a".repeat(41)),
            format!("bearer {}", "a".repeat(40)),
            "a".repeat(40),
            String::new(),
        ] {
            assert!(!token.admits(Some(wrong.as_bytes())), "{wrong}");
        }
        assert!(!token.admits(None));
    }
}
