//! Whether Gemini CLI will run a project's hooks: it runs the hooks of `.gemini/settings.json`
//! only in a trusted folder (and `--skip-trust` drops them without a word). `hooks init gemini`
//! and `hooks check` read what they can of Gemini CLI's own records ([`of`]) to warn before
//! that happens.
//!
//! Gemini CLI keeps its trust decisions in `~/.gemini/trustedFolders.json` (or the file
//! `GEMINI_CLI_TRUSTED_FOLDERS_PATH` names): an object mapping a path to `TRUST_FOLDER` (that
//! folder and below), `TRUST_PARENT` (its parent and below) or `DO_NOT_TRUST`; the most
//! specific path that contains the project decides. `GEMINI_CLI_TRUST_WORKSPACE=true` trusts
//! whatever folder it starts in, and `security.folderTrust.enabled: false` in the user's
//! settings turns the check off.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::interop::Trust;

/// The trust Gemini CLI's records give `project` (see the [module docs](self)).
pub fn of(project: &Path) -> Trust {
    if std::env::var("GEMINI_CLI_TRUST_WORKSPACE").is_ok_and(|value| value == "true") {
        return Trust::Trusted("GEMINI_CLI_TRUST_WORKSPACE=true".to_owned());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some(home) = &home
        && folder_trust_is_off(&home.join(".gemini/settings.json"))
    {
        return Trust::Trusted(
            "`security.folderTrust.enabled` is false in ~/.gemini/settings.json".to_owned(),
        );
    }
    let file = match std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH") {
        Some(file) => PathBuf::from(file),
        None => match home {
            Some(home) => home.join(".gemini/trustedFolders.json"),
            None => return Trust::Untrusted("HOME is not set".to_owned()),
        },
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(_) => {
            return Trust::Untrusted(format!(
                "{} does not exist: no folder is trusted yet",
                file.display()
            ));
        }
    };
    let rules = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(rules)) => rules,
        _ => {
            return Trust::Untrusted(format!(
                "{} is not the JSON object Gemini CLI writes",
                file.display()
            ));
        }
    };
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    // The most specific folder that contains the project decides.
    let decision = rules
        .iter()
        .filter_map(|(path, level)| {
            let path = PathBuf::from(path);
            let (folder, trusted) = match level.as_str()? {
                "TRUST_FOLDER" => (path, true),
                "TRUST_PARENT" => (path.parent()?.to_path_buf(), true),
                "DO_NOT_TRUST" => (path, false),
                _ => return None,
            };
            let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
            project
                .starts_with(&folder)
                .then(|| (folder.components().count(), folder, trusted))
        })
        .max_by_key(|(depth, _, _)| *depth);
    match decision {
        Some((_, folder, true)) => {
            Trust::Trusted(format!("{} trusts {}", file.display(), folder.display()))
        }
        Some((_, folder, false)) => Trust::Untrusted(format!(
            "{} says not to trust {}",
            file.display(),
            folder.display()
        )),
        None => Trust::Untrusted(format!(
            "{} does not list it or a folder above it",
            file.display()
        )),
    }
}

/// Whether the user's Gemini CLI settings switch the folder trust check off.
fn folder_trust_is_off(settings: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(settings) else {
        return false;
    };
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|settings| settings.pointer("/security/folderTrust/enabled").cloned())
        == Some(Value::Bool(false))
}

/// What every `hooks init gemini` says: where Gemini CLI runs project hooks.
pub const NOTE: &str = "note: Gemini CLI runs a project's hooks only in a trusted folder: trust \
this folder when Gemini CLI asks (it records it in ~/.gemini/trustedFolders.json), or set \
GEMINI_CLI_TRUST_WORKSPACE=true, or put the hooks in ~/.gemini/settings.json instead. \
`gemini --skip-trust` drops the project's hooks without a word, and every tool call then runs \
unguarded.";
