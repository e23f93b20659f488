//! The rules of the default packs other than `git` (whose rules live with its parser), and
//! the pseudo-rules for denials that come from no pack: user rules, unusable input, policy.

use super::{Rule, Severity};

macro_rules! rule {
    ($(#[$doc:meta])* $constant:ident = $pack:literal $name:literal $severity:ident,
     $reason:literal, $alternative:literal) => {
        $(#[$doc])*
        pub(crate) const $constant: Rule = Rule {
            pack: $pack,
            name: $name,
            severity: Severity::$severity,
            reason: $reason,
            alternative: $alternative,
        };
    };
}

rule!(/// `rm -r /`.
    RM_ROOT = "filesystem" "rm-root" Critical,
    "deletes the whole file system", "delete the specific directory inside the project");
rule!(/// `rm -r ~`.
    RM_HOME = "filesystem" "rm-home" Critical,
    "deletes the user's home directory", "delete the specific directory inside the project");
rule!(/// `rm -r /etc`.
    RM_SYSTEM = "filesystem" "rm-system" Critical,
    "deletes a system directory", "work on files inside the project");
rule!(/// `rm -r .` at the workspace root.
    RM_WORKSPACE = "filesystem" "rm-workspace" High,
    "deletes the whole project", "delete the specific build or output directory");
rule!(/// `rm -r` of a directory outside the workspace and the temporary directories.
    RM_OUTSIDE = "filesystem" "rm-outside-workspace" High,
    "deletes a directory outside the project", "delete inside the project or a temporary directory");
rule!(/// `rm -r $X`: a path the shell computes.
    RM_COMPUTED = "filesystem" "rm-computed-path" High,
    "deletes a path computed when the command runs, which cannot be checked", "name the directory directly");
rule!(/// `rm -rf` of anything but a temporary directory, under `rm_policy: temp_only`.
    RM_OUTSIDE_TEMP = "filesystem" "rm-outside-temp" High,
    "deletes recursively outside the temporary directories, which this configuration forbids",
    "delete specific files, or ask the user");
rule!(/// `rm -r /tmp`: a whole temporary directory, not something in it.
    RM_TEMP_ROOT = "filesystem" "rm-temp-root" High,
    "deletes a whole temporary directory that other programs and sessions use",
    "delete the specific directory you made under it");
rule!(/// `rm --no-preserve-root`.
    NO_PRESERVE_ROOT = "filesystem" "no-preserve-root" Critical,
    "exists only to delete the whole file system", "delete a specific directory");
rule!(/// `sudo rm`.
    ELEVATED_DELETE = "filesystem" "elevated-delete" Critical,
    "deletes as root, which can destroy the system", "delete files you own, inside the project");
rule!(/// `$X -rf …`: a program the shell computes, with recursive options.
    COMPUTED_PROGRAM = "filesystem" "computed-program" High,
    "runs a program computed when the command runs, which cannot be checked", "name the program directly");
rule!(/// Writing into `/etc`, `/usr/bin`, ….
    WRITE_SYSTEM = "system" "write-system-path" Critical,
    "writes into a protected system directory", "write inside the project");
rule!(/// `sudo cp`, `sudo chmod`, ….
    ELEVATED_WRITE = "system" "elevated-write" High,
    "changes files as root, which can break the system", "work on files you own, inside the project");
rule!(/// `chmod -R` of the root, home or a system tree.
    RECURSIVE_PERMISSIONS = "system" "recursive-permissions" High,
    "changes permissions or owners of a whole tree the system depends on", "change the specific files inside the project");
rule!(/// Reading or writing `.env`, keys, credentials.
    SECRET_FILE = "secrets" "secret-file" High,
    "reads or writes a file that holds secrets", "use environment variables, or ask the user to handle the file");
rule!(/// `mkfs`, `fdisk`, `parted`, ….
    FORMAT = "disk" "format" Critical,
    "formats or partitions a disk", "ask the user");
rule!(/// `dd of=/dev/sda`, `> /dev/nvme0n1`.
    DEVICE_WRITE = "disk" "device-write" Critical,
    "overwrites a disk device", "write to a file");
rule!(/// `shutdown`, `reboot`, `systemctl poweroff`.
    POWER = "disk" "power" High,
    "stops or restarts the machine", "ask the user");
rule!(/// `:(){ :|:& };:`.
    FORK_BOMB = "disk" "fork-bomb" Critical,
    "exhausts the machine's processes", "do not run it");
rule!(/// `curl … | sh`, `bash <(curl …)`, `sh -c "$(curl …)"`, `curl … | python3`.
    PIPE_TO_SHELL = "download" "pipe-to-shell" Critical,
    "runs code from the network that nobody has read", "download it to a file, read it, then run it");
rule!(/// `… | sh` from a source the line does not show.
    UNREAD_PIPE = "download" "unread-pipe" High,
    "runs code nobody has read", "save the script to a file, read it, then run it");
rule!(/// `shutil.rmtree('/')`, `fs.rmSync('/etc', …)`, `FileUtils.rm_rf('~')` in inline code.
    INLINE_DELETE = "inline" "delete-call" Critical,
    "deletes, from code given to an interpreter, what `rm` would not be allowed to",
    "delete the specific directory inside the project");
rule!(/// Scripts nested past the depth the check reads.
    TOO_DEEP = "input" "too-deep" High,
    "nests shells too deeply to be checked", "run the inner command directly");
rule!(/// A line that asks more work of the check than its budget.
    TOO_LONG = "input" "too-long" High,
    "asks more of the check than it reads in its time", "split it into shorter commands");
rule!(/// A field of the tool input that is not of the expected type.
    BAD_FIELD = "input" "bad-field" High,
    "cannot be checked", "pass a string");
rule!(/// A path a file tool uses in a system directory.
    PATH_SYSTEM = "system" "system-path" Critical,
    "is in a protected system directory", "work on files inside the project");
rule!(/// A path a file tool uses that holds secrets.
    PATH_SECRET = "secrets" "secret-file" High,
    "holds secrets", "use an example file, or ask the user");
rule!(/// A path a file tool uses outside the workspace.
    PATH_OUTSIDE = "workspace" "outside" High,
    "is outside the workspace", "keep file operations inside the project");
rule!(/// Writing, moving or deleting a write-protected file (`guard_files`).
    GUARD_FILE = "guard" "guard-file" Critical,
    "changes a file that configures this guard or an agent's hooks, which would switch the guard off",
    "ask the user to edit it themselves, outside the agent");
rule!(/// A patch that cannot be read whole.
    BAD_PATCH = "input" "bad-patch" High,
    "is a patch that cannot be read whole, so the files it changes cannot be checked",
    "send a complete patch");
rule!(/// A path that cannot be a path.
    PATH_INVALID = "input" "invalid-path" High,
    "is not a usable path", "pass a real path");
rule!(/// A `blocked_commands` rule.
    USER = "user" "blocked-command" High,
    "is blocked by the configuration", "follow the configured reason");
rule!(/// Not a denial: deletion allowed because the path is in a temporary directory.
    POLICY_TEMP = "policy" "temp-dir" Medium,
    "deletes inside a temporary directory, which the policy allows", "");
rule!(/// Not a denial: deletion allowed because the path is inside the workspace.
    POLICY_WORKSPACE = "policy" "workspace" Medium,
    "deletes inside the workspace, which `rm_policy: workspace` allows", "");
rule!(/// Not a denial: `find -delete` with tests, which deletes only the files they select.
    POLICY_FILTERED = "policy" "filtered-find" Medium,
    "deletes only the files `find`'s tests select, which the policy allows", "");
rule!(/// Not a denial: destructive-looking text fed to a command that does not run it.
    POLICY_DATA = "policy" "data" Medium,
    "is text fed to a command that does not run it, which is data", "");

/// Every rule of the default packs, for the docs and tests.
#[cfg(test)]
pub(crate) const RULES: &[&Rule] = &[
    &RM_ROOT,
    &RM_HOME,
    &RM_SYSTEM,
    &RM_WORKSPACE,
    &RM_OUTSIDE,
    &RM_COMPUTED,
    &RM_OUTSIDE_TEMP,
    &RM_TEMP_ROOT,
    &NO_PRESERVE_ROOT,
    &ELEVATED_DELETE,
    &COMPUTED_PROGRAM,
    &WRITE_SYSTEM,
    &ELEVATED_WRITE,
    &RECURSIVE_PERMISSIONS,
    &SECRET_FILE,
    &FORMAT,
    &DEVICE_WRITE,
    &POWER,
    &FORK_BOMB,
    &PIPE_TO_SHELL,
    &UNREAD_PIPE,
    &INLINE_DELETE,
];
