//! The `git` pack: commands that lose uncommitted work or shared history.

use super::{Rule, Severity};

const PACK: &str = "git";

/// `git reset --hard`.
pub(crate) const RESET_HARD: Rule = Rule {
    pack: PACK,
    name: "reset-hard",
    severity: Severity::Critical,
    reason: "throws away every uncommitted change in the working tree and the index",
    alternative: "run `git stash` first, or `git reset --soft`/`--mixed` to move the branch and keep the changes",
};
/// `git reset --merge` (and `--keep`'s riskier sibling).
pub(crate) const RESET_MERGE: Rule = Rule {
    pack: PACK,
    name: "reset-merge",
    severity: Severity::High,
    reason: "can discard uncommitted changes in files the reset touches",
    alternative: "commit or `git stash` first, then reset",
};
/// `git clean -f`.
pub(crate) const CLEAN_FORCE: Rule = Rule {
    pack: PACK,
    name: "clean-force",
    severity: Severity::Critical,
    reason: "deletes untracked files for good; they are in no commit and cannot be recovered",
    alternative: "look first with `git clean -n`, then delete the specific paths you mean",
};
/// `git push --force`.
pub(crate) const PUSH_FORCE: Rule = Rule {
    pack: PACK,
    name: "push-force",
    severity: Severity::Critical,
    reason: "overwrites the remote branch and can destroy commits other people pushed",
    alternative: "use `git push --force-with-lease`, which refuses when the remote moved, or push a new branch",
};
/// `git checkout -- <paths>`.
pub(crate) const CHECKOUT_DISCARD: Rule = Rule {
    pack: PACK,
    name: "checkout-discard",
    severity: Severity::High,
    reason: "overwrites the files with the committed version, losing their uncommitted changes",
    alternative: "`git stash` the changes first, or `git diff` to see what would be lost",
};
/// `git restore` of the working tree.
pub(crate) const RESTORE_WORKTREE: Rule = Rule {
    pack: PACK,
    name: "restore-worktree",
    severity: Severity::High,
    reason: "overwrites the files in the working tree, losing their uncommitted changes",
    alternative: "use `git restore --staged` to unstage only, or `git stash` first",
};
/// `git stash clear`.
pub(crate) const STASH_CLEAR: Rule = Rule {
    pack: PACK,
    name: "stash-clear",
    severity: Severity::Critical,
    reason: "deletes every stash at once",
    alternative: "drop a stash you have checked with `git stash show`, or leave them",
};
/// `git stash drop`.
pub(crate) const STASH_DROP: Rule = Rule {
    pack: PACK,
    name: "stash-drop",
    severity: Severity::Medium,
    reason: "deletes a stash and the work saved in it",
    alternative: "`git stash pop` or `git stash apply` to get the work back, or ask the user",
};
/// `git branch -D`.
pub(crate) const BRANCH_FORCE_DELETE: Rule = Rule {
    pack: PACK,
    name: "branch-force-delete",
    severity: Severity::High,
    reason: "deletes a branch even when its commits are merged nowhere",
    alternative: "use `git branch -d`, which refuses to delete unmerged work",
};
/// `git branch -f`.
pub(crate) const BRANCH_FORCE_MOVE: Rule = Rule {
    pack: PACK,
    name: "branch-force-move",
    severity: Severity::Medium,
    reason: "moves an existing branch, leaving its commits unreachable",
    alternative: "create a new branch with `git branch NAME`",
};

/// `git switch --discard-changes`.
pub(crate) const SWITCH_DISCARD: Rule = Rule {
    pack: PACK,
    name: "switch-discard",
    severity: Severity::High,
    reason: "switches branch by throwing away uncommitted changes",
    alternative: "commit or `git stash` first, then switch",
};
/// `git rm -f`.
pub(crate) const RM_FORCE: Rule = Rule {
    pack: PACK,
    name: "rm-force",
    severity: Severity::High,
    reason: "deletes files even when they have changes no commit holds",
    alternative: "commit the changes first, or use `git rm --cached` to untrack only",
};
/// `git worktree remove --force`.
pub(crate) const WORKTREE_FORCE_REMOVE: Rule = Rule {
    pack: PACK,
    name: "worktree-force-remove",
    severity: Severity::High,
    reason: "removes a worktree with its uncommitted changes and untracked files",
    alternative: "run `git worktree remove` without `--force`, which refuses when there are changes",
};
/// `git update-ref -d`, `git read-tree --reset -u`: plumbing that drops refs or work.
pub(crate) const PLUMBING_RESET: Rule = Rule {
    pack: PACK,
    name: "plumbing-reset",
    severity: Severity::High,
    reason: "deletes a ref or overwrites the working tree through plumbing, with no safety net",
    alternative: "use `git branch -d` or `git restore --staged`, or ask the user",
};

