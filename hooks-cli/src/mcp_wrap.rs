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
//! tools keep their names (`mcp__<server>__<tool>`). Unwrapping takes the command back out of
//! the arguments after `--` (a JSON server that had no `args` gets none back).
//!
//! A server of streamable HTTP, configured by its URL (`url`; Gemini CLI's `httpUrl`; with
//! `type: "http"` or no type), becomes a stdio server in its place: `command` = this `hooks`
//! binary, `args` = `mcp-proxy --config <hooks file> --name <server> --upstream <url>`, its URL
//! field replaced by `command` where it was, and a `type: "http"` made `type: "stdio"`.
//! Unwrapping puts the URL back under its field and the type back to `http`. Left alone, and
//! named in the report with the reason: a server whose entry sends headers or credentials
//! (`headers`, `headersHelper`, `oauth`, `authProviderType`; Codex's `http_headers`,
//! `env_http_headers`, `bearer_token_env_var`), as the proxy sends none upstream; a server of
//! another transport (`type: "sse"`, Gemini CLI's `url`), as the proxy speaks streamable HTTP
//! only. A server already wrapped is left alone.
//!
//! In `config.toml` the lines a server had (its `command` and `args`, or its `url`) are kept as
//! comments under it and put back as they were.
//!
//! As `hooks init` does: each changed file is backed up, the change is printed as a diff, and
//! `--dry-run` writes nothing.

use std::path::{Path, PathBuf};

use crate::init::{self, FileChange};
use crate::ordered_json::{Json, indent_of};

/// The MCP configuration files `wrap` looks at, under a project directory, and the key of
/// their servers (`None`: Codex's TOML).
pub(crate) const FILES: &[(&str, Option<&str>)] = &[
    (".mcp.json", Some("mcpServers")),
    (".cursor/mcp.json", Some("mcpServers")),
    (".gemini/settings.json", Some("mcpServers")),
    (".vscode/mcp.json", Some("servers")),
    (".codex/config.toml", None),
];

/// The subcommand that marks a wrapped server's arguments.
const PROXY_COMMAND: &str = "mcp-proxy";

/// The proxy's option that names a server by its URL.
const UPSTREAM_OPTION: &str = "--upstream";

/// The fields of a JSON server that send headers or credentials to it: the proxy sends none
/// upstream, so a server with one is not wrapped.
const JSON_CREDENTIALS: &[&str] = &["headers", "headersHelper", "oauth", "authProviderType"];

/// The same, in Codex's `config.toml`.
const TOML_CREDENTIALS: &[&str] = &["http_headers", "env_http_headers", "bearer_token_env_var"];

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

