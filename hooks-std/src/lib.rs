//! Standard pieces for `hooks-core` applications: the terminal approval provider and display
//! (the kernel itself does no I/O). The standard hook modules and the runners of
//! YAML-configured hooks will live here too.

pub mod terminal;

pub use hooks_core as core;
