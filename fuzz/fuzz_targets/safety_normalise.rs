//! The safety module's normalisation of shell command lines (quoting, wrappers, substitutions,
//! separators) and of paths (`~`, `..`, doubled slashes, links): any text is judged, never a
//! panic, and the judgement is the same every time.

#![no_main]

use std::sync::OnceLock;

use hooks_std::safety::{SafetyConfig, SafetyModule, SelfProtection};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fn safety() -> &'static SafetyModule {
    static SAFETY: OnceLock<SafetyModule> = OnceLock::new();
    SAFETY.get_or_init(|| {
        let config = SafetyConfig {
            workspace: Some("/srv/app".into()),
            home: Some("/home/user".into()),
            ..SafetyConfig::default()
        };
        SafetyModule::new(config, &SelfProtection::none()).expect("the default rules compile")
    })
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&selector, rest)) = bytes.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let input = match selector % 4 {
        0 => json!({"command": text}),
        1 => json!({"file_path": text}),
        2 => json!({"command": text.split(' ').collect::<Vec<_>>()}),
        _ => json!({"command": format!("bash -c {text:?}"), "path": text}),
    };
    let first = safety().check(&input);
    assert_eq!(first, safety().check(&input), "judged differently twice");
    if let Some(reason) = first {
        assert!(!reason.is_empty());
    }
});
