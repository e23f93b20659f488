//! The command line of a `validate` command: the flags `cargo xtask validate` takes, parsed
//! once here so that an application's own xtask takes the same ones without writing a parser.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use crate::report::Part;

/// What `validate --help` prints.
pub const USAGE: &str = "\
usage: validate [--json] [--only PART,...] [--module NAME] [PATH...]

  PATH...         hooks files (or directories of them) to check, instead of every one in
                  the workspace; relative to the current directory
  --json          print the report as JSON
  --only PARTS    run only these parts: config, annotated, behaviour, hygiene
  --module NAME   run the behavioural suite only on modules whose name contains NAME
  -h, --help      print this";

/// A parsed `validate` command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `--json`: the report as JSON.
    pub json: bool,
    /// `--only`: these parts (all when `None`).
    pub only: Option<Vec<Part>>,
    /// `--module`: the behavioural suite only on modules whose name contains this.
    pub module: Option<String>,
    /// Hooks files or directories, as given (relative to the current directory).
    pub paths: Vec<PathBuf>,
    /// `-h`/`--help`: print [`USAGE`] and nothing else.
    pub help: bool,
}

/// A command line that [`Args::parse`] does not accept; its text says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

impl Args {
    /// Parses the arguments after the command's name (for `cargo xtask validate --json`, the
    /// iterator yields `--json`). `--only` may be repeated; its parts add up.
    ///
    /// ```
    /// use hooks_validate::{Args, Part};
    ///
    /// let args = Args::parse(["--only", "config,annotated", "team.hooks.yaml"]).unwrap();
    /// assert_eq!(args.only, Some(vec![Part::Config, Part::Annotated]));
    /// assert_eq!(args.paths, [std::path::PathBuf::from("team.hooks.yaml")]);
    /// assert!(Args::parse(["--verbose"]).is_err());
    /// ```
    pub fn parse<I>(args: I) -> Result<Args, UsageError>
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        let mut parsed = Args::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let Some(arg) = arg.to_str().map(str::to_owned) else {
                // A path need not be UTF-8; a flag always is.
                parsed.paths.push(PathBuf::from(arg));
                continue;
            };
            let mut value = |flag: &str| {
                args.next()
                    .and_then(|value| value.into_string().ok())
                    .ok_or_else(|| UsageError(format!("`{flag}` needs a value")))
            };
            match arg.as_str() {
                "--json" => parsed.json = true,
                "-h" | "--help" => parsed.help = true,
                "--only" => {
                    let parts = value("--only")?
                        .split(',')
                        .map(|part| part.trim().parse::<Part>())
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|error| UsageError(error.to_string()))?;
                    parsed.only.get_or_insert_with(Vec::new).extend(parts);
                }
                "--module" => parsed.module = Some(value("--module")?),
                flag if flag.starts_with('-') && flag != "-" => {
                    return Err(UsageError(format!("`validate` has no option `{flag}`")));
                }
                path => parsed.paths.push(PathBuf::from(path)),
            }
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse_and_mistakes_are_usage_errors() {
        let args = Args::parse([
            "--json", "--only", "config", "--only", "behavior", "--module", "saf", "a.yaml",
        ])
        .unwrap();
        assert_eq!(
            args,
            Args {
                json: true,
                only: Some(vec![Part::Config, Part::Behaviour]),
                module: Some("saf".into()),
                paths: vec!["a.yaml".into()],
                help: false,
            }
        );
        assert!(Args::parse(["-h"]).unwrap().help);
        for (bad, says) in [
            (&["--only"][..], "`--only` needs a value"),
            (&["--only", "lint"], "unknown part `lint`"),
            (&["--verbose"], "no option `--verbose`"),
        ] {
            let error = Args::parse(bad.iter().copied()).unwrap_err().to_string();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
    }
}
