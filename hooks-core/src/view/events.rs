//! The views of the canonical events, one struct per event, each declared by the fields it
//! reads (required, then optional) as the event's field group lists them.

use serde_json::Value;

use super::field;
use super::{EventView, ViewError};
use crate::events::{self, fields};

/// Declares a view: the struct, its accessors and its [`EventView`] impl.
macro_rules! event_view {
    (
        $(#[$meta:meta])*
        $name:ident for $event:ident {
            $( $(#[$rmeta:meta])* $req:ident: $rty:ty = $rkey:ident, )*
        }
        optional {
            $( $(#[$ometa:meta])* $opt:ident: $oty:ty = $okey:ident, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name<'a> {
            data: &'a Value,
            $( $req: $rty, )*
            $( $opt: Option<$oty>, )*
        }

        impl<'a> $name<'a> {
            $(
                $(#[$rmeta])*
                pub fn $req(&self) -> $rty {
                    self.$req
                }
            )*
            $(
                $(#[$ometa])*
                pub fn $opt(&self) -> Option<$oty> {
                    self.$opt
                }
            )*
        }

        impl<'a> EventView<'a> for $name<'a> {
            const EVENT: &'static str = events::$event;
            type At<'b> = $name<'b>;

            fn from_data(data: &'a Value) -> Result<Self, ViewError> {
                let object = field::object(data, Self::EVENT)?;
                Ok($name {
                    data,
                    $( $req: field::required(object, Self::EVENT, fields::$rkey)?, )*
                    $( $opt: field::optional(object, Self::EVENT, fields::$okey)?, )*
                })
            }

            fn data(&self) -> &'a Value {
                self.data
            }
        }
    };
}

event_view! {
    /// `tool:pre`: a tool is about to run.
    ToolPre for TOOL_PRE {
        /// The tool's name.
        tool_name: &'a str = TOOL_NAME,
        /// The input the model gave the tool (usually an object).
        tool_input: &'a Value = TOOL_INPUT,
    }
    optional {
        /// The id of the model's tool call, when the emitter knows it.
        tool_call_id: &'a str = TOOL_CALL_ID,
    }
}

event_view! {
    /// `tool:post`: a tool ran.
    ToolPost for TOOL_POST {
        /// The tool's name.
        tool_name: &'a str = TOOL_NAME,
        /// The input the tool ran with.
        tool_input: &'a Value = TOOL_INPUT,
        /// What the tool returned.
        tool_result: &'a Value = TOOL_RESULT,
    }
    optional {
        /// The id of the model's tool call, when the emitter knows it.
        tool_call_id: &'a str = TOOL_CALL_ID,
    }
}

event_view! {
    /// `tool:error`: a tool failed.
    ToolFailure for TOOL_ERROR {
        /// The tool's name.
        tool_name: &'a str = TOOL_NAME,
        /// The input the tool ran with.
        tool_input: &'a Value = TOOL_INPUT,
        /// What went wrong (usually a string; see [`ToolFailure::error_text`]).
        error: &'a Value = ERROR,
    }
    optional {
        /// The id of the model's tool call, when the emitter knows it.
        tool_call_id: &'a str = TOOL_CALL_ID,
    }
}

impl<'a> ToolFailure<'a> {
    /// The error as text, when it is a string.
    pub fn error_text(&self) -> Option<&'a str> {
        self.error.as_str()
    }
}

event_view! {
    /// `prompt:submit`: the user submits a prompt.
    PromptSubmit for PROMPT_SUBMIT {
        /// The prompt's text.
        prompt: &'a str = PROMPT,
    }
    optional {}
}

event_view! {
    /// `prompt:complete`: the agent has finished answering a prompt, with its response or the
    /// error that ended the turn.
    PromptComplete for PROMPT_COMPLETE {}
    optional {
        /// The agent's answer.
        response: &'a Value = RESPONSE,
        /// The prompt answered, when the emitter repeats it.
        prompt: &'a str = PROMPT,
        /// The error that ended the turn instead of a response.
        error: &'a Value = ERROR,
    }
}

event_view! {
    /// `provider:request`: a request is about to go to the model provider.
    ProviderRequest for PROVIDER_REQUEST {
        /// The request, in the provider's or the framework's shape.
        request: &'a Value = REQUEST,
    }
    optional {}
}

event_view! {
    /// `provider:response`: the provider answered.
    ProviderResponse for PROVIDER_RESPONSE {
        /// The provider's response.
        response: &'a Value = RESPONSE,
    }
    optional {
        /// The request answered, when the emitter repeats it.
        request: &'a Value = REQUEST,
    }
}

event_view! {
    /// `session:start`: a session begins.
    SessionStart for SESSION_START {
        /// The session's id.
        session_id: &'a str = SESSION_ID,
    }
    optional {
        /// Why the session started (`startup`, `resume`, ...).
        source: &'a str = SOURCE,
    }
}

event_view! {
    /// `session:end`: a session ends.
    SessionEnd for SESSION_END {
        /// The session's id.
        session_id: &'a str = SESSION_ID,
    }
    optional {
        /// Why the session ended.
        reason: &'a str = REASON,
    }
}
