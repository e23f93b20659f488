//! The protobuf messages of amplifier-core's hook interface (`proto/amplifier_hook.proto`),
//! written as prost structs so that no `protoc` is needed to build, and their translation to
//! and from the kernel's types.

use std::time::Duration;

use hooks_core::{
    ApprovalDefault as KernelApprovalDefault, HookAction as KernelAction, HookResult as Kernel,
    InjectionRole, MessageLevel,
};
use serde_json::Value;

/// `amplifier.module.HookHandleRequest`: what the host sends.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HookHandleRequest {
    /// The event's name.
    #[prost(string, tag = "1")]
    pub event: String,
    /// The event's data, as JSON text.
    #[prost(string, tag = "2")]
    pub data_json: String,
}

/// `amplifier.module.HookAction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum HookAction {
    /// Not set: read as continue.
    Unspecified = 0,
    /// Go on.
    Continue = 1,
    /// Replace the event data.
    Modify = 2,
    /// Refuse.
    Deny = 3,
    /// Add context.
    InjectContext = 4,
    /// Ask the user.
    AskUser = 5,
}

/// `amplifier.module.ContextInjectionRole`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum ContextInjectionRole {
    /// Not set: system.
    Unspecified = 0,
    /// The system.
    System = 1,
    /// The user.
    User = 2,
    /// The assistant.
    Assistant = 3,
}

/// `amplifier.module.ApprovalDefault`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum ApprovalDefault {
    /// Not set: deny.
    Unspecified = 0,
    /// Approve when unanswered.
    Approve = 1,
    /// Deny when unanswered.
    Deny = 2,
}

/// `amplifier.module.UserMessageLevel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum UserMessageLevel {
    /// Not set: info.
    Unspecified = 0,
    /// Information.
    Info = 1,
    /// A warning.
    Warning = 2,
    /// An error.
    Error = 3,
}

/// `amplifier.module.HookResult`: what the hook answers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HookResult {
    /// What to do ([`HookAction`]).
    #[prost(enumeration = "HookAction", tag = "1")]
    pub action: i32,
    /// The new data for modify, as JSON text.
    #[prost(string, tag = "2")]
    pub data_json: String,
    /// Why (deny).
    #[prost(string, tag = "3")]
    pub reason: String,
    /// Context to add.
    #[prost(string, tag = "4")]
    pub context_injection: String,
    /// Who the context speaks as ([`ContextInjectionRole`]).
    #[prost(enumeration = "ContextInjectionRole", tag = "5")]
    pub context_injection_role: i32,
    /// The context is for the next turn only.
    #[prost(bool, tag = "6")]
    pub ephemeral: bool,
    /// The approval question.
    #[prost(string, tag = "7")]
    pub approval_prompt: String,
    /// The approval's choices.
    #[prost(string, repeated, tag = "8")]
    pub approval_options: Vec<String>,
    /// How long an approval waits, in seconds.
    #[prost(double, optional, tag = "9")]
    pub approval_timeout: Option<f64>,
    /// What an unanswered approval gives ([`ApprovalDefault`]).
    #[prost(enumeration = "ApprovalDefault", tag = "10")]
    pub approval_default: i32,
    /// Hide the tool's output from the user.
    #[prost(bool, tag = "11")]
    pub suppress_output: bool,
    /// A message for the user.
    #[prost(string, tag = "12")]
    pub user_message: String,
    /// How loud the message is ([`UserMessageLevel`]).
    #[prost(enumeration = "UserMessageLevel", tag = "13")]
    pub user_message_level: i32,
    /// Who the message is from (not kept by the kernel).
    #[prost(string, tag = "14")]
    pub user_message_source: String,
    /// Append the context to the last tool result.
    #[prost(bool, tag = "15")]
    pub append_to_last_tool_result: bool,
}

/// `text` unless it is empty (proto3 has no unset string).
fn set(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

impl HookResult {
    /// The kernel's result for this answer, or why it cannot be read: an unknown enum value,
    /// data that is not a JSON object, a timeout that is not a finite positive number.
    pub fn into_kernel(self) -> Result<Kernel, String> {
        let action = match HookAction::try_from(self.action) {
            Ok(HookAction::Unspecified | HookAction::Continue) => KernelAction::Continue,
            Ok(HookAction::Modify) => KernelAction::Modify,
            Ok(HookAction::Deny) => KernelAction::Deny,
            Ok(HookAction::InjectContext) => KernelAction::InjectContext,
            Ok(HookAction::AskUser) => KernelAction::AskUser,
            Err(_) => return Err(format!("answered the unknown action {}", self.action)),
        };
        let data = match set(self.data_json) {
            None => None,
            Some(text) => match serde_json::from_str::<Value>(&text) {
                Ok(object @ Value::Object(_)) => Some(object),
                _ => return Err("answered `data_json` that is not a JSON object".to_owned()),
            },
        };
        let role = match ContextInjectionRole::try_from(self.context_injection_role) {
            Ok(ContextInjectionRole::Unspecified | ContextInjectionRole::System) => {
                InjectionRole::System
            }
            Ok(ContextInjectionRole::User) => InjectionRole::User,
            Ok(ContextInjectionRole::Assistant) => InjectionRole::Assistant,
            Err(_) => return Err("answered an unknown context_injection_role".to_owned()),
        };
        let approval_default = match ApprovalDefault::try_from(self.approval_default) {
            Ok(ApprovalDefault::Approve) => KernelApprovalDefault::Allow,
            Ok(ApprovalDefault::Unspecified | ApprovalDefault::Deny) => KernelApprovalDefault::Deny,
            Err(_) => return Err("answered an unknown approval_default".to_owned()),
        };
        let level = match UserMessageLevel::try_from(self.user_message_level) {
            Ok(UserMessageLevel::Unspecified | UserMessageLevel::Info) => MessageLevel::Info,
            Ok(UserMessageLevel::Warning) => MessageLevel::Warning,
            Ok(UserMessageLevel::Error) => MessageLevel::Error,
            Err(_) => return Err("answered an unknown user_message_level".to_owned()),
        };
        let mut result = Kernel {
            action,
            data,
            reason: set(self.reason),
            context_injection: set(self.context_injection),
            context_injection_role: role,
            ephemeral: self.ephemeral,
            approval_prompt: set(self.approval_prompt),
            approval_options: (!self.approval_options.is_empty()).then_some(self.approval_options),
            approval_default,
            suppress_output: self.suppress_output,
            user_message: set(self.user_message),
            user_message_level: level,
            append_to_last_tool_result: self.append_to_last_tool_result,
            ..Kernel::default()
        };
        if let Some(seconds) = self.approval_timeout {
            let timeout = Duration::try_from_secs_f64(seconds)
                .map_err(|_| format!("answered the approval timeout {seconds}"))?;
            result = result.with_approval_timeout(timeout);
        }
        Ok(result)
    }
}
