//! The `hooks` binary.
//!
//! - `hooks eval --config FILE --event NAME --data JSON`: loads the file, emits the event, prints
//!   the merged result as one JSON object (reference field names) and exits 0 whatever the
//!   decision; `--data -` reads the data from stdin. Which hook decided, rewrote, injected or
//!   failed goes to stderr, one line each; `--provenance` puts it in the JSON instead, as
//!   `{"result": ..., "provenance": ...}`.
//! - `hooks check FILE...`: validates hooks files and prints every problem, with its location;
//!   shows the policy layers each file runs under (the managed and user hooks files, loaded
//!   or not, and where each module and hook comes from) and warns of what a file tried
//!   against the managed policy; warns when an agent whose project settings run `hooks <agent>` will not run them (a
//!   Gemini CLI folder that is not trusted).
//! - `hooks events`: lists the canonical events, their aliases and their data fields.
//! - `hooks demo`: a scripted agent session through the whole hook pipeline.
//! - `hooks <agent> --config FILE`, for each agent of `hooks_config::interop::AGENTS` (`hooks
//!   claude`, and every other agent's row): the policy in FILE (and every `#[hook]` linked in) as a
//!   command hook of that agent: its hook JSON on stdin, a block and every other answer in the
//!   form its protocol documents (see `hooks_config::interop`), and a block whenever the
//!   policy cannot decide. The managed and user hooks files apply under FILE
//!   (`hooks_config::PolicyStack`).
//! - `hooks init <agent> [--dir DIR] [--config FILE] [--dry-run]`: writes a
//!   starter hooks file (safety, redaction, logging) when there is none and adds
//!   `hooks <agent> --config FILE` to the agent's project settings, merged with the hooks
//!   there, with a backup and a diff. The entries name this binary by its absolute path, with
//!   a timeout above the guard's deadline and the agent's fail-closed key where it takes one
//!   (for Claude Code, only from the installed version that does); where the agent fails open
//!   it says so. It states the agent's trust step and warns when the folder is not trusted.
//! - `hooks doctor [--dir DIR] [--json]`: for the project and the user, whether each agent is
//!   installed or configured, runs `hooks` on the events that matter, fails closed, names a
//!   `hooks` binary that exists and is this version, and a hooks file that loads; its trust
//!   step; and settings of its own that override the guard. Exit 1 on a problem.
//! - `hooks import claude SETTINGS.json|PLUGIN_DIR [--output FILE]`, `hooks import codex
//!   .codex/hooks.json|.codex/config.toml [--output FILE]`: the hooks of a Claude Code
//!   settings file or plugin, or of Codex CLI's hooks, as our YAML; what has no equivalent is said on stderr and in the file's
//!   header.
//!
//! - `hooks test PATH [--json]`: runs tables of cases (events with the decision expected) against
//!   their hooks files; a diff for each failed case, exit 1 when one fails (`cases`).
//! - `hooks replay EVENTS.jsonl... --config NEW.yaml [--baseline OLD.yaml] [--json]`: the tool
//!   calls and prompts the logging module recorded, decided again by NEW.yaml; each decision
//!   that would change, with counts (`replay`).
//!
//! - `hooks mcp-proxy --config FILE [--name NAME] [--listen ADDR] (-- <server command...> |
//!   --upstream URL)`: the policy on every tool call of an MCP server, for any MCP client, on
//!   stdio or streamable HTTP (`mcp_proxy`); its tools are pinned.
//! - `hooks mcp pins|approve|wrap|unwrap`: the pins the proxy keeps and what it held back, their
//!   approval, and agents' MCP configurations run through the proxy (`mcp`, `mcp_wrap`).
//!
//! - `hooks serve [--listen 127.0.0.1:PORT] [--token-file FILE] [--ensure | --install |
//!   --uninstall]`: the same answers as `hooks <agent>`, to the agents' HTTP hooks, from one
//!   resident process (`serve`), or a user service that runs it.
//!
//! Exit codes: 0 done, 1 a config or data problem (on stderr), 2 a usage error (or, for the
//! adapters, a block).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod adapter;
mod agent_args;
mod cases;
mod companion;
mod demo;
mod doctor;
mod init;
mod integrity;
mod layers;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
mod mcp_proxy;
#[cfg(feature = "mcp")]
mod mcp_wrap;
mod modules;
// The order-keeping JSON of the settings format, which `mcp wrap` edits too.
use hooks_config::interop::ordered_json;
mod progress;
mod protection;
mod provenance;
mod replay;
#[cfg(feature = "serve")]
mod serve;
use hooks_config::interop::{AGENTS, Agent};
use hooks_config::{LayersError, Level};
use hooks_core::events;
use hooks_std::state_file::FileState;
use modules::load_layers;
use serde_json::Value;

