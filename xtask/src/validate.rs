//! `cargo xtask validate`: [`hooks_validate::Validation`] on this workspace.

use hooks_validate::{HygieneStep, Part, Validation};

use crate::{Failure, project_root};

/// What the command line asks for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    json: bool,
    only: Option<Vec<Part>>,
    module: Option<String>,
    paths: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options, Failure> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| {
            args.next()
                .cloned()
                .ok_or_else(|| Failure::Usage(format!("`{flag}` needs a value")))
        };
        match arg.as_str() {
            "--json" => options.json = true,
            "--only" => {
                let parts = value("--only")?
                    .split(',')
                    .map(|part| part.trim().parse::<Part>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|error| Failure::Usage(error.to_string()))?;
                options.only.get_or_insert_with(Vec::new).extend(parts);
            }
            "--module" => options.module = Some(value("--module")?),
            flag if flag.starts_with('-') => {
                return Err(Failure::Usage(format!("`validate` has no option `{flag}`")));
            }
            path => options.paths.push(path.to_owned()),
        }
    }
    Ok(options)
}

pub fn run(args: &[String]) -> Result<(), Failure> {
    let options = parse(args)?;
    // The crate of this workspace's #[hook] functions: linked, so that they are validated.
    hooks_fixture_annotated::link();
    let root = project_root();
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.clone());
    let mut validation = Validation::new(&root)
        // The UI tests of `#[hook]`: the compile errors users see stay the ones we mean.
        .hygiene_step(HygieneStep::cargo([
            "test",
            "-p",
            "hooks-core",
            "--test",
            "ui",
        ]));
    if !options.paths.is_empty() {
        // Paths on the command line are the user's, relative to where they stand.
        validation = validation.config_paths(options.paths.iter().map(|path| cwd.join(path)));
    }
    if let Some(parts) = options.only {
        validation = validation.only(parts);
    }
    if let Some(filter) = options.module {
        validation = validation.modules_matching(filter);
    }
    let report = validation.run();
    if options.json {
        println!("{}", report.to_json());
    } else {
        println!("{report}");
    }
    if report.passed() {
        Ok(())
    } else {
        Err(Failure::Failed(String::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn options_parse_and_mistakes_are_usage_errors() {
        let options = parse(&args(&[
            "--json",
            "--only",
            "config,behavior",
            "--module",
            "saf",
            "a.yaml",
        ]))
        .unwrap();
        assert_eq!(
            options,
            Options {
                json: true,
                only: Some(vec![Part::Config, Part::Behaviour]),
                module: Some("saf".into()),
                paths: vec!["a.yaml".into()],
            }
        );
        for bad in [&["--only"][..], &["--only", "lint"], &["--verbose"]] {
            assert!(
                matches!(parse(&args(bad)), Err(Failure::Usage(_))),
                "{bad:?}"
            );
        }
    }
}
