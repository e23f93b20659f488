//! The server as seen from outside, for `hooks doctor`: whether one answers on an address,
//! and the token file the agents' hooks must send the token of.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::Serialize;

use super::token;

use crate::init::TOKEN_ENV;

/// How the token in this environment's [`TOKEN_ENV`] compares with the token file's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenEnv {
    /// The variable holds the file's token.
    Matches,
    /// It holds something else: the server refuses every call.
    Differs,
    /// It is not set: an agent started here sends no token.
    Unset,
    /// There is no token file to compare with.
    NoFile,
}

/// What `hooks doctor` reports about `hooks serve`.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    /// The address checked.
    pub address: SocketAddr,
    /// Whether a `hooks serve` answers `/health` there.
    pub running: bool,
    /// The default token file, where a home is known.
    pub token_file: Option<PathBuf>,
    /// Whether it exists.
    pub token_file_exists: bool,
    /// Whether only its owner can read it (`None`: it does not exist).
    pub token_file_private: Option<bool>,
    /// How [`TOKEN_ENV`] here compares with it.
    pub token_env: TokenEnv,
    /// The settings files whose hooks ask this server (the wiring of `hooks init --serve`).
    pub wired: Vec<PathBuf>,
}

impl ServerStatus {
    /// The server on `address`, with `wired` the settings files that ask it.
    pub fn of(address: SocketAddr, wired: Vec<PathBuf>) -> Self {
        let token_file = token::default_file();
        let text = token_file
            .as_ref()
            .and_then(|file| std::fs::read_to_string(file).ok());
        let token_file_private = token_file
            .as_ref()
            .and_then(|file| std::fs::metadata(file).ok())
            .map(|meta| {
                use std::os::unix::fs::PermissionsExt as _;
                meta.permissions().mode() & 0o077 == 0
            });
        let token_env = match (text, std::env::var(TOKEN_ENV).ok()) {
            (None, _) => TokenEnv::NoFile,
            (Some(_), None) => TokenEnv::Unset,
            (Some(file), Some(env)) if file.trim() == env.trim() => TokenEnv::Matches,
            (Some(_), Some(_)) => TokenEnv::Differs,
        };
        ServerStatus {
            address,
            running: super::answers(address),
            token_file_exists: token_file_private.is_some(),
            token_file,
            token_file_private,
            token_env,
            wired,
        }
    }

    /// The lines `hooks doctor` prints.
    pub fn text(&self) -> String {
        let running = if self.running {
            format!("running on {}", self.address)
        } else {
            format!("not running on {}", self.address)
        };
        let token = match (&self.token_file, self.token_file_private) {
            (None, _) => "no token file (neither XDG_STATE_HOME nor HOME is set)".to_owned(),
            (Some(file), None) => format!(
                "token file {} not created yet (the server's first start writes it)",
                file.display()
            ),
            (Some(file), Some(true)) => format!("token file {}", file.display()),
            (Some(file), Some(false)) => format!(
                "token file {} is readable by others: `chmod 600` it",
                file.display()
            ),
        };
        let env = match self.token_env {
            TokenEnv::Matches => format!("${TOKEN_ENV} holds its token"),
            TokenEnv::Differs => format!(
                "${TOKEN_ENV} holds another token: an agent started here is refused every call"
            ),
            TokenEnv::Unset => format!(
                "${TOKEN_ENV} is not set here: an agent started here sends no token and is \
                 refused every call"
            ),
            TokenEnv::NoFile => format!("${TOKEN_ENV} has no token file to match"),
        };
        let wired = if self.wired.is_empty() {
            "no settings here use the `hooks init --serve` wiring".to_owned()
        } else {
            let files: Vec<String> = self
                .wired
                .iter()
                .map(|file| file.display().to_string())
                .collect();
            format!("asked by {}", files.join(", "))
        };
        format!("hooks serve: {running}\n  {token}\n  {env}\n  {wired}\n")
    }
}
