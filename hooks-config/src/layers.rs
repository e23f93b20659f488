//! Policy layers: the hooks files of the machine's managed policy, of the user and of the
//! project, applied together on one registry ([`PolicyStack`]).

use std::fmt;
use std::path::{Path, PathBuf};

use hooks_core::HookRegistry;
use hooks_core::module::{HookModule, MountError, Mounted};
use hooks_std::catalog::ModuleCatalog;
use hooks_std::config_file::{MAX_CONFIG_BYTES, read_config_file};

use crate::{ConfigErrors, Entry, HooksConfig};

/// The environment variable naming the managed policy's directory, instead of the platform's.
pub const MANAGED_DIR_VAR: &str = "HOOKS_MANAGED_DIR";

/// The name of the hooks file in the managed and the user directories.
pub const LAYER_FILE: &str = "hooks.yaml";

/// The level of a hooks file: whose policy it is, and which may weaken which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// The machine's policy, deployed by a team; no lower file may take a rule of it away.
    Managed,
    /// The user's own hooks, for every project.
    User,
    /// The project's hooks file (`--config`).
    Project,
}

impl Level {
    /// Its name: `managed`, `user` or `project`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Managed => "managed",
            Level::User => "user",
            Level::Project => "project",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the managed and user files are looked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LayerPaths {
    /// The managed policy's file, if this platform has a place for one.
    pub managed: Option<PathBuf>,
    /// The user's file, if a home or configuration directory is known.
    pub user: Option<PathBuf>,
}

impl LayerPaths {
    /// No managed and no user file: the project's file alone.
    pub fn none() -> Self {
        LayerPaths::default()
    }

    /// The places of this platform and environment: [`MANAGED_DIR_VAR`] or the platform's
    /// managed directory; `$XDG_CONFIG_HOME/hooks`, else `$HOME/.config/hooks`.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let managed = var(MANAGED_DIR_VAR)
            .map(PathBuf::from)
            .or_else(platform_managed_dir)
            .map(|dir| dir.join(LAYER_FILE));
        let user = var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".config")))
            .map(|dir| dir.join("hooks").join(LAYER_FILE));
        LayerPaths { managed, user }
    }

    /// The file of `level`, where there is one to look for (the project's is given apart).
    pub fn of(&self, level: Level) -> Option<&Path> {
        match level {
            Level::Managed => self.managed.as_deref(),
            Level::User => self.user.as_deref(),
            Level::Project => None,
        }
    }
}

/// The platform's directory for a managed policy.
fn platform_managed_dir() -> Option<PathBuf> {
    if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/hooks"))
    } else if cfg!(windows) {
        std::env::var_os("ProgramData").map(|data| PathBuf::from(data).join("hooks"))
    } else {
        Some(PathBuf::from("/etc/hooks"))
    }
}

/// Why the layers cannot be applied: the guard must refuse rather than run without one.
#[derive(Debug, thiserror::Error)]
pub enum LayersError {
    /// A file exists but cannot be read.
    #[error(
        "the {level} hooks file {} cannot be read ({source}); the policy does not run without it",
        .file.display()
    )]
    Unreadable {
        /// Its level.
        level: Level,
        /// The file.
        file: PathBuf,
        /// Why it cannot be read.
        source: std::io::Error,
    },
    /// A file was read and has problems.
    #[error("the {level} hooks file does not load:\n{errors}")]
    Broken {
        /// Its level.
        level: Level,
        /// Every problem, located.
        errors: ConfigErrors,
    },
}

impl LayersError {
    /// The level of the file at fault.
    pub fn level(&self) -> Level {
        match self {
            LayersError::Unreadable { level, .. } | LayersError::Broken { level, .. } => *level,
        }
    }
}

/// One loaded hooks file and its level.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Its level.
    pub level: Level,
    /// What it holds (after the managed rules it tried to redefine were left out).
    pub config: HooksConfig,
}

/// Something a lower file tried that the managed policy does not let it do; the managed rule
/// still applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerWarning {
    /// The lower file's level.
    pub level: Level,
    /// The lower file.
    pub file: PathBuf,
    /// Where in it.
    pub line: usize,
    /// What it tried, and what applies instead.
    pub message: String,
}

impl fmt::Display for LayerWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} ({} file)",
            self.file.display(),
            self.line,
            self.message,
            self.level
        )
    }
}

/// Where one rule of the stack comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin<'a> {
    /// The level of its file.
    pub level: Level,
    /// Its file.
    pub file: &'a Path,
    /// Its line there.
    pub line: usize,
    /// `module` or the entry's type (`command`, `matcher`, ...).
    pub kind: &'static str,
    /// The module's or the entry's name.
    pub name: &'a str,
}