/// Every rule of the pack, for the docs and the tests.
#[cfg(test)]
pub(crate) const RULES: &[&Rule] = &[
    &RESET_HARD,
    &RESET_MERGE,
    &CLEAN_FORCE,
    &PUSH_FORCE,
    &CHECKOUT_DISCARD,
    &RESTORE_WORKTREE,
    &STASH_CLEAR,
    &STASH_DROP,
    &BRANCH_FORCE_DELETE,
    &BRANCH_FORCE_MOVE,
    &SWITCH_DISCARD,
    &RM_FORCE,
    &WORKTREE_FORCE_REMOVE,
    &PLUMBING_RESET,
];

/// Global options of `git` that take a value in the next word.
const GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--super-prefix",
    "--config-env",
];

/// The subcommand and its arguments, global options (`-C dir`, `-c k=v`, `--git-dir=…`)
/// skipped.
fn subcommand(args: &[String]) -> Option<(&str, &[String])> {
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if !word.starts_with('-') {
            return Some((word.as_str(), args.get(at + 1..).unwrap_or(&[])));
        }
        at += if GLOBAL_WITH_VALUE.contains(&word.as_str()) {
            2
        } else {
            1
        };
    }
    None
}

/// Whether `args` hold the short flag `letter` (alone or in a cluster such as `-fd`) or
/// one of the long forms, before any `--`.
fn flag(args: &[String], letter: char, long: &[&str]) -> bool {
    flag_of(args, letter, long, "")
}

/// [`flag`] for a subcommand whose short options in `valued` take a value: a cluster ends
/// at one of them, the rest of the word being its value (`-cfix` creates `fix`).
fn flag_of(args: &[String], letter: char, long: &[&str], valued: &str) -> bool {
    args.iter().take_while(|a| *a != "--").any(|arg| {
        if let Some(name) = arg.strip_prefix("--") {
            long.iter()
                .any(|l| name == *l || name.starts_with(&format!("{l}=")))
        } else {
            arg.strip_prefix('-').is_some_and(|cluster| {
                for c in cluster.chars() {
                    if c == letter {
                        return true;
                    }
                    if valued.contains(c) || !c.is_ascii_alphabetic() {
                        return false;
                    }
                }
                false
            })
        }
    })
}

/// The operands of `git checkout` before any `--` (branch, commit, paths), the values of its
/// options left out.
fn checkout_operands(args: &[String]) -> Vec<&str> {
    let mut operands = Vec::new();
    let mut at = 0;
    while let Some(arg) = args.get(at) {
        at += 1;
        if arg == "--" {
            break;
        }
        let next = args.get(at).map_or("", String::as_str);
        let value_follows = match arg.as_str() {
            "--orphan" | "--conflict" | "--pathspec-from-file" => true,
            // Values these options take only when attached (`--track=direct`); written apart,
            // git refuses the line, so the word is not read as a path.
            "--track" => matches!(next, "direct" | "inherit"),
            "--recurse-submodules" => matches!(next, "checkout" | "on-demand"),
            "--unified" | "--inter-hunk-context" => next.bytes().all(|b| b.is_ascii_digit()),
            _ => false,
        };
        if value_follows {
            at += 1;
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            // `-b NAME`, `-B NAME`: the name is the option's; attached, it is in the word.
            if cluster.ends_with(['b', 'B']) {
                at += 1;
            }
        } else if !arg.starts_with("--") {
            operands.push(arg.as_str());
        }
    }
    operands
}