impl Proxy {
    /// The arguments that run the streamable-HTTP server at `url` through the proxy as
    /// `server`.
    fn url_arguments(&self, server: &str, url: &str) -> Vec<String> {
        [
            PROXY_COMMAND,
            "--config",
            &self.config,
            "--name",
            server,
            UPSTREAM_OPTION,
            url,
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

/// Whether `args` are a wrapped server's, of a command or of a URL.
fn is_wrapped(args: &[String]) -> bool {
    args.first().map(String::as_str) == Some(PROXY_COMMAND)
}

/// The server's URL, when `args` are a wrapped URL server's.
fn wrapped_url(args: &[String]) -> Option<String> {
    if !is_wrapped(args) || args.iter().any(|arg| arg == "--") {
        return None;
    }
    let at = args.iter().position(|arg| arg == UPSTREAM_OPTION)? + 1;
    args.get(at).cloned()
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
    let mut left_alone = String::new();
    for path in files {
        let old = std::fs::read_to_string(&path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let rewritten = rewrite(&path, &old, &proxy, direction)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        for note in rewritten.left_alone {
            left_alone.push_str(&format!("not wrapped: {}: {note}\n", path.display()));
        }
        if let Some(new) = rewritten.text {
            changes.push(FileChange {
                path,
                old: Some(old),
                new,
            });
        }
    }
    if changes.is_empty() {
        return Ok(format!("no MCP server to change\n{left_alone}"));
    }
    let mut report: String = changes.iter().map(init::diff).collect();
    report.push_str(&left_alone);
    if args.dry_run {
        report.push_str("(dry run: nothing written)\n");
        return Ok(report);
    }
    report.push_str(&init::apply(&changes).map_err(|error| error.to_string())?);
    Ok(report)
}

/// An MCP configuration after the change.
#[derive(Debug, Default)]
pub struct Rewritten {
    /// Its text, `None` when nothing changes.
    pub text: Option<String>,
    /// The servers left alone that the user should know of, each with why.
    pub left_alone: Vec<String>,
}

/// The MCP configuration `path` after the change.
pub fn rewrite(
    path: &Path,
    text: &str,
    proxy: &Proxy,
    direction: Direction,
) -> Result<Rewritten, String> {
    let name = path.to_string_lossy().replace('\\', "/");
    let key = FILES
        .iter()
        .find(|(file, _)| name.ends_with(file))
        .map(|(_, key)| *key);
    // Gemini CLI names a streamable-HTTP server's URL `httpUrl` (its `url` is SSE).
    let url_key = if name.ends_with(".gemini/settings.json") {
        "httpUrl"
    } else {
        "url"
    };
    let mut rewritten = Rewritten::default();
    let notes = &mut rewritten.left_alone;
    rewritten.text = match key {
        Some(None) => rewrite_toml(text, proxy, direction, notes)?,
        Some(Some(key)) => rewrite_json(text, key, url_key, proxy, direction, notes)?,
        None if name.ends_with(".toml") => rewrite_toml(text, proxy, direction, notes)?,
        // Another JSON file: its servers are under `mcpServers`, or `servers` (VS Code).
        None => {
            let key = if text.contains("\"mcpServers\"") {
                "mcpServers"
            } else {
                "servers"
            };
            rewrite_json(text, key, url_key, proxy, direction, notes)?
        }
    };
    Ok(rewritten)
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
    url_key: &str,
    proxy: &Proxy,
    direction: Direction,
    notes: &mut Vec<String>,
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
        let command = server
            .get("command")
            .and_then(Json::as_str)
            .map(str::to_owned);
        let Some(args) = strings(server.get("args")) else {
            continue;
        };
        changed |= match (direction, command) {
            (Direction::Wrap, Some(command)) => wrap_command(name, server, &command, &args, proxy),
            (Direction::Wrap, None) => match wrap_url(name, server, url_key, proxy) {
                Ok(wrapped) => wrapped,
                Err(why) => {
                    notes.push(why);
                    false
                }
            },
            (Direction::Unwrap, Some(_)) => {
                unwrap_command(server, &args) || unwrap_url(server, &args, url_key)
            }
            (Direction::Unwrap, None) => false,
        };
    }
    Ok(changed.then(|| document.to_pretty(indent_of(text))))
}

/// Wraps the stdio server `name` (`command` with `args`); whether it changed.
fn wrap_command(
    name: &str,
    server: &mut Json,
    command: &str,
    args: &[String],
    proxy: &Proxy,
) -> bool {
    let http = server.get("url").is_some()
        || server
            .get("type")
            .and_then(Json::as_str)
            .is_some_and(|kind| kind != "stdio");
    if http || is_wrapped(args) {
        return false;
    }
    let wrapped = proxy.arguments(name, command, args);
    set(server, "command", Json::String(proxy.binary.clone()));
    set(server, "args", string_array(wrapped));
    true
}

/// Wraps the server `name` when it is a streamable-HTTP server given by its URL (under
/// `url_key`): a stdio server in its place, the URL's field replaced by `command` where it
/// was. Whether it changed; why not, when the user should know (it sends credentials, or
/// speaks another transport).
fn wrap_url(name: &str, server: &mut Json, url_key: &str, proxy: &Proxy) -> Result<bool, String> {
    let Some(url) = server
        .get(url_key)
        .and_then(Json::as_str)
        .map(str::to_owned)
    else {
        if server.get("url").is_some() {
            return Err(format!(
                "`{name}` is a server of the SSE transport (`url`); the proxy speaks \
                 streamable HTTP only"
            ));
        }
        return Ok(false);
    };
    let kind = server.get("type").and_then(Json::as_str).map(str::to_owned);
    if let Some(kind) = kind.as_deref().filter(|kind| *kind != "http") {
        return Err(format!(
            "`{name}` is a server of the `{kind}` transport; the proxy speaks streamable HTTP only"
        ));
    }
    if let Some(field) = JSON_CREDENTIALS
        .iter()
        .find(|field| server.get(field).is_some())
    {
        return Err(format!(
            "`{name}` sends `{field}` to its server (authentication); the proxy sends no \
             headers or credentials upstream, so the server would refuse it"
        ));
    }
    let Json::Object(entries) = server else {
        return Ok(false);
    };
    for (field, value) in entries.iter_mut() {
        if field == url_key {
            *field = "command".to_owned();
            *value = Json::String(proxy.binary.clone());
        } else if field == "type" {
            *value = Json::String("stdio".to_owned());
        }
    }
    set(
        server,
        "args",
        string_array(proxy.url_arguments(name, &url)),
    );
    Ok(true)
}

/// Unwraps a wrapped stdio server; whether it changed.
fn unwrap_command(server: &mut Json, args: &[String]) -> bool {
    let Some((command, args)) = unwrapped(args) else {
        return false;
    };
    set(server, "command", Json::String(command));
    if args.is_empty() {
        if let Json::Object(entries) = server {
            entries.retain(|(field, _)| field != "args");
        }
    } else {
        set(server, "args", string_array(args));
    }
    true
}

/// Unwraps a wrapped URL server: its URL back under `url_key` where `command` is, its type
/// back to `http`; whether it changed.
fn unwrap_url(server: &mut Json, args: &[String], url_key: &str) -> bool {
    let Some(url) = wrapped_url(args) else {
        return false;
    };
    let Json::Object(entries) = server else {
        return false;
    };
    entries.retain(|(field, _)| field != "args");
    for (field, value) in entries.iter_mut() {
        if field == "command" {
            *field = url_key.to_owned();
            *value = Json::String(url.clone());
        } else if field == "type" && value.as_str() == Some("stdio") {
            *value = Json::String("http".to_owned());
        }
    }
    true
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

fn rewrite_toml(
    text: &str,
    proxy: &Proxy,
    direction: Direction,
    notes: &mut Vec<String>,
) -> Result<Option<String>, String> {
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
            Direction::Wrap => wrap_section(&name, server, section, proxy, notes)?,
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
    notes: &mut Vec<String>,
) -> Result<Option<Vec<String>>, String> {
    let Some(toml::Value::String(command)) = server.get("command") else {
        return Ok(wrap_url_section(name, server, section, proxy, notes));
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
    if is_wrapped(&args) {
        return Ok(None);
    }
    let mut replaced: Vec<usize> = key_lines(section, "command")
        .into_iter()
        .chain(key_lines(section, "args"))
        .collect();
    replaced.sort_unstable();
    let wrapped = proxy.arguments(name, command, &args);
    Ok(replace_lines(section, &replaced, &proxy.binary, &wrapped))
}

/// Wraps a Codex server given by its `url`, unless it sends credentials (noted).
fn wrap_url_section(
    name: &str,
    server: &toml::Table,
    section: &[&str],
    proxy: &Proxy,
    notes: &mut Vec<String>,
) -> Option<Vec<String>> {
    let Some(toml::Value::String(url)) = server.get("url") else {
        return None;
    };
    if let Some(field) = TOML_CREDENTIALS
        .iter()
        .find(|field| server.contains_key(**field))
    {
        notes.push(format!(
            "`{name}` sends `{field}` to its server (authentication); the proxy sends no \
             headers or credentials upstream, so the server would refuse it"
        ));
        return None;
    }
    let wrapped = proxy.url_arguments(name, url);
    replace_lines(section, &key_lines(section, "url"), &proxy.binary, &wrapped)
}

/// `section` with the lines `replaced` (in order) kept as comments, and `command` and `args`
/// lines of the proxy where the first of them was; `None` when there is no line to replace.
fn replace_lines(
    section: &[&str],
    replaced: &[usize],
    binary: &str,
    args: &[String],
) -> Option<Vec<String>> {
    let first = *replaced.first()?;
    let array: Vec<String> = args.iter().map(|arg| toml_string(arg)).collect();
    let mut out = Vec::new();
    for (at, line) in section.iter().enumerate() {
        if at == first {
            for kept in replaced {
                let kept_line = section[*kept].trim_end_matches(['\n', '\r']);
                out.push(format!("{TOML_KEPT}{kept_line}\n"));
            }
            out.push(format!("command = {}\n", toml_string(binary)));
            out.push(format!("args = [{}]\n", array.join(", ")));
        } else if !replaced.contains(&at) {
            out.push((*line).to_owned());
        }
    }
    Some(out)
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
            .text
            .expect("something to wrap");
        assert_eq!(
            rewrite(path, &wrapped, &proxy(), Direction::Wrap)
                .unwrap()
                .text,
            None,
            "wrapping twice changes nothing"
        );
        let unwrapped = rewrite(path, &wrapped, &proxy(), Direction::Unwrap)
            .unwrap()
            .text
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
        assert_eq!(document["mcpServers"]["bare"]["args"][6], "my-server");
        // The HTTP server is a stdio one in its place, the proxy its client.
        let remote = &document["mcpServers"]["remote"];
        assert_eq!(
            *remote,
            serde_json::json!({
                "type": "stdio",
                "command": "/opt/bin/hooks",
                "args": [
                    "mcp-proxy",
                    "--config",
                    "/srv/project/hooks.yaml",
                    "--name",
                    "remote",
                    "--upstream",
                    "https://mcp.example.com/mcp"
                ]
            })
        );
    }

    /// The names of the servers a wrap of `text` (as `file`) left alone with a reason.
    fn left_alone(file: &str, text: &str) -> Vec<String> {
        rewrite(Path::new(file), text, &proxy(), Direction::Wrap)
            .unwrap()
            .left_alone
    }

    #[test]
    fn url_servers_are_wrapped_unless_they_send_credentials_or_speak_sse() {
        let claude = pretty(
            r#"{"mcpServers": {
                "open": {"type": "http", "url": "http://127.0.0.1:9000/mcp"},
                "private": {"type": "http", "url": "https://api.example.com/mcp",
                            "headers": {"Authorization": "Bearer ${TOKEN}"}},
                "legacy": {"type": "sse", "url": "https://old.example.com/sse"}
            }}"#,
        );
        let wrapped = round_trip(".mcp.json", &claude);
        let document: serde_json::Value = serde_json::from_str(&wrapped).unwrap();
        assert_eq!(
            document["mcpServers"]["open"]["args"][6],
            "http://127.0.0.1:9000/mcp"
        );
        // Untouched: the credentials stay where the agent sends them.
        assert_eq!(
            document["mcpServers"]["private"]["url"],
            "https://api.example.com/mcp"
        );
        assert_eq!(document["mcpServers"]["legacy"]["type"], "sse");
        let notes = left_alone(".mcp.json", &claude);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains("`private`") && notes[0].contains("`headers`"),
            "{notes:?}"
        );
        assert!(notes[0].contains("no headers"), "{notes:?}");
        assert!(
            notes[1].contains("`legacy`") && notes[1].contains("sse"),
            "{notes:?}"
        );

        // Cursor: a URL and no type; none is added.
        let cursor = pretty(r#"{"mcpServers": {"docs": {"url": "https://docs.example.com/mcp"}}}"#);
        let wrapped = round_trip(".cursor/mcp.json", &cursor);
        let document: serde_json::Value = serde_json::from_str(&wrapped).unwrap();
        assert_eq!(document["mcpServers"]["docs"]["command"], "/opt/bin/hooks");
        assert!(document["mcpServers"]["docs"].get("type").is_none());

        // Gemini CLI: `httpUrl` is streamable HTTP, `url` is SSE.
        let gemini = pretty(
            r#"{"mcpServers": {
                "http": {"httpUrl": "https://h.example.com/mcp", "timeout": 5000},
                "sse": {"url": "https://s.example.com/sse"}
            }}"#,
        );
        let wrapped = round_trip(".gemini/settings.json", &gemini);
        let document: serde_json::Value = serde_json::from_str(&wrapped).unwrap();
        assert_eq!(
            document["mcpServers"]["http"]["args"][6],
            "https://h.example.com/mcp"
        );
        assert_eq!(document["mcpServers"]["http"]["timeout"], 5000);
        assert_eq!(
            document["mcpServers"]["sse"]["url"],
            "https://s.example.com/sse"
        );
        let notes = left_alone(".gemini/settings.json", &gemini);
        assert!(notes.len() == 1 && notes[0].contains("`sse`"), "{notes:?}");

        // Codex: `url`, and a bearer token it would send.
        let codex = "[mcp_servers.remote]\nurl = \"https://r.example.com/mcp\"\nstartup_timeout_sec = 20\n\n[mcp_servers.github]\nurl = \"https://api.githubcopilot.com/mcp/\"\nbearer_token_env_var = \"GITHUB_TOKEN\"\n";
        let wrapped = round_trip(".codex/config.toml", codex);
        let document: toml::Table = toml::from_str(&wrapped).unwrap();
        let remote = &document["mcp_servers"]["remote"];
        assert_eq!(remote["command"].as_str(), Some("/opt/bin/hooks"));
        assert_eq!(remote["args"][5].as_str(), Some("--upstream"));
        assert_eq!(
            remote["args"][6].as_str(),
            Some("https://r.example.com/mcp")
        );
        assert!(remote.get("url").is_none());
        assert_eq!(remote["startup_timeout_sec"].as_integer(), Some(20));
        assert!(document["mcp_servers"]["github"].get("command").is_none());
        let notes = left_alone(".codex/config.toml", codex);
        assert!(
            notes.len() == 1 && notes[0].contains("bearer_token_env_var"),
            "{notes:?}"
        );
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
