//! `hooks mcp wrap` and `hooks mcp unwrap` on a project whose servers are given by URL: the
//! open one runs through `hooks mcp-proxy --upstream`, the one with credentials is left alone
//! and the report says why, and unwrapping gives the file back as it was.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

fn hooks(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hooks"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

const MCP_JSON: &str = r#"{
  "mcpServers": {
    "open": {
      "type": "http",
      "url": "http://127.0.0.1:9000/mcp"
    },
    "private": {
      "type": "http",
      "url": "https://api.example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${API_TOKEN}"
      }
    }
  }
}
"#;

#[test]
fn a_url_server_is_wrapped_one_with_headers_is_reported_and_unwrap_restores_the_file() {
    let dir = std::env::temp_dir().join(format!("hooks-cli-mcp-wrap-url-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hooks.yaml"), "hooks: {}\n").unwrap();
    std::fs::write(dir.join(".mcp.json"), MCP_JSON).unwrap();

    let wrap = hooks(&dir, &["mcp", "wrap"]);
    let report = String::from_utf8_lossy(&wrap.stdout);
    assert!(wrap.status.success(), "{wrap:?}");
    assert!(report.contains("--upstream"), "{report}");
    let line = report
        .lines()
        .find(|line| line.starts_with("not wrapped:"))
        .unwrap_or_else(|| panic!("the report names the server left alone: {report}"));
    assert!(
        line.contains("`private`") && line.contains("`headers`"),
        "{line}"
    );

    let wrapped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(".mcp.json")).unwrap()).unwrap();
    let open = &wrapped["mcpServers"]["open"];
    assert_eq!(open["type"], "stdio");
    assert_eq!(open["args"][0], "mcp-proxy");
    assert_eq!(open["args"][4], "open");
    assert_eq!(open["args"][6], "http://127.0.0.1:9000/mcp");
    assert_eq!(
        wrapped["mcpServers"]["private"]["url"],
        "https://api.example.com/mcp"
    );

    let unwrap = hooks(&dir, &["mcp", "unwrap"]);
    assert!(unwrap.status.success(), "{unwrap:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join(".mcp.json")).unwrap(),
        MCP_JSON
    );
    let _ = std::fs::remove_dir_all(&dir);
}
