//! Cedar policies (`type: cedar`) on `cedar-policy`: each tool call is a Cedar request.
//!
//! - principal `Agent::"<agent>"` (the event's `agent` field, `unknown` without one), with the
//!   attributes `session` (the event's `session_id`) and `user` (its `user`), empty strings
//!   when absent;
//! - action `Action::"<tool>"`, as `cedar-policy-mcp-schema-generator` names an MCP tool's;
//! - resource `Tool::"<tool>"`;
//! - context `{ input: <the tool's arguments> }`: JSON objects become records, arrays sets,
//!   integers longs; `null` fields are left out and other numbers become strings, since Cedar
//!   has neither.
//!
//! A satisfied `forbid` denies, with its `@reason` annotation (or its id) as the reason and
//! its id (`@id`, or `policy0`, `policy1`... in file order) named; a satisfied policy
//! annotated `@ask` asks the user instead; `permit` is no opinion. A policy that errors on a
//! request (an attribute it reads is absent: guard it with `has`) could hide a `forbid`, so
//! unless a `forbid` denied anyway the request is undecided and `on_failure` decides.

use std::collections::{HashMap, HashSet};
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision, Effect, Entities, Entity, EntityId, EntityTypeName, EntityUid,
    PolicyId, PolicySet, Request, RestrictedExpression, Schema, SchemaFragment, ValidationMode,
    ValidationWarning, Validator,
};
use hooks_core::HookResult;
use miette::Diagnostic;
use serde_json::Value;

use super::{PolicyEngine, line_column, tool_call};

/// The annotation whose text is a deny's reason or a question.
const REASON: &str = "reason";
/// The annotation that makes a satisfied policy ask the user.
const ASK: &str = "ask";
/// The annotation that names a policy.
const ID: &str = "id";

/// Which text a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The policies.
    Policies,
    /// The schema.
    Schema,
    /// The entities.
    Entities,
}

/// A mistake in a Cedar entry's texts, at its line and column in that text where Cedar says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The text it is in.
    pub(crate) part: Part,
    /// Its line and column in that text, when known.
    pub(crate) place: Option<(usize, usize)>,
    /// What is wrong.
    pub(crate) message: String,
}

/// The texts of a Cedar entry.
#[derive(Debug, Clone)]
pub(crate) struct Sources<'a> {
    /// The policies.
    pub(crate) policies: &'a str,
    /// The schema, if the entry has one.
    pub(crate) schema: Option<SchemaText<'a>>,
    /// The entities, in Cedar's JSON form.
    pub(crate) entities: Option<&'a str>,
}

/// Where a Cedar entry's schema comes from.
#[derive(Debug, Clone)]
pub(crate) enum SchemaText<'a> {
    /// A schema file, in Cedar's schema syntax or (starting with `{`) its JSON form: the
    /// policies and the calls are checked against it.
    Written(&'a str),
    /// Fragments that `schema: builtin` and `schema: mcp:<server>` name
    /// ([`cedar_schema`](super::cedar_schema)), each in Cedar's schema syntax or its JSON
    /// form: the policies are checked against them, the calls are not (agents add fields of
    /// their own to a tool's input, which a Cedar record cannot leave open).
    Generated(Vec<String>),
}

/// Compiled Cedar policies, with the schema and entities they are asked against.
#[derive(Debug)]
pub(crate) struct CedarPolicies {
    policies: PolicySet,
    schema: Option<Schema>,
    /// The actions the schema declares whose calls are checked against it (none for a
    /// generated schema).
    declared: HashSet<EntityUid>,
    entities: Entities,
    authorizer: Authorizer,
    principal_type: EntityTypeName,
    action_type: EntityTypeName,
    resource_type: EntityTypeName,
}

/// A problem from one of Cedar's diagnostics, at its first label.
fn problem(part: Part, text: &str, diagnostic: &dyn Diagnostic, message: String) -> Problem {
    let offset = diagnostic
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|label| label.offset());
    let help = diagnostic
        .help()
        .map(|help| format!(" ({help})"))
        .unwrap_or_default();
    Problem {
        part,
        place: offset.map(|offset| line_column(text, offset)),
        message: format!("{message}{help}"),
    }
}

fn whole(part: Part, message: String) -> Problem {
    Problem {
        part,
        place: None,
        message,
    }
}