#[derive(Parser)]
#[command(
    name = "hooks",
    version,
    about = "The guard coding agents run on every tool call (`hooks claude`, `hooks codex`, ...), \
             and an evaluator and checker of hooks files."
)]
#[cfg_attr(
    not(all(feature = "mcp", feature = "serve")),
    command(after_help = companion::HELP)
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Each subcommand's arguments are built only when it is the one run (7% of the instructions of
// a per-event process went into building all of them; the agent subcommands skip clap
// altogether, `agent_args`).
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Decide one event by a hooks file as the agent adapters decide it (the managed and user
    /// hooks files over it, the `#[hook]`s, the managed re-check, the sessions' remembered
    /// answers), and print the merged result as JSON.
    Eval {
        /// The hooks YAML file.
        #[arg(long)]
        config: PathBuf,
        /// The event: a canonical name, an alias, a custom `namespace:name`, or a Claude Code or
        /// Gemini CLI event name (`Stop`, `BeforeTool`, ...).
        #[arg(long)]
        event: String,
        /// The event data as a JSON object; `-` reads it from stdin.
        #[arg(long, default_value = "{}")]
        data: String,
        /// Print `{"result": ..., "provenance": ...}`: the merged result and which hook
        /// decided, modified, injected and failed.
        #[arg(long)]
        provenance: bool,
    },
    /// Validate hooks files and print every problem.
    Check {
        /// The files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the canonical events, their aliases and data fields, and the field groups.
    Events,
    /// Run tables of cases (events with the decision expected) against their hooks files.
    Test {
        /// A table (`*.test.yaml`), or a directory whose `*.test.yaml` files are run.
        path: PathBuf,
        /// Print the reports as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Decide the tool calls and prompts of the logging module's logs again with a new hooks
    /// file, and print each decision that would change.
    Replay {
        /// The logs (JSON lines), oldest first.
        #[arg(required = true)]
        events: Vec<PathBuf>,
        /// The hooks file to judge.
        #[arg(long)]
        config: PathBuf,
        /// A hooks file whose decisions are taken as "before", instead of those recorded.
        #[arg(long)]
        baseline: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play a scripted agent session through the whole hook pipeline.
    Demo {
        /// Answer approval prompts "Allow always" without asking.
        #[arg(long, conflicts_with = "no")]
        yes: bool,
        /// Answer approval prompts "Deny" without asking.
        #[arg(long)]
        no: bool,
        /// Print the session's events as JSON lines instead of the transcript.
        #[arg(long)]
        json: bool,
    },
    /// `hooks <agent> --config FILE`, one per agent.
    #[command(flatten)]
    Agent(agent_args::AgentCommand),
    /// Set an agent up to run `hooks`: a starter hooks file and the agent's settings entries.
    Init {
        /// The agent to set up.
        #[arg(value_parser = agent_args::agent_name(|_| true))]
        agent: agent_args::AgentName,
        /// The project directory.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The hooks file, relative to the project directory (created when missing).
        #[arg(long, default_value = "hooks.yaml")]
        config: PathBuf,
        /// Print what would change and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Wire the agent's HTTP hooks to `hooks serve` (Claude Code, Qwen Code), with a
        /// `SessionStart` hook that starts it, instead of a `hooks` process per event.
        #[cfg(feature = "serve")]
        #[arg(long)]
        serve: bool,
        /// The address of `hooks serve` for `--serve`.
        #[cfg(feature = "serve")]
        #[arg(long, default_value = serve::DEFAULT_LISTEN, requires = "serve")]
        listen: std::net::SocketAddr,
    },
    /// Accept the guard's configuration as it is now for the sessions running in the project
    /// of a hooks file (after a change that blocks them); asked at the terminal, outside the
    /// agent.
    Trust {
        /// The hooks file of the project.
        #[arg(long, default_value = "hooks.yaml")]
        config: PathBuf,
    },
    /// Check that each agent here runs the guard, fails closed, and can load the hooks file.
    Doctor {
        /// The project directory.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run an MCP server behind the policy: every tool call it gets is gated by the hooks file.
    ///
    /// The server is a command (after `--`, spoken to on stdio) or a streamable-HTTP server
    /// (`--upstream URL`). The client speaks to the proxy on stdio, or over streamable HTTP at
    /// `http://ADDR/mcp` with `--listen ADDR` (each client session then gets a server of its
    /// own; loopback only unless `--allow-remote-clients`; no authentication of clients, no
    /// credentials sent upstream, HTTP/1.1 without TLS, sessions kept in memory).
    ///
    /// Clients and servers of both protocol eras are served on stdio: the handshake era
    /// (`initialize`) and 2026-07-28 (`server/discover`, no session); the proxy asks the server
    /// `server/discover` first and translates between the eras. A hook's ask is an
    /// `elicitation/create` on a handshake session and an `input_required` answer on a
    /// 2026-07-28 one (the retry with the user's approval lets that exact call through once).
    #[command(name = "mcp-proxy")]
    #[cfg(feature = "mcp")]
    McpProxy(mcp_proxy::McpProxyArgs),
    /// The MCP proxy's pins (`pins`, `approve`) and agents' MCP configurations (`wrap`,
    /// `unwrap`).
    #[command(subcommand)]
    #[cfg(feature = "mcp")]
    Mcp(mcp::McpCommand),
    /// Answer the agents' HTTP hooks from one resident process (`POST /<agent>`).
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Convert another agent's hook settings into a hooks YAML file.
    Import {
        /// The agent whose settings these are.
        #[arg(value_parser = agent_args::agent_name(|agent| agent.importer().is_some()))]
        agent: agent_args::AgentName,
        /// The settings file, or a Claude Code plugin's directory (its `hooks/hooks.json`).
        settings: PathBuf,
        /// Where to write the YAML (default: stdout).
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // An agent runs this at every tool call: its one form is read without building clap.
    if let Some((agent, config)) = agent_args::agent_invocation(&args) {
        return serve(agent, &config);
    }
    // A lean guard build runs its heavy subcommands through the companion beside it.
    companion::take_the_guards_name();
    if let Some(handover) = companion::handover(&args, companion::MISSING)
        && let Some(exit) = companion::hand_over(&args, handover)
    {
        return exit;
    }
    match Cli::parse_from(args).command {
        Command::Eval {
            config,
            event,
            data,
            provenance,
        } => eval(&config, &event, &data, provenance),
        Command::Check { files } => check(&files),
        Command::Events => {
            print!("{}", events_table());
            ExitCode::SUCCESS
        }
        Command::Test { path, json } => cases::run(&path, json),
        Command::Replay {
            events,
            config,
            baseline,
            json,
        } => replay::run(&replay::ReplayArgs {
            events,
            config,
            baseline,
            json,
        }),
        Command::Demo { yes, no, json } => {
            let answers = match (yes, no) {
                (true, _) => demo::Answers::Yes,
                (_, true) => demo::Answers::No,
                _ => demo::Answers::Interactive,
            };
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(error) => return fail(format!("cannot start the runtime: {error}")),
            };
            match runtime.block_on(demo::run(answers, json)) {
                Ok(_) => ExitCode::SUCCESS,
                Err(error) => fail(error),
            }
        }
        Command::Agent(command) => serve(command.agent, &command.config),
        Command::Init {
            agent,
            dir,
            config,
            dry_run,
            #[cfg(feature = "serve")]
            serve,
            #[cfg(feature = "serve")]
            listen,
        } => match init::this_binary() {
            Ok(binary) => init(&init::InitOptions {
                agent: agent.0,
                dir,
                config,
                dry_run,
                binary,
                #[cfg(feature = "serve")]
                serve: serve.then_some(listen),
                #[cfg(not(feature = "serve"))]
                serve: None,
            }),
            Err(error) => fail(error),
        },
        Command::Doctor { dir, json } => doctor(&dir, json),
        Command::Trust { config } => match integrity::trust(&config) {
            Ok(done) => {
                println!("{done}");
                ExitCode::SUCCESS
            }
            Err(problem) => fail(problem),
        },
        Command::Import {
            agent,
            settings,
            output,
        } => import(agent.0, &settings, output.as_deref()),
        #[cfg(feature = "mcp")]
        Command::McpProxy(args) => mcp_proxy::run(args),
        #[cfg(feature = "mcp")]
        Command::Mcp(command) => mcp::run(command),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::run(args),
    }
}

/// The largest hook input read: an event carries its tool call, a file's whole content
/// included, and a larger one is no event an agent sends (reading on would only fill memory).
const MAX_HOOK_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// One hook call of another agent: stdin in, its protocol out.
fn serve(agent: &dyn Agent, config: &std::path::Path) -> ExitCode {
    let mut input = String::new();
    let answer = match std::io::stdin()
        .take(MAX_HOOK_INPUT_BYTES + 1)
        .read_to_string(&mut input)
    {
        Ok(read) if read as u64 > MAX_HOOK_INPUT_BYTES => adapter::fail_closed(
            agent,
            None,
            &format!("the hook input is larger than {MAX_HOOK_INPUT_BYTES} bytes"),
        ),
        Ok(_) => adapter::answer(agent, config, &input),
        Err(error) => {
            adapter::fail_closed(agent, None, &format!("cannot read the hook input: {error}"))
        }
    };
    if !answer.stdout.is_empty() {
        println!("{}", answer.stdout);
    }
    if !answer.stderr.is_empty() {
        eprintln!("{}", answer.stderr);
    }
    ExitCode::from(u8::try_from(answer.exit_code).unwrap_or(2))
}

fn import(
    agent: &dyn Agent,
    settings: &std::path::Path,
    output: Option<&std::path::Path>,
) -> ExitCode {
    let Some(importer) = agent.importer() else {
        return fail(format!(
            "{} has no hooks file to import",
            agent.profile().display_name
        ));
    };
    let imported = match importer(settings) {
        Ok(imported) => imported,
        Err(errors) => return fail(errors),
    };
    for note in &imported.notes {
        eprintln!("note: {note}");
    }
    for left_out in &imported.left_out {
        eprintln!("left out: {left_out}");
    }
    let yaml = imported.to_yaml();
    match output {
        Some(path) => {
            if let Err(error) = std::fs::write(path, &yaml) {
                return fail(format!("cannot write {}: {error}", path.display()));
            }
        }
        None => print!("{yaml}"),
    }
    ExitCode::SUCCESS
}

fn init(options: &init::InitOptions) -> ExitCode {
    let changes = match init::plan(options) {
        Ok(changes) => changes,
        Err(error) => return fail(error),
    };
    let notes = init::notes(options);
    let print_notes = || notes.iter().for_each(|note| eprintln!("{note}"));
    if changes.is_empty() {
        println!("already set up: nothing to change");
        print_notes();
        return ExitCode::SUCCESS;
    }
    for change in &changes {
        print!("{}", init::diff(change));
    }
    if options.dry_run {
        println!("dry run: nothing was written");
        print_notes();
        return ExitCode::SUCCESS;
    }
    match init::apply(&changes) {
        Ok(report) => {
            print!("{report}");
            print_notes();
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}

fn doctor(dir: &std::path::Path, json: bool) -> ExitCode {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let report = doctor::examine(dir, home.as_deref());
    if json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(error) => return fail(format!("cannot print the report: {error}")),
        }
    } else {
        print!("{}", doctor::human(&report));
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("hooks: {message}");
    ExitCode::from(1)
}

fn eval(config: &std::path::Path, event: &str, data: &str, with_provenance: bool) -> ExitCode {
    let event = match hooks_config::interop::event_named(event) {
        Ok(event) => event,
        Err(problem) => return fail(format!("--event: {problem}")),
    };
    let text = if data == "-" {
        let mut text = String::new();
        if let Err(error) = std::io::stdin().read_to_string(&mut text) {
            return fail(format!("--data -: cannot read stdin: {error}"));
        }
        text
    } else {
        data.to_owned()
    };
    let data = match serde_json::from_str::<Value>(&text) {
        Ok(data @ Value::Object(_)) => data,
        Ok(_) => return fail("--data must be a JSON object"),
        Err(error) => return fail(format!("--data is not JSON: {error}")),
    };
    let stack = match load_layers(config) {
        Ok(stack) => stack,
        Err(error) => return fail(modules::unloadable(&error)),
    };
    hooks_config::one_event_per_process();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(format!("cannot start the runtime: {error}")),
    };
    let policy = match adapter::mount(&stack, FileState::from_env()) {
        Ok(policy) => policy,
        Err(problem) => return fail(problem),
    };
    let outcome = runtime.block_on(policy.decide(&event, data));
    modules::flush_telemetry();
    let printed = if with_provenance {
        serde_json::to_string(&provenance::WithResult {
            result: &outcome.result,
            provenance: provenance::of(&outcome),
        })
    } else {
        for line in provenance::lines(&outcome) {
            eprintln!("{line}");
        }
        serde_json::to_string(&outcome.result)
    };
    match printed {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(error) => fail(format!("cannot print the result: {error}")),
    }
}

fn check(files: &[PathBuf]) -> ExitCode {
    let mut failed = false;
    for file in files {
        // Every layer's WebAssembly components must load and satisfy their world.
        let loaded = load_layers(file).and_then(|stack| match stack.check() {
            Ok(()) => Ok(stack),
            Err(errors) => Err(LayersError::Broken {
                level: Level::Project,
                errors,
            }),
        });
        match loaded {
            Ok(stack) => {
                // The file given is the last layer: a file met at a higher level is loaded
                // once, there.
                let summary = stack
                    .layers()
                    .last()
                    .map(|layer| layer.config.summary())
                    .unwrap_or_default();
                println!("{}: ok ({summary})", file.display());
                let view = layers::LayersView::of(file.clone(), &stack);
                print!("  layers:\n{}", view.text("    "));
                for warning in &view.warnings {
                    eprintln!("warning: {warning}");
                }
                for warning in trust_warnings(file) {
                    eprintln!("{warning}");
                }
                eprintln!("{SESSION_NOTE}");
            }
            Err(LayersError::Broken {
                level: Level::Project,
                errors,
            }) => {
                failed = true;
                eprintln!("{errors}");
            }
            Err(error) => {
                failed = true;
                eprintln!("{error}");
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The trust warnings for the project of a hooks file: for each agent whose project settings
/// there run `hooks <agent>` and that will not run that project's hooks.
/// What changed this release for a user's hooks file, said where the file is checked
/// (CHANGELOG, "Breaking").
const SESSION_NOTE: &str = "note: an edit of a hooks file during an agent's session blocks \
     that session's calls until you run `hooks trust` at a terminal (or start a new session); \
     `hooks eval`, `test` and `replay` decide under the managed and user hooks files, as the \
     guard does";

fn trust_warnings(file: &std::path::Path) -> Vec<String> {
    let Some(project) = std::fs::canonicalize(file)
        .ok()
        .and_then(|file| file.parent().map(std::path::Path::to_path_buf))
    else {
        return Vec::new();
    };
    AGENTS
        .iter()
        .filter(|agent| {
            let settings = agent.profile().settings;
            !settings
                .events_running_at(agent.name(), &project.join(settings.project))
                .is_empty()
        })
        .filter_map(|agent| init::trust_warning(*agent, &project))
        .collect()
}

fn events_table() -> String {
    let mut table = String::new();
    for event in events::CANONICAL {
        let aliases: Vec<&str> = events::aliases_of(event).collect();
        let aliases = if aliases.is_empty() {
            String::new()
        } else {
            format!(" ({})", aliases.join(", "))
        };
        table.push_str(&format!("{event}{aliases}"));
        if let Some(fields) = events::fields::of(event) {
            let optional = fields.optional().iter().map(|field| format!("{field}?"));
            let listed: Vec<String> = fields
                .required()
                .iter()
                .map(|field| (*field).to_owned())
                .chain(optional)
                .collect();
            if !listed.is_empty() {
                table.push_str(&format!(": {}", listed.join(", ")));
            }
        }
        table.push('\n');
    }
    table.push_str("\nfield groups (`?`: set only when the emitter knows it):\n");
    for group in events::fields::GROUPS {
        let members: Vec<&str> = group.events().iter().map(|e| e.event()).collect();
        table.push_str(&format!(
            "{}: {} [{}]\n",
            group.name(),
            group.fields().join(", "),
            members.join(", ")
        ));
    }
    table
}
