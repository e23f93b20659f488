//! The `secrets` pack: reading or writing keys, `.env` files, credentials and password
//! databases, named as arguments, redirections or input files: as the word itself, as an
//! option's value (`--post-file=.env`), as a file a program reads in place of a value
//! (`curl -d @.env`, `-F key=@.env`), as the path of a git object (`git show HEAD~1:.env`), or
//! as a directory every file of which is protected (`tar cz ~/.ssh`).

use super::Denial;
use super::builtin as rules;
use super::here::Here;

/// Programs whose `-i` names a key they use, not one they read out.
const IDENTITY_USERS: &[&str] = &["ssh", "scp", "sftp", "ssh-copy-id"];

/// Programs that only look at a directory's entries or make one, never read its files: a
/// directory of secrets named to them is no secret read.
const LISTERS: &[&str] = &[
    "ls", "stat", "du", "file", "test", "[", "mkdir", "cd", "pwd", "realpath", "readlink",
    "dirname", "basename", "tree",
];

/// The paths a word of `program`'s arguments may name for reading: itself, the value of an
/// option (`--post-file=.env`), a file read in place of a value (`@.env`, `key=@.env`), and the
/// path of a git object (`HEAD~1:.env`, `:.env`).
fn named_paths<'w>(program: &str, word: &'w str) -> Vec<&'w str> {
    let mut paths = vec![word];
    if word.starts_with('-')
        && let Some((_, value)) = word.split_once('=')
    {
        paths.push(value);
    }
    for candidate in paths.clone() {
        if let Some(file) = candidate.strip_prefix('@') {
            paths.push(file);
        } else if let Some((_, file)) = candidate.split_once("=@") {
            paths.push(file);
        }
    }
    if program == "git"
        && !word.contains("://")
        && let Some((_, path)) = word.split_once(':')
    {
        paths.push(path);
    }
    paths.retain(|path| !path.is_empty());
    paths
}

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
            .flat_map(|(_, arg)| named_paths(program, arg))
            .find_map(|path| {
                self.secret(path)
                    .or_else(|| self.linked_secret(path))
                    .or_else(|| {
                        (!LISTERS.contains(&program))
                            .then(|| self.secret_directory(path))
                            .flatten()
                    })
            })
    }

    /// A directory every file of which is protected (`~/.ssh`): what reads it whole (`tar`,
    /// `cp -r`, `find … -exec cat`) reads secrets without naming one.
    pub(crate) fn secret_directory(&self, word: &str) -> Option<Denial> {
        if word.contains(char::is_whitespace) || !self.might_be_secret(word) {
            return None;
        }
        let path = self.absolute(word).ok()?;
        self.paths.holds_only_secrets(&path).then(|| {
            Denial::new(
                &rules::SECRET_FILE,
                format!(
                    "`{word}` is a directory of secrets (every file in it is protected); ask the                      user to handle what is in it"
                ),
            )
        })
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

    /// A word naming a hard link to a protected file, under whatever name.
    pub(crate) fn linked_secret(&self, word: &str) -> Option<Denial> {
        if word.starts_with('-') || word.contains(['*', '?', '[', '$', '`']) || !self.on("secrets")
        {
            return None;
        }
        let path = self.absolute(word).ok()?;
        let linked = crate::identity::linked(&self.paths.workspace, &path, |other| {
            self.paths.is_secret(other)
        })?;
        Some(Denial::new(
            &rules::SECRET_FILE,
            format!(
                "`{word}` is another name (a hard link) of `{}`, which holds secrets and is \
                 protected; ask the user to handle that file instead",
                linked.display()
            ),
        ))
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
