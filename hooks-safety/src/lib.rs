//! The safety checker: refuses destructive shell commands and file operations on system
//! directories, secrets, or outside the workspace, with a reason that tells the agent what to
//! do instead. It needs no hook framework: [`Guard::check`] takes a command line and the
//! directory it runs in, [`Guard::check_path`] a file path, and [`Guard::check_tool_input`] a
//! tool call's input; hooks-std's `safety` module is its adapter to the hook registry.
//!
//! For a tool call it reads every field, whatever the tool is called: any `command`-like field
//! of the input is read as a shell command line (through quoting, `bash -c`, `eval`, `sudo`,
//! `env`, substitutions, `;`, `&&`, `|`), and any `path`-like field as a file path
//! (normalised, `..` and symbolic links resolved). A field of the wrong type fails closed: it
//! is denied. The tool's name ([`Guard::check_tool_call`]) tells the reading tools (`Read`,
//! `Grep`, `read_file`, ...), which may read the write-protected `guard_files`, from the
//! others, taken as tools that may change what they name. A patch (Codex's `apply_patch`, in
//! `command`, `input` or `patch`, or any field whose text is one; a unified diff too) is read
//! as a patch by the [patch] module: each file it adds, updates, deletes or moves is checked
//! as the `Write` tool's path is, and its text is never read as a command line; a patch that
//! cannot be read whole is denied (`input:bad-patch`).
//!
//! The guard protects itself, as the product that runs it says ([`SelfProtection`], handed to
//! [`Guard::new`]: the product's files, resident processes and administration commands; the
//! checker itself knows none). A command that changes a write-protected file is denied
//! (`guard:guard-file`) whatever the packs, however it writes: a redirection (`>`, `>>`),
//! `tee`, `sed -i`, `cp`/`install`/`rsync` onto it, `ln` or `mv` to or from it, `rm`, `unlink`,
//! `shred`, `truncate`, `dd of=`, `curl -o`, `wget -O`, an editor, `patch`, `git
//! checkout`/`restore`/`rm`/`mv` of it, `chmod`/`chown`
//! (a policy file made unreadable switches the guard off for an agent that runs the tool when
//! its hook fails), `perl -i`/`ruby -i`, or inline code (`python -c`, `node -e`, ...) that
//! names the file and calls anything that writes, moves or deletes. Deleting or moving a
//! directory that holds such files counts too. Reading them
//! (`cat`, `grep`, `sed -n`, `cp` from them, inline code that only reads) stays allowed. The
//! denial tells the agent to ask the user, who can edit the file outside the agent.
//!
//! It keeps the product's resident processes running too: a command that stops or kills one
//! ([`ResidentProcess`]) is denied (`guard:stop-guard`) whatever the packs: `pkill`, `pgrep`
//! and `killall` patterns that match it, `kill` of the process ids a lookup of it prints (or,
//! on Linux, of a process id `/proc` shows is one), `systemctl stop|kill|disable|mask` of its
//! units, `launchctl unload|bootout|remove` of its labels, `fuser -k` of its ports (SAFETY.md,
//! "The guard keeps running", says what counts as naming them). And the product's own
//! programs do not reconfigure the guard for the agent: the subcommands it names
//! ([`AdminProgram`]) are denied (`guard:self-admin`); asking for help, and the options it
//! names as only printing, pass.
//!
//! Config keys (all optional; unknown keys are an error naming the key). A list with built-in
//! entries is **added to** them: `protected_files: ["**/secrets.toml"]` protects that file
//! besides `.env` and keys. To drop a list's built-in entries, name the list in
//! `replace_defaults`; the list given is then the whole list.
//!
//! | key | built in | meaning |
//! |---|---|---|
//! | `command_fields` | `command`, `cmd`, `script` | tool-input fields read as shell commands; given ones are added |
//! | `path_fields` | `file_path`, `path`, `filename`, `notebook_path`, `target`, `destination` | tool-input fields read as paths; given ones are added |
//! | `blocked_paths` | `/etc`, `/sys`, `/proc`, `/boot`, `/root`, `/bin`, `/sbin`, `/lib`, `/usr/bin`, `/usr/sbin`, `/usr/lib`, `/var/lib` and below | system directories no tool may touch; given ones are added |
//! | `protected_files` | `.env`, `.env.*`, keys, certificates, `.ssh/`, cloud, Kubernetes, git and package credentials, `/etc/shadow`, sudoers; and the product's own files ([`SelfProtection::own_files`]: its remembered answers, its caches of code it runs) | secrets no tool may read or write, and what an agent must not forge; given ones are added |
//! | `allowed_files` | `.env.example`, `.env.sample`, `.env.template`, `*.pub` | exceptions to `protected_files`; given ones are added |
//! | `guard_files` | the product's ([`SelfProtection::guard_files`]: its policy files, the agents' hook settings, whatever configures it), and the file an adapter loaded, added by hooks-std's module catalog | write-protected files: any tool may read them, none may write, edit, move, delete, truncate them or change their permissions (a policy file the agent can empty is a guard it can switch off); given ones are added |
//! | `packs` | `default` | the rule packs switched on: names, groups (`database`), `default`, `all`; given ones are added; an unknown name is an error listing the valid ones |
//! | `replace_defaults` | none | the lists above whose built-in entries are left out, e.g. `[allowed_files]`; another name is an error listing them |
//! | `blocked_commands` | none | extra rules: `{pattern, reason}`, a regex over `program args...` |
//! | `workspace` | the current directory | the project root; relative paths start there |
//! | `home` | `$HOME` | what `~` means |
//! | `confine_to_workspace` | `true` | deny file tools outside the workspace |
//! | `priority` | `-100` | runs before most hooks |
//! | `rm_policy` | `workspace` | where recursive deletion is allowed: `workspace` (inside the project and temporary directories) or `temp_only` (`rm -rf` only under `/tmp`, `/var/tmp`, `$TMPDIR`) |
//!
//! Every denial names the rule that fired, `[pack:rule]`, then what to do instead; the
//! [packs] module lists every pack and rule. On by default: `filesystem`, `system`, `secrets`,
//! `disk`, `download`, `git` and `inline`; the optional packs (databases, containers,
//! Kubernetes, clouds, storage, secrets managers, messaging, search, DNS, CI/CD, ...) are
//! switched on by name.
//!
//! A command line is read as a shell reads it (see `shell.rs`): every simple command of
//! lists, pipelines, groups, command and process substitutions, with heredocs and
//! here-strings kept as the text a command reads. Code given to an interpreter (`-c`, `-e`,
//! a heredoc, a here-string, a pipe) is read for destructive calls and the shell commands it
//! runs; text fed to a command that does not run it (`cat`, `tee`, `grep`) is data.
//!
//! A command is followed wherever it is handed on, each program read by its own option
//! grammar (see `handoff.rs`): wrappers (`sudo`, `env`, `nice`, `timeout`, `chroot`, `flock`,
//! `watch`, `busybox`, ...), `xargs` and GNU `parallel` with the items they add, `find -exec`,
//! `ssh host command`, and an unknown program placed before a command that destroys data.
//! Variables the line assigns keep their values to its end, and a `cd` to a place computed
//! when the line runs makes later relative paths unknown. SAFETY.md, at the repository's
//! root, gives the rules in full and how they are measured.
//!
//! ```
//! use std::path::Path;
//! use hooks_safety::{Guard, SafetyConfig, SelfProtection};
//! use serde_json::json;
//!
//! let config: SafetyConfig = serde_json::from_value(json!({"workspace": "/srv/app"})).unwrap();
//! let guard = Guard::new(config, &SelfProtection::none()).unwrap();
//! let here = Path::new("/srv/app");
//! let denial = guard.check("bash -c 'cd / && rm -rf *'", here).unwrap();
//! assert_eq!(denial.id(), "filesystem:rm-root");
//! let git = guard.check("git -C app reset --hard", here).unwrap();
//! assert_eq!(git.id(), "git:reset-hard");
//! assert_eq!(guard.check("cargo test", here), None);
//! assert!(guard.check_path("/etc/passwd").is_some());
//! ```

