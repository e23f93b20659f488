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

use std::process::ExitCode;

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
    let bytes = guests::guest(
        &guests::answer(guests::CONTINUE, None),
        &guests::filler(functions),
    );
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
