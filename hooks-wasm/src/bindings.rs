//! The host's side of the two worlds, generated from the `.wit` files shipped in `wit/`.

/// `hooks:guest@0.1.0`, the world of ours.
#[allow(missing_docs, clippy::all)]
pub(crate) mod guest {
    wasmtime::component::bindgen!({
        path: "wit/guest.wit",
        world: "guest",
        async: true,
    });
}

/// `amplifier:modules@1.0.0`'s `hook-module`, the reference's world.
#[allow(missing_docs, clippy::all)]
pub(crate) mod amplifier {
    wasmtime::component::bindgen!({
        path: "wit/amplifier.wit",
        world: "hook-module",
        async: true,
    });
}