/// `text` as policies, each named by its `@id` annotation where it has one.
fn policies(text: &str) -> Result<PolicySet, Vec<Problem>> {
    let parsed = PolicySet::from_str(text).map_err(|errors| {
        errors
            .iter()
            .map(|error| problem(Part::Policies, text, error, error.to_string()))
            .collect::<Vec<_>>()
    })?;
    let mut named = PolicySet::new();
    let mut problems = Vec::new();
    for policy in parsed.policies() {
        let policy = match policy.annotation(ID) {
            Some(id) => policy.new_id(PolicyId::new(id)),
            None => policy.clone(),
        };
        let id = policy.id().clone();
        if named.add(policy).is_err() {
            problems.push(whole(
                Part::Policies,
                format!("two policies have the id `{id}`: ids name a policy in every decision"),
            ));
        }
    }
    if problems.is_empty() {
        Ok(named)
    } else {
        Err(problems)
    }
}

fn schema(text: &str) -> Result<Schema, Vec<Problem>> {
    if text.trim_start().starts_with('{') {
        return Schema::from_json_str(text)
            .map_err(|error| vec![problem(Part::Schema, text, &error, error.to_string())]);
    }
    Schema::from_cedarschema_str(text)
        .map(|(schema, _warnings)| schema)
        .map_err(|error| vec![problem(Part::Schema, text, &error, error.to_string())])
}

/// The mistakes of `policies` (parsed from `text`) against `schema`: type errors, unknown
/// entity types, actions and attributes, and policies that can never apply.
fn validate(policies: &PolicySet, schema: &Schema, text: &str) -> Vec<Problem> {
    let result = Validator::new(schema.clone()).validate(policies, ValidationMode::Strict);
    let errors = result
        .validation_errors()
        .map(|error| problem(Part::Policies, text, error, error.to_string()));
    let never = result
        .validation_warnings()
        .filter(|warning| {
            matches!(
                warning,
                ValidationWarning::ImpossiblePolicy(_)
                    | ValidationWarning::InvalidActionApplication(_)
            )
        })
        .map(|warning| {
            let message = format!("the policy can never apply: {warning}");
            problem(Part::Policies, text, warning, message)
        });
    errors.chain(never).collect()
}

/// Generated fragments as one schema.
fn generated(parts: &[String]) -> Result<Schema, Vec<Problem>> {
    let mut fragments = Vec::with_capacity(parts.len());
    for part in parts {
        let fragment = if part.trim_start().starts_with('{') {
            SchemaFragment::from_json_str(part).map_err(|error| error.to_string())
        } else {
            SchemaFragment::from_cedarschema_str(part)
                .map(|(fragment, _warnings)| fragment)
                .map_err(|error| error.to_string())
        };
        fragments.push(fragment.map_err(|error| vec![whole(Part::Schema, error)])?);
    }
    Schema::from_schema_fragments(fragments)
        .map_err(|error| vec![whole(Part::Schema, error.to_string())])
}

fn type_name(name: &str) -> Result<EntityTypeName, Vec<Problem>> {
    EntityTypeName::from_str(name)
        .map_err(|error| vec![whole(Part::Policies, format!("`{name}`: {error}"))])
}

impl CedarPolicies {
    /// Compiles `sources`: the policies, checked against the schema when there is one, and the
    /// entities; every mistake found, each where Cedar places it.
    pub(crate) fn compile(sources: Sources<'_>) -> Result<Self, Vec<Problem>> {
        let policies = policies(sources.policies);
        let check_calls = matches!(sources.schema, Some(SchemaText::Written(_)));
        let schema = match &sources.schema {
            Some(SchemaText::Written(text)) => Some(schema(text)),
            Some(SchemaText::Generated(parts)) => Some(generated(parts)),
            None => None,
        }
        .transpose();
        let (policies, schema) = match (policies, schema) {
            (Ok(policies), Ok(schema)) => (policies, schema),
            (policies, schema) => {
                let mut problems = policies.err().unwrap_or_default();
                problems.extend(schema.err().unwrap_or_default());
                return Err(problems);
            }
        };
        if let Some(schema) = &schema {
            let problems = validate(&policies, schema, sources.policies);
            if !problems.is_empty() {
                return Err(problems);
            }
        }
        let entities = match sources.entities {
            Some(text) => Entities::from_json_str(text, schema.as_ref())
                .map_err(|error| vec![problem(Part::Entities, text, &error, error.to_string())])?,
            None => Entities::empty(),
        };
        let declared = schema
            .as_ref()
            .filter(|_| check_calls)
            .map(|schema| schema.actions().cloned().collect())
            .unwrap_or_default();
        Ok(CedarPolicies {
            policies,
            schema,
            declared,
            entities,
            authorizer: Authorizer::new(),
            principal_type: type_name("Agent")?,
            action_type: type_name("Action")?,
            resource_type: type_name("Tool")?,
        })
    }

