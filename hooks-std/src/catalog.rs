//! Modules by name: what a hooks file's `modules:` section mounts.
//!
//! A [`ModuleCatalog`] maps a name to a factory that builds a [`HookModule`] from its JSON
//! configuration. [`ModuleCatalog::standard`] holds the seven standard modules under their names
//! (`safety`, `redaction`, `approval`, `logging`, `linter`, `reminder`, `prompt_gate`); an
//! application adds its own with [`ModuleCatalog::add`], so that its hooks files can mount them
//! too.
//!
//! Configurations are the modules' own serde configs: an unknown key is an error naming it.
//! A relative path that the configuration gives (`workspace`, `home`, `path`, `file`) is resolved
//! against the [`base`](ModuleContext::base) the caller passes, the hooks file's directory; a
//! path left out keeps the module's default.
//!
//! What the `safety` module keeps of the product from the agent (its files, resident processes
//! and administration commands, [`SelfProtection`]) is what the context says
//! ([`ModuleContext::protect`], what a loader knows of the files it loads) and what the catalog
//! says ([`ModuleCatalog::protect`], what an application knows of itself): a catalog and a
//! context that say nothing protect nothing beyond the checker's own rules.
//!
//! ```
//! use std::path::Path;
//!
//! use hooks_core::{HookModule, HookRegistry};
//! use hooks_std::catalog::{ModuleCatalog, ModuleContext};
//! use serde_json::json;
//!
//! let catalog = ModuleCatalog::standard();
//! let context = ModuleContext::new(Path::new("/srv/app"));
//! let safety = catalog.build("safety", &json!({"workspace": "."}), &context).unwrap();
//! let registry = HookRegistry::new();
//! let _mounted = safety.mount(&registry).unwrap();
//! assert_eq!(registry.list_handlers(Some("tool:pre"))["tool:pre"], ["safety"]);
//!
//! let Err(error) = catalog.build("safty", &json!({}), &context) else { unreachable!() };
//! assert_eq!(error.to_string(), "unknown module `safty` (did you mean `safety`?); known modules: approval, linter, logging, prompt_gate, redaction, reminder, safety");
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hooks_core::HookModule;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::approval::{ApprovalConfig, ApprovalModule};
use crate::linter::{LinterConfig, LinterModule};
use crate::logging::{LoggingConfig, LoggingModule};
use crate::prompt_gate::{PromptGateConfig, PromptGateModule};
use crate::redaction::{RedactionConfig, RedactionModule};
use crate::reminder::{ReminderConfig, ReminderModule};
use crate::safety::{SafetyConfig, SafetyModule, SelfProtection};

/// A module built from its configuration, ready to mount.
pub type BoxModule = Box<dyn HookModule>;

/// Why a factory could not build its module: any error, whose message says what is wrong
/// with the configuration (a `String` converts into one with `?` or `.into()`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Builds one module from its JSON configuration; the error says what is wrong with it.
pub type ModuleFactory =
    Arc<dyn Fn(&Value, &ModuleContext) -> Result<BoxModule, BoxError> + Send + Sync>;

/// What a factory knows of where its configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleContext {
    base: PathBuf,
    file: Option<PathBuf>,
    protection: SelfProtection,
}

impl ModuleContext {
    /// A context whose relative paths resolve against `base` (a hooks file's directory).
    pub fn new(base: &Path) -> Self {
        ModuleContext {
            base: base.to_path_buf(),
            file: None,
            protection: SelfProtection::none(),
        }
    }

    /// The context with `protection` added to what the `safety` module keeps from the agent.
    pub fn protect(mut self, protection: SelfProtection) -> Self {
        self.protection.extend(protection);
        self
    }

    /// What the `safety` module keeps from the agent of the product that loads the file: the
    /// context's and, once the catalog builds a module, the catalog's.
    pub fn protection(&self) -> &SelfProtection {
        &self.protection
    }

