//! The hooks file loader: any text, as YAML or as a Claude Code settings file (JSON), loads or
//! gives located errors, never a panic; every error names a line.

#![no_main]

use std::path::Path;

use hooks_config::load_str;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((&selector, rest)) = bytes.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let file = if selector % 4 == 0 {
        Path::new("settings.json")
    } else {
        Path::new("hooks.yaml")
    };
    match load_str(text, file, Path::new("/nonexistent-project")) {
        Ok(config) => {
            for entry in &config.entries {
                assert!(!entry.name.is_empty(), "an entry without a name");
                assert!(
                    hooks_core::events::canonicalize(&entry.event).is_ok(),
                    "an entry on an unusable event: {}",
                    entry.event
                );
            }
        }
        Err(errors) => assert!(!errors.0.is_empty(), "an error without a problem"),
    }
});
