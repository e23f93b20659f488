//! The guard protects itself: a command that writes, edits, moves, deletes or truncates a
//! write-protected file (`guard_files`: what the product says configures it) is refused,
//! whatever the packs, while reading one stays allowed. Each program's written operands are
//! named here; the rest of its arguments are read, not changed.
//!
//! Permission and owner changes (`chmod`, `chown`, `chgrp`) count as changes: a policy file
//! made unreadable switches the guard off for an agent that runs a tool when its hook fails.

use super::Denial;
use super::builtin as rules;
use super::here::Here;
use crate::identity;
use crate::inline::{self, Language};
use crate::patch;
use crate::programs::operands;

/// The largest patch file read to see what it changes.
const MAX_PATCH_BYTES: u64 = 4 * 1024 * 1024;

/// The text of the patch file at `path`, when it is a regular file of a readable size.
fn read_patch(path: &std::path::Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_PATCH_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The message for a write-protected file `shown` that a command or tool would change.
pub(crate) fn guard_denial(shown: &str, resolved: &std::path::Path) -> Denial {
    let same = std::path::Path::new(shown) == resolved;
    let resolves = if same {
        String::new()
    } else {
        format!(" (`{}`)", resolved.display())
    };
    Denial::new(
        &rules::GUARD_FILE,
        format!(
            "`{shown}`{resolves} configures this guard or the agent's hooks, so it is \
             write-protected: changing, moving or deleting it from inside the agent could switch \
             the guard off. Reading it is fine. Ask the user to make the change themselves: they \
             can edit it outside the agent"
        ),
    )
}

/// Whether a short option cluster (`-pi`, `-i.bak`, `-Ei`) holds `letter`.
fn cluster_has(option: &str, letter: char) -> bool {
    !option.starts_with("--") && option.len() > 1 && option[1..].contains(letter)
}

impl Here<'_> {
    /// A write-protected file that changing `target` (a word of the command, taken from here)
    /// would change.
    pub(crate) fn guarded_write(&self, target: &str) -> Option<Denial> {
        let target = target.trim_start_matches(['+', '<', '>', '|']).trim_start();
        // `-` is standard output, `&1` a descriptor, `/dev/…` a device: none is a file here.
        if target.is_empty() || target.starts_with(['-', '&']) || target.starts_with("/dev/") {
            return None;
        }
        let expanded = self.expand_temp(target);
        let word = expanded.as_deref().unwrap_or(target);
        // After a `cd` to a directory the shell computes, a relative target is somewhere no
        // one can know: a glob there, or a name a guard file has, is refused.
        if !self.place().cwd_known && !word.starts_with(['/', '~']) {
            let name = word.rsplit('/').next().unwrap_or(word);
            if identity::is_glob(word) || self.paths.could_be_guarded(name) {
                return Some(Denial::new(
                    &rules::GUARD_FILE,
                    format!(
                        "`{target}` is written in a directory an earlier `cd` computes, so \
                         whether it is a file that configures this guard or the agent's hooks \
                         cannot be checked; name it by its absolute path instead"
                    ),
                ));
            }
        }
        // A glob is every file the shell expands it to (`> h*.yaml`, `rm -r .cl*`).
        if identity::is_glob(word)
            && let Some(guarded) = identity::expand(word, self.cwd())
                .iter()
                .find_map(|path| self.paths.changes_guarded(path))
        {
            return Some(guard_denial(target, &guarded));
        }
        let path = self.absolute(word).ok()?;
        self.paths
            .changes_guarded(&path)
            .map(|guarded| guard_denial(target, &guarded))
    }

    /// A `find` that deletes (`-delete`) or runs a command that writes (`-exec rm {} ;`,
    /// `-exec sed -i … {} +`) on what it finds: a guard file under its roots that its name
    /// tests select (`-name`, `-iname`; none select every file).
    pub(crate) fn guard_find(&self, roots: &[&str], args: &[String]) -> Option<Denial> {
        let actions = crate::handoff::find_actions(args);
        if !actions.deletes && actions.commands.is_empty() {
            return None;
        }
        let names: Vec<(&str, bool)> = args
            .windows(2)
            .filter_map(|pair| match pair[0].as_str() {
                "-name" => Some((pair[1].as_str(), false)),
                "-iname" => Some((pair[1].as_str(), true)),
                _ => None,
            })
            .collect();
        let changed = |file: &std::path::Path| {
            let shown = file.display().to_string();
            if actions.deletes {
                return true;
            }
            actions.commands.iter().any(|command| {
                let argv: Vec<String> = command.iter().map(|w| w.replace("{}", &shown)).collect();
                argv.split_first().is_some_and(|(program, args)| {
                    self.guard_writes(crate::programs::program_name(program), args)
                        .is_some()
                })
            })
        };
        let roots: Vec<std::path::PathBuf> = roots
            .iter()
            .filter_map(|root| self.absolute(root).ok())
            .collect();
        let found = identity::found_by_find(&roots, &names, |file| {
            self.paths.changes_guarded(file).is_some() && changed(file)
        })?;
        Some(guard_denial(&found.display().to_string(), &found))
    }

    /// The patch files `argv` applies (`patch -i F`, `patch < F`, `git apply F`), each read and
    /// checked as [`Here::guard_patch`] checks a patch given as text; a file that cannot be
    /// read applies nothing.
    pub(crate) fn guard_patch_files(
        &self,
        argv: &[String],
        input_files: &[String],
    ) -> Option<Denial> {
        let (program, args) = argv.split_first()?;
        let mut files: Vec<&str> = Vec::new();
        match crate::programs::program_name(program) {
            "patch" => {
                for (i, arg) in args.iter().enumerate() {
                    if arg == "-i" || arg == "--input" {
                        files.extend(args.get(i + 1).map(String::as_str));
                    } else if let Some(file) = arg.strip_prefix("--input=") {
                        files.push(file);
                    }
                }
                files.extend(input_files.iter().map(String::as_str));
            }
            "git" => {
                let (_, words) = operands(args);
                if words.first() != Some(&"apply") {
                    return None;
                }
                files.extend(words.iter().skip(1));
                files.extend(input_files.iter().map(String::as_str));
            }
            _ => return None,
        }
        files.into_iter().find_map(|file| {
            let path = self.absolute(file).ok()?;
            let text = read_patch(&path)?;
            self.guard_patch(&text)
        })
    }

    /// The operands `program` writes, each checked: whatever the packs, a command must not
    /// change the guard's own configuration.
    pub(crate) fn guard_writes(&self, program: &str, args: &[String]) -> Option<Denial> {
        let (options, operands) = operands(args);
        let value_of = |names: &[&str]| -> Vec<&str> {
            let mut values = Vec::new();
            for (i, arg) in args.iter().enumerate() {
                for name in names {
                    if arg == name {
                        if let Some(value) = args.get(i + 1) {
                            values.push(value.as_str());
                        }
                    } else if let Some(value) = arg
                        .strip_prefix(name)
                        .and_then(|rest| {
                            rest.strip_prefix('=').or((name.len() == 2).then_some(rest))
                        })
                        .filter(|value| !value.is_empty())
                    {
                        values.push(value);
                    }
                }
            }
            values
        };
        let written: Vec<&str> = match program {
            "rm" | "rmdir" | "unlink" | "shred" | "truncate" | "tee" | "mv" | "ed" | "ex"
            | "vi" | "vim" | "nvim" | "nano" | "emacs" => operands,
            // A link to a guard file is refused too: written through, it would change it.
            "ln" => operands,
            "cp" | "install" | "rsync" => {
                let mut written = value_of(&["-t", "--target-directory"]);
                written.extend(operands.last());
                written
            }
            "chmod" | "chown" | "chgrp" => operands.into_iter().skip(1).collect(),
            "sed"
                if options.iter().any(|o| {
                    *o == "--in-place" || o.starts_with("--in-place=") || cluster_has(o, 'i')
                }) =>
            {
                operands
            }
            "dd" => args
                .iter()
                .filter_map(|arg| arg.strip_prefix("of="))
                .collect(),
            "curl" => value_of(&["-o", "--output"]),
            "wget" => value_of(&["-O", "--output-document"]),
            "patch" => operands.into_iter().take(1).collect(),
            // `git checkout -- F`, `git restore F`, `git rm F`, `git mv F G` rewrite or remove
            // the file in the working tree.
            "git" => {
                let mut words = args.iter().map(String::as_str);
                let mut subcommand = None;
                while let Some(word) = words.next() {
                    if matches!(word, "-C" | "-c" | "--git-dir" | "--work-tree") {
                        words.next();
                    } else if !word.starts_with('-') {
                        subcommand = Some(word);
                        break;
                    }
                }
                match subcommand {
                    Some("checkout" | "restore" | "rm" | "mv") => {
                        words.filter(|word| !word.starts_with('-')).collect()
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        written
            .into_iter()
            .find_map(|target| self.guarded_write(target))
    }

    /// An interpreter that edits its file operands in place (`perl -pi -e …`, `ruby -i`).
    pub(crate) fn guard_in_place(&self, language: Language, args: &[String]) -> Option<Denial> {
        if !matches!(language, Language::Perl | Language::Ruby) {
            return None;
        }
        let (options, operands) = operands(args);
        if !options.iter().any(|o| cluster_has(o, 'i')) {
            return None;
        }
        operands
            .into_iter()
            .find_map(|target| self.guarded_write(target))
    }

    /// Code that names a write-protected file and calls something that writes, moves or
    /// deletes (`open('policy.yaml', 'w')`, `fs.writeFileSync('settings.json', …)`):
    /// the call cannot be tied to the file without running the code, so both together are
    /// refused; code that only reads the file passes.
    pub(crate) fn guard_code(&self, language: Language, code: &str) -> Option<Denial> {
        if !inline::changes_files(code) {
            return None;
        }
        inline::string_literals(code)
            .iter()
            .find_map(|literal| self.guarded_write(literal))
            .map(|denial| {
                Denial::new(
                    &rules::GUARD_FILE,
                    format!(
                        "the {} code writes files: {}",
                        language.name(),
                        denial.message
                    ),
                )
            })
    }

    /// A patch a command applies (`apply_patch <<'EOF' … EOF`, `patch <<EOF … EOF`): each file
    /// it changes, checked as a write; a patch that cannot be read is refused.
    pub(crate) fn guard_patch(&self, text: &str) -> Option<Denial> {
        match patch::files(text) {
            Ok(files) => files.iter().find_map(|file| {
                self.guarded_write(&file.path)
                    .or_else(|| self.written_path(&file.path))
            }),
            Err(error) => Some(Denial::new(
                &rules::BAD_PATCH,
                format!("{error}; send the whole patch, from `*** Begin Patch` to `*** End Patch`"),
            )),
        }
    }
}