    /// The context with the hooks file the configuration was read from: the `safety` module
    /// write-protects it, so that no tool call can switch the guard off by editing it.
    pub fn with_file(mut self, file: &Path) -> Self {
        self.file = Some(self.resolve(file));
        self
    }

    /// The hooks file the configuration was read from, absolute, when the loader said.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The directory relative paths resolve against.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// `path` resolved against [`base`](ModuleContext::base) when it is relative, and made
    /// absolute (against the working directory, when the base is relative too): a module that
    /// confines tools to a workspace must know where it is, whatever directory it runs in.
    pub fn resolve(&self, path: &Path) -> PathBuf {
        let joined = self.base.join(path);
        std::path::absolute(&joined).unwrap_or(joined)
    }
}

/// Why a module could not be built from a hooks file's configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No module of that name is in the catalog.
    #[error("unknown module `{name}`{}; known modules: {}", suggestion_text(.suggestion), .known.join(", "))]
    UnknownModule {
        /// The name as written.
        name: String,
        /// The closest known name, when one is close.
        suggestion: Option<String>,
        /// Every name the catalog knows, sorted.
        known: Vec<String>,
    },
    /// The module's configuration is unusable (an unknown key, a wrong type, a bad value).
    #[error("module `{module}`: {reason}")]
    Config {
        /// The module.
        module: String,
        /// What is wrong, and how to fix it.
        reason: String,
    },
    /// A module of that name is already in the catalog.
    #[error("a module named `{0}` is already in the catalog")]
    Taken(String),
}

fn suggestion_text(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default()
}

/// Named module factories; see the [module docs](self).
#[derive(Clone, Default)]
pub struct ModuleCatalog {
    factories: BTreeMap<String, ModuleFactory>,
    protection: SelfProtection,
}

impl fmt::Debug for ModuleCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleCatalog")
            .field("modules", &self.factories.keys().collect::<Vec<_>>())
            .field("protection", &self.protection)
            .finish()
    }
}

impl ModuleCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        ModuleCatalog::default()
    }

    /// The seven standard modules under their names.
    pub fn standard() -> Self {
        let mut catalog = ModuleCatalog::new();
        let standard: [(&str, ModuleFactory); 7] = [
            ("safety", Arc::new(safety)),
            ("redaction", Arc::new(redaction)),
            ("approval", Arc::new(approval)),
            ("logging", Arc::new(logging)),
            ("linter", Arc::new(linter)),
            ("reminder", Arc::new(reminder)),
            ("prompt_gate", Arc::new(prompt_gate)),
        ];
        for (name, factory) in standard {
            catalog.factories.insert(name.to_owned(), factory);
        }
        catalog
    }

    /// Adds a module under `name`; a name already taken is an error (a standard module is
    /// never silently replaced).
    ///
    /// ```
    /// use hooks_core::{HookModule, HookRegistry, MountError, Mounted};
    /// use hooks_std::catalog::ModuleCatalog;
    ///
    /// struct Audit;
    /// impl HookModule for Audit {
    ///     fn name(&self) -> &str { "audit" }
    ///     fn mount(&self, _: &HookRegistry) -> Result<Mounted, MountError> {
    ///         Ok(Mounted::new("audit"))
    ///     }
    /// }
    ///
    /// let mut catalog = ModuleCatalog::standard();
    /// catalog.add("audit", |_config, _context| Ok(Box::new(Audit) as _)).unwrap();
    /// assert!(catalog.add("safety", |_config, _context| Ok(Box::new(Audit) as _)).is_err());
    /// assert!(catalog.names().any(|name| name == "audit"));
    /// ```
    pub fn add<F>(&mut self, name: &str, factory: F) -> Result<(), CatalogError>
    where
        F: Fn(&Value, &ModuleContext) -> Result<BoxModule, BoxError> + Send + Sync + 'static,
    {
        if self.factories.contains_key(name) {
            return Err(CatalogError::Taken(name.to_owned()));
        }
        self.factories.insert(name.to_owned(), Arc::new(factory));
        Ok(())
    }

    /// Adds `protection` to what the modules it builds keep from the agent: what the
    /// application knows of itself (its programs, its resident processes, its files).
    pub fn protect(&mut self, protection: SelfProtection) {
        self.protection.extend(protection);
    }

    /// What the modules it builds keep from the agent, besides what a context says.
    pub fn protection(&self) -> &SelfProtection {
        &self.protection
    }

    /// Every module name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.factories.keys().map(String::as_str)
    }

    /// Whether `name` is in the catalog.
    pub fn contains(&self, name: &str) -> bool {
        self.factories.contains_key(name)
    }

    /// Builds the module `name` from `config` (`null` is an empty configuration).
    pub fn build(
        &self,
        name: &str,
        config: &Value,
        context: &ModuleContext,
    ) -> Result<BoxModule, CatalogError> {
        let Some(factory) = self.factories.get(name) else {
            return Err(CatalogError::UnknownModule {
                name: name.to_owned(),
                suggestion: hooks_core::events::closest(name, self.names()).map(str::to_owned),
                known: self.names().map(str::to_owned).collect(),
            });
        };
        let empty = Value::Object(Default::default());
        let config = if config.is_null() { &empty } else { config };
        let protected;
        let context = if self.protection == SelfProtection::default() {
            context
        } else {
            protected = context.clone().protect(self.protection.clone());
            &protected
        };
        factory(config, context).map_err(|error| CatalogError::Config {
            module: name.to_owned(),
            reason: error.to_string(),
        })
    }
}

