//! The terminal provider asks, reads and falls back; the terminal display writes by level.

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hooks_core::session::DisplaySink;
use hooks_core::session::approval::{ApprovalRequest, Approvals, DecisionSource};
use hooks_core::{ApprovalDefault, HookRegistry, HookResult, MessageLevel};
use hooks_std::terminal::{TerminalApprovals, TerminalDisplay};

/// A writer whose bytes the test can read afterwards.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("capture lock")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("capture lock")).into_owned()
    }
}

fn request(default: ApprovalDefault) -> ApprovalRequest {
    let asked = HookResult::ask("Run `make deploy`?")
        .with_reason("deploys are irreversible")
        .with_approval_options(["Allow once", "Allow always", "Deny"])
        .with_approval_timeout(Duration::from_secs(5))
        .with_approval_default(default);
    ApprovalRequest::from_result(&asked, "tool:pre", Some("deploy_guard".into()))
}

fn approvals(provider: TerminalApprovals) -> Approvals {
    Approvals::new(Some(Arc::new(provider)), HookRegistry::new())
}

#[tokio::test]
async fn the_user_answers_by_number_or_by_name() {
    let output = Captured::default();
    let terminal = TerminalApprovals::with_io(Cursor::new("2\n"), output.clone(), true);

    let decision = approvals(terminal)
        .decide(&request(ApprovalDefault::Deny))
        .await;

    assert!(decision.allowed);
    assert_eq!(decision.choice.as_deref(), Some("Allow always"));
    let shown = output.text();
    assert!(shown.contains("? Run `make deploy`?"), "{shown}");
    assert!(shown.contains("(deploys are irreversible)"));
    assert!(shown.contains("1) Allow once") && shown.contains("3) Deny"));
    assert!(shown.contains("default: deny"));

    let terminal = TerminalApprovals::with_io(Cursor::new("DENY\n"), Captured::default(), true);
    let decision = approvals(terminal)
        .decide(&request(ApprovalDefault::Allow))
        .await;
    assert!(!decision.allowed);
}

#[tokio::test]
async fn unusable_answers_are_asked_again_then_fall_back_to_the_default() {
    let output = Captured::default();
    let terminal = TerminalApprovals::with_io(Cursor::new("maybe\n9\n1\n"), output.clone(), true);
    let decision = approvals(terminal)
        .decide(&request(ApprovalDefault::Deny))
        .await;
    assert_eq!(
        decision.choice.as_deref(),
        Some("Allow once"),
        "the third answer counts"
    );
    assert!(output.text().contains("`maybe` is not one of the options"));

    let terminal =
        TerminalApprovals::with_io(Cursor::new("x\ny\nz\n1\n"), Captured::default(), true);
    let decision = approvals(terminal)
        .decide(&request(ApprovalDefault::Deny))
        .await;
    assert!(!decision.allowed);
    assert!(
        matches!(decision.source, DecisionSource::ProviderError(_)),
        "{:?}",
        decision.source
    );
}

#[tokio::test]
async fn without_a_terminal_the_default_applies_at_once_and_nothing_is_read() {
    let output = Captured::default();
    let terminal = TerminalApprovals::with_io(Cursor::new("1\n"), output.clone(), false);

    let denied = approvals(terminal.clone())
        .decide(&request(ApprovalDefault::Deny))
        .await;
    let allowed = approvals(terminal)
        .decide(&request(ApprovalDefault::Allow))
        .await;

    assert!(!denied.allowed && allowed.allowed);
    assert!(matches!(denied.source, DecisionSource::ProviderError(_)));
    assert!(
        output.text().is_empty(),
        "nothing is printed to a non-terminal"
    );
}

#[tokio::test]
async fn a_closed_terminal_gives_the_default() {
    let terminal = TerminalApprovals::with_io(Cursor::new(""), Captured::default(), true);
    let decision = approvals(terminal)
        .decide(&request(ApprovalDefault::Deny))
        .await;
    assert!(!decision.allowed);
}

#[test]
fn the_display_writes_each_message_with_its_level_and_hook() {
    let plain = Captured::default();
    let coloured = Captured::default();
    let message =
        |level| hooks_core::UserMessage::new("linter found 2 issues", level, "linter", "tool:post");

    TerminalDisplay::with_writer(plain.clone(), false).show(&message(MessageLevel::Warning));
    TerminalDisplay::with_writer(coloured.clone(), true).show(&message(MessageLevel::Error));

    assert_eq!(plain.text(), "[warning] linter found 2 issues (linter)\n");
    let nested = Captured::default();
    TerminalDisplay::with_writer(nested.clone(), false)
        .indented("  ")
        .show(&message(MessageLevel::Info));
    assert_eq!(nested.text(), "  [info] linter found 2 issues (linter)\n");
    assert_eq!(
        coloured.text(),
        "[\x1b[31merror\x1b[0m] linter found 2 issues (linter)\n"
    );
}
