//! The documents name the agents the binary serves: the agents `hooks init` offers (its own
//! `-h`) each have their section and their row in docs/agents.md, and any paragraph of the
//! README or the docs that lists several agents lists them all. An agent added to the binary
//! fails here until the documents describe it.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// A paragraph naming this many agents is taken for a list of them.
const A_LIST: usize = 3;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The agents of `hooks init -h`'s `[possible values: ...]`, in its order.
fn served() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(["init", "-h"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let help = String::from_utf8(output.stdout).unwrap();
    let (_, values) = help
        .split_once("[possible values: ")
        .unwrap_or_else(|| panic!("`hooks init -h` lists no agents:\n{help}"));
    let (values, _) = values.split_once(']').unwrap();
    values.split(", ").map(str::to_owned).collect()
}

/// Each served agent's name in the documents: its row's `display_name`; one `hooks init`
/// offers that has no row fails.
fn display_names() -> Vec<(String, &'static str)> {
    served()
        .into_iter()
        .map(|id| {
            let agent = hooks_config::interop::agent(&id)
                .unwrap_or_else(|| panic!("`hooks init` serves `{id}`, which has no row"));
            (id, agent.profile().display_name)
        })
        .collect()
}

/// The README, ARCHITECTURE.md, CONTRIBUTING.md and every page under `docs/` except the dated
/// performance notes, which record what was measured then.
fn documents() -> Vec<PathBuf> {
    let root = workspace();
    let mut found: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]
        .iter()
        .map(|name| root.join(name))
        .collect();
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && path.file_name().is_some_and(|name| name != "perf") {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Whether `text` names the agent: by its name, by its id in backticks (`` `codex` ``) or as
/// its adapter (`hooks codex`).
fn names(text: &str, (id, name): &(String, &str)) -> bool {
    text.contains(name)
        || text.contains(&format!("`{id}`"))
        || text.contains(&format!("hooks {id}"))
}

/// What may hold a list: each paragraph, and each row of a table on its own (a table as a whole
/// names everything its rows do).
fn units(text: &str) -> Vec<&str> {
    text.split("\n\n")
        .flat_map(|paragraph| {
            if paragraph.trim_start().starts_with('|') {
                paragraph.lines().collect()
            } else {
                vec![paragraph]
            }
        })
        .collect()
}

#[test]
fn the_check_sees_a_partial_list_by_names_or_by_ids() {
    let agents: Vec<(String, &str)> = hooks_config::interop::AGENTS
        .iter()
        .map(|agent| (agent.name().to_owned(), agent.profile().display_name))
        .collect();
    let by_ids = "the adapters `claude`, `gemini` and `cursor`";
    let by_names = "Claude Code, Gemini CLI and Codex\nCLI";
    let table = "| crate | what |\n|---|---|\n| cli | the adapters `claude`, `gemini` and `cursor` |\n\
                 | config | Claude Code, Gemini CLI, Codex CLI and Cursor |";
    let rows = units(table);
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert_eq!(
        rows[2],
        "| cli | the adapters `claude`, `gemini` and `cursor` |"
    );
    for partial in [by_ids, by_names] {
        let flat = partial.replace('\n', " ");
        let named = agents.iter().filter(|agent| names(&flat, agent)).count();
        assert!(named >= A_LIST && named < agents.len(), "{partial}");
    }
}

#[test]
fn every_agent_has_its_section_and_its_row_in_the_agents_page() {
    let path = workspace().join("docs/agents.md");
    let page = std::fs::read_to_string(&path).unwrap();
    for (id, name) in display_names() {
        assert!(
            page.lines().any(|line| line == format!("## {name}")),
            "{}: no section `## {name}`",
            path.display()
        );
        assert!(
            page.lines()
                .any(|line| line.starts_with(&format!("| {name} |"))
                    && line.contains(&format!("`hooks init {id}`"))),
            "{}: no row for {name} with `hooks init {id}`",
            path.display()
        );
    }
}

#[test]
fn every_list_of_agents_in_the_documents_is_whole() {
    let agents = display_names();
    let mut partial = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        for paragraph in units(&text) {
            // A paragraph wrapped over lines may break a name at its space.
            let flat = paragraph.replace('\n', " ");
            let named = agents.iter().filter(|agent| names(&flat, agent)).count();
            if named >= A_LIST && named < agents.len() {
                let missing: Vec<&str> = agents
                    .iter()
                    .filter(|agent| !names(&flat, agent))
                    .map(|(_, name)| *name)
                    .collect();
                partial.push(format!(
                    "{}: a list of agents without {missing:?}:\n{paragraph}",
                    path.display()
                ));
            }
        }
    }
    assert!(partial.is_empty(), "{}", partial.join("\n\n"));
}

#[test]
fn the_readme_says_how_to_set_up_each_agent() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    for (id, name) in display_names() {
        assert!(
            readme.contains(name) && readme.contains(&id),
            "README.md does not name {name} (`{id}`)"
        );
    }
}

/// The block of the document `file` between the markers of `block` is `generated`; with
/// `HOOKS_BLESS=1` it is written so.
fn holds_generated(file: &str, block: &str, generated: &str) {
    let start = format!("<!-- {block}: generated, checked by documented_agents.rs -->\n");
    let end = format!("<!-- end of the {block} -->");
    let path = workspace().join(file);
    let page = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = page
        .split_once(&start)
        .unwrap_or_else(|| panic!("{}: no `{start}`", path.display()));
    let (current, after) = rest
        .split_once(&end)
        .unwrap_or_else(|| panic!("{}: no `{end}`", path.display()));
    if current != generated && std::env::var_os("HOOKS_BLESS").is_some() {
        std::fs::write(&path, format!("{before}{start}{generated}{end}{after}")).unwrap();
        return;
    }
    assert_eq!(
        current,
        generated,
        "{}: the {block} is stale; run with HOOKS_BLESS=1",
        path.display()
    );
}

/// The table of what each agent can and cannot do, in docs/agents.md, is the one built from the
/// agents' rows (`hooks_config::interop::summary_table`).
#[test]
fn the_agents_page_holds_the_capability_table_the_code_describes() {
    holds_generated(
        "docs/agents.md",
        "capability table",
        &hooks_config::interop::summary_table(),
    );
}

/// The table of where each agent is set up, in docs/agents.md, is built from the rows.
#[test]
fn the_agents_page_holds_the_setup_table_of_the_rows() {
    holds_generated(
        "docs/agents.md",
        "setup table",
        &hooks_config::interop::setup_table(),
    );
}

/// The README's list of the agents served is built from the rows.
#[test]
fn the_readme_lists_the_agents_of_the_rows() {
    holds_generated(
        "README.md",
        "agent list",
        &hooks_config::interop::agent_list(),
    );
}