/// A module's serde config from JSON, the error in serde's words (which name the key).
fn parse<T: DeserializeOwned>(config: &Value) -> Result<T, serde_json::Error> {
    T::deserialize(config)
}

/// Whether the configuration gives `key` itself (a default is not resolved against the base).
fn gives(config: &Value, key: &str) -> bool {
    config.get(key).is_some_and(|value| !value.is_null())
}

fn safety(config: &Value, context: &ModuleContext) -> Result<BoxModule, BoxError> {
    let mut parsed: SafetyConfig = parse(config)?;
    parsed.workspace = parsed.workspace.map(|path| context.resolve(&path));
    parsed.home = parsed.home.map(|path| context.resolve(&path));
    // The hooks file that configures the module is write-protected, whatever its name.
    if let Some(file) = context.file() {
        parsed.protect_guard_file(file);
    }
    Ok(Box::new(SafetyModule::new(parsed, context.protection())?))
}

fn redaction(config: &Value, _: &ModuleContext) -> Result<BoxModule, BoxError> {
    let parsed: RedactionConfig = parse(config)?;
    Ok(Box::new(RedactionModule::new(parsed)?))
}

fn approval(config: &Value, _: &ModuleContext) -> Result<BoxModule, BoxError> {
    let parsed: ApprovalConfig = parse(config)?;
    Ok(Box::new(ApprovalModule::new(parsed)?))
}

fn logging(config: &Value, context: &ModuleContext) -> Result<BoxModule, BoxError> {
    let mut parsed: LoggingConfig = parse(config)?;
    if gives(config, "path") {
        parsed.path = context.resolve(&parsed.path);
    }
    Ok(Box::new(LoggingModule::new(parsed)?))
}

fn linter(config: &Value, context: &ModuleContext) -> Result<BoxModule, BoxError> {
    let mut parsed: LinterConfig = parse(config)?;
    parsed.workspace = parsed.workspace.map(|path| context.resolve(&path));
    Ok(Box::new(LinterModule::new(parsed)?))
}

fn reminder(config: &Value, context: &ModuleContext) -> Result<BoxModule, BoxError> {
    let mut parsed: ReminderConfig = parse(config)?;
    parsed.file = parsed.file.map(|path| context.resolve(&path));
    Ok(Box::new(ReminderModule::new(parsed)?))
}

fn prompt_gate(config: &Value, _context: &ModuleContext) -> Result<BoxModule, BoxError> {
    let parsed: PromptGateConfig = parse(config)?;
    Ok(Box::new(PromptGateModule::new(parsed)?))
}
