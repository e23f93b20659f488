//! No line may crash or stall the checker: a value doubled until it is gigabytes, a quarter of
//! a million `cd`s, a hundred thousand assignments each get a decision, within a budget of work
//! far inside any agent's timeout, and what the line goes on to do is still judged.

use std::path::Path;

use hooks_safety::{Guard, SelfProtection};
use proptest::prelude::*;

fn guard() -> Guard {
    Guard::with_defaults(&SelfProtection::none()).expect("the defaults load")
}

fn rule_of(line: &str) -> Option<String> {
    guard()
        .check(line, Path::new("/srv/project"))
        .map(|denial| format!("{}:{}", denial.pack, denial.rule))
}

/// `NAME=$NAME$NAME` `times` times over a ten-byte value: 10 * 2^times bytes if it were built.
fn doubled(assign: &str, times: usize) -> String {
    let mut line = String::from("V=0123456789; ");
    for _ in 0..times {
        line.push_str(&format!("{assign}V=$V$V; "));
    }
    line
}

#[test]
fn a_value_doubled_forty_times_is_never_built() {
    // In a branch that never runs, as the shell would skip it: the line ends in a decision.
    let line = format!("if false; then {}fi; rm -rf ~", doubled("", 40));
    assert_eq!(rule_of(&line).as_deref(), Some("filesystem:rm-home"));
    let exported = format!("{}echo done", doubled("export ", 40));
    assert_eq!(rule_of(&exported), None);
}

#[test]
fn a_value_too_long_to_follow_is_unknown_to_what_deletes_it() {
    let line = format!("{}rm -rf \"$V\"", doubled("", 30));
    assert_eq!(
        rule_of(&line).as_deref(),
        Some("filesystem:rm-computed-path")
    );
}

#[test]
fn a_short_value_is_still_followed() {
    assert_eq!(
        rule_of("D=/; D=$D$D; rm -rf $D").as_deref(),
        Some("filesystem:rm-root")
    );
}

#[test]
fn a_line_of_more_commands_than_the_budget_is_denied_saying_why() {
    let line = "true; ".repeat(20_000);
    assert_eq!(rule_of(&line).as_deref(), Some("input:too-long"));
    let denial = guard().check(&line, Path::new("/")).unwrap();
    assert!(denial.message.contains("split it"), "{}", denial.message);
    // A long line of few commands is no such line: a heredoc's text is data.
    let heredoc = format!(
        "cat > notes.md <<'EOF'\n{}EOF\n",
        "a line of notes\n".repeat(100_000)
    );
    assert_eq!(rule_of(&heredoc), None);
}

#[test]
fn a_quarter_of_a_million_cds_end_in_a_decision() {
    let line = "cd a; ".repeat(250_000) + "rm -rf ~";
    assert!(rule_of(&line).is_some());
    // Under the budget, the deletion at the end is what is judged.
    let line = "cd a; ".repeat(5_000) + "rm -rf ~";
    assert_eq!(rule_of(&line).as_deref(), Some("filesystem:rm-home"));
}

#[test]
fn a_hundred_thousand_assignments_end_in_a_decision() {
    let many: String = (0..100_000).map(|i| format!("V{i}=x; ")).collect();
    assert_eq!(rule_of(&(many + "ls")).as_deref(), Some("input:too-long"));
    let some: String = (0..5_000).map(|i| format!("V{i}=x; ")).collect();
    assert_eq!(
        rule_of(&(some + "rm -rf ~")).as_deref(),
        Some("filesystem:rm-home")
    );
}

/// Pieces of shell that cost the checker more than their length: assignments that refer to
/// themselves, `cd`s, nesting, expansions, and what deletes.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "V=$V$V; ",
        "export W=$V$W$V; ",
        "cd a; ",
        "cd ..; ",
        "$(",
        ")",
        "( ",
        " )",
        "\"$V\"",
        "`",
        "{ ",
        " }",
        "<<EOF\n",
        "EOF\n",
        "bash -c '",
        "'",
        " | ",
        " && ",
        "rm -rf $V; ",
        "V=0123456789abcdef; ",
        "; ",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any mix of the costly pieces, each repeated up to thousands of times (lines up to a
    /// couple of megabytes), gets an answer without a panic.
    #[test]
    fn any_line_of_costly_pieces_gets_an_answer(
        runs in prop::collection::vec((piece(), 1usize..4_000), 1..40)
    ) {
        let line: String = runs.iter().map(|(piece, times)| piece.repeat(*times)).collect();
        prop_assume!(line.len() < 2 * 1024 * 1024);
        let _ = guard().check(&line, Path::new("/srv/project"));
    }
}
