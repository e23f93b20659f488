//! Proptest strategies for event names, event data and `HookResult`s, for property tests of
//! hook modules and of the kernel.

use hooks_core::events::{ALIASES, CANONICAL, fields};
use hooks_core::{ApprovalDefault, HookAction, HookResult, InjectionRole, MessageLevel};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any JSON value, up to a few levels deep.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON has no NaN or infinity", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Event data as hooks see it: an object with the canonical fields, each present or not, each
/// well typed or not, plus arbitrary extra fields.
pub fn event_data() -> impl Strategy<Value = Value> {
    let tool_name = prop_oneof![
        Just(Value::from("bash")),
        Just(Value::from("write_file")),
        Just(Value::from("read_file")),
        "[A-Za-z_]{1,16}".prop_map(Value::from),
        json_value(),
    ];
    let tool_input = prop_oneof![
        ".{0,60}".prop_map(|command| serde_json::json!({ "command": command })),
        "[./a-z]{0,40}".prop_map(|path| serde_json::json!({ "file_path": path, "content": "x" })),
        json_value(),
    ];
    (
        prop::option::of(tool_name),
        prop::option::of(tool_input),
        prop::option::of(".{0,80}".prop_map(Value::from)),
        prop::collection::btree_map("[a-z_]{1,12}", json_value(), 0..4),
    )
        .prop_map(|(tool_name, tool_input, prompt, extra)| {
            let mut data: Map<String, Value> = extra.into_iter().collect();
            for (key, value) in [
                (fields::TOOL_NAME, tool_name),
                (fields::TOOL_INPUT, tool_input),
                (fields::PROMPT, prompt),
            ] {
                if let Some(value) = value {
                    data.insert(key.to_owned(), value);
                }
            }
            Value::Object(data)
        })
}

/// A canonical event name, an alias, or a valid custom `namespace:name`.
pub fn event_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(CANONICAL).prop_map(str::to_owned),
        prop::sample::select(ALIASES).prop_map(|(alias, _)| alias.to_owned()),
        "(app|billing|ci)_?[a-z0-9]{0,6}:[a-z][a-z0-9_]{0,12}",
    ]
}

/// Any valid `HookResult`: every action, with the fields it uses set or not.
pub fn hook_result() -> impl Strategy<Value = HookResult> {
    let action = prop::sample::select(HookAction::ALL);
    let text = prop::option::of(".{1,40}");
    (
        (
            action,
            // In JSON, `"data": null` is absent data: `Some(Null)` is not a distinct result.
            prop::option::of(json_value().prop_filter("null is no data", |v| !v.is_null())),
            text.clone(),
            text.clone(),
        ),
        (
            prop::sample::select(InjectionRole::ALL),
            any::<bool>(),
            text.clone(),
            prop::option::of(prop::collection::vec(".{1,12}", 0..4)),
        ),
        (
            0.0..3600.0_f64,
            prop::sample::select(ApprovalDefault::ALL),
            any::<bool>(),
            text,
            prop::sample::select(MessageLevel::ALL),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (action, data, reason, context_injection),
                (context_injection_role, ephemeral, approval_prompt, approval_options),
                (
                    approval_timeout,
                    approval_default,
                    suppress_output,
                    user_message,
                    user_message_level,
                    append,
                ),
            )| HookResult {
                action,
                data,
                reason,
                context_injection,
                context_injection_role,
                ephemeral,
                approval_prompt,
                approval_options,
                approval_timeout,
                approval_default,
                suppress_output,
                user_message,
                user_message_level,
                append_to_last_tool_result: append,
            },
        )
}
