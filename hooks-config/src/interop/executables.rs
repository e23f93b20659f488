//! The agents whose hooks are one executable per event, named after the event, in a hooks
//! directory (Cline): the scripts `hooks init` writes there, and how `hooks doctor` and
//! `hooks check` read them back.
//!
//! Each script is the agent's template ([`Layout::Executables`](super::Layout::Executables))
//! with one comment line filled in, `# hooks-command: {...}`, the [`PluginCommand`] that names
//! the `hooks` binary (an absolute path), the agent, the hooks file and the project directory
//! as seen from the script's own directory, and the deadline; the script's shell variables are
//! filled in from the same values. An agent that runs a tool when its hook fails (Cline) gets
//! a script that prints a block itself when `hooks` is missing, crashes, prints nothing or runs
//! past the deadline.

use std::path::Path;

use serde_json::Value;

use super::HookSettings;
use super::agent::shell_word;
use super::plugin::PluginCommand;

/// The start of the comment line of a written script that holds its [`PluginCommand`].
const COMMAND_LINE: &str = "# hooks-command: ";

/// `template` filled in for the event `event`: the command line, the binary, the hooks file
/// seen from the script's directory, and the deadline in whole seconds.
pub fn render(template: &str, event: &str, command: &PluginCommand) -> String {
    let json = serde_json::to_string(command).unwrap_or_default();
    let config = format!("{}/{}", command.root, command.config);
    template
        .replace("__HOOKS_EVENT__", event)
        .replace("__HOOKS_COMMAND__", &json)
        .replace("__HOOKS_BINARY__", &shell_word(&command.binary))
        .replace("__HOOKS_AGENT__", &shell_word(&command.agent))
        .replace("__HOOKS_CONFIG__", &shell_word(&config))
        .replace(
            "__HOOKS_DEADLINE__",
            &command.timeout_ms.div_ceil(1000).to_string(),
        )
}

/// The command of a script `hooks init` wrote; `None` when `text` is not one.
pub fn read(text: &str) -> Option<PluginCommand> {
    text.lines().find_map(|line| {
        let json = line.trim().strip_prefix(COMMAND_LINE)?;
        serde_json::from_str(json).ok()
    })
}

/// The script of the event `event` in the hooks directory `dir`.
pub fn script(dir: &Path, event: &str) -> std::path::PathBuf {
    dir.join(event)
}

/// The hooks of the directory `dir` that run `hooks <agent>`: for each event of `settings` with
/// a script of ours there, the event and its hook as a command line (the hooks file by its
/// absolute path, the deadline as `timeout` in seconds), in the order of the events.
pub fn hooks_in(settings: &HookSettings, agent: &str, dir: &Path) -> Vec<(String, Value)> {
    settings
        .init_events
        .iter()
        .filter_map(|event| {
            let text = std::fs::read_to_string(script(dir, event)).ok()?;
            let command = read(&text).filter(|command| command.agent == agent)?;
            let config = dir.join(&command.root).join(&command.config);
            let line = format!(
                "{} {} --config {}",
                shell_word(&command.binary),
                command.agent,
                shell_word(&config.display().to_string())
            );
            let hook = serde_json::json!({
                "command": line,
                "timeout": command.timeout_ms.div_ceil(1000),
            });
            Some(((*event).to_owned(), hook))
        })
        .collect()
}

/// The events of `settings` whose scripts in `dir` run `hooks <agent>`.
pub(crate) fn events_running(settings: &HookSettings, agent: &str, dir: &Path) -> Vec<String> {
    hooks_in(settings, agent, dir)
        .into_iter()
        .map(|(event, _)| event)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_script_names_its_command_and_is_read_back() {
        let command = PluginCommand {
            binary: "/opt/my tools/hooks".to_owned(),
            agent: "cline".to_owned(),
            config: "hooks.yaml".to_owned(),
            root: "../..".to_owned(),
            timeout_ms: 24_500,
        };
        let template = "#!/bin/sh\n# __HOOKS_EVENT__\n# hooks-command: __HOOKS_COMMAND__\n\
                        hooks=__HOOKS_BINARY__\nconfig=\"$here\"/__HOOKS_CONFIG__\n\
                        deadline=__HOOKS_DEADLINE__\n";
        let text = render(template, "PreToolUse", &command);
        assert!(text.contains("# PreToolUse\n"), "{text}");
        assert!(text.contains("hooks='/opt/my tools/hooks'\n"), "{text}");
        assert!(
            text.contains("config=\"$here\"/../../hooks.yaml\n"),
            "{text}"
        );
        assert!(text.contains("deadline=25\n"), "{text}");
        assert_eq!(read(&text), Some(command));
        assert_eq!(read("#!/bin/sh\necho '{}'\n"), None);
    }
}
