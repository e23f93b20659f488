//! What the guard protects of the product that runs it: [`SelfProtection`].
//!
//! The checker knows how a command writes a file, stops a process or runs a program; which
//! files, processes and programs are the guard's own is the product's to say. A product hands
//! them over once, with the configuration ([`Guard::new`](crate::Guard::new)):
//!
//! - [`guard_files`](SelfProtection::guard_files): files any tool may read and none may change
//!   (`guard:guard-file`): the hooks files, the agents' hook settings;
//! - [`own_files`](SelfProtection::own_files): files no tool may read or write, as the secrets
//!   are (`secrets:secret-file`): what an agent must not forge, such as remembered answers;
//! - [`resident`](SelfProtection::resident): the processes that must keep running
//!   (`guard:stop-guard`);
//! - [`admin`](SelfProtection::admin): the programs whose subcommands change the guard's setup
//!   (`guard:self-admin`).
//!
//! [`SelfProtection::none`] protects nothing beyond the checker's own rules: what a program
//! that is not a guard of agents uses.
//!
//! ```
//! use std::path::Path;
//!
//! use hooks_safety::{AdminCommand, AdminProgram, Guard, ResidentProcess, SafetyConfig, SelfProtection};
//!
//! let mut protection = SelfProtection::none();
//! protection.guard_files.push("**/warden.toml".to_owned());
//! protection.resident.push(ResidentProcess::new("warden").command_line("warden daemon"));
//! protection.admin.push(
//!     AdminProgram::new("warden").command(AdminCommand::writes(&["policy", "set"])),
//! );
//! let config = SafetyConfig { workspace: Some("/srv/app".into()), ..SafetyConfig::default() };
//! let guard = Guard::new(config, &protection).unwrap();
//! let here = Path::new("/srv/app");
//! assert_eq!(guard.check("echo x > warden.toml", here).unwrap().id(), "guard:guard-file");
//! assert_eq!(guard.check("pkill -f 'warden daemon'", here).unwrap().id(), "guard:stop-guard");
//! assert_eq!(guard.check("warden policy set lax", here).unwrap().id(), "guard:self-admin");
//! assert_eq!(guard.check("warden policy show", here), None);
//! ```

use std::path::Path;

/// The product's own files, processes and programs, which the guard keeps from the agent: see
/// the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SelfProtection {
    /// Globs of write-protected files (`**/` matches in a project and in the home directory):
    /// the built-in entries of the configuration's `guard_files`.
    pub guard_files: Vec<String>,
    /// Globs of files no tool may read or write, added to the built-in `protected_files`.
    pub own_files: Vec<String>,
    /// The processes that must keep running.
    pub resident: Vec<ResidentProcess>,
    /// The programs whose subcommands change the guard's setup.
    pub admin: Vec<AdminProgram>,
}

impl SelfProtection {
    /// Nothing to protect beyond the checker's own rules.
    pub fn none() -> Self {
        SelfProtection::default()
    }

    /// Adds everything `other` protects.
    pub fn extend(&mut self, other: SelfProtection) {
        let SelfProtection {
            guard_files,
            own_files,
            resident,
            admin,
        } = other;
        add_missing(&mut self.guard_files, guard_files);
        add_missing(&mut self.own_files, own_files);
        self.resident.extend(resident);
        self.admin.extend(admin);
    }

    /// Write-protects the directory `dir` and everything under it.
    pub fn guard_dir(&mut self, dir: &Path) {
        add_missing(&mut self.guard_files, dir_globs(dir));
    }

    /// Keeps the directory `dir` and everything under it from every tool, as a secret is.
    pub fn own_dir(&mut self, dir: &Path) {
        add_missing(&mut self.own_files, dir_globs(dir));
    }
}

fn add_missing(list: &mut Vec<String>, globs: Vec<String>) {
    for glob in globs {
        if !list.contains(&glob) {
            list.push(glob);
        }
    }
}

/// The globs of the directory `dir` (made absolute: paths are checked absolute) and of
/// everything under it. A directory whose name is not text cannot be written as a glob: it
/// has none, and is protected only where another glob covers it.
fn dir_globs(dir: &Path) -> Vec<String> {
    let Some(dir) = std::path::absolute(dir)
        .ok()
        .and_then(|dir| dir.to_str().map(str::to_owned))
    else {
        return Vec::new();
    };
    let dir = globset::escape(dir.trim_end_matches('/'));
    vec![format!("{dir}/**"), dir]
}