mod budget;
mod handoff;
mod identity;
mod inline;
pub mod lists;
mod literals;
pub mod packs;
pub mod patch;
mod paths;
mod programs;
pub mod protection;
mod shell;
mod walk;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use budget::Budget;
use lists::{BuiltInLists, strings};
use packs::builtin as rules;
pub use packs::{Denial, Severity};
use packs::{Enabled, catalog};
pub use paths::Access;
use paths::{Globs, PathRules, Verdict};
pub use protection::{AdminCommand, AdminProgram, ResidentProcess, SelfProtection};
use walk::{CommandRules, UserRule};

/// Where recursive deletion is allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RmPolicy {
    /// Inside the workspace (but not the workspace itself) and in temporary directories:
    /// agents clean their build directories.
    #[default]
    Workspace,
    /// Only in temporary directories (`/tmp`, `/var/tmp`, `$TMPDIR`), named literally: any
    /// other `rm -rf` is denied, as the strictest guards do.
    TempOnly,
}

/// The verdict on a tool call, with the policy allowances that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Evaluation {
    /// Why the call must not run, if it must not.
    pub denial: Option<Denial>,
    /// Ids of the policy allowances that let a deletion through (`policy:workspace`,
    /// `policy:temp-dir`): what a stricter policy would have denied.
    pub allowances: Vec<String>,
}