    /// How many policies there are.
    pub(crate) fn len(&self) -> usize {
        self.policies.num_of_policies()
    }

    /// The Cedar request and entities for a call of `tool` with `input` in the event `data`.
    pub(crate) fn request(
        &self,
        tool: &str,
        input: &Value,
        data: &Value,
    ) -> Result<(Request, Entities), String> {
        let text = |field: &str| data.get(field).and_then(Value::as_str).unwrap_or_default();
        let agent = match text("agent") {
            "" => "unknown",
            agent => agent,
        };
        let principal =
            EntityUid::from_type_name_and_id(self.principal_type.clone(), EntityId::new(agent));
        let action =
            EntityUid::from_type_name_and_id(self.action_type.clone(), EntityId::new(tool));
        let resource =
            EntityUid::from_type_name_and_id(self.resource_type.clone(), EntityId::new(tool));
        let attributes = HashMap::from([
            (
                "session".to_owned(),
                RestrictedExpression::new_string(text("session_id").to_owned()),
            ),
            (
                "user".to_owned(),
                RestrictedExpression::new_string(text("user").to_owned()),
            ),
        ]);
        let agent = Entity::new(principal.clone(), attributes, HashSet::new())
            .map_err(|error| error.to_string())?;
        let entities = if self.entities.iter().next().is_none() {
            Entities::from_entities([agent], None)
        } else {
            self.entities.clone().upsert_entities([agent], None)
        }
        .map_err(|error| error.to_string())?;
        let input = restricted(input).unwrap_or_else(empty_record);
        let context = Context::from_pairs([("input".to_owned(), input)])
            .map_err(|error| error.to_string())?;
        // Only actions the schema declares can be checked against it; the others are asked
        // as they are (a schema for some tools does not stop policies about every tool).
        let schema = self
            .schema
            .as_ref()
            .filter(|_| self.declared.contains(&action));
        let request = Request::new(principal, action, resource, context, schema)
            .map_err(|error| format!("the call does not fit the schema: {error}"))?;
        Ok((request, entities))
    }

    /// The answer of the policies to `request` with `entities`.
    pub(crate) fn answer(
        &self,
        request: &Request,
        entities: &Entities,
    ) -> Result<HookResult, String> {
        let response = self
            .authorizer
            .is_authorized(request, &self.policies, entities);
        let diagnostics = response.diagnostics();
        let satisfied: Vec<&PolicyId> = diagnostics.reason().collect();
        let annotation = |id: &PolicyId, key: &str| self.policies.annotation(id, key);
        let said = |id: &PolicyId| {
            annotation(id, REASON)
                .filter(|reason| !reason.is_empty())
                .or_else(|| annotation(id, ASK).filter(|ask| !ask.is_empty()))
                .map_or_else(
                    || format!("forbidden by the Cedar policy `{id}`"),
                    |text| format!("{text} (Cedar policy `{id}`)"),
                )
        };
        let asks = |id: &PolicyId| annotation(id, ASK).is_some();
        if response.decision() == Decision::Deny {
            let forbids: Vec<&PolicyId> = satisfied
                .iter()
                .copied()
                .filter(|id| {
                    self.policies
                        .policy(id)
                        .is_some_and(|policy| policy.effect() == Effect::Forbid)
                })
                .collect();
            if let Some(id) = forbids.iter().find(|id| !asks(id)) {
                return Ok(HookResult::deny(said(id)));
            }
            if let Some(id) = forbids.first() {
                return Ok(HookResult::ask(said(id)));
            }
        }
        let errors: Vec<String> = diagnostics.errors().map(ToString::to_string).collect();
        if !errors.is_empty() {
            return Err(errors.join("; "));
        }
        match satisfied.iter().find(|id| asks(id)) {
            Some(id) => Ok(HookResult::ask(said(id))),
            None => Ok(HookResult::cont()),
        }
    }
}

impl PolicyEngine for CedarPolicies {
    fn decide(&self, _event: &str, data: &Value) -> Result<HookResult, String> {
        let Some((tool, input)) = tool_call(data) else {
            return Ok(HookResult::cont());
        };
        let (request, entities) = self.request(tool, input, data)?;
        self.answer(&request, &entities)
    }
}

fn empty_record() -> RestrictedExpression {
    RestrictedExpression::new_record(std::iter::empty::<(String, RestrictedExpression)>())
        .unwrap_or_else(|_| RestrictedExpression::new_bool(false))
}

