//! `HookResult` JSON parsing: any bytes either fail to parse or give a result that survives
//! a round trip through its own JSON unchanged.

#![no_main]

use hooks_core::HookResult;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(result) = serde_json::from_slice::<HookResult>(bytes) else {
        return;
    };
    // What we accepted we can write, and what we write reads back as the same result.
    let written = serde_json::to_string(&result).expect("a parsed result serialises");
    let again: HookResult = serde_json::from_str(&written)
        .unwrap_or_else(|e| panic!("our own JSON does not parse: {e}: {written}"));
    assert_eq!(result, again, "round trip changed the result: {written}");
    let _ = result.approval_timeout_duration();
    let _ = result.effective_approval_options();
});