/// The managed, user and project hooks files as one policy: load it with [`PolicyStack::load`],
/// decide with it through [`Policy`](crate::Policy) (what every front end of the `hooks`
/// binary does: mounted alone, as a module, the stack has no managed re-check of a lower
/// layer's rewrite and settles no remembered answer).
///
/// | level | file | who writes it |
/// |---|---|---|
/// | managed | `hooks.yaml` in `$HOOKS_MANAGED_DIR`, else `/etc/hooks/` (Linux and other Unix), `/Library/Application Support/hooks/` (macOS), the `hooks` folder in `%ProgramData%` (Windows) | a team, through its device management |
/// | user | `$XDG_CONFIG_HOME/hooks/hooks.yaml`, else `~/.config/hooks/hooks.yaml` | the user |
/// | project | the `--config` file | the project |
///
/// Every layer's modules and entries are mounted, managed first, so every rule of every layer
/// applies and the registry's merge decides as for one file: a deny from any layer stops the
/// call, whatever another layer allows. A lower layer adds; it cannot take a managed rule away:
/// - an entry of a lower file named as a managed entry is left out (the managed one applies),
///   and reported;
/// - a lower file's module that leaves out built-in protections (`replace_defaults`) where the
///   managed file mounts a module of the same name is reported; the managed module is a module
///   of its own and keeps its protections.
///
/// A missing managed or user file is no layer. One that exists but cannot be read or does not
/// load is a [`LayersError`]: a guard must refuse to run rather than run without a policy that
/// was deployed to it.
#[derive(Debug, Clone)]
pub struct PolicyStack {
    layers: Vec<Layer>,
    warnings: Vec<LayerWarning>,
    searched: Vec<(Level, PathBuf, bool)>,
}

impl PolicyStack {
    /// Loads the project's file `project` (as [`load_file_with`](crate::load_file_with) does)
    /// and the managed and user files of `paths` that exist; command hooks of every layer run
    /// in the project's directory. A file met twice (the project's file is the user's) is one
    /// layer, at its higher level.
    pub fn load(
        paths: &LayerPaths,
        project: &Path,
        catalog: &ModuleCatalog,
    ) -> Result<Self, LayersError> {
        let project_config =
            crate::load_file_with(project, catalog).map_err(|errors| LayersError::Broken {
                level: Level::Project,
                errors,
            })?;
        let project_id = identity(project);
        let mut layers = Vec::new();
        let mut searched = Vec::new();
        let mut seen = Vec::new();
        for level in [Level::Managed, Level::User] {
            let Some(file) = paths.of(level) else {
                continue;
            };
            let id = identity(file);
            if seen.contains(&id) {
                continue;
            }
            let config = load_layer(level, file, catalog)?;
            searched.push((level, file.to_path_buf(), config.is_some()));
            if let Some(mut config) = config {
                config.project_dir = project_config.project_dir.clone();
                layers.push(Layer { level, config });
                seen.push(id);
            }
        }
        if !seen.contains(&project_id) {
            layers.push(Layer {
                level: Level::Project,
                config: project_config,
            });
        }
        let mut stack = PolicyStack::from_layers(layers);
        stack.searched = searched;
        Ok(stack)
    }

    /// The stack of `layers` (in any order; they are applied managed first), with what the
    /// lower ones may not do to the managed ones left out and reported.
    pub fn from_layers(mut layers: Vec<Layer>) -> Self {
        layers.sort_by_key(|layer| layer.level);
        let managed_names: Vec<String> = layers
            .iter()
            .filter(|layer| layer.level == Level::Managed)
            .flat_map(|layer| layer.config.entries.iter().map(|entry| entry.name.clone()))
            .collect();
        let managed_modules: Vec<String> = layers
            .iter()
            .filter(|layer| layer.level == Level::Managed)
            .flat_map(|layer| {
                layer
                    .config
                    .modules
                    .iter()
                    .map(|module| module.name.clone())
            })
            .collect();
        let mut warnings = Vec::new();
        for layer in layers
            .iter_mut()
            .filter(|layer| layer.level != Level::Managed)
        {
            let level = layer.level;
            let config = &mut layer.config;
            let file = config.file.clone();
            config.entries.retain(|entry| {
                let redefines = managed_names.contains(&entry.name);
                if redefines {
                    warnings.push(LayerWarning {
                        level,
                        file: file.clone(),
                        line: entry.line,
                        message: format!(
                            "the hook `{}` reuses the name of a managed hook, which a lower file \
                             cannot redefine; it is left out and the managed one applies",
                            entry.name
                        ),
                    });
                }
                !redefines
            });
            for module in &config.modules {
                let leaves_out = switched_off(&module.config);
                if managed_modules.contains(&module.name) && !leaves_out.is_empty() {
                    warnings.push(LayerWarning {
                        level,
                        file: file.clone(),
                        line: module.line,
                        message: format!(
                            "the module `{}` leaves out built-in {} (`replace_defaults`), which \
                             cannot switch off the managed `{}` module: its protections still \
                             apply",
                            module.name,
                            leaves_out.join(", "),
                            module.name
                        ),
                    });
                }
            }
        }
        PolicyStack {
            layers,
            warnings,
            searched: Vec::new(),
        }
    }