/// `value` as a Cedar value (`None` for `null`). Built value by value rather than read as
/// Cedar's JSON, where `__entity` and `__extn` keys are escapes a tool's arguments must not be
/// able to write.
fn restricted(value: &Value) -> Option<RestrictedExpression> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(flag) => RestrictedExpression::new_bool(*flag),
        Value::Number(number) => match number.as_i64() {
            Some(long) => RestrictedExpression::new_long(long),
            None => RestrictedExpression::new_string(number.to_string()),
        },
        Value::String(text) => RestrictedExpression::new_string(text.clone()),
        Value::Array(items) => RestrictedExpression::new_set(items.iter().filter_map(restricted)),
        Value::Object(fields) => RestrictedExpression::new_record(
            fields
                .iter()
                .filter_map(|(key, value)| Some((key.clone(), restricted(value)?))),
        )
        // A JSON object's keys are distinct; no record can be refused.
        .unwrap_or_else(|_| empty_record()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hooks_core::HookAction;
    use serde_json::json;

    fn compiled(policies: &str) -> CedarPolicies {
        CedarPolicies::compile(Sources {
            policies,
            schema: None,
            entities: None,
        })
        .unwrap()
    }

    fn bash(command: &str) -> Value {
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "session_id": "s1"})
    }

    const GUARD: &str = r#"
        @id("no-rm-root")
        @reason("rm -rf of the root")
        forbid(principal, action == Action::"Bash", resource)
        when { context.input has command && context.input.command like "rm -rf /*" };

        @id("ask-push")
        @ask("push to a remote?")
        forbid(principal, action == Action::"Bash", resource)
        when { context.input has command && context.input.command like "git push*" };

        permit(principal, action, resource);
    "#;

    #[test]
    fn a_forbid_denies_with_its_reason_and_id() {
        let answer = compiled(GUARD)
            .decide("tool:pre", &bash("rm -rf /"))
            .unwrap();
        assert_eq!(answer.action, HookAction::Deny);
        let reason = answer.reason.unwrap();
        assert!(reason.contains("rm -rf of the root"), "{reason}");
        assert!(reason.contains("no-rm-root"), "{reason}");
    }

    #[test]
    fn an_ask_annotation_asks_and_a_permit_is_no_opinion() {
        let policies = compiled(GUARD);
        let asked = policies
            .decide("tool:pre", &bash("git push origin"))
            .unwrap();
        assert_eq!(asked.action, HookAction::AskUser);
        assert!(asked.approval_prompt.unwrap().contains("push to a remote?"));
        let permitted = policies.decide("tool:pre", &bash("ls")).unwrap();
        assert_eq!(permitted.action, HookAction::Continue);
        let prompt = policies
            .decide("prompt:submit", &json!({"prompt": "hi"}))
            .unwrap();
        assert_eq!(
            prompt.action,
            HookAction::Continue,
            "no tool call: no opinion"
        );
    }

    #[test]
    fn principal_and_arguments_are_what_the_event_says() {
        let policies = compiled(
            r#"forbid(principal == Agent::"codex", action, resource == Tool::"Write")
               when { principal.session == "s9" && context.input.size > 10 &&
                      context.input.paths.contains("a") && context.input.ratio == "0.5" };"#,
        );
        let call = json!({"agent": "codex", "session_id": "s9", "tool_name": "Write",
            "tool_input": {"size": 11, "paths": ["a", "b"], "ratio": 0.5, "gone": null}});
        assert_eq!(
            policies.decide("tool:pre", &call).unwrap().action,
            HookAction::Deny
        );
        let other = json!({"agent": "claude", "session_id": "s9", "tool_name": "Write",
            "tool_input": {"size": 11, "paths": ["a"], "ratio": 0.5}});
        assert_eq!(
            policies.decide("tool:pre", &other).unwrap().action,
            HookAction::Continue
        );
    }

    #[test]
    fn escapes_in_arguments_are_plain_records() {
        let policies = compiled(
            r#"forbid(principal, action, resource) when { context.input.x has "__entity" };"#,
        );
        let call = json!({"tool_name": "T", "tool_input": {"x": {"__entity": {"type": "Agent", "id": "root"}}}});
        assert_eq!(
            policies.decide("tool:pre", &call).unwrap().action,
            HookAction::Deny
        );
    }

    #[test]
    fn a_policy_that_errors_leaves_the_call_undecided() {
        let policies = compiled(
            r#"forbid(principal, action, resource) when { context.input.command like "*rm*" };"#,
        );
        let error = policies
            .decide(
                "tool:pre",
                &json!({"tool_name": "Read", "tool_input": {"path": "a"}}),
            )
            .unwrap_err();
        assert!(error.contains("command"), "{error}");
        let denied = policies.decide("tool:pre", &bash("rm x")).unwrap();
        assert_eq!(denied.action, HookAction::Deny);
    }

    #[test]
    fn syntax_errors_are_placed() {
        let problems = CedarPolicies::compile(Sources {
            policies: "permit(principal, action, resource);\nforbid(principal, action resource);",
            schema: None,
            entities: None,
        })
        .unwrap_err();
        assert_eq!(problems[0].part, Part::Policies);
        assert_eq!(
            problems[0].place.map(|(line, _)| line),
            Some(2),
            "{problems:?}"
        );
    }

    const SCHEMA: &str = r#"
        entity Agent = { session: String, user: String };
        entity Tool;
        action "Bash" appliesTo { principal: Agent, resource: Tool, context: { input: { command: String } } };
    "#;

    #[test]
    fn a_schema_catches_unknown_attributes_and_impossible_policies() {
        let compile = |policies| {
            CedarPolicies::compile(Sources {
                policies,
                schema: Some(SchemaText::Written(SCHEMA)),
                entities: None,
            })
        };
        let good = compile(
            r#"forbid(principal, action == Action::"Bash", resource) when { context.input.command like "*sudo*" };"#,
        );
        assert!(good.is_ok(), "{:?}", good.err());
        let problems = compile(
            "permit(principal, action, resource);\nforbid(principal, action == Action::\"Bash\", resource) when { context.input.cmd == \"x\" };",
        )
        .unwrap_err();
        assert_eq!(
            problems[0].place.map(|(line, _)| line),
            Some(2),
            "{problems:?}"
        );
        assert!(problems[0].message.contains("cmd"), "{problems:?}");
        let never =
            compile(r#"forbid(principal, action == Action::"Bash", resource) when { false };"#)
                .unwrap_err();
        assert!(never[0].message.contains("never apply"), "{never:?}");
        let call = compile(r#"forbid(principal, action == Action::"Bash", resource) when { context.input.command like "*sudo*" };"#).unwrap();
        let denied = call.decide("tool:pre", &bash("sudo ls")).unwrap();
        assert_eq!(denied.action, HookAction::Deny);
        let misfit = call
            .decide(
                "tool:pre",
                &json!({"tool_name": "Bash", "tool_input": {"command": 3}}),
            )
            .unwrap_err();
        assert!(misfit.contains("schema"), "{misfit}");
        let undeclared = call
            .decide("tool:pre", &json!({"tool_name": "Read"}))
            .unwrap();
        assert_eq!(undeclared.action, HookAction::Continue);
    }

    fn with_builtin(policies: &str) -> Result<CedarPolicies, Vec<Problem>> {
        use crate::policy::cedar_schema::{BASE, BUILTIN};
        CedarPolicies::compile(Sources {
            policies,
            schema: Some(SchemaText::Generated(vec![
                BASE.to_owned(),
                BUILTIN.to_owned(),
            ])),
            entities: None,
        })
    }

    #[test]
    fn the_builtin_schema_catches_what_a_policy_gets_wrong_about_a_builtin_tool() {
        let good = with_builtin(
            r#"forbid(principal, action == Action::"Write", resource) when { context.input.file_path like "*.env" };"#,
        );
        assert!(good.is_ok(), "{:?}", good.err());
        let unknown = with_builtin(
            r#"forbid(principal, action == Action::"Bash", resource) when { context.input.file_path == "x" };"#,
        )
        .unwrap_err();
        assert!(unknown[0].message.contains("file_path"), "{unknown:?}");
        let never = with_builtin(
            r#"forbid(principal, action == Action::"Bash", resource) when { principal.session == 3 };"#,
        )
        .unwrap_err();
        assert!(!never.is_empty());
        let impossible =
            with_builtin(r#"forbid(principal, action == Action::"Bash", resource is Agent);"#)
                .unwrap_err();
        assert!(
            impossible[0].message.contains("never apply"),
            "{impossible:?}"
        );
    }

    #[test]
    fn a_generated_schema_leaves_the_calls_unchecked() {
        let policies = with_builtin(
            r#"forbid(principal, action == Action::"Bash", resource) when { context.input.command like "*sudo*" };"#,
        )
        .unwrap();
        // Claude Code adds `description` and others; an agent may add fields of its own.
        let call =
            json!({"tool_name": "Bash", "tool_input": {"command": "sudo ls", "sandbox": true}});
        let answer = policies.decide("tool:pre", &call).unwrap();
        assert_eq!(answer.action, HookAction::Deny);
    }
}
