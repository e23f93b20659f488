//! What a policy entry's translation costs: a `type: cedar` entry with 100 policies deciding a
//! tool call beside `cedar-policy`'s own `is_authorized` on the same request built once, and a
//! `type: rego` entry with 100 rules beside regorus evaluating the same rule on the same input,
//! in one run.
//!
//! Run with `cargo bench -p hooks-config --features cedar,rego --bench policies`.

use std::hint::black_box;
use std::path::Path;
use std::str::FromStr;

use cedar_policy::{Authorizer, Context, Entities, Entity, EntityUid, PolicySet, Request};
use criterion::{Criterion, criterion_group, criterion_main};
use hooks_config::{HookKind, PolicyHook, load_str};
use serde_json::{Value, json};

const POLICIES: usize = 100;

fn tool_call() -> Value {
    json!({"tool_name": "Bash", "tool_input": {"command": "ls -la src", "timeout": 1000},
        "session_id": "bench", "agent": "claude"})
}

fn cedar_policies() -> String {
    (0..POLICIES)
        .map(|i| {
            format!(
                "@id(\"p{i}\") @reason(\"word {i}\")\nforbid(principal, action == \
                 Action::\"Bash\", resource) when {{ context.input has command && \
                 context.input.command like \"*word{i}*\" }};\n"
            )
        })
        .collect()
}

fn rego_policies() -> String {
    let rules: String = (0..POLICIES)
        .map(|i| {
            format!(
                "deny contains \"word {i}\" if {{\n  input.tool_name == \"Bash\"\n  \
                 contains(input.tool_input.command, \"word{i}\")\n}}\n"
            )
        })
        .collect();
    format!("package bench\n\n{rules}")
}

/// The policy hook of a one-entry hooks file of `kind` over the policies file `file`.
fn hook(kind: &str, file: &Path) -> PolicyHook {
    let yaml = format!(
        "hooks:\n  PreToolUse:\n    - type: {kind}\n      policies: {}\n",
        file.display()
    );
    let dir = std::env::temp_dir();
    let config = load_str(&yaml, &dir.join("bench.yaml"), &dir).expect("the bench config loads");
    match &config.entries[0].hook {
        HookKind::Policy(hook) => hook.clone(),
        _ => panic!("a policy entry"),
    }
}

fn cedar_entry_versus_is_authorized(c: &mut Criterion) {
    let text = cedar_policies();
    let file = std::env::temp_dir().join(format!("hooks-bench-{}.cedar", std::process::id()));
    std::fs::write(&file, &text).expect("the policies are written");
    let entry = hook("cedar", &file);
    let call = tool_call();
    assert_eq!(
        entry.decide("tool:pre", &call).expect("decided").action,
        hooks_core::HookAction::Continue
    );

    // The same request, built once, as a program using cedar-policy directly would.
    let policies = PolicySet::from_str(&text).expect("the policies parse");
    let principal = EntityUid::from_str(r#"Agent::"claude""#).expect("a uid");
    let agent = Entity::new(
        principal.clone(),
        [
            (
                "session".to_owned(),
                cedar_policy::RestrictedExpression::new_string("bench".to_owned()),
            ),
            (
                "user".to_owned(),
                cedar_policy::RestrictedExpression::new_string(String::new()),
            ),
        ]
        .into(),
        Default::default(),
    )
    .expect("an entity");
    let entities = Entities::from_entities([agent], None).expect("entities");
    let context =
        Context::from_json_value(json!({"input": call["tool_input"]}), None).expect("a context");
    let request = Request::new(
        principal,
        EntityUid::from_str(r#"Action::"Bash""#).expect("a uid"),
        EntityUid::from_str(r#"Tool::"Bash""#).expect("a uid"),
        context,
        None,
    )
    .expect("a request");
    let authorizer = Authorizer::new();

    let mut group = c.benchmark_group("cedar_100_policies");
    group.bench_function("hooks_entry", |b| {
        b.iter(|| entry.decide("tool:pre", black_box(&call)))
    });
    group.bench_function("cedar_is_authorized", |b| {
        b.iter(|| authorizer.is_authorized(black_box(&request), &policies, &entities))
    });
    group.finish();
    let _ = std::fs::remove_file(&file);
}

fn rego_entry_versus_regorus(c: &mut Criterion) {
    let text = rego_policies();
    let file = std::env::temp_dir().join(format!("hooks-bench-{}.rego", std::process::id()));
    std::fs::write(&file, &text).expect("the policies are written");
    let entry = hook("rego", &file);
    let call = tool_call();

    let mut engine = regorus::Engine::new();
    engine
        .add_policy("bench.rego".to_owned(), text)
        .expect("the policies compile");
    let input = regorus::Value::from(call.clone());

    let mut group = c.benchmark_group("rego_100_rules");
    group.bench_function("hooks_entry", |b| {
        b.iter(|| entry.decide("tool:pre", black_box(&call)))
    });
    group.bench_function("regorus_eval_rule", |b| {
        b.iter(|| {
            engine.set_input(black_box(input.clone()));
            engine.eval_rule("data.bench.deny".to_owned())
        })
    });
    group.finish();
    let _ = std::fs::remove_file(&file);
}

criterion_group!(
    benches,
    cedar_entry_versus_is_authorized,
    rego_entry_versus_regorus
);
criterion_main!(benches);
