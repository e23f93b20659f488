//! `hooks serve --install` and `--uninstall`: the server as a user service, started at each
//! login instead of by the agents' `SessionStart` hook. A systemd user unit on Linux and other
//! Unix systems, a launchd agent on macOS.
//!
//! The file is written, never loaded: starting it is the service manager's command, which this
//! prints (so that nothing here depends on a running systemd or launchd). `--uninstall`
//! removes the file and, for systemd, the link `systemctl --user enable` made.

use std::path::{Path, PathBuf};

/// The systemd unit's name (the guard keeps it from the agent: [`protection`](crate::protection),
/// which holds it in every build).
pub const UNIT: &str = crate::protection::SERVE_UNIT;

/// The launchd agent's label (its file is `<label>.plist`).
pub const LABEL: &str = crate::protection::SERVE_LABEL;

/// Which service manager the file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    /// systemd, as the user's manager (`systemctl --user`).
    Systemd,
    /// launchd, as a per-user agent.
    Launchd,
}

impl Manager {
    /// The manager of this platform.
    pub fn here() -> Self {
        if cfg!(target_os = "macos") {
            Manager::Launchd
        } else {
            Manager::Systemd
        }
    }
}

/// A service file: where it goes and what it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// Its manager.
    pub manager: Manager,
    /// The file.
    pub file: PathBuf,
    /// Its text.
    pub text: String,
}

/// The user's directories the files go in, read from the environment.
#[derive(Debug, Clone)]
pub struct Homes {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub config: Option<PathBuf>,
}

impl Homes {
    /// From `HOME` and `XDG_CONFIG_HOME` (an empty value counts as unset).
    pub fn from_env() -> Self {
        let var = |name| {
            std::env::var_os(name)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
        };
        Homes {
            home: var("HOME"),
            config: var("XDG_CONFIG_HOME"),
        }
    }

    /// Where `manager`'s user services are: `$XDG_CONFIG_HOME/systemd/user` (else
    /// `~/.config/systemd/user`), or `~/Library/LaunchAgents`.
    fn dir(&self, manager: Manager) -> Result<PathBuf, String> {
        let home = || {
            self.home
                .clone()
                .ok_or_else(|| "HOME is not set: no place for a user service".to_owned())
        };
        match manager {
            Manager::Systemd => match &self.config {
                Some(config) => Ok(config.join("systemd/user")),
                None => Ok(home()?.join(".config/systemd/user")),
            },
            Manager::Launchd => Ok(home()?.join("Library/LaunchAgents")),
        }
    }

    /// The service file of `manager`.
    pub fn file(&self, manager: Manager) -> Result<PathBuf, String> {
        let name = match manager {
            Manager::Systemd => UNIT.to_owned(),
            Manager::Launchd => format!("{LABEL}.plist"),
        };
        Ok(self.dir(manager)?.join(name))
    }
}

/// The service that runs `command` (the `hooks serve` command line, binary first), its log
/// in `log` where the manager does not keep one (launchd).
pub fn service(
    manager: Manager,
    homes: &Homes,
    command: &[String],
    log: &Path,
) -> Result<Service, String> {
    let text = match manager {
        Manager::Systemd => systemd_unit(command),
        Manager::Launchd => launchd_plist(command, log),
    };
    Ok(Service {
        manager,
        file: homes.file(manager)?,
        text,
    })
}

/// The systemd user unit running `command`.
pub fn systemd_unit(command: &[String]) -> String {
    let exec: Vec<String> = command.iter().map(|word| systemd_word(word)).collect();
    format!(
        "# Written by `hooks serve --install`; `hooks serve --uninstall` removes it.\n\
         [Unit]\n\
         Description=hooks serve: the guard answering coding agents' HTTP hooks\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={}\n\
         Restart=on-failure\n\
         RestartSec=2\n\
         # SIGTERM lets the calls in flight finish, for up to 30 s.\n\
         TimeoutStopSec=40\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        exec.join(" ")
    )
}

