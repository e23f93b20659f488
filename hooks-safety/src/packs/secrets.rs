//! The `secrets` pack: reading or writing keys, `.env` files, credentials and password
//! databases, named as arguments, redirections or input files.

use super::Denial;
use super::builtin as rules;
use super::here::Here;

/// Programs whose `-i` names a key they use, not one they read out.
const IDENTITY_USERS: &[&str] = &["ssh", "scp", "sftp", "ssh-copy-id"];

impl Here<'_> {
    /// The first argument of `program` that names a protected file.
    pub(crate) fn secret_argument(&self, program: &str, args: &[String]) -> Option<Denial> {
        if !self.on("secrets") {
            return None;
        }
        args.iter()
            .enumerate()
            // `ssh -i key` uses a key without reading it out.
            .filter(|(i, _)| !(IDENTITY_USERS.contains(&program) && *i > 0 && args[i - 1] == "-i"))
            .find_map(|(_, arg)| self.secret(arg))
    }

    /// A path that names a protected file (keys, `.env`, credentials).
    pub(crate) fn secret(&self, word: &str) -> Option<Denial> {
        if word.starts_with('-')
            || word.contains(char::is_whitespace)
            || !self.on("secrets")
            || !self.might_be_secret(word)
        {
            return None;
        }
        let path = self.absolute(word).ok()?;
        self.paths.is_secret(&path).then(|| {
            Denial::new(
                &rules::SECRET_FILE,
                format!(
                    "`{word}` holds secrets and is protected; use environment variables, or ask \
                     the user to handle that file instead"
                ),
            )
        })
    }

    /// Whether `word` could name a protected file from here (see
    /// [`PathRules::might_be_secret`]), the directory's part computed once.
    pub(crate) fn might_be_secret(&self, word: &str) -> bool {
        let paths = self.paths;
        if paths.secret_hint(word.as_bytes()) {
            return true;
        }
        let cwd_hinted = match self.cwd_hinted.get() {
            Some(known) => known,
            None => {
                let known = paths.secret_hint(self.cwd().as_os_str().as_encoded_bytes());
                self.cwd_hinted.set(Some(known));
                known
            }
        };
        cwd_hinted || (paths.home_hinted() && word.starts_with(['~', '$']))
    }
}