/// An extra command rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockedCommand {
    /// A regex matched against the normalised command, `program arg arg ...` (wrappers such as
    /// `sudo` and `env` removed, quotes resolved).
    pub pattern: String,
    /// What the agent is told: why, and what to do instead.
    pub reason: String,
}

/// The safety module's configuration.
///
/// The lists with built-in entries (`command_fields`, `path_fields`, `blocked_paths`,
/// `protected_files`, `allowed_files`, `packs`) hold what is added to them: the default
/// configuration's lists are empty, and the built-in entries come from the module and, for
/// `protected_files` and `guard_files`, from the product's [`SelfProtection`].
/// `replace_defaults` names the lists whose built-in entries are left out;
/// [`SafetyConfig::with_built_in_lists`] writes them out, to start a replacement from.
///
/// ```
/// use hooks_safety::{Guard, SafetyConfig, SelfProtection};
/// use serde_json::json;
///
/// // `.env` stays protected: the list is added to the built-in one.
/// let config: SafetyConfig = serde_json::from_value(json!({
///     "workspace": "/srv/app",
///     "protected_files": ["**/secrets.toml"]
/// })).unwrap();
/// let guard = Guard::new(config, &SelfProtection::none()).unwrap();
/// assert!(guard.check_path("config/secrets.toml").is_some());
/// assert!(guard.check_path(".env").is_some());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SafetyConfig {
    /// Tool-input fields read as shell command lines, besides `command`, `cmd` and `script`.
    pub command_fields: Vec<String>,
    /// Tool-input fields read as file paths, besides the built-in ones.
    pub path_fields: Vec<String>,
    /// Globs of system paths no tool may touch, besides the built-in system directories.
    pub blocked_paths: Vec<String>,
    /// Globs of secret files no tool may read or write, besides the built-in ones.
    pub protected_files: Vec<String>,
    /// Globs of exceptions to `protected_files`, besides the built-in example files.
    pub allowed_files: Vec<String>,
    /// Globs of write-protected files, besides the product's ([`SelfProtection::guard_files`]):
    /// tools may read them, never write, move or delete them.
    pub guard_files: Vec<String>,
    /// Extra command rules.
    pub blocked_commands: Vec<BlockedCommand>,
    /// The project root (default: the current directory).
    pub workspace: Option<PathBuf>,
    /// The home directory `~` stands for (default: `$HOME`).
    pub home: Option<PathBuf>,
    /// Deny file tools outside the workspace.
    pub confine_to_workspace: bool,
    /// The handler's priority.
    pub priority: i32,
    /// The packs switched on besides the default ones: names, groups (`database`), `default`
    /// or `all`.
    pub packs: Vec<String>,
    /// Where recursive deletion is allowed.
    pub rm_policy: RmPolicy,
    /// The lists whose built-in entries are left out, so that the list given is the whole
    /// list: any of [`SafetyConfig::LISTS`].
    pub replace_defaults: Vec<String>,
}

const COMMAND_FIELDS: &[&str] = &["command", "cmd", "script"];

const PATH_FIELDS: &[&str] = &[
    "file_path",
    "path",
    "filename",
    "notebook_path",
    "target",
    "destination",
];

/// The system directories blocked with everything below them.
const SYSTEM_DIRS: &[&str] = &[
    "/etc",
    "/sys",
    "/proc",
    "/boot",
    "/root",
    "/bin",
    "/sbin",
    "/lib",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/var/lib",
];

const PROTECTED_FILES: &[&str] = &[
    "**/.env",
    "**/.env.*",
    "**/*.pem",
    "**/*.key",
    "**/*.p12",
    "**/*.pfx",
    "**/id_rsa*",
    "**/id_dsa*",
    "**/id_ecdsa*",
    "**/id_ed25519*",
    "**/.ssh/**",
    "**/.aws/credentials",
    "**/.netrc",
    "**/.npmrc",
    "**/.pgpass",
    "**/.docker/config.json",
    "**/.git-credentials",
    "**/.kube/config",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/sudoers.d/**",
];

const ALLOWED_FILES: &[&str] = &[
    "**/.env.example",
    "**/.env.sample",
    "**/.env.template",
    "**/*.pub",
];

const PACKS: &[&str] = &["default"];

/// Tools that only read or list the paths they are given: a write-protected file stays
/// readable through them. Any other tool that names a path is taken as one that may change it.
const READING_TOOLS: &[&str] = &[
    "read",
    "notebookread",
    "glob",
    "grep",
    "ls",
    "read_file",
    "read_many_files",
    "readfile",
    "list_directory",
    "list_dir",
    "search_file_content",
    "view",
    "list",
    "codebase_search",
    "file_search",
    "fs_read",
];