/// The rule a `git` command breaks, if any.
pub(crate) fn check(args: &[String]) -> Option<&'static Rule> {
    let (sub, rest) = subcommand(args)?;
    let has = |word: &str| rest.iter().any(|a| a == word);
    match sub {
        "reset" if has("--hard") => Some(&RESET_HARD),
        "reset" if has("--merge") => Some(&RESET_MERGE),
        "clean" if flag(rest, 'f', &["force"]) && !flag(rest, 'n', &["dry-run"]) => {
            Some(&CLEAN_FORCE)
        }
        "push" => {
            let forced = rest.iter().any(|a| {
                a == "--force"
                    || a.starts_with("--force=")
                    || (a.starts_with('-')
                        && !a.starts_with("--")
                        && a.chars().skip(1).all(|c| c.is_ascii_alphabetic())
                        && a.contains('f'))
                    || (a.starts_with('+') && a.len() > 1)
            });
            forced.then_some(&PUSH_FORCE)
        }
        "checkout" => {
            let creates = flag_of(rest, 'b', &["orphan"], "bB") || flag_of(rest, 'B', &[], "bB");
            let forced = flag_of(rest, 'f', &["force"], "bB");
            // `checkout REF PATH…` overwrites the paths, as `checkout -- PATH` does.
            let paths = checkout_operands(rest).len() > 1
                || rest.iter().any(|a| a.starts_with("--pathspec-from-file"));
            let discards = has("--") || has(".") || paths;
            (forced || (discards && !creates)).then_some(&CHECKOUT_DISCARD)
        }
        "worktree"
            if rest.first().is_some_and(|a| a == "remove") && flag(&rest[1..], 'f', &["force"]) =>
        {
            Some(&WORKTREE_FORCE_REMOVE)
        }
        "restore" => {
            let staged = flag(rest, 'S', &["staged"]);
            let worktree = flag(rest, 'W', &["worktree"]);
            let informational = has("--help") || rest.is_empty();
            ((worktree || !staged) && !informational).then_some(&RESTORE_WORKTREE)
        }
        "stash" => match rest.first().map(String::as_str) {
            Some("clear") => Some(&STASH_CLEAR),
            Some("drop") => Some(&STASH_DROP),
            _ => None,
        },
        "switch"
            if rest
                .iter()
                .take_while(|a| *a != "--")
                .any(|a| a == "--discard-changes")
                || flag_of(rest, 'f', &["force"], "cC") =>
        {
            Some(&SWITCH_DISCARD)
        }
        "rm" if flag(rest, 'f', &["force"]) && !has("--cached") => Some(&RM_FORCE),
        "update-ref" if flag(rest, 'd', &[]) => Some(&PLUMBING_RESET),
        "read-tree" if has("--reset") && flag(rest, 'u', &[]) => Some(&PLUMBING_RESET),
        "branch" => {
            let force = flag(rest, 'f', &["force"]);
            if flag(rest, 'D', &[]) || (flag(rest, 'd', &["delete"]) && force) {
                Some(&BRANCH_FORCE_DELETE)
            } else if force {
                Some(&BRANCH_FORCE_MOVE)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(line: &str) -> Option<&'static str> {
        let args: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        check(&args).map(|rule| rule.name)
    }

    #[test]
    fn destructive_subcommands_are_named_by_their_rule() {
        assert_eq!(rule("-C repo reset --hard v2"), Some("reset-hard"));
        assert_eq!(rule("clean -xdf"), Some("clean-force"));
        assert_eq!(rule("push -uf upstream topic"), Some("push-force"));
        assert_eq!(rule("push upstream +topic"), Some("push-force"));
        assert_eq!(rule("checkout -- src/lib.rs"), Some("checkout-discard"));
        assert_eq!(rule("restore -W notes.md"), Some("restore-worktree"));
        assert_eq!(
            rule("restore --staged --worktree a"),
            Some("restore-worktree")
        );
        assert_eq!(rule("stash clear"), Some("stash-clear"));
        assert_eq!(rule("branch -Dr origin/x"), Some("branch-force-delete"));
        assert_eq!(rule("branch -f topic v1"), Some("branch-force-move"));
        assert_eq!(
            rule("switch --discard-changes topic"),
            Some("switch-discard")
        );
        assert_eq!(rule("rm -rf vendor"), Some("rm-force"));
        assert_eq!(rule("update-ref -d refs/heads/old"), Some("plumbing-reset"));
        assert_eq!(rule("read-tree -u --reset v2"), Some("plumbing-reset"));
    }

    #[test]
    fn their_safe_neighbours_pass() {
        for line in [
            "reset --soft HEAD~2",
            "clean -nd",
            "clean -fdn",
            "push --force-with-lease upstream topic",
            "push upstream topic",
            "checkout -b topic",
            "checkout topic",
            "restore --staged notes.md",
            "stash list",
            "branch -d merged",
            "commit -m reset --hard",
            "-c color.ui=auto log",
            "switch topic",
            "rm --cached -rf vendor",
            "rm notes.md",
            "update-ref refs/heads/new HEAD",
            "read-tree --reset v2",
        ] {
            assert_eq!(rule(line), None, "{line}");
        }
    }
}
