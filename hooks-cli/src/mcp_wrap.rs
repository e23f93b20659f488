//! `hooks mcp wrap` and `hooks mcp unwrap`: an agent's MCP configuration rewritten so that each
//! stdio server runs through `hooks mcp-proxy`, and back.
//!
//! The files, under the project directory (or the one given with `--file`):
//!
//! | file | agent | servers |
//! |---|---|---|
//! | `.mcp.json` | Claude Code | `mcpServers` |
//! | `.cursor/mcp.json` | Cursor | `mcpServers` |
//! | `.gemini/settings.json` | Gemini CLI | `mcpServers` |
//! | `.vscode/mcp.json` | VS Code | `servers` |
//! | `.codex/config.toml` | Codex CLI | `[mcp_servers.<name>]` |
//!
//! A stdio server (`command`, and `args` if any) becomes `command` = this `hooks` binary,
//! `args` = `mcp-proxy --config <hooks file> --name <server> -- <command> <args...>`, so its
//! tools keep their names (`mcp__<server>__<tool>`). A server with a `url` (HTTP), or already
//! wrapped, is left alone. Unwrapping takes the command back out of the arguments after `--`
//! (a JSON server that had no `args` gets none back). In `config.toml` the lines a server had
//! are kept as comments under it and put back as they were.
//!
//! As `hooks init` does: each changed file is backed up, the change is printed as a diff, and
//! `--dry-run` writes nothing.

use std::path::{Path, PathBuf};

use crate::init::{self, FileChange};
use crate::ordered_json::{Json, indent_of};

/// The MCP configuration files `wrap` looks at, under a project directory, and the key of
/// their servers (`None`: Codex's TOML).
const FILES: &[(&str, Option<&str>)] = &[
    (".mcp.json", Some("mcpServers")),
    (".cursor/mcp.json", Some("mcpServers")),
    (".gemini/settings.json", Some("mcpServers")),
    (".vscode/mcp.json", Some("servers")),
    (".codex/config.toml", None),
];

/// The subcommand that marks a wrapped server's arguments.
const PROXY_COMMAND: &str = "mcp-proxy";

/// The comment that keeps a wrapped Codex server's own lines.
const TOML_KEPT: &str = "# hooks mcp wrap kept: ";

/// The arguments of `hooks mcp wrap` and `hooks mcp unwrap`.
#[derive(Debug, clap::Args)]
pub struct WrapArgs {
    /// The project directory.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// The hooks file the proxy runs, relative to the project directory.
    #[arg(long, default_value = "hooks.yaml")]
    config: PathBuf,
    /// Only this MCP configuration file (its format is told by its name).
    #[arg(long)]
    file: Option<PathBuf>,
    /// Print what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// Wrapping or unwrapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Servers through the proxy.
    Wrap,
    /// Servers as they were.
    Unwrap,
}

/// What the proxy command of a wrapped server is.
#[derive(Debug, Clone)]
pub struct Proxy {
    /// The `hooks` binary.
    pub binary: String,
    /// The hooks file, absolute.
    pub config: String,
}

impl Proxy {
    /// The arguments that run `command args...` through the proxy as `server`.
    fn arguments(&self, server: &str, command: &str, args: &[String]) -> Vec<String> {
        let mut wrapped = vec![
            PROXY_COMMAND.to_owned(),
            "--config".to_owned(),
            self.config.clone(),
            "--name".to_owned(),
            server.to_owned(),
            "--".to_owned(),
            command.to_owned(),
        ];
        wrapped.extend(args.iter().cloned());
        wrapped
    }
}

/// The server's own command and arguments, when `args` are a wrapped server's.
fn unwrapped(args: &[String]) -> Option<(String, Vec<String>)> {
    if args.first().map(String::as_str) != Some(PROXY_COMMAND) {
        return None;
    }
    let after = args.iter().position(|arg| arg == "--")? + 1;
    let (command, rest) = args.get(after..)?.split_first()?;
    Some((command.clone(), rest.to_vec()))
}