/// The fields of a tool call's input that name the directory its command runs in (Codex CLI's
/// `workdir`, Gemini CLI's `dir_path`, and its earlier `directory`).
const DIR_FIELDS: &[&str] = &["workdir", "dir_path", "directory"];

/// Tools whose input is a patch: checked file by file, never as a command line.
const PATCH_TOOLS: &[&str] = &["apply_patch", "applypatch", "patch", "apply_diff"];

/// The fields of a patch tool's input that may hold the patch.
const PATCH_FIELDS: &[&str] = &["command", "input", "patch"];

/// The built-in `protected_files`: secrets, and the product's own files.
fn protected_files(protection: &SelfProtection) -> Vec<String> {
    let mut globs = strings(PROTECTED_FILES);
    globs.extend(protection.own_files.iter().cloned());
    globs
}

/// The built-in `guard_files`: the product's.
fn guard_files(protection: &SelfProtection) -> Vec<String> {
    protection.guard_files.clone()
}

fn blocked_paths() -> Vec<String> {
    SYSTEM_DIRS
        .iter()
        .flat_map(|dir| [(*dir).to_owned(), format!("{dir}/**")])
        .collect()
}

impl SafetyConfig {
    /// The lists that have built-in entries, which `replace_defaults` may name.
    pub const LISTS: &[&str] = &[
        "command_fields",
        "path_fields",
        "blocked_paths",
        "protected_files",
        "allowed_files",
        "guard_files",
        "packs",
    ];

    /// The default configuration with every built-in list written out in its field (those of
    /// `protection` among them) and named in `replace_defaults`: the same module as the
    /// default one protecting the same, and where to start from to take a built-in entry out.
    ///
    /// ```
    /// use hooks_safety::{Guard, SafetyConfig, SelfProtection};
    ///
    /// // Public keys protected too: `*.pub` taken out of the exceptions.
    /// let none = SelfProtection::none();
    /// let mut config = SafetyConfig::with_built_in_lists(&none);
    /// config.allowed_files.retain(|glob| glob != "**/*.pub");
    /// config.workspace = Some("/srv/app".into());
    /// let guard = Guard::new(config, &none).unwrap();
    /// assert!(guard.check_path("deploy/id_ed25519.pub").is_some());
    /// assert!(guard.check_path(".env").is_some());
    /// ```
    pub fn with_built_in_lists(protection: &SelfProtection) -> Self {
        SafetyConfig {
            command_fields: strings(COMMAND_FIELDS),
            path_fields: strings(PATH_FIELDS),
            blocked_paths: blocked_paths(),
            protected_files: protected_files(protection),
            allowed_files: strings(ALLOWED_FILES),
            guard_files: guard_files(protection),
            packs: strings(PACKS),
            replace_defaults: strings(Self::LISTS),
            ..SafetyConfig::default()
        }
    }

    /// Write-protects the file at `path` (made absolute from the current directory), as
    /// `guard_files` does: what an adapter calls with the hooks file it loaded. A path that is
    /// not text cannot be written as a glob; it stays protected only if a built-in pattern
    /// covers it.
    ///
    /// ```
    /// use hooks_safety::{Access, Guard, SafetyConfig, SelfProtection};
    ///
    /// let mut config = SafetyConfig::default();
    /// config.workspace = Some("/srv/app".into());
    /// config.protect_guard_file(std::path::Path::new("/srv/app/policy/guard[1].yml"));
    /// let guard = Guard::new(config, &SelfProtection::none()).unwrap();
    /// assert!(guard.check_path("policy/guard[1].yml").is_some());
    /// assert!(guard.check_path_access("policy/guard[1].yml", Access::Read).is_none());
    /// ```
    pub fn protect_guard_file(&mut self, path: &Path) {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some(text) = absolute.to_str() {
            let glob = globset::escape(text);
            if !self.guard_files.contains(&glob) {
                self.guard_files.push(glob);
            }
        }
    }

    /// The configuration with the built-in entries (the product's in `protection`) merged into
    /// its lists, as the module uses it.
    fn resolved(&self, protection: &SelfProtection) -> Result<SafetyConfig, SafetyConfigError> {
        let lists = BuiltInLists::new(&self.replace_defaults, Self::LISTS)
            .map_err(|unknown| SafetyConfigError(unknown.to_string()))?;
        let merge = |list, built_in: Vec<String>, configured: &[String]| {
            lists.merge(list, built_in, configured)
        };
        Ok(SafetyConfig {
            command_fields: merge(
                "command_fields",
                strings(COMMAND_FIELDS),
                &self.command_fields,
            ),
            path_fields: merge("path_fields", strings(PATH_FIELDS), &self.path_fields),
            blocked_paths: merge("blocked_paths", blocked_paths(), &self.blocked_paths),
            protected_files: merge(
                "protected_files",
                protected_files(protection),
                &self.protected_files,
            ),
            allowed_files: merge("allowed_files", strings(ALLOWED_FILES), &self.allowed_files),
            guard_files: merge("guard_files", guard_files(protection), &self.guard_files),
            packs: merge("packs", strings(PACKS), &self.packs),
            replace_defaults: strings(Self::LISTS),
            ..self.clone()
        })
    }
}

