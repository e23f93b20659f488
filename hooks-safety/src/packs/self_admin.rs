//! The guard's own programs that change the guard are the user's (`guard:self-admin`): run by
//! the agent, such a program would rewrite the files the guard-file rule protects on its
//! behalf, or trust what the guard holds back. Which programs and subcommands these are is
//! the product's to say ([`AdminProgram`]); a request for help, and a run whose options say it
//! only prints, pass.

use super::{Denial, Rule, Severity};
use crate::programs::{operands, program_name};
use crate::protection::{AdminCommand, AdminProgram};

/// Changing the guard's own setup through its own programs.
pub(crate) const SELF_ADMIN: Rule = Rule {
    pack: "guard",
    name: "self-admin",
    severity: Severity::Critical,
    reason: "changes the guard's own setup through the guard's own program, which is the \
             user's to do",
    alternative: "tell the user the command, and let them run it outside the agent",
};

/// Why `program` with `args` must not run, if it is one of `programs` changing the guard.
pub(crate) fn administers_guard(
    programs: &[AdminProgram],
    program: &str,
    args: &[String],
) -> Option<Denial> {
    let admin = programs
        .iter()
        .find(|admin| program_name(&admin.name) == program && changes_guard(admin, args))?;
    let mut shown = vec![program.to_owned()];
    shown.extend(args.iter().cloned());
    Some(Denial::explained_as(
        &SELF_ADMIN,
        &shown.join(" "),
        admin.reason.as_deref(),
    ))
}

/// Whether `args`, given to `admin`, run a subcommand of it that changes the guard.
fn changes_guard(admin: &AdminProgram, args: &[String]) -> bool {
    let (options, words) = operands(args);
    let asks_help = options
        .iter()
        .any(|option| admin.help_options.iter().any(|help| help == option))
        || words.first().copied() == admin.help_command.as_deref();
    !asks_help
        && admin
            .commands
            .iter()
            .any(|command| runs_and_writes(command, &words, &options))
}

/// Whether the operands `words` run `command` and the options say this run writes.
fn runs_and_writes(command: &AdminCommand, words: &[&str], options: &[&str]) -> bool {
    let runs = words.len() >= command.path.len()
        && command
            .path
            .iter()
            .zip(words)
            .all(|(want, word)| want == word);
    let given = |names: &[String]| {
        names
            .iter()
            .any(|name| options.iter().any(|option| is_option(option, name)))
    };
    runs && (command.when_any.is_empty() || given(&command.when_any)) && !given(&command.unless_any)
}

/// Whether the word `option` gives the option `name`: itself, or with a value attached
/// (`--output=F`, `-oF`).
fn is_option(option: &str, name: &str) -> bool {
    let Some(rest) = option.strip_prefix(name) else {
        return false;
    };
    let short = name.len() == 2 && !name.starts_with("--");
    rest.is_empty() || rest.starts_with('=') || short
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A product of this test's own: `warden`, whose `apply` writes unless `--check`, whose
    /// `key add` always writes and whose `export` writes with `-o`/`--out`.
    fn warden() -> Vec<AdminProgram> {
        vec![
            AdminProgram::new("warden")
                .command(AdminCommand::writes(&["apply"]).unless_any(&["--check"]))
                .command(AdminCommand::writes(&["key", "add"]))
                .command(AdminCommand::writes(&["export"]).when_any(&["-o", "--out"]))
                .reason("rewrites the warden's rules"),
        ]
    }

    fn denied(command: &str) -> bool {
        let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        let (program, args) = words.split_first().unwrap();
        administers_guard(&warden(), program, args).is_some()
    }

    #[test]
    fn the_subcommands_the_product_names_are_refused() {
        for command in [
            "warden apply",
            "warden apply --force rules.toml",
            "warden key add k1",
            "warden export -o rules.toml",
            "warden export -orules.toml",
            "warden export --out=rules.toml",
        ] {
            assert!(denied(command), "{command} passed");
        }
    }

    #[test]
    fn reading_printing_and_help_pass() {
        for command in [
            "warden status",
            "warden apply --check",
            "warden key list",
            "warden export",
            "warden export --outline",
            "warden apply --help",
            "warden help apply",
            "wardens apply",
            "other apply",
        ] {
            assert!(!denied(command), "{command} was refused");
        }
    }

    #[test]
    fn the_reason_is_the_products() {
        let args = vec!["apply".to_owned()];
        let denial = administers_guard(&warden(), "warden", &args).unwrap();
        assert_eq!(denial.id(), "guard:self-admin");
        assert!(
            denial.message.contains("rewrites the warden's rules"),
            "{}",
            denial.message
        );
        assert!(administers_guard(&[], "warden", &args).is_none());
    }
}