/// A process of the guard that must keep running (`guard:stop-guard`), as the tools that stop
/// processes name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResidentProcess {
    /// Its program's name, as `pkill`, `killall` and `pidof` see it.
    pub name: String,
    /// Its command lines, as `pkill -f` sees them: the program's name, the subcommand, the
    /// options it runs with by default.
    pub command_lines: Vec<String>,
    /// The TCP ports it listens on by default (`fuser -k PORT/tcp`, `lsof -i :PORT`).
    pub ports: Vec<u16>,
    /// Its systemd units (`name.service`).
    pub systemd_units: Vec<String>,
    /// Its launchd labels (its file is `<label>.plist`).
    pub launchd_labels: Vec<String>,
    /// What stopping it does, for the agent: the rule's reason when it is left out.
    pub reason: Option<String>,
}

impl ResidentProcess {
    /// The process of the program `name`, known by nothing else yet.
    pub fn new(name: &str) -> Self {
        ResidentProcess {
            name: name.to_owned(),
            command_lines: Vec::new(),
            ports: Vec::new(),
            systemd_units: Vec::new(),
            launchd_labels: Vec::new(),
            reason: None,
        }
    }

    /// With the command line `line` (its first word the program's name).
    pub fn command_line(mut self, line: &str) -> Self {
        self.command_lines.push(line.to_owned());
        self
    }

    /// Listening on `port` by default.
    pub fn port(mut self, port: u16) -> Self {
        self.ports.push(port);
        self
    }

    /// Run by systemd as `unit` (`name.service`).
    pub fn systemd_unit(mut self, unit: &str) -> Self {
        self.systemd_units.push(unit.to_owned());
        self
    }

    /// Run by launchd under `label`.
    pub fn launchd_label(mut self, label: &str) -> Self {
        self.launchd_labels.push(label.to_owned());
        self
    }

    /// Stopping it explained to the agent as `reason` ("stops the resident guard …").
    pub fn reason(mut self, reason: &str) -> Self {
        self.reason = Some(reason.to_owned());
        self
    }
}

/// A program of the guard whose subcommands change its setup (`guard:self-admin`) when the
/// agent runs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminProgram {
    /// Its name, as the command line gives it (a path to it counts too).
    pub name: String,
    /// The subcommands that change the setup; any other passes.
    pub commands: Vec<AdminCommand>,
    /// The options that only ask for help, wherever they are (`-h`, `--help`).
    pub help_options: Vec<String>,
    /// The subcommand that only prints help (`help`).
    pub help_command: Option<String>,
    /// What running one does, for the agent: the rule's reason when it is left out.
    pub reason: Option<String>,
}

impl AdminProgram {
    /// The program `name`, with no subcommand that changes the setup yet, whose help is asked
    /// for with `-h`, `--help` or the `help` subcommand.
    pub fn new(name: &str) -> Self {
        AdminProgram {
            name: name.to_owned(),
            commands: Vec::new(),
            help_options: vec!["-h".to_owned(), "--help".to_owned()],
            help_command: Some("help".to_owned()),
            reason: None,
        }
    }

    /// With `command` among those that change the setup.
    pub fn command(mut self, command: AdminCommand) -> Self {
        self.commands.push(command);
        self
    }

    /// Running one explained to the agent as `reason` ("changes the guard's own setup …").
    pub fn reason(mut self, reason: &str) -> Self {
        self.reason = Some(reason.to_owned());
        self
    }
}

/// A subcommand that changes the guard's setup, and the options that say whether this run
/// does.
///
/// An option is given when a word is it, or is it with a value attached (`--output=F`; a
/// short option's value may follow it directly, `-oF`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminCommand {
    /// Its words after the program's name (`["mcp", "approve"]`); the run's other words
    /// follow them.
    pub path: Vec<String>,
    /// Options of which one must be given for it to change anything (`--install`); none: it
    /// always does.
    pub when_any: Vec<String>,
    /// Options that make it only print what it would change (`--dry-run`).
    pub unless_any: Vec<String>,
}

impl AdminCommand {
    /// The subcommand `path`, which changes the setup whenever it runs.
    pub fn writes(path: &[&str]) -> Self {
        AdminCommand {
            path: path.iter().map(|word| (*word).to_owned()).collect(),
            when_any: Vec::new(),
            unless_any: Vec::new(),
        }
    }

    /// Changing the setup only when one of `options` is given.
    pub fn when_any(mut self, options: &[&str]) -> Self {
        self.when_any
            .extend(options.iter().map(|option| (*option).to_owned()));
        self
    }

    /// Changing nothing when one of `options` is given.
    pub fn unless_any(mut self, options: &[&str]) -> Self {
        self.unless_any
            .extend(options.iter().map(|option| (*option).to_owned()));
        self
    }
}