impl Default for SafetyConfig {
    fn default() -> Self {
        SafetyConfig {
            command_fields: Vec::new(),
            path_fields: Vec::new(),
            blocked_paths: Vec::new(),
            protected_files: Vec::new(),
            allowed_files: Vec::new(),
            guard_files: Vec::new(),
            blocked_commands: Vec::new(),
            workspace: None,
            home: None,
            confine_to_workspace: true,
            priority: -100,
            packs: Vec::new(),
            rm_policy: RmPolicy::Workspace,
            replace_defaults: Vec::new(),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("safety module: {0}")]
pub struct SafetyConfigError(String);

#[derive(Debug)]
struct Rules {
    config: SafetyConfig,
    paths: PathRules,
    user_rules: Vec<UserRule>,
    enabled: Enabled,
    catalog: catalog::Compiled,
    protection: SelfProtection,
}

/// The safety checker, compiled from a [`SafetyConfig`]: see the [crate docs](crate).
/// Cloning it is cheap (the rules are shared).
#[derive(Debug, Clone)]
pub struct Guard {
    rules: Arc<Rules>,
}

impl Guard {
    /// Compiles `config`, keeping from the agent what `protection` names of the product that
    /// runs the guard ([`SelfProtection::none`] for nothing); every glob and regex is checked
    /// now, not at the first tool call.
    pub fn new(
        config: SafetyConfig,
        protection: &SelfProtection,
    ) -> Result<Self, SafetyConfigError> {
        let workspace = match &config.workspace {
            Some(workspace) => workspace.clone(),
            None => std::env::current_dir().map_err(|e| {
                SafetyConfigError(format!(
                    "no `workspace` given and no current directory: {e}"
                ))
            })?,
        };
        let home = config
            .home
            .clone()
            .or_else(|| std::env::var_os("HOME").map(PathBuf::from));
        // Only the configured globs need checking now: the built-in ones compile (a test
        // says so), and are compiled at their first match.
        let lists = BuiltInLists::new(&config.replace_defaults, SafetyConfig::LISTS)
            .map_err(|unknown| SafetyConfigError(unknown.to_string()))?;
        let built_in_blocked = lists.kept("blocked_paths", blocked_paths());
        let built_in_protected = lists.kept("protected_files", protected_files(protection));
        let built_in_allowed = lists.kept("allowed_files", strings(ALLOWED_FILES));
        let built_in_guarded = lists.kept("guard_files", guard_files(protection));
        let paths = PathRules::new(
            Globs {
                built_in: &built_in_blocked,
                configured: &config.blocked_paths,
            },
            Globs {
                built_in: &built_in_protected,
                configured: &config.protected_files,
            },
            Globs {
                built_in: &built_in_allowed,
                configured: &config.allowed_files,
            },
            Globs {
                built_in: &built_in_guarded,
                configured: &config.guard_files,
            },
            workspace,
            home,
            config.confine_to_workspace,
        )
        .map_err(SafetyConfigError)?;
        let config = config.resolved(protection)?;
        let user_rules = config
            .blocked_commands
            .iter()
            .map(|rule| {
                Regex::new(&rule.pattern)
                    .map(|pattern| UserRule {
                        pattern,
                        reason: rule.reason.clone(),
                    })
                    .map_err(|error| {
                        SafetyConfigError(format!(
                            "`blocked_commands`: the pattern `{}` does not compile: {error}",
                            rule.pattern
                        ))
                    })
            })
            .collect::<Result<_, _>>()?;
        let enabled = Enabled::resolve(&config.packs).map_err(SafetyConfigError)?;
        let catalog =
            catalog::Compiled::new(|pack| enabled.has(pack)).map_err(SafetyConfigError)?;
        Ok(Guard {
            rules: Arc::new(Rules {
                config,
                paths,
                user_rules,
                enabled,
                catalog,
                protection: protection.clone(),
            }),
        })
    }

    /// The guard with the default configuration, the workspace being the current directory,
    /// keeping what `protection` names from the agent.
    pub fn with_defaults(protection: &SelfProtection) -> Result<Self, SafetyConfigError> {
        Guard::new(SafetyConfig::default(), protection)
    }

    /// What the guard keeps from the agent of the product that runs it.
    pub fn protection(&self) -> &SelfProtection {
        &self.rules.protection
    }

    /// The configuration in force, built-in lists merged in.
    pub fn config(&self) -> &SafetyConfig {
        &self.rules.config
    }

    /// The project root relative paths start from.
    pub fn workspace(&self) -> &Path {
        &self.rules.paths.workspace
    }

    /// Why the command line `command`, run in the directory `cwd`, must not run, if it must
    /// not. A relative `cwd` is taken from the workspace.
    pub fn check(&self, command: &str, cwd: &Path) -> Option<Denial> {
        self.evaluate(command, cwd).denial
    }

    /// The full verdict on the command line `command` run in `cwd`: the denial, and the
    /// policy allowances that let deletions through.
    pub fn evaluate(&self, command: &str, cwd: &Path) -> Evaluation {
        let cwd = self.rules.paths.workspace.join(cwd);
        self.evaluated(|walker| walker.check(command, &cwd))
    }

    /// Why a file tool must not change `path`, if it must not: a system directory, a secret,
    /// outside the workspace (when confined), a write-protected file, or not a usable path.
    /// [`Guard::check_path_access`] with [`Access::Read`] lets a write-protected file be read.
    pub fn check_path(&self, path: &str) -> Option<Denial> {
        self.check_path_access(path, Access::Write)
    }

    /// Why a file tool must not use `path` as `access` says, if it must not.
    pub fn check_path_access(&self, path: &str, access: Access) -> Option<Denial> {
        path_denial(&self.rules.paths, path, &self.rules.paths.workspace, access)
    }

    /// Why the tool call with input `tool_input` must not run, if it must not: every
    /// command-like field read as a command line run in the workspace, every path-like field
    /// as a file path the tool may change (the tool is not named: see
    /// [`Guard::check_tool_call`]).
    pub fn check_tool_input(&self, tool_input: &Value) -> Option<Denial> {
        self.evaluate_tool_input(tool_input).denial
    }

    /// The full verdict on the tool call with input `tool_input`: the denial, with its pack
    /// and rule, and the policy allowances that let deletions through.
    pub fn evaluate_tool_input(&self, tool_input: &Value) -> Evaluation {
        self.evaluate_tool_call("", tool_input)
    }

    /// Why the call of the tool `tool` with input `tool_input` must not run, if it must not.
    /// The name tells reading tools (`Read`, `Grep`, `read_file`, ...), which may read a
    /// write-protected file, from the rest, and patch tools (`apply_patch`), whose input is
    /// read as a patch: each file it changes is checked as the `Write` tool's path is.
    ///
    /// ```
    /// use hooks_safety::{Guard, SafetyConfig, SelfProtection};
    /// use serde_json::json;
    ///
    /// let config: SafetyConfig = serde_json::from_value(json!({"workspace": "/srv/app"})).unwrap();
    /// let protection = SelfProtection {
    ///     guard_files: vec!["**/.agent/settings.json".to_owned()],
    ///     ..SelfProtection::none()
    /// };
    /// let guard = Guard::new(config, &protection).unwrap();
    /// let settings = json!({"file_path": ".agent/settings.json"});
    /// assert_eq!(guard.check_tool_call("Read", &settings), None);
    /// let edit = guard.check_tool_call("Edit", &settings).unwrap();
    /// assert_eq!(edit.id(), "guard:guard-file");
    /// let patch = "*** Begin Patch\n*** Add File: ../outside.txt\n+x\n*** End Patch\n";
    /// let outside = guard.check_tool_call("apply_patch", &json!({"command": patch})).unwrap();
    /// assert_eq!(outside.id(), "workspace:outside");
    /// ```
    pub fn check_tool_call(&self, tool: &str, tool_input: &Value) -> Option<Denial> {
        self.evaluate_tool_call(tool, tool_input).denial
    }

    /// The full verdict on the call of the tool `tool` with input `tool_input`, run in the
    /// workspace.
    pub fn evaluate_tool_call(&self, tool: &str, tool_input: &Value) -> Evaluation {
        let workspace = self.rules.paths.workspace.clone();
        self.evaluate_tool_call_in(tool, tool_input, &workspace)
    }

    /// [`Guard::evaluate_tool_call`] for a call the agent runs in the directory `dir` (the
    /// event's own: Claude Code's `cwd` after a `cd`): relative paths, and commands, start
    /// there, and a command whose input names its own directory (`workdir`, `dir_path`,
    /// `directory`) starts there, relative to `dir`. The workspace, what is inside and outside,
    /// stays the configuration's.
    ///
    /// ```
    /// use hooks_safety::{Guard, SafetyConfig, SelfProtection};
    /// use serde_json::json;
    /// use std::path::Path;
    ///
    /// let config: SafetyConfig = serde_json::from_value(json!({"workspace": "/srv/app"})).unwrap();
    /// let mut product = SelfProtection::none();
    /// product.guard_files.push("**/.claude/settings.json".to_owned());
    /// let guard = Guard::new(config, &product).unwrap();
    /// let emptied = json!({"command": "cp /dev/null settings.json"});
    /// let in_claude_dir = guard.evaluate_tool_call_in("Bash", &emptied, Path::new("/srv/app/.claude"));
    /// assert_eq!(in_claude_dir.denial.unwrap().id(), "guard:guard-file");
    /// ```
    pub fn evaluate_tool_call_in(&self, tool: &str, tool_input: &Value, dir: &Path) -> Evaluation {
        let Value::Object(fields) = tool_input else {
            return Evaluation::default();
        };
        self.evaluated(|walker| self.denial(tool, fields, dir, walker))
    }

    /// Runs `check` with a walker over the rules, and gathers the allowances it recorded.
    fn evaluated(&self, check: impl FnOnce(&CommandRules<'_>) -> Option<Denial>) -> Evaluation {
        let rules = &*self.rules;
        let walker = CommandRules {
            paths: &rules.paths,
            user_rules: &rules.user_rules,
            enabled: &rules.enabled,
            catalog: &rules.catalog,
            rm_policy: rules.config.rm_policy,
            protection: &rules.protection,
            exemptions: RefCell::new(Vec::new()),
            budget: Budget::default(),
        };
        let denial = check(&walker);
        let mut allowances: Vec<String> = Vec::new();
        for rule in walker.exemptions.into_inner() {
            let id = rule.id();
            if !allowances.contains(&id) {
                allowances.push(id);
            }
        }
        Evaluation { denial, allowances }
    }

    fn denial(
        &self,
        tool: &str,
        fields: &serde_json::Map<String, Value>,
        dir: &Path,
        commands: &CommandRules<'_>,
    ) -> Option<Denial> {
        let rules = &*self.rules;
        let tool = tool.to_ascii_lowercase();
        // A command that names its own directory runs there: read as the shell would run it,
        // `cd` first (a directory the shell computes is one the rules cannot place).
        let run_in = DIR_FIELDS
            .iter()
            .find_map(|field| fields.get(*field).and_then(Value::as_str))
            .filter(|run_in| !run_in.is_empty());
        let in_dir = |line: &str| match run_in {
            Some(run_in) => format!("cd {} && {line}", shell_join(&[run_in])),
            None => line.to_owned(),
        };

        let patch = match patch_field(&tool, fields) {
            Ok(patch) => patch,
            Err(denial) => return Some(denial),
        };
        if let Some((_, text)) = patch
            && let Some(denial) = patch_denial(&rules.paths, text, dir)
        {
            return Some(denial);
        }
        let access = if READING_TOOLS.contains(&tool.as_str()) {
            Access::Read
        } else {
            Access::Write
        };
        for field in &rules.config.command_fields {
            if patch.is_some_and(|(patched, _)| patched == field) {
                continue;
            }
            let denial = match fields.get(field) {
                None | Some(Value::Null) => None,
                Some(Value::String(line)) => commands.check(&in_dir(line), dir),
                // Some tools take argv lists; they are checked as the command they form.
                Some(Value::Array(words)) if words.iter().all(Value::is_string) => {
                    let line: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                    commands.check(&in_dir(&shell_join(&line)), dir)
                }
                Some(other) => Some(Denial::new(
                    &rules::BAD_FIELD,
                    format!(
                        "`{field}` should be a command line but is {}; it cannot be checked, so \
                         it does not run",
                        kind(other)
                    ),
                )),
            };
            if denial.is_some() {
                return denial;
            }
        }
        for field in &rules.config.path_fields {
            let denial = match fields.get(field) {
                None | Some(Value::Null) => None,
                Some(Value::String(path)) => path_denial(&rules.paths, path, dir, access),
                Some(other) => Some(Denial::new(
                    &rules::BAD_FIELD,
                    format!(
                        "`{field}` should be a path but is {}; it cannot be checked, so the tool \
                         does not run",
                        kind(other)
                    ),
                )),
            };
            if denial.is_some() {
                return denial;
            }
        }
        glob_denial(&rules.paths, &tool, fields, dir)
    }
}

/// The fields of a search tool's input that hold a glob of the files it reads, by tool.
const GLOB_FIELDS: &[(&str, &str)] = &[
    ("grep", "glob"),
    ("grep", "include"),
    ("search_file_content", "include"),
    ("glob", "pattern"),
];

/// Why a search tool's glob must not be searched: it matches a protected file under the
/// directory searched (the input's `path`, else where the call runs).
fn glob_denial(
    paths: &PathRules,
    tool: &str,
    fields: &serde_json::Map<String, Value>,
    dir: &Path,
) -> Option<Denial> {
    let base = match fields.get("path").and_then(Value::as_str) {
        Some(path) => paths.absolute_from(path, dir).ok()?,
        None => dir.to_path_buf(),
    };
    GLOB_FIELDS
        .iter()
        .filter(|(glob_tool, _)| *glob_tool == tool)
        .filter_map(|(_, field)| fields.get(*field).and_then(Value::as_str))
        .find_map(|glob| {
            let found = identity::globbed(&base, glob, |file| paths.is_secret(file))?;
            Some(Denial::new(
                &rules::PATH_SECRET,
                format!(
                    "the glob `{glob}` matches `{}`, which holds secrets and is protected; \
                     search the other files by a narrower glob",
                    found.display()
                ),
            ))
        })
}

/// The field of a tool call's input that holds a patch, with its text: any field of
/// [`PATCH_FIELDS`] of a patch tool, the second word of `["apply_patch", PATCH]` (a patch
/// run as a command), or a command field whose text is a patch. A patch tool without one is
/// refused: what it changes cannot be known.
fn patch_field<'f>(
    tool: &str,
    fields: &'f serde_json::Map<String, Value>,
) -> Result<Option<(&'f str, &'f str)>, Denial> {
    for name in PATCH_FIELDS {
        let Some((field, value)) = fields.get_key_value(*name) else {
            continue;
        };
        match value {
            Value::String(text) if PATCH_TOOLS.contains(&tool) || patch::looks_like_patch(text) => {
                return Ok(Some((field.as_str(), text.as_str())));
            }
            Value::Array(words) => {
                let program = words
                    .first()
                    .and_then(Value::as_str)
                    .map(programs::program_name);
                if let (Some("apply_patch" | "applypatch"), Some(Value::String(text))) =
                    (program, words.get(1))
                {
                    return Ok(Some((field.as_str(), text.as_str())));
                }
            }
            _ => {}
        }
    }
    if PATCH_TOOLS.contains(&tool) {
        return Err(Denial::new(
            &rules::BAD_PATCH,
            format!(
                "`{tool}` was given no patch as text in `command`, `input` or `patch`, so the \
                 files it changes cannot be checked; send the patch as text"
            ),
        ));
    }
    Ok(None)
}

/// Why the patch `text` must not be applied: it cannot be read whole, or a file it changes
/// is one the `Write` tool could not change.
fn patch_denial(paths: &PathRules, text: &str, dir: &Path) -> Option<Denial> {
    match patch::files(text) {
        Ok(files) => files
            .iter()
            .find_map(|file| path_denial(paths, &file.path, dir, Access::Write)),
        Err(error) => Some(Denial::new(
            &rules::BAD_PATCH,
            format!(
                "{error}; nothing was applied. Send the whole patch, from `*** Begin Patch` to \
                 `*** End Patch`, or a complete unified diff"
            ),
        )),
    }
}

fn path_denial(paths: &PathRules, raw: &str, dir: &Path, access: Access) -> Option<Denial> {
    let (rule, message) = match paths.check_from(raw, dir, access) {
        Verdict::Fine => {
            let linked = paths.absolute_from(raw, dir).ok().and_then(|path| {
                identity::linked(&paths.workspace, &path, |other| paths.is_secret(other))
            })?;
            (
                &rules::PATH_SECRET,
                format!(
                    "`{raw}` is another name (a hard link) of `{}`, which holds secrets and is \
                     protected; ask the user to handle it",
                    linked.display()
                ),
            )
        }
        Verdict::Guarded(path) => return Some(packs::guard::guard_denial(raw, &path)),
        Verdict::System(path) => (
            &rules::PATH_SYSTEM,
            format!(
                "`{raw}` resolves to `{}`, in a protected system directory; work on files inside \
             the project instead",
                path.display()
            ),
        ),
        Verdict::Secret(path) => (
            &rules::PATH_SECRET,
            format!(
                "`{raw}` resolves to `{}`, which holds secrets and is protected; ask the user to \
             handle it, or use an example file",
                path.display()
            ),
        ),
        Verdict::Outside(path) => (
            &rules::PATH_OUTSIDE,
            format!(
                "`{raw}` resolves to `{}`, outside the workspace `{}`; keep file operations inside \
             the project",
                path.display(),
                paths.workspace.display()
            ),
        ),
        Verdict::Invalid(why) => (
            &rules::PATH_INVALID,
            format!("`{}` is not a usable path: {why}", raw.escape_debug()),
        ),
    };
    Some(Denial::new(rule, message))
}

/// Joins argv words into a command line, quoting the ones a shell would split.
fn shell_join(words: &[&str]) -> String {
    words
        .iter()
        .map(|word| {
            if word
                .chars()
                .any(|c| c.is_whitespace() || "'\"\\;&|<>$`()".contains(c))
                || word.is_empty()
            {
                format!("'{}'", word.replace('\'', r"'\''"))
            } else {
                (*word).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
