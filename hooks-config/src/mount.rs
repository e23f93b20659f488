//! A loaded hooks file, and mounting it: every entry becomes a registered handler.

use std::path::PathBuf;
use std::time::Duration;

use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_core::{EventNameError, HookHandle, HookOptions, HookRegistry};

use crate::command::{CommandRunner, Site};
use crate::persistent::{PersistentProcess, PersistentRunner};
use crate::runner::{Layered, Runner};
use crate::{ConfigError, ConfigErrors, ConfiguredModule, Entry, HookKind, OnFailure};

/// A loaded hooks file: mount it to register every entry.
#[derive(Debug, Clone)]
pub struct HooksConfig {
    /// The file it was loaded from.
    pub file: PathBuf,
    /// Where command hooks run, and what the modules' relative paths are relative to.
    pub project_dir: PathBuf,
    /// The modules of its `modules:` section, in file order.
    pub modules: Vec<ConfiguredModule>,
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// The cargo features of this crate that hook kinds need to run.
#[derive(Debug, Clone, Copy)]
struct Features {
    http: bool,
    llm: bool,
    wasm: bool,
}

/// The features this build has.
const BUILT: Features = Features {
    http: cfg!(feature = "http"),
    llm: cfg!(feature = "llm"),
    wasm: cfg!(feature = "wasm"),
};

/// The feature `kind` needs to run that `features` lacks, if any.
fn missing_feature(kind: &HookKind, features: Features) -> Option<&'static str> {
    match kind {
        HookKind::Http(_) if !features.http => Some("http"),
        HookKind::Llm(_) if !features.llm => Some("llm"),
        HookKind::Wasm(_) if !features.wasm => Some("wasm"),
        _ => None,
    }
}

/// The error of mounting `entry` from `file` in a build without `feature`.
fn unbuilt(file: &str, entry: &Entry, feature: &str) -> MountError {
    MountError::Config {
        module: file.to_owned(),
        reason: format!(
            "the hook `{}` (line {}) is a `{feature}` hook, and this build of hooks-config \
             cannot run those: enable its `{feature}` feature",
            entry.name, entry.line
        ),
    }
}

impl HooksConfig {
    /// What the file holds, as `hooks check` says it: "2 modules, 1 hook".
    pub fn summary(&self) -> String {
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let hooks = count(self.entries.len(), "hook", "hooks");
        if self.modules.is_empty() {
            hooks
        } else {
            format!(
                "{}, {hooks}",
                count(self.modules.len(), "module", "modules")
            )
        }
    }

    /// The registration options of `entry`, run by `R`.
    fn options<R: Runner>(entry: &Entry) -> HookOptions {
        let options = HookOptions::new()
            .priority(entry.priority)
            .name(entry.name.clone());
        if R::IMMEDIATE {
            return options;
        }
        // The layer's deadline decides; the registry's is only a backstop, and for a hook
        // that blocks on failure the backstop (and a panic) must block too, not skip it.
        options
            .timeout(entry.timeout + Duration::from_secs(5))
            .fail_closed(entry.on_failure == OnFailure::Block)
    }

    /// Registers `entry`, run by `runner` in the layer every entry runs in.
    fn register<R: Runner>(
        registry: &HookRegistry,
        entry: &Entry,
        runner: R,
    ) -> Result<HookHandle, EventNameError> {
        let options = Self::options::<R>(entry);
        registry.register_with(&entry.event, Layered::new(entry.clone(), runner), options)
    }
}