pub(crate) fn run(args: &WrapArgs, direction: Direction) -> Result<String, String> {
    let binary = init::this_binary().map_err(|error| error.to_string())?;
    let config = std::path::absolute(args.dir.join(&args.config))
        .map_err(|error| format!("{}: {error}", args.config.display()))?;
    let proxy = Proxy {
        binary: binary.display().to_string(),
        config: config.display().to_string(),
    };
    let files: Vec<PathBuf> = match &args.file {
        Some(file) => vec![file.clone()],
        None => FILES
            .iter()
            .map(|(file, _)| args.dir.join(file))
            .filter(|path| path.exists())
            .collect(),
    };
    let mut changes = Vec::new();
    for path in files {
        let old = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let new = rewrite(&path, &old, &proxy, direction)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        if let Some(new) = new {
            changes.push(FileChange {
                path,
                old: Some(old),
                new,
            });
        }
    }
    if changes.is_empty() {
        return Ok("no MCP server to change\n".to_owned());
    }
    let mut report: String = changes.iter().map(init::diff).collect();
    if args.dry_run {
        report.push_str("(dry run: nothing written)\n");
        return Ok(report);
    }
    report.push_str(&init::apply(&changes).map_err(|error| error.to_string())?);
    Ok(report)
}

/// The text of the MCP configuration `path` after the change, `None` when nothing changes.
pub fn rewrite(
    path: &Path,
    text: &str,
    proxy: &Proxy,
    direction: Direction,
) -> Result<Option<String>, String> {
    let name = path.to_string_lossy().replace('\\', "/");
    let key = FILES
        .iter()
        .find(|(file, _)| name.ends_with(file))
        .map(|(_, key)| *key);
    match key {
        Some(None) => rewrite_toml(text, proxy, direction),
        Some(Some(key)) => rewrite_json(text, key, proxy, direction),
        None if name.ends_with(".toml") => rewrite_toml(text, proxy, direction),
        // Another JSON file: its servers are under `mcpServers`, or `servers` (VS Code).
        None => {
            let key = if text.contains("\"mcpServers\"") {
                "mcpServers"
            } else {
                "servers"
            };
            rewrite_json(text, key, proxy, direction)
        }
    }
}

