//! Writes the component the agent-start bench runs (BENCHMARKS.md, "WebAssembly hooks"): a
//! hook of our world that subscribes to `tool:pre` and lets every call through, with as many
//! filler functions as asked, so that its cost can be measured at the size of a real hook (one
//! built from Rust for `wasm32-wasip2` holds thousands of functions).
//!
//! ```sh
//! cargo run -p hooks-wasm --example bench-component -- allow.wasm
//! cargo run -p hooks-wasm --example bench-component -- big.wasm 5000
//! ```

#[path = "../tests/support/guests.rs"]
mod guests;

use std::fmt::Write as _;
use std::process::ExitCode;

/// One function in this many is in the module's table, as functions whose address is taken
/// (trait objects, closures passed around) are in a Rust module's.
const IN_TABLE_EVERY: usize = 4;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (out, functions) = match args.as_slice() {
        [out] => (out, 0),
        [out, functions] => match functions.parse::<usize>() {
            Ok(functions) => (out, functions),
            Err(_) => return usage(&format!("`{functions}` is not a count of functions")),
        },
        _ => return usage("expected the output file and, optionally, a count of functions"),
    };
    let bytes = guests::guest(&guests::answer(guests::CONTINUE, None), &filler(functions));
    if let Err(error) = std::fs::write(out, &bytes) {
        eprintln!("error: cannot write {out}: {error}");
        return ExitCode::FAILURE;
    }
    println!("{out}: {} bytes, {functions} filler functions", bytes.len());
    ExitCode::SUCCESS
}

fn usage(why: &str) -> ExitCode {
    eprintln!("error: {why}\nusage: bench-component OUT.wasm [FUNCTIONS]");
    ExitCode::from(2)
}

/// `functions` functions, each a little arithmetic, a branch and a call to the next (so that
/// none is trivially alike), one in [`IN_TABLE_EVERY`] in a table. Never called: what is
/// measured is what loading them costs.
fn filler(functions: usize) -> String {
    let mut text = String::new();
    for k in 0..functions {
        let next = if k + 1 < functions {
            format!("(call $f{} (i32.sub (local.get 0) (i32.const 1)))", k + 1)
        } else {
            "(local.get 0)".to_string()
        };
        let _ = write!(
            text,
            "(func $f{k} (param i32) (result i32)
               (if (result i32) (i32.eqz (local.get 0))
                 (then (i32.const {k}))
                 (else (i32.add (i32.mul {next} (i32.const {odd})) (i32.const {k})))))",
            odd = 2 * k + 1,
        );
    }
    let in_table: Vec<String> = (0..functions)
        .step_by(IN_TABLE_EVERY)
        .map(|k| format!("$f{k}"))
        .collect();
    if !in_table.is_empty() {
        let _ = write!(
            text,
            "(table {len} funcref) (elem (i32.const 0) func {names})",
            len = in_table.len(),
            names = in_table.join(" ")
        );
    }
    text
}
