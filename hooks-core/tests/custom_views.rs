//! An application's own event with a view of its own: the view trait is open, and a function
//! taking such a view registers (by `register_view` or `#[hook]`) as one taking a built-in view.

#![allow(clippy::unwrap_used)]

use hooks_core::view::{EventView, ViewError, field};
use hooks_core::{FailureKind, HookAction, HookOptions, HookRegistry, HookResult, hook};
use serde_json::{Value, json};

/// `billing:charge`: the application is about to charge a customer.
#[derive(Debug, Clone, Copy)]
struct Charge<'a> {
    data: &'a Value,
    customer: &'a str,
    note: Option<&'a str>,
}

impl<'a> EventView<'a> for Charge<'a> {
    const EVENT: &'static str = "billing:charge";
    type At<'b> = Charge<'b>;

    fn from_data(data: &'a Value) -> Result<Self, ViewError> {
        let object = field::object(data, Self::EVENT)?;
        Ok(Charge {
            data,
            customer: field::required(object, Self::EVENT, "customer")?,
            note: field::optional(object, Self::EVENT, "note")?,
        })
    }

    fn data(&self) -> &'a Value {
        self.data
    }
}

impl Charge<'_> {
    fn cents(&self) -> u64 {
        self.data["cents"].as_u64().unwrap_or(0)
    }
}

async fn cap_charges(charge: Charge<'_>) -> HookResult {
    if charge.cents() > 10_000 {
        HookResult::deny(format!("{} would be charged over the cap", charge.customer))
    } else {
        HookResult::inject(format!("charging {} ({:?})", charge.customer, charge.note))
    }
}

#[hook(priority = 5)]
async fn annotated_charge_audit(charge: Charge<'_>) -> HookResult {
    HookResult::cont().with_user_message(
        format!("audit: {}", charge.customer),
        hooks_core::MessageLevel::Info,
    )
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn a_function_taking_an_application_view_registers_for_the_views_event() {
    block_on(async {
        let registry = HookRegistry::new();
        let handle = registry
            .register_view(cap_charges, HookOptions::new().name("cap"))
            .unwrap();
        assert_eq!(handle.event(), "billing:charge");

        let small = registry
            .emit(
                "billing:charge",
                json!({"customer": "ada", "cents": 500, "note": "tea"}),
            )
            .await;
        assert_eq!(small.action(), HookAction::InjectContext);
        assert_eq!(small.injections[0].text, r#"charging ada (Some("tea"))"#);

        let large = registry
            .emit(
                "billing:charge",
                json!({"customer": "bob", "cents": 50_000}),
            )
            .await;
        assert!(large.is_denied());
        assert_eq!(
            large.result.reason.as_deref(),
            Some("bob would be charged over the cap")
        );
    });
}

#[test]
fn data_the_application_view_refuses_is_the_handlers_failure() {
    block_on(async {
        let registry = HookRegistry::new();
        registry
            .register_view(
                cap_charges,
                HookOptions::new().name("cap").fail_closed(true),
            )
            .unwrap();
        let outcome = registry
            .emit("billing:charge", json!({"customer": 7, "cents": 1}))
            .await;
        assert!(
            outcome.is_denied(),
            "a fail-closed handler denies what it cannot read"
        );
        assert!(matches!(outcome.failures[0].kind, FailureKind::Error(_)));
    });
}

#[test]
fn hook_attribute_infers_the_event_of_an_application_view() {
    let annotated = hooks_core::annotated_hooks()
        .iter()
        .find(|hook| hook.name() == "custom_views::annotated_charge_audit")
        .expect("registered by #[hook]");
    assert_eq!(annotated.event(), "billing:charge");
    assert_eq!(annotated.priority(), 5);
    block_on(async {
        let registry = HookRegistry::with_annotated().unwrap();
        let outcome = registry
            .emit("billing:charge", json!({"customer": "ada"}))
            .await;
        assert_eq!(outcome.messages[0].text, "audit: ada");
    });
}
