//! Real components, built from core modules in the WebAssembly text format and the shipped
//! WIT with wit-component: no toolchain beyond cargo is needed. Also read by the
//! `bench-component` example, so nothing here needs a test's environment.

#![allow(dead_code, missing_docs)]

use std::fmt::Write as _;

use wit_component::{ComponentEncoder, StringEncoding};
use wit_parser::Resolve;

pub const GUEST_WIT: &str = include_str!("../../wit/guest.wit");
pub const AMPLIFIER_WIT: &str = include_str!("../../wit/amplifier.wit");

/// The few WASI interfaces a `wasm32-wasip2` component imports without using them, as a
/// component sees them (a subset of what the host links).
const WASI_WIT: &[(&str, &str)] = &[
    (
        "wasi-cli.wit",
        "package wasi:cli@0.2.0;
         interface environment { get-environment: func() -> list<tuple<string, string>>; }",
    ),
    (
        "wasi-filesystem.wit",
        "package wasi:filesystem@0.2.0;
         interface types { resource descriptor; }
         interface preopens {
             use types.{descriptor};
             get-directories: func() -> list<tuple<descriptor, string>>;
         }",
    ),
    (
        "wasi-io.wit",
        "package wasi:io@0.2.0;
         interface streams { resource output-stream; }
         interface poll { resource pollable { block: func(); } }",
    ),
    (
        "wasi-random.wit",
        "package wasi:random@0.2.0;
         interface random { get-random-u64: func() -> u64; }",
    ),
    (
        "wasi-clocks.wit",
        "package wasi:clocks@0.2.0;
         interface monotonic-clock {
             use wasi:io/poll@0.2.0.{pollable};
             type duration = u64;
             subscribe-duration: func(when: duration) -> pollable;
         }",
    ),
];

/// A component of `world` (in `package`, after the WASI and shipped packages) from a core
/// module in text.
pub fn component(package: &str, world: &str, core: &str) -> Vec<u8> {
    let mut resolve = Resolve::default();
    for (path, text) in WASI_WIT {
        resolve.push_source(path, text).expect("WASI WIT parses");
    }
    resolve
        .push_source("amplifier.wit", AMPLIFIER_WIT)
        .expect("amplifier WIT parses");
    let guest = resolve
        .push_source("guest.wit", GUEST_WIT)
        .expect("guest WIT parses");
    let main = if package.is_empty() {
        guest
    } else {
        resolve
            .push_source("test.wit", package)
            .expect("test WIT parses")
    };
    let world = resolve
        .select_world(&[main], Some(world))
        .expect("the world exists");
    let mut module = wat::parse_str(core).expect("the core module parses");
    wit_component::embed_component_metadata(&mut module, &resolve, world, StringEncoding::UTF8)
        .expect("metadata embeds");
    ComponentEncoder::default()
        .validate(true)
        .module(&module)
        .expect("the module is accepted")
        .encode()
        .expect("the component encodes")
}

/// A component of the test world `name`, which imports the `imports` (interfaces of the WASI
/// packages above) and exports our hook, from a core module in text.
pub fn importing(name: &str, imports: &[&str], core: &str) -> Vec<u8> {
    let imports: String = imports
        .iter()
        .map(|interface| format!("import {interface}; "))
        .collect();
    let package =
        format!("package test:{name}; world {name} {{ {imports}export hooks:guest/hook@0.1.0; }}");
    component(&package, name, core)
}

/// The memory, a bump `cabi_realloc` and the return area every test module shares.
/// Offsets: return area at 16 (120 bytes), strings from 256, the heap from 4096.
pub const RUNTIME: &str = r#"
    (memory (export "memory") 1)
    (global $heap (mut i32) (i32.const 4096))
    (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
      (local $at i32)
      (local.set $at
        (i32.and
          (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
          (i32.xor (i32.sub (local.get 2) (i32.const 1)) (i32.const -1))))
      (global.set $heap (i32.add (local.get $at) (local.get 3)))
      (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
        (then
          (drop (memory.grow
            (i32.add (i32.div_u (i32.sub (global.get $heap)
                                         (i32.mul (memory.size) (i32.const 65536)))
                                (i32.const 65536))
                     (i32.const 1))))))
      (local.get $at))
"#;

/// `subscriptions` answering `["tool:pre"]`.
pub const SUBSCRIPTIONS: &str = r#"
    ;; subscriptions: ["tool:pre"] (the list at 200, its one string at 208).
    (data (i32.const 240) "tool:pre")
    (func (export "hooks:guest/hook@0.1.0#subscriptions") (param i32 i32) (result i32)
      (i32.store (i32.const 208) (i32.const 240))
      (i32.store (i32.const 212) (i32.const 8))
      (i32.store (i32.const 200) (i32.const 208))
      (i32.store (i32.const 204) (i32.const 1))
      (i32.const 200))
"#;

/// A core module of our world whose `handle` runs `body` (which leaves the return area's
/// address, 16, on the stack), with `data` segments added.
pub fn guest_module(body: &str, data: &str) -> String {
    format!(
        r#"(module {RUNTIME} {SUBSCRIPTIONS} {data}
            (func (export "hooks:guest/hook@0.1.0#handle")
              (param i32 i32 i32 i32) (result i32)
              {body}))"#
    )
}

/// A component of our world whose `handle` runs `body`.
pub fn guest(body: &str, data: &str) -> Vec<u8> {
    component("", "guest", &guest_module(body, data))
}

/// Where the `hook-result` record starts in the return area (after the result's tag).
pub const RECORD: i32 = 16 + 8;

/// A `handle` body answering `action` (its enum index) with an optional string field
/// `(offset in the record, address, length)`.
pub fn answer(action: i32, field: Option<(i32, i32, i32)>) -> String {
    let mut body = format!(
        "(i32.store8 (i32.const 16) (i32.const 0))
         (i32.store8 (i32.const {RECORD}) (i32.const {action}))"
    );
    if let Some((offset, address, length)) = field {
        let at = RECORD + offset;
        body.push_str(&format!(
            "(i32.store8 (i32.const {at}) (i32.const 1))
             (i32.store (i32.const {}) (i32.const {address}))
             (i32.store (i32.const {}) (i32.const {length}))",
            at + 4,
            at + 8
        ));
    }
    body.push_str("(i32.const 16)");
    body
}

/// The record's offsets of its `data` and `reason` options.
pub const DATA: i32 = 4;
pub const REASON: i32 = 16;

/// The record's action indices.
pub const CONTINUE: i32 = 0;
pub const DENY: i32 = 1;
pub const MODIFY: i32 = 2;

/// One function in this many is in the module's table of [`filler`], as functions whose
/// address is taken (trait objects, closures passed around) are in a Rust module's.
const IN_TABLE_EVERY: usize = 4;

/// `functions` functions to add to a guest's module, each a little arithmetic, a branch and a
/// call to the next (so that none is trivially alike), one in [`IN_TABLE_EVERY`] in a table:
/// a component the size of a real one (a Rust hook for `wasm32-wasip2` holds thousands of
/// functions). Never called.
pub fn filler(functions: usize) -> String {
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
