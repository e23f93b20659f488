//! The documents' tables and lists of the agents, built from the agents' rows so that no page
//! holds a hand list that can drift from [`AGENTS`]: what each agent can and cannot do
//! ([`summary_table`]), where each is set up ([`setup_table`]), and the agents named in a
//! sentence ([`agent_list`]). A test keeps each block of the documents equal to these.

use std::fmt::Write as _;

use hooks_core::events::TOOL_PRE;

use super::{AGENTS, Agent, Layout, RewriteSupport, Verdict};

/// The table's head.
const HEAD: &str = "| agent | set up with | events mapped | tools mapped | ask | rewrite | \
                    context | fails closed | tested against the real program |\n\
                    |---|---|---|---|---|---|---|---|---|\n";

/// One row per agent of [`AGENTS`], in Markdown: its events (how many of them have a
/// canonical equivalent), its tools under canonical names, where a question reaches the user,
/// how it takes a rewrite, where context reaches the model, whether an answer the policy
/// cannot decide blocks a tool call (read by the agent's own validator), and whether the
/// adapter was run against the agent's real program.
pub fn summary_table() -> String {
    let mut table = HEAD.to_owned();
    for agent in AGENTS {
        let _ = writeln!(table, "{}", row(*agent));
    }
    table
}

/// One row per agent of [`AGENTS`], in Markdown: its name, the command that sets it up, the
/// command it runs and the project file (or directory) `hooks init` writes.
pub fn setup_table() -> String {
    let mut table = "| agent | set up with | runs | in |\n|---|---|---|---|\n".to_owned();
    for agent in AGENTS {
        let settings = agent.profile().settings;
        let written = match settings.layout {
            Layout::Executables(_) => format!("`{}/` (one script per event)", settings.project),
            Layout::Plugin(_) => format!("`{}` (a plugin)", settings.project),
            _ => format!("`{}`", settings.project),
        };
        let _ = writeln!(
            table,
            "| {} | `hooks init {name}` | `hooks {name}` | {written} |",
            agent.profile().display_name,
            name = agent.name(),
        );
    }
    table
}

/// Every agent of [`AGENTS`] in one sentence's list, wrapped at 96 columns: its name, its
/// subcommand, and how `hooks init` hooks it in where that is not its own settings file
/// (Cline: "through scripts `hooks init` writes"), the last after "and".
pub fn agent_list() -> String {
    let items: Vec<String> = AGENTS
        .iter()
        .map(|agent| {
            let how = match agent.profile().settings.layout {
                Layout::Executables(_) => ", through scripts `hooks init` writes",
                Layout::Plugin(_) => ", through a plugin `hooks init` writes",
                _ => "",
            };
            format!("{} (`{}`{how})", agent.profile().display_name, agent.name())
        })
        .collect();
    let sentence = match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut text = String::new();
    let mut line = String::new();
    for word in sentence.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > 96 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    text.push_str(&line);
    text.push('\n');
    text
}

/// The row of `agent`.
fn row(agent: &dyn Agent) -> String {
    let protocol = agent.profile().protocol;
    let capabilities = agent.profile().capabilities;
    let canonical = protocol
        .events
        .iter()
        .filter(|(_, ours)| ours.is_some())
        .count();
    let events = format!("{} ({canonical} canonical)", protocol.events.len());
    let mut tools: Vec<String> = agent
        .profile()
        .tools
        .iter()
        .map(|tool| format!("`{}`→`{}`", tool.theirs, tool.canonical))
        .collect();
    if tools.is_empty() {
        tools.push("its own names".to_owned());
    }
    let listed = |events: &[&str]| {
        events
            .iter()
            .map(|event| format!("`{event}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ask = if capabilities.asks_on.is_empty() {
        "no: a deny with the question".to_owned()
    } else {
        format!("on {}; elsewhere a deny", listed(capabilities.asks_on))
    };
    let rewrite = match capabilities.rewrite {
        RewriteSupport::ConfirmedOrApplied => "confirmed by the user, or run with `rewrite: apply`",
        RewriteSupport::AppliedOnly => "run with `rewrite: apply`; otherwise a deny",
        RewriteSupport::None => "no: a deny",
    };
    let context = if capabilities.context_on.is_empty() {
        "no: the user is told".to_owned()
    } else {
        listed(capabilities.context_on)
    };
    let fails_closed = match protocol.agent_event(TOOL_PRE) {
        Some(pre) => {
            let answer = agent.fail_closed(Some(pre), "the policy is broken".to_owned());
            let unreadable = agent.fail_closed(None, "the input is unreadable".to_owned());
            let blocks = |answer| matches!(agent.accepts(pre, answer), Ok(Verdict::Block(_)));
            if blocks(&answer) && blocks(&unreadable) {
                "yes"
            } else {
                "no"
            }
        }
        None => "no tool event",
    };
    let tested = if agent.profile().tested_against_real_program {
        "yes"
    } else {
        "no"
    };
    format!(
        "| {} | `hooks init {}` | {events} | {} | {ask} | {rewrite} | {context} | {fails_closed} \
         | {tested} |",
        agent.profile().display_name,
        agent.name(),
        tools.join(", "),
    )
}
