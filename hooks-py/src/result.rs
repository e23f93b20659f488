//! `HookResult`: a handler's answer, with the reference's fields and defaults.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::json;

/// Declares a closed set of string values (the reference's `Literal[...]` fields): the enum,
/// its text, and its parsing with an error that lists what is accepted.
macro_rules! literal {
    ($(#[$doc:meta])* $name:ident, $field:literal { $($variant:ident = $text:literal),+ $(,)? }
        $(aliases { $($alias:literal => $target:ident),+ })?) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
        pub enum $name { $(#[doc = $text] $variant),+ }

        impl $name {
            /// The value as the reference spells it.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// Parses the reference's spelling; anything else is a `ValueError`.
            pub fn parse(text: &str) -> PyResult<Self> {
                match text {
                    $($text => Ok($name::$variant),)+
                    $($($alias => Ok($name::$target),)+)?
                    other => Err(PyValueError::new_err(format!(
                        concat!("`", $field, "` must be one of {}, not {:?}"),
                        [$($text),+].join(", "), other
                    ))),
                }
            }
        }
    };
}

literal! {
    /// What a handler tells the registry to do; ordered by strength (deny is the strongest).
    Action, "action" {
        Continue = "continue", Modify = "modify", InjectContext = "inject_context",
        AskUser = "ask_user", Deny = "deny",
    }
    aliases { "block" => Deny, "allow" => Continue }
}

literal! {
    /// The role an injected message takes in the conversation.
    Role, "context_injection_role" { System = "system", User = "user", Assistant = "assistant" }
}

literal! {
    /// What an unanswered approval becomes.
    ApprovalDefault, "approval_default" { Allow = "allow", Deny = "deny" }
}

literal! {
    /// The severity of a user message; ordered (error is the highest).
    Level, "user_message_level" { Info = "info", Warning = "warning", Error = "error" }
}

/// A handler's answer: what to do with the event, and what to tell the agent and the user.
///
/// Same fields and defaults as the reference's `HookResult`; every argument is a keyword.
/// `action` also accepts `"block"` (read as deny) and `"allow"` (read as continue).
#[pyclass(module = "hooks", name = "HookResult", eq)]
#[derive(Debug)]
pub struct HookResult {
    pub(crate) action: Action,
    pub(crate) data: Option<Py<PyAny>>,
    /// Why: shown to the agent on a deny; a modification's explanation.
    #[pyo3(get, set)]
    pub(crate) reason: Option<String>,
    /// Text for the agent's conversation (with `action="inject_context"`).
    #[pyo3(get, set)]
    pub(crate) context_injection: Option<String>,
    pub(crate) context_injection_role: Role,
    /// Whether the injection is for the current model call only.
    #[pyo3(get, set)]
    pub(crate) ephemeral: bool,
    /// The question to ask the user (with `action="ask_user"`).
    #[pyo3(get, set)]
    pub(crate) approval_prompt: Option<String>,
    /// The choices offered to the user; `None` means `["Allow", "Deny"]`.
    #[pyo3(get, set)]
    pub(crate) approval_options: Option<Vec<String>>,
    /// Seconds to wait for the user's answer.
    #[pyo3(get, set)]
    pub(crate) approval_timeout: f64,
    pub(crate) approval_default: ApprovalDefault,
    /// Hide the hook's own output from the user's transcript.
    #[pyo3(get, set)]
    pub(crate) suppress_output: bool,
    /// A message for the user (not the agent).
    #[pyo3(get, set)]
    pub(crate) user_message: Option<String>,
    pub(crate) user_message_level: Level,
    /// Append an ephemeral injection to the last tool result instead of a new message.
    #[pyo3(get, set)]
    pub(crate) append_to_last_tool_result: bool,
}

impl PartialEq for HookResult {
    fn eq(&self, other: &Self) -> bool {
        let same_data = Python::attach(|py| match (&self.data, &other.data) {
            (None, None) => true,
            (Some(a), Some(b)) => a.bind(py).eq(b.bind(py)).unwrap_or(false),
            _ => false,
        });
        same_data
            && self.action == other.action
            && self.reason == other.reason
            && self.context_injection == other.context_injection
            && self.context_injection_role == other.context_injection_role
            && self.ephemeral == other.ephemeral
            && self.approval_prompt == other.approval_prompt
            && self.approval_options == other.approval_options
            && self.approval_timeout == other.approval_timeout
            && self.approval_default == other.approval_default
            && self.suppress_output == other.suppress_output
            && self.user_message == other.user_message
            && self.user_message_level == other.user_message_level
            && self.append_to_last_tool_result == other.append_to_last_tool_result
    }
}

impl HookResult {
    /// A plain `continue` carrying `data`.
    pub fn proceed(data: Option<Py<PyAny>>) -> Self {
        HookResult {
            action: Action::Continue,
            data,
            reason: None,
            context_injection: None,
            context_injection_role: Role::System,
            ephemeral: false,
            approval_prompt: None,
            approval_options: None,
            approval_timeout: 300.0,
            approval_default: ApprovalDefault::Deny,
            suppress_output: false,
            user_message: None,
            user_message_level: Level::Info,
            append_to_last_tool_result: false,
        }
    }

    /// A copy (the data shared, as Python shares it).
    pub fn copy(&self, py: Python<'_>) -> Self {
        HookResult {
            action: self.action,
            data: self.data.as_ref().map(|d| d.clone_ref(py)),
            reason: self.reason.clone(),
            context_injection: self.context_injection.clone(),
            context_injection_role: self.context_injection_role,
            ephemeral: self.ephemeral,
            approval_prompt: self.approval_prompt.clone(),
            approval_options: self.approval_options.clone(),
            approval_timeout: self.approval_timeout,
            approval_default: self.approval_default,
            suppress_output: self.suppress_output,
            user_message: self.user_message.clone(),
            user_message_level: self.user_message_level,
            append_to_last_tool_result: self.append_to_last_tool_result,
        }
    }
}

/// `data` must be a dict or None, as in the reference.
fn checked_data(data: Option<Bound<'_, PyAny>>) -> PyResult<Option<Py<PyAny>>> {
    match data {
        Some(data) if data.is_none() => Ok(None),
        Some(data) if data.is_instance_of::<PyDict>() => Ok(Some(data.unbind())),
        Some(data) => Err(PyTypeError::new_err(format!(
            "`data` must be a dict or None, not {}",
            data.get_type().name()?
        ))),
        None => Ok(None),
    }
}

#[pymethods]
impl HookResult {
    #[new]
    #[pyo3(signature = (
        *, action = "continue", data = None, reason = None, context_injection = None,
        context_injection_role = "system", ephemeral = false, approval_prompt = None,
        approval_options = None, approval_timeout = 300.0, approval_default = "deny",
        suppress_output = false, user_message = None, user_message_level = "info",
        append_to_last_tool_result = false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        action: &str,
        data: Option<Bound<'_, PyAny>>,
        reason: Option<String>,
        context_injection: Option<String>,
        context_injection_role: &str,
        ephemeral: bool,
        approval_prompt: Option<String>,
        approval_options: Option<Vec<String>>,
        approval_timeout: f64,
        approval_default: &str,
        suppress_output: bool,
        user_message: Option<String>,
        user_message_level: &str,
        append_to_last_tool_result: bool,
    ) -> PyResult<Self> {
        Ok(HookResult {
            action: Action::parse(action)?,
            data: checked_data(data)?,
            reason,
            context_injection,
            context_injection_role: Role::parse(context_injection_role)?,
            ephemeral,
            approval_prompt,
            approval_options,
            approval_timeout,
            approval_default: ApprovalDefault::parse(approval_default)?,
            suppress_output,
            user_message,
            user_message_level: Level::parse(user_message_level)?,
            append_to_last_tool_result,
        })
    }

    /// `continue`, `deny`, `modify`, `inject_context` or `ask_user`.
    #[getter]
    fn action(&self) -> &'static str {
        self.action.as_str()
    }

    #[setter]
    fn set_action(&mut self, action: &str) -> PyResult<()> {
        self.action = Action::parse(action)?;
        Ok(())
    }

    /// The event data (a dict) for `modify`; the final data on an emit's result.
    #[getter]
    fn data(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.data.as_ref().map(|d| d.clone_ref(py))
    }

    #[setter]
    fn set_data(&mut self, data: Option<Bound<'_, PyAny>>) -> PyResult<()> {
        self.data = checked_data(data)?;
        Ok(())
    }

    /// `system`, `user` or `assistant`.
    #[getter]
    fn context_injection_role(&self) -> &'static str {
        self.context_injection_role.as_str()
    }

    #[setter]
    fn set_context_injection_role(&mut self, role: &str) -> PyResult<()> {
        self.context_injection_role = Role::parse(role)?;
        Ok(())
    }

    /// `allow` or `deny`: what a timed-out or failed approval becomes.
    #[getter]
    fn approval_default(&self) -> &'static str {
        self.approval_default.as_str()
    }

    #[setter]
    fn set_approval_default(&mut self, default: &str) -> PyResult<()> {
        self.approval_default = ApprovalDefault::parse(default)?;
        Ok(())
    }

    /// `info`, `warning` or `error`.
    #[getter]
    fn user_message_level(&self) -> &'static str {
        self.user_message_level.as_str()
    }

    #[setter]
    fn set_user_message_level(&mut self, level: &str) -> PyResult<()> {
        self.user_message_level = Level::parse(level)?;
        Ok(())
    }

    /// The fields as a dict, as pydantic's `model_dump()` gives them.
    fn model_dump<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("action", self.action.as_str())?;
        dict.set_item("data", self.data(py))?;
        dict.set_item("reason", &self.reason)?;
        dict.set_item("context_injection", &self.context_injection)?;
        dict.set_item(
            "context_injection_role",
            self.context_injection_role.as_str(),
        )?;
        dict.set_item("ephemeral", self.ephemeral)?;
        dict.set_item("approval_prompt", &self.approval_prompt)?;
        dict.set_item("approval_options", &self.approval_options)?;
        dict.set_item("approval_timeout", self.approval_timeout)?;
        dict.set_item("approval_default", self.approval_default.as_str())?;
        dict.set_item("suppress_output", self.suppress_output)?;
        dict.set_item("user_message", &self.user_message)?;
        dict.set_item("user_message_level", self.user_message_level.as_str())?;
        dict.set_item(
            "append_to_last_tool_result",
            self.append_to_last_tool_result,
        )?;
        Ok(dict)
    }

    /// A copy; `update` replaces the fields it names (pydantic's `model_copy`).
    #[pyo3(signature = (*, update = None))]
    fn model_copy(&self, py: Python<'_>, update: Option<Bound<'_, PyDict>>) -> PyResult<Py<Self>> {
        let copy = Py::new(py, self.copy(py))?;
        if let Some(update) = update {
            let bound = copy.bind(py);
            for (key, value) in update.iter() {
                bound.setattr(key.cast::<PyString>()?, value)?;
            }
        }
        Ok(copy)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = vec![format!("action={:?}", self.action.as_str())];
        if let Some(data) = &self.data {
            parts.push(format!("data={}", data.bind(py).repr()?));
        }
        let texts = [
            ("reason", &self.reason),
            ("context_injection", &self.context_injection),
            ("approval_prompt", &self.approval_prompt),
            ("user_message", &self.user_message),
        ];
        for (name, text) in texts {
            if let Some(text) = text {
                parts.push(format!("{name}={text:?}"));
            }
        }
        Ok(format!("HookResult({})", parts.join(", ")))
    }
}

impl HookResult {
    /// The answer of the Rust kernel (a hooks file's merged result) as a Python `HookResult`.
    pub fn from_kernel(py: Python<'_>, result: &hooks_core::HookResult) -> PyResult<Self> {
        let data = match &result.data {
            Some(data) => Some(json::to_python(py, data)?.unbind()),
            None => None,
        };
        Ok(HookResult {
            action: Action::parse(result.action.as_str())?,
            data,
            reason: result.reason.clone(),
            context_injection: result.context_injection.clone(),
            context_injection_role: Role::parse(result.context_injection_role.as_str())?,
            ephemeral: result.ephemeral,
            approval_prompt: result.approval_prompt.clone(),
            approval_options: result.approval_options.clone(),
            approval_timeout: result.approval_timeout,
            approval_default: ApprovalDefault::parse(result.approval_default.as_str())?,
            suppress_output: result.suppress_output,
            user_message: result.user_message.clone(),
            user_message_level: Level::parse(result.user_message_level.as_str())?,
            append_to_last_tool_result: result.append_to_last_tool_result,
        })
    }
}
