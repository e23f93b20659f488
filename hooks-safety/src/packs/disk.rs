//! The `disk` pack: formatting and partitioning disks, writing to block devices, stopping
//! the machine, fork bombs.

use std::sync::OnceLock;

use regex::Regex;

use super::builtin as rules;
use super::filesystem::is_drive_root;
use super::here::Here;
use super::{Denial, Enabled};
use crate::programs::{DISK_TOOL, POWER, is};

/// The fork bomb in `line`, if the `disk` pack is on and the line is one.
pub(crate) fn fork_bomb(enabled: &Enabled, line: &str) -> Option<Denial> {
    // A fork bomb needs a brace, a pipe and an ampersand: most lines skip the regex.
    let shaped = enabled.has("disk")
        && line.contains('{')
        && line.contains('|')
        && line.contains('&')
        && fork_bomb_shape().is_match(line);
    shaped.then(|| {
        Denial::new(
            &rules::FORK_BOMB,
            "this is a fork bomb: it would exhaust the machine's processes; do not run it"
                .to_owned(),
        )
    })
}

impl Here<'_> {
    pub(crate) fn disk(&self, program: &str, args: &[String], operands: &[&str]) -> Option<Denial> {
        let formats_drive =
            program.eq_ignore_ascii_case("format") && operands.iter().any(|o| is_drive_root(o));
        if program.starts_with("mkfs") || is(program, DISK_TOOL) || formats_drive {
            return Some(Denial::new(
                &rules::FORMAT,
                format!(
                    "`{program}` formats or partitions disks; that is never part of a coding \
                     task, so ask the user instead"
                ),
            ));
        }
        if program == "dd"
            && let Some(device) = args
                .iter()
                .find_map(|a| a.strip_prefix("of="))
                .filter(|t| is_device(t))
        {
            return Some(Denial::new(
                &rules::DEVICE_WRITE,
                format!("`dd of={device}` would overwrite a disk device; write to a file instead"),
            ));
        }
        if is(program, POWER)
            || (program == "init" && operands.first().is_some_and(|l| *l == "0" || *l == "6"))
            || (program == "systemctl"
                && operands
                    .iter()
                    .any(|a| matches!(*a, "poweroff" | "reboot" | "halt")))
        {
            return Some(Denial::new(
                &rules::POWER,
                format!(
                    "`{program}` would stop or restart the machine; that is for the user to do, \
                     so ask instead"
                ),
            ));
        }
        None
    }
}

/// Block devices and raw memory (not `/dev/null`, `/dev/stdout`, ...).
pub(crate) fn is_device(target: &str) -> bool {
    let Some(device) = target.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "loop", "mem", "kmem",
        "port",
    ]
    .iter()
    .any(|prefix| device.starts_with(prefix))
}

/// The fork-bomb shape, compiled the first time a line could be one (it rarely is).
fn fork_bomb_shape() -> &'static Regex {
    static FORK_BOMB: OnceLock<Regex> = OnceLock::new();
    FORK_BOMB.get_or_init(|| {
        Regex::new(r"(\w+|:)\s*\(\s*\)\s*\{[^}]*\|\s*(\w+|:)\s*&")
            .unwrap_or_else(|error| unreachable!("the fork-bomb pattern compiles: {error}"))
    })
}