/// `word` as one argument of a systemd command line: `%` and `$` escaped (systemd expands
/// them), quoted when it holds anything but plain path characters.
fn systemd_word(word: &str) -> String {
    let escaped = word.replace('%', "%%").replace('$', "$$");
    let plain = !escaped.is_empty()
        && escaped
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._:-=+@,%$".contains(c));
    if plain {
        escaped
    } else {
        format!("\"{}\"", escaped.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The launchd agent running `command` at login and again if it stops, its output in `log`.
pub fn launchd_plist(command: &[String], log: &Path) -> String {
    let arguments: String = command
        .iter()
        .map(|word| format!("    <string>{}</string>\n", xml(word)))
        .collect();
    let log = xml(&log.display().to_string());
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \
         \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `hooks serve --install`; `hooks serve --uninstall` removes it. -->\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \x20 <key>Label</key>\n\
         \x20 <string>{LABEL}</string>\n\
         \x20 <key>ProgramArguments</key>\n\
         \x20 <array>\n\
         {arguments}\
         \x20 </array>\n\
         \x20 <key>RunAtLoad</key>\n\
         \x20 <true/>\n\
         \x20 <key>KeepAlive</key>\n\
         \x20 <true/>\n\
         \x20 <key>StandardErrorPath</key>\n\
         \x20 <string>{log}</string>\n\
         </dict>\n\
         </plist>\n"
    )
}

/// `text` with XML's special characters escaped.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes `service` (its directory created); what to run next, for a person.
pub fn install(service: &Service) -> Result<String, String> {
    let file = &service.file;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    }
    let before = std::fs::read_to_string(file).ok();
    std::fs::write(file, &service.text)
        .map_err(|error| format!("cannot write {}: {error}", file.display()))?;
    let done = match before {
        Some(old) if old == service.text => "unchanged",
        Some(_) => "updated",
        None => "wrote",
    };
    let next = match service.manager {
        Manager::Systemd => format!(
            "start it now and at each login: systemctl --user daemon-reload && \
             systemctl --user enable --now {UNIT}"
        ),
        Manager::Launchd => format!(
            "start it now and at each login: launchctl bootstrap gui/$(id -u) {}",
            file.display()
        ),
    };
    Ok(format!("{done} {}\n{next}\n", file.display()))
}

/// Removes `manager`'s service file and, for systemd, the link that enables it; what to run
/// next, for a person.
pub fn uninstall(manager: Manager, homes: &Homes) -> Result<String, String> {
    let file = homes.file(manager)?;
    let mut removed = Vec::new();
    let mut candidates = vec![file.clone()];
    if manager == Manager::Systemd
        && let Some(dir) = file.parent()
    {
        candidates.push(dir.join("default.target.wants").join(UNIT));
    }
    for candidate in candidates {
        // `symlink_metadata`: the enabling link counts even when it points nowhere.
        if std::fs::symlink_metadata(&candidate).is_ok() {
            std::fs::remove_file(&candidate)
                .map_err(|error| format!("cannot remove {}: {error}", candidate.display()))?;
            removed.push(candidate.display().to_string());
        }
    }
    if removed.is_empty() {
        return Ok(format!(
            "no service installed ({} absent)\n",
            file.display()
        ));
    }
    let next = match manager {
        Manager::Systemd => {
            format!(
                "stop it if it runs: systemctl --user stop {UNIT}; systemctl --user daemon-reload"
            )
        }
        Manager::Launchd => {
            format!("stop it if it runs: launchctl bootout gui/$(id -u)/{LABEL}")
        }
    };
    Ok(format!("removed {}\n{next}\n", removed.join(", ")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn command() -> Vec<String> {
        [
            "/opt/my tools/hooks",
            "serve",
            "--listen",
            "127.0.0.1:8787",
            "--token-file",
        ]
        .iter()
        .map(|word| (*word).to_owned())
        .chain(["/home/u/100%/t\"k".to_owned()])
        .collect()
    }

    #[test]
    fn the_unit_quotes_and_escapes_each_word() {
        let unit = systemd_unit(&command());
        assert!(
            unit.contains(
                "ExecStart=\"/opt/my tools/hooks\" serve --listen 127.0.0.1:8787 \
                 --token-file \"/home/u/100%%/t\\\"k\"\n"
            ),
            "{unit}"
        );
        assert!(unit.contains("WantedBy=default.target"), "{unit}");
        assert!(unit.contains("Restart=on-failure"), "{unit}");
    }

    #[test]
    fn the_plist_lists_each_word_escaped() {
        let plist = launchd_plist(&command(), Path::new("/Users/u/serve.log"));
        assert!(plist.contains("<string>hooks.serve</string>"), "{plist}");
        assert!(
            plist.contains("    <string>/opt/my tools/hooks</string>\n    <string>serve</string>"),
            "{plist}"
        );
        assert!(
            plist.contains("<string>/home/u/100%/t&quot;k</string>"),
            "{plist}"
        );
        assert!(plist.contains("<key>RunAtLoad</key>\n  <true/>"), "{plist}");
        assert!(
            plist.contains("<string>/Users/u/serve.log</string>"),
            "{plist}"
        );
    }

    #[test]
    fn the_files_go_where_the_managers_look() {
        let homes = Homes {
            home: Some(PathBuf::from("/home/u")),
            config: None,
        };
        assert_eq!(
            homes.file(Manager::Systemd).unwrap(),
            Path::new("/home/u/.config/systemd/user/hooks-serve.service")
        );
        assert_eq!(
            homes.file(Manager::Launchd).unwrap(),
            Path::new("/home/u/Library/LaunchAgents/hooks.serve.plist")
        );
        let xdg = Homes {
            home: None,
            config: Some(PathBuf::from("/cfg")),
        };
        assert_eq!(
            xdg.file(Manager::Systemd).unwrap(),
            Path::new("/cfg/systemd/user/hooks-serve.service")
        );
        assert!(xdg.file(Manager::Launchd).is_err());
    }
}