impl HooksConfig {
    /// Checks every WebAssembly component the file names: that it loads, satisfies its world
    /// and subscribes to the event it is listed under; each problem is located at its entry.
    /// `hooks check` and `cargo xtask validate` call this. In a build without the `wasm`
    /// feature, each WebAssembly entry is a problem naming the feature.
    pub fn check_components(&self) -> Result<(), ConfigErrors> {
        let errors: Vec<ConfigError> = crate::wasm::problems(&self.entries)
            .into_iter()
            .map(|(entry, why)| ConfigError {
                file: self.file.clone(),
                line: entry.line,
                column: 1,
                message: format!(
                    "the WebAssembly hook `{}`: {}",
                    entry.name,
                    crate::wasm::explain(&why)
                ),
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }

    /// Checks that this build can run every entry: an `http` or `llm` entry in a build without
    /// that feature is a problem located at its entry, naming the feature. A program that runs
    /// the file with this build (`hooks check`) calls this, so that the file fails its check
    /// rather than its first event; a checker for another build (`cargo xtask validate`) does
    /// not.
    pub fn check_runnable(&self) -> Result<(), ConfigErrors> {
        self.check_runnable_by(BUILT)
    }

    fn check_runnable_by(&self, features: Features) -> Result<(), ConfigErrors> {
        let errors: Vec<ConfigError> = self
            .entries
            .iter()
            .filter_map(|entry| {
                let feature = missing_feature(&entry.hook, features)?;
                // WebAssembly entries are reported by `check_components`, with more to say.
                (feature != "wasm").then(|| ConfigError {
                    file: self.file.clone(),
                    line: entry.line,
                    column: 1,
                    message: format!(
                        "the hook `{}` is a `{feature}` hook, and this build cannot run those \
                         (it was built without the `{feature}` feature)",
                        entry.name
                    ),
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }

    /// The components of the WebAssembly entries, in file order, each loaded and checked
    /// before anything is mounted.
    #[cfg(feature = "wasm")]
    fn components(&self, module: &str) -> Result<Vec<hooks_wasm::WasmHook>, MountError> {
        self.entries
            .iter()
            .filter_map(|entry| match &entry.hook {
                HookKind::Wasm(hook) => {
                    Some(
                        crate::wasm::prepare(entry, hook).map_err(|why| MountError::Config {
                            module: module.to_owned(),
                            reason: format!(
                                "the WebAssembly hook `{}` (line {}): {}",
                                entry.name,
                                entry.line,
                                crate::wasm::explain(&why)
                            ),
                        }),
                    )
                }
                _ => None,
            })
            .collect()
    }
}

impl HookModule for HooksConfig {
    fn name(&self) -> &str {
        "configured hooks"
    }

    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let module = self.file.display().to_string();
        // Every entry is checked before any is registered: a file mounts whole or not at all.
        if let Some((entry, feature)) = self
            .entries
            .iter()
            .find_map(|entry| missing_feature(&entry.hook, BUILT).map(|feature| (entry, feature)))
        {
            return Err(unbuilt(&module, entry, feature));
        }
        #[cfg(feature = "wasm")]
        let mut components = self.components(&module)?.into_iter();
        let mut mounted = Mounted::new(module.clone());
        // Modules and entries go on the one registry, so the merge rules apply across them.
        for configured in &self.modules {
            match configured.module().mount(registry) {
                Ok(part) => mounted.absorb(part),
                Err(error) => {
                    // Whole or not at all: what was mounted before goes again.
                    mounted.unmount();
                    return Err(MountError::Config {
                        module,
                        reason: format!(
                            "module `{}` (line {}): {error}",
                            configured.name, configured.line
                        ),
                    });
                }
            }
        }
        let site = Site {
            project_dir: self.project_dir.clone(),
        };
        for entry in &self.entries {
            let registered = match &entry.hook {
                HookKind::Matcher(matcher) => Self::register(registry, entry, matcher.clone()),
                HookKind::Policy(policy) => Self::register(registry, entry, policy.clone()),
                HookKind::Command(command) if command.persistent => {
                    let runner = PersistentRunner {
                        process: PersistentProcess::new(&command.command, &site),
                        site: site.clone(),
                    };
                    Self::register(registry, entry, runner)
                }
                HookKind::Command(command) => {
                    let runner = CommandRunner {
                        hook: command.clone(),
                        site: site.clone(),
                    };
                    Self::register(registry, entry, runner)
                }
                #[cfg(feature = "http")]
                HookKind::Http(http) => {
                    let runner = crate::http::HttpRunner {
                        hook: http.clone(),
                        project_dir: site.project_dir.clone(),
                    };
                    Self::register(registry, entry, runner)
                }
                #[cfg(feature = "llm")]
                HookKind::Llm(llm) => Self::register(registry, entry, llm.clone()),
                #[cfg(feature = "wasm")]
                HookKind::Wasm(_) => match components.next() {
                    Some(component) => {
                        Self::register(registry, entry, crate::wasm::WasmRunner(component))
                    }
                    None => {
                        mounted.unmount();
                        return Err(unbuilt(&module, entry, "wasm"));
                    }
                },
                // Checked above: a build without a kind's feature mounts nothing.
                #[allow(unreachable_patterns)]
                other => {
                    mounted.unmount();
                    let feature = missing_feature(other, BUILT).unwrap_or("?");
                    return Err(unbuilt(&module, entry, feature));
                }
            };
            match registered {
                Ok(handle) => mounted.adopt(handle),
                Err(source) => {
                    mounted.unmount();
                    return Err(MountError::Event { module, source });
                }
            }
        }
        Ok(mounted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AnswerProtocol, HttpHook, LlmHook, Provider, Rewrite};

    fn entry(hook: HookKind) -> Entry {
        Entry {
            event: "tool:pre".to_owned(),
            event_as_written: "PreToolUse".to_owned(),
            name: "policy".to_owned(),
            priority: 0,
            line: 7,
            matcher: None,
            timeout: Duration::from_secs(1),
            on_failure: OnFailure::Warn,
            rewrite: Rewrite::Confirm,
            hook,
        }
    }

    fn http() -> HookKind {
        HookKind::Http(HttpHook {
            url: "http://127.0.0.1:1/".to_owned(),
            headers: Vec::new(),
            protocol: AnswerProtocol::Hooks,
        })
    }

    fn llm() -> HookKind {
        HookKind::Llm(LlmHook {
            model: "m".to_owned(),
            prompt: "p".to_owned(),
            max_tokens: 1,
            provider: Provider::OpenAi,
            base_url: "http://127.0.0.1:1/".to_owned(),
            api_key_env: None,
            cache: None,
        })
    }

    #[test]
    fn a_check_for_this_build_locates_each_entry_it_cannot_run() {
        let config = crate::load_str(
            "hooks:\n  PreToolUse:\n    - type: http\n      url: http://127.0.0.1:1/\n  \
             prompt:submit:\n    - type: command\n      command: \"true\"\n",
            std::path::Path::new("hooks.yaml"),
            std::path::Path::new("/"),
        )
        .unwrap();
        let without_http = Features {
            http: false,
            llm: true,
            wasm: true,
        };
        let errors = config.check_runnable_by(without_http).unwrap_err().0;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].line, 3);
        assert!(
            errors[0]
                .message
                .contains("built without the `http` feature"),
            "{errors:?}"
        );
        let everything = Features {
            http: true,
            llm: true,
            wasm: true,
        };
        assert!(config.check_runnable_by(everything).is_ok());
    }

    #[test]
    fn a_hook_whose_feature_is_not_built_names_the_feature() {
        let none = Features {
            http: false,
            llm: false,
            wasm: false,
        };
        let both = Features {
            http: true,
            llm: true,
            wasm: true,
        };
        assert_eq!(missing_feature(&http(), none), Some("http"));
        assert_eq!(missing_feature(&llm(), none), Some("llm"));
        assert_eq!(missing_feature(&http(), both), None);
        assert_eq!(missing_feature(&llm(), both), None);
        let error = unbuilt("hooks.yaml", &entry(http()), "http").to_string();
        assert!(
            error.contains("hooks.yaml")
                && error.contains("`policy` (line 7)")
                && error.contains("enable its `http` feature"),
            "{error}"
        );
    }

    #[test]
    fn a_build_without_the_features_refuses_to_mount_such_hooks() {
        let config = HooksConfig {
            file: PathBuf::from("hooks.yaml"),
            project_dir: PathBuf::from("."),
            modules: Vec::new(),
            entries: vec![entry(http()), entry(llm())],
        };
        let registry = HookRegistry::new();
        let mounted = config.mount(&registry);
        if BUILT.http && BUILT.llm {
            assert!(mounted.is_ok());
        } else {
            let error = mounted.err().map(|e| e.to_string()).unwrap_or_default();
            assert!(error.contains("feature"), "{error}");
            assert!(
                registry.list_handlers(None).is_empty(),
                "nothing half-mounted"
            );
        }
    }
}
