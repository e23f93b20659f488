//! WASI as the host links it: every interface wasmtime-wasi implements, each linked the first
//! time a component loaded by the runtime imports it.
//!
//! # Why on demand
//!
//! Linking all of WASI defines a few hundred host functions, each with its type registered in
//! the engine: about 150 µs, paid by every process that loads one component, whatever the
//! component imports. A hook of our world built from text imports none of it, and one built for
//! `wasm32-wasip2` the interfaces its standard library was linked with, usually no sockets.
//! Linking what is imported gives the same instance: every WASI interface a component imports
//! is there, and the store grants it nothing unless told.

use wasmtime::component::{Component, HasData, Linker};
use wasmtime_wasi::p2::bindings::{cli, clocks, filesystem, io, random, sockets};
use wasmtime_wasi::p2::{IoImpl, WasiImpl};

use crate::sandbox::State;

/// What links one interface.
type Link = fn(&mut Linker<State>) -> wasmtime::Result<()>;

/// The store's WASI context, as the host functions of most interfaces see it.
struct Wasi;

impl HasData for Wasi {
    type Data<'a> = WasiImpl<&'a mut State>;
}

/// The store's resources, as the host functions of `wasi:io` see them.
struct Io;

impl HasData for Io {
    type Data<'a> = IoImpl<&'a mut State>;
}

fn wasi(state: &mut State) -> WasiImpl<&mut State> {
    WasiImpl(IoImpl(state))
}

fn io(state: &mut State) -> IoImpl<&mut State> {
    IoImpl(state)
}

/// Every interface, by its name without a version (a linked interface satisfies the imports of
/// every earlier 0.2 version), as `wasmtime_wasi::p2::add_to_linker_async` links them.
const INTERFACES: &[(&str, Link)] = &[
    ("wasi:io/error", |l| {
        io::error::add_to_linker::<_, Io>(l, io)
    }),
    ("wasi:io/poll", |l| io::poll::add_to_linker::<_, Io>(l, io)),
    ("wasi:io/streams", |l| {
        io::streams::add_to_linker::<_, Io>(l, io)
    }),
    ("wasi:clocks/wall-clock", |l| {
        clocks::wall_clock::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:clocks/monotonic-clock", |l| {
        clocks::monotonic_clock::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:filesystem/types", |l| {
        filesystem::types::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:filesystem/preopens", |l| {
        filesystem::preopens::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:random/random", |l| {
        random::random::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:random/insecure", |l| {
        random::insecure::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:random/insecure-seed", |l| {
        random::insecure_seed::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/exit", |l| {
        cli::exit::add_to_linker::<_, Wasi>(l, &cli::exit::LinkOptions::default(), wasi)
    }),
    ("wasi:cli/environment", |l| {
        cli::environment::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/stdin", |l| {
        cli::stdin::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/stdout", |l| {
        cli::stdout::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/stderr", |l| {
        cli::stderr::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/terminal-input", |l| {
        cli::terminal_input::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/terminal-output", |l| {
        cli::terminal_output::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/terminal-stdin", |l| {
        cli::terminal_stdin::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/terminal-stdout", |l| {
        cli::terminal_stdout::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:cli/terminal-stderr", |l| {
        cli::terminal_stderr::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/tcp", |l| {
        sockets::tcp::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/udp", |l| {
        sockets::udp::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/tcp-create-socket", |l| {
        sockets::tcp_create_socket::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/udp-create-socket", |l| {
        sockets::udp_create_socket::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/instance-network", |l| {
        sockets::instance_network::add_to_linker::<_, Wasi>(l, wasi)
    }),
    ("wasi:sockets/network", |l| {
        sockets::network::add_to_linker::<_, Wasi>(
            l,
            &sockets::network::LinkOptions::default(),
            wasi,
        )
    }),
    ("wasi:sockets/ip-name-lookup", |l| {
        sockets::ip_name_lookup::add_to_linker::<_, Wasi>(l, wasi)
    }),
];

/// A linker holding the WASI interfaces linked so far.
pub(crate) struct WasiLinker {
    linker: Linker<State>,
    /// Which of [`INTERFACES`] are linked, by index.
    linked: u32,
}

impl WasiLinker {
    /// A linker with nothing linked yet.
    pub(crate) fn new(engine: &wasmtime::Engine) -> Self {
        const { assert!(INTERFACES.len() <= u32::BITS as usize) };
        WasiLinker {
            linker: Linker::new(engine),
            linked: 0,
        }
    }

    /// The linker, with every WASI interface `component` imports linked. An import that is not
    /// WASI, or of an interface wasmtime-wasi does not implement, is left for instantiation to
    /// report.
    pub(crate) fn for_component(
        &mut self,
        engine: &wasmtime::Engine,
        component: &Component,
    ) -> wasmtime::Result<&Linker<State>> {
        for (name, _) in component.component_type().imports(engine) {
            let unversioned = name.split_once('@').map_or(name, |(name, _)| name);
            let Some(index) = INTERFACES
                .iter()
                .position(|(interface, _)| *interface == unversioned)
            else {
                continue;
            };
            let bit = 1 << index;
            if self.linked & bit == 0 {
                (INTERFACES[index].1)(&mut self.linker)?;
                self.linked |= bit;
            }
        }
        Ok(&self.linker)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each entry of the table is an interface wasmtime-wasi's own `add_to_linker_async` links
    /// under that name: linked again over it, each clashes. (The other way round, an interface
    /// wasmtime-wasi links that the table lacks would make a component importing it fail to
    /// load, naming the import: refused, never run with less.)
    #[test]
    fn each_interface_is_one_wasmtime_wasi_links() -> wasmtime::Result<()> {
        let mut config = wasmtime::Config::new();
        config.async_support(true);
        let engine = wasmtime::Engine::new(&config)?;
        let mut theirs = Linker::<State>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut theirs)?;
        for (name, link) in INTERFACES {
            let mut alone = Linker::<State>::new(&engine);
            link(&mut alone).map_err(|error| error.context(format!("{name} alone")))?;
            let clash = link(&mut theirs).expect_err(name);
            assert!(
                format!("{clash:#}").contains(name),
                "{name} clashed elsewhere: {clash:#}"
            );
        }
        Ok(())
    }
}