fn strings(value: Option<&Json>) -> Option<Vec<String>> {
    match value {
        None => Some(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect(),
        Some(_) => None,
    }
}

fn string_array(items: Vec<String>) -> Json {
    Json::Array(items.into_iter().map(Json::String).collect())
}

fn rewrite_json(
    text: &str,
    key: &str,
    proxy: &Proxy,
    direction: Direction,
) -> Result<Option<String>, String> {
    let mut document: Json =
        serde_json::from_str(text).map_err(|error| format!("not valid JSON: {error}"))?;
    let Some(servers) = document.entry(key, Json::Null) else {
        return Err("not a JSON object".to_owned());
    };
    let Json::Object(servers) = servers else {
        // No servers (the entry added above is dropped with the unchanged document).
        return Ok(None);
    };
    let mut changed = false;
    for (name, server) in servers.iter_mut() {
        let Json::Object(_) = server else {
            return Err(format!("the MCP server `{name}` is not an object"));
        };
        let http = server.get("url").is_some()
            || server
                .get("type")
                .and_then(Json::as_str)
                .is_some_and(|kind| kind != "stdio");
        let (Some(command), Some(args)) = (
            server
                .get("command")
                .and_then(Json::as_str)
                .map(str::to_owned),
            strings(server.get("args")),
        ) else {
            continue;
        };
        if http {
            continue;
        }
        match direction {
            Direction::Wrap => {
                if unwrapped(&args).is_some() {
                    continue;
                }
                let wrapped = proxy.arguments(name, &command, &args);
                set(server, "command", Json::String(proxy.binary.clone()));
                set(server, "args", string_array(wrapped));
            }
            Direction::Unwrap => {
                let Some((command, args)) = unwrapped(&args) else {
                    continue;
                };
                set(server, "command", Json::String(command));
                if args.is_empty() {
                    if let Json::Object(entries) = server {
                        entries.retain(|(field, _)| field != "args");
                    }
                } else {
                    set(server, "args", string_array(args));
                }
            }
        }
        changed = true;
    }
    Ok(changed.then(|| document.to_pretty(indent_of(text))))
}

/// Sets `field` of the object `server`, in place when it is there, after `command` when not.
fn set(server: &mut Json, field: &str, value: Json) {
    let Json::Object(entries) = server else {
        return;
    };
    if let Some((_, old)) = entries.iter_mut().find(|(key, _)| key == field) {
        *old = value;
        return;
    }
    let at = entries
        .iter()
        .position(|(key, _)| key == "command")
        .map_or(entries.len(), |index| index + 1);
    entries.insert(at, (field.to_owned(), value));
}

/// A TOML string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

fn rewrite_toml(text: &str, proxy: &Proxy, direction: Direction) -> Result<Option<String>, String> {
    let document: toml::Table =
        toml::from_str(text).map_err(|error| format!("not valid TOML: {error}"))?;
    let Some(toml::Value::Table(servers)) = document.get("mcp_servers") else {
        return Ok(None);
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut changed = false;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        out.push(line.to_owned());
        index += 1;
        let Some(name) = section_server(line) else {
            continue;
        };
        let Some(toml::Value::Table(server)) = servers.get(&name) else {
            continue;
        };
        // The section's lines, up to the next header.
        let end = (index..lines.len())
            .find(|&at| lines[at].trim_start().starts_with('['))
            .unwrap_or(lines.len());
        let section = &lines[index..end];
        let rewritten = match direction {
            Direction::Wrap => wrap_section(&name, server, section, proxy)?,
            Direction::Unwrap => unwrap_section(section),
        };
        match rewritten {
            Some(section) => {
                out.extend(section);
                changed = true;
            }
            None => out.extend(section.iter().map(|line| (*line).to_owned())),
        }
        index = end;
    }
    Ok(changed.then(|| out.concat()))
}

/// The server named by a `[mcp_servers.<name>]` header.
fn section_server(line: &str) -> Option<String> {
    let header = line.trim();
    let inner = header.strip_prefix('[')?.strip_suffix(']')?;
    let name = inner.trim().strip_prefix("mcp_servers.")?.trim();
    if let Some(quoted) = name
        .strip_prefix('"')
        .and_then(|name| name.strip_suffix('"'))
    {
        return Some(quoted.to_owned());
    }
    if let Some(quoted) = name
        .strip_prefix('\'')
        .and_then(|name| name.strip_suffix('\''))
    {
        return Some(quoted.to_owned());
    }
    (!name.contains(['.', '"', '\''])).then(|| name.to_owned())
}

/// The line indices of the key `key` in `section`: its first line, and every line of a
/// multi-line array.
fn key_lines(section: &[&str], key: &str) -> Vec<usize> {
    let Some(start) = section.iter().position(|line| {
        line.trim_start()
            .strip_prefix(key)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
    }) else {
        return Vec::new();
    };
    let mut depth = 0i32;
    let mut lines = Vec::new();
    for (at, line) in section.iter().enumerate().skip(start) {
        lines.push(at);
        let mut in_string = false;
        for c in line.chars() {
            match c {
                '"' => in_string = !in_string,
                '[' if !in_string => depth += 1,
                ']' if !in_string => depth -= 1,
                '#' if !in_string => break,
                _ => {}
            }
        }
        if depth <= 0 {
            break;
        }
    }
    lines
}

fn wrap_section(
    name: &str,
    server: &toml::Table,
    section: &[&str],
    proxy: &Proxy,
) -> Result<Option<Vec<String>>, String> {
    let Some(toml::Value::String(command)) = server.get("command") else {
        return Ok(None);
    };
    let args: Vec<String> = match server.get("args") {
        None => Vec::new(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or_else(|| format!("the `args` of the MCP server `{name}` are not strings"))?,
        Some(_) => {
            return Err(format!(
                "the `args` of the MCP server `{name}` are not a list"
            ));
        }
    };
    if unwrapped(&args).is_some() {
        return Ok(None);
    }
    let command_lines = key_lines(section, "command");
    let args_lines = key_lines(section, "args");
    let Some(&first) = command_lines.first() else {
        return Ok(None);
    };
    let wrapped = proxy.arguments(name, command, &args);
    let array: Vec<String> = wrapped.iter().map(|arg| toml_string(arg)).collect();
    let mut out = Vec::new();
    for (at, line) in section.iter().enumerate() {
        if at == first {
            for kept in command_lines.iter().chain(&args_lines) {
                let kept_line = section[*kept].trim_end_matches(['\n', '\r']);
                out.push(format!("{TOML_KEPT}{kept_line}\n"));
            }
            out.push(format!("command = {}\n", toml_string(&proxy.binary)));
            out.push(format!("args = [{}]\n", array.join(", ")));
        } else if !command_lines.contains(&at) && !args_lines.contains(&at) {
            out.push((*line).to_owned());
        }
    }
    Ok(Some(out))
}

fn unwrap_section(section: &[&str]) -> Option<Vec<String>> {
    let kept: Vec<usize> = section
        .iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with(TOML_KEPT))
        .map(|(at, _)| at)
        .collect();
    let first = *kept.first()?;
    let ours: Vec<usize> = key_lines(section, "command")
        .into_iter()
        .chain(key_lines(section, "args"))
        .collect();
    let mut out = Vec::new();
    for (at, line) in section.iter().enumerate() {
        if at == first {
            for kept in &kept {
                let original = section[*kept].strip_prefix(TOML_KEPT).unwrap_or_default();
                out.push(format!("{}\n", original.trim_end_matches(['\n', '\r'])));
            }
        } else if !kept.contains(&at) && !ours.contains(&at) {
            out.push((*line).to_owned());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxy() -> Proxy {
        Proxy {
            binary: "/opt/bin/hooks".to_owned(),
            config: "/srv/project/hooks.yaml".to_owned(),
        }
    }

    fn round_trip(file: &str, original: &str) -> String {
        let path = Path::new(file);
        let wrapped = rewrite(path, original, &proxy(), Direction::Wrap)
            .unwrap()
            .expect("something to wrap");
        assert_eq!(
            rewrite(path, &wrapped, &proxy(), Direction::Wrap).unwrap(),
            None,
            "wrapping twice changes nothing"
        );
        let unwrapped = rewrite(path, &wrapped, &proxy(), Direction::Unwrap)
            .unwrap()
            .expect("something to unwrap");
        assert_eq!(unwrapped, original, "unwrap undoes wrap exactly");
        wrapped
    }

    const CLAUDE: &str = r#"{
  "mcpServers": {
    "files": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
      "env": {"DEBUG": "1"}
    },
    "remote": {
      "type": "http",
      "url": "https://mcp.example.com/mcp"
    },
    "bare": {
      "command": "my-server"
    }
  }
}
"#;

    #[test]
    fn claude_code_servers_run_through_the_proxy_and_back() {
        let wrapped = round_trip(".mcp.json", &pretty(CLAUDE));
        let document: serde_json::Value = serde_json::from_str(&wrapped).unwrap();
        let files = &document["mcpServers"]["files"];
        assert_eq!(files["command"], "/opt/bin/hooks");
        assert_eq!(
            files["args"],
            serde_json::json!([
                "mcp-proxy",
                "--config",
                "/srv/project/hooks.yaml",
                "--name",
                "files",
                "--",
                "npx",
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "."
            ])
        );
        assert_eq!(files["env"]["DEBUG"], "1");
        assert_eq!(
            document["mcpServers"]["remote"]["url"],
            "https://mcp.example.com/mcp"
        );
        assert_eq!(document["mcpServers"]["bare"]["args"][6], "my-server");
    }

    fn pretty(text: &str) -> String {
        let value: Json = serde_json::from_str(text).unwrap();
        value.to_pretty("  ")
    }

    #[test]
    fn cursor_gemini_and_vs_code_files_round_trip() {
        let servers = r#"{"a": {"command": "uvx", "args": ["mcp-server-time"]}}"#;
        let cursor = pretty(&format!(r#"{{"mcpServers": {servers}}}"#));
        round_trip(".cursor/mcp.json", &cursor);
        let gemini = pretty(&format!(r#"{{"theme": "dark", "mcpServers": {servers}}}"#));
        round_trip(".gemini/settings.json", &gemini);
        let vscode = pretty(
            r#"{"servers": {"a": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"]}}}"#,
        );
        let wrapped = round_trip(".vscode/mcp.json", &vscode);
        assert!(wrapped.contains("mcp-proxy"), "{wrapped}");
    }

    #[test]
    fn codex_servers_round_trip_with_their_own_lines_kept() {
        let original = "model = \"o3\"\n\n[mcp_servers.git]\ncommand = \"uvx\"\nargs = [\n  \"mcp-server-git\",\n  \"--repository\", \".\",\n]\nenv = { A = \"1\" }\n\n[mcp_servers.\"my docs\"]\ncommand = \"docs-server\"\n\n[other]\nx = 1\n";
        let wrapped = round_trip(".codex/config.toml", original);
        let document: toml::Table = toml::from_str(&wrapped).unwrap();
        let git = &document["mcp_servers"]["git"];
        assert_eq!(git["command"].as_str(), Some("/opt/bin/hooks"));
        let args: Vec<&str> = git["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|arg| arg.as_str().unwrap())
            .collect();
        assert_eq!(
            args,
            [
                "mcp-proxy",
                "--config",
                "/srv/project/hooks.yaml",
                "--name",
                "git",
                "--",
                "uvx",
                "mcp-server-git",
                "--repository",
                "."
            ]
        );
        assert_eq!(git["env"]["A"].as_str(), Some("1"));
        let docs = &document["mcp_servers"]["my docs"];
        assert_eq!(docs["args"][4].as_str(), Some("my docs"));
    }
}