    /// The layers, managed first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// What lower files tried that the managed policy did not let them do.
    pub fn warnings(&self) -> &[LayerWarning] {
        &self.warnings
    }

    /// The managed and user files looked for, and whether each was there (and loaded).
    pub fn searched(&self) -> impl Iterator<Item = (Level, &Path, bool)> {
        self.searched
            .iter()
            .map(|(level, file, found)| (*level, file.as_path(), *found))
    }

    /// The layer of `level`, if its file was loaded.
    pub fn layer(&self, level: Level) -> Option<&HooksConfig> {
        self.layers
            .iter()
            .find(|layer| layer.level == level)
            .map(|layer| &layer.config)
    }

    /// Every entry that is mounted, managed first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.layers.iter().flat_map(|layer| &layer.config.entries)
    }

    /// Where each module and entry comes from, managed first, each file's modules before its
    /// entries.
    pub fn origins(&self) -> Vec<Origin<'_>> {
        let mut origins = Vec::new();
        for layer in &self.layers {
            let file = layer.config.file.as_path();
            origins.extend(layer.config.modules.iter().map(|module| Origin {
                level: layer.level,
                file,
                line: module.line,
                kind: "module",
                name: &module.name,
            }));
            origins.extend(layer.config.entries.iter().map(|entry| Origin {
                level: layer.level,
                file,
                line: entry.line,
                kind: entry.hook.type_name(),
                name: &entry.name,
            }));
        }
        origins
    }

    /// What the stack holds, as `hooks check` says it: "2 modules, 1 hook" per layer.
    pub fn summary(&self) -> String {
        let parts: Vec<String> = self
            .layers
            .iter()
            .map(|layer| format!("{}: {}", layer.level, layer.config.summary()))
            .collect();
        parts.join("; ")
    }

    /// [`HooksConfig::check_runnable`] and [`HooksConfig::check_components`] of every layer;
    /// the problems of all of them.
    pub fn check(&self) -> Result<(), ConfigErrors> {
        let errors: Vec<_> = self
            .layers
            .iter()
            .flat_map(|layer| {
                let runnable = layer.config.check_runnable().err();
                let components = layer.config.check_components().err();
                runnable.into_iter().chain(components).flat_map(|e| e.0)
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }
}

impl HookModule for PolicyStack {
    fn name(&self) -> &str {
        "policy layers"
    }

    /// Mounts every layer, managed first (at equal priorities a managed rule runs first); all
    /// of them or none.
    fn mount(&self, registry: &HookRegistry) -> Result<Mounted, MountError> {
        let mut mounted = Mounted::new("policy layers");
        for layer in &self.layers {
            match layer.config.mount(registry) {
                Ok(part) => mounted.absorb(part),
                Err(error) => {
                    mounted.unmount();
                    return Err(error);
                }
            }
        }
        Ok(mounted)
    }
}

/// What a file is, to tell when two paths name the same one.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// The file of `level` at `file`: `None` when there is none, an error when it is there but
/// cannot be read or loaded.
fn load_layer(
    level: Level,
    file: &Path,
    catalog: &ModuleCatalog,
) -> Result<Option<HooksConfig>, LayersError> {
    // A link to nothing is there: a policy on a volume that is not mounted must not pass for
    // no policy.
    match std::fs::symlink_metadata(file) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(LayersError::Unreadable {
                level,
                file: file.to_path_buf(),
                source,
            });
        }
        Ok(_) => {}
    }
    // Read here, so that a file that is there but unreadable (or a FIFO, a device, a huge
    // file in its place) is told apart from a broken one.
    if let Err(source) = read_config_file(file, MAX_CONFIG_BYTES) {
        return Err(LayersError::Unreadable {
            level,
            file: file.to_path_buf(),
            source,
        });
    }
    crate::load_file_with(file, catalog)
        .map(Some)
        .map_err(|errors| LayersError::Broken { level, errors })
}

/// The built-in lists a module's configuration leaves out (its `replace_defaults`).
fn switched_off(config: &serde_json::Value) -> Vec<String> {
    config
        .get("replace_defaults")
        .and_then(serde_json::Value::as_array)
        .map(|lists| {
            lists
                .iter()
                .filter_map(|list| list.as_str().map(|name| format!("`{name}`")))
                .collect()
        })
        .unwrap_or_default()
}
