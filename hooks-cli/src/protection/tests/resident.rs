//! The agent cannot stop the resident guard from its own shell: killing `hooks serve` or
//! `hooks mcp-proxy`, or stopping the user service that runs the server, is refused whatever
//! the packs, while stopping other programs stays allowed.

const STOP: &str = "guard:stop-guard";

fn check_with(packs: &[&str], line: &str) -> Option<String> {
    super::denial(packs, line).map(|(id, _)| id)
}

fn check(line: &str) -> Option<String> {
    check_with(&["default"], line)
}

#[test]
fn killing_the_server_or_the_proxy_by_name_is_refused() {
    for line in [
        "pkill hooks",
        "pkill -9 hooks",
        "pkill -f 'hooks serve'",
        "pkill -f \"hooks serve\"",
        "pkill --full 'hooks mcp-proxy'",
        "pkill -f serve",
        "pkill -TERM -x hooks",
        "pkill -if 'HOOKS SERVE'",
        "pkill -f '^/home/dev/.cargo/bin/hooks serve'",
        "pkill -u dev",
        "pkill -v -f vite",
        "killall hooks",
        "killall -9 hooks",
        "killall -s KILL /usr/local/bin/hooks",
        "killall -r '^hoo'",
        "killall -u dev",
        "kill $(pgrep -f hooks)",
        "kill -9 $(pgrep -f 'hooks serve')",
        "kill `pidof hooks`",
        "kill -9 $(lsof -t -i :8787)",
        "kill $(ps aux | grep 'hooks serve' | awk '{print $2}')",
        "kill -9 -1",
        "pgrep -f hooks | xargs kill",
        "pgrep hooks | xargs -I{} kill -9 {}",
        "fuser -k 8787/tcp",
        "fuser -k -n tcp 8787",
        "fuser -km /usr/local/bin/hooks",
    ] {
        assert_eq!(check(line).as_deref(), Some(STOP), "{line}");
    }
}

#[test]
fn stopping_the_user_service_is_refused() {
    for line in [
        "systemctl --user stop hooks-serve",
        "systemctl --user stop hooks-serve.service",
        "systemctl --user disable --now hooks-serve.service",
        "systemctl --user kill -s KILL hooks-serve",
        "systemctl --user mask hooks-serve.service",
        "systemctl --user stop 'hooks-*'",
        "systemctl --user exit",
        "launchctl unload ~/Library/LaunchAgents/hooks.serve.plist",
        "launchctl bootout gui/501/hooks.serve",
        "launchctl remove hooks.serve",
    ] {
        assert_eq!(check(line).as_deref(), Some(STOP), "{line}");
    }
}

#[test]
fn every_way_in_is_followed_and_no_pack_switches_the_rule_off() {
    for line in [
        "sudo pkill -f 'hooks serve'",
        "timeout 5 killall hooks",
        "bash -c 'pkill hooks'",
        "cd /tmp && nohup systemctl --user stop hooks-serve &",
        "echo done; env pkill -f hooks",
    ] {
        assert_eq!(check(line).as_deref(), Some(STOP), "{line}");
    }
    // The guard protects itself whatever the packs, as it does its files.
    assert_eq!(
        check_with(&["strict_git"], "pkill -f 'hooks serve'").as_deref(),
        Some(STOP)
    );
}

#[test]
fn stopping_other_programs_stays_allowed() {
    for line in [
        "kill %1",
        "kill 999999999",
        "kill -0 $(pgrep -f hooks)",
        "kill -l",
        "kill $(pgrep -f vite)",
        "kill $(cat /tmp/dev-server.pid)",
        "pkill -f my-hooks-test-server",
        "pkill -f 'npm run dev'",
        "pkill node",
        "pkill -f cargo-watch",
        "pkill -f server",
        "killall node",
        "killall my-hooks",
        "pgrep -f hooks",
        "pidof hooks",
        "ps aux | grep hooks",
        "fuser 8787/tcp",
        "fuser -k 3000/tcp",
        "lsof -ti :3000 | xargs kill",
        "systemctl --user stop my-app.service",
        "systemctl --user status hooks-serve",
        "systemctl --user restart hooks-serve",
        "systemctl --user exit-code",
        "launchctl list hooks.serve",
        "launchctl unload ~/Library/LaunchAgents/com.example.app.plist",
        "hooks serve --ensure",
        "grep -rn 'pkill hooks' docs",
    ] {
        assert_eq!(check(line), None, "{line}");
    }
}

/// A process whose command line is `…/hooks serve`, as `/proc` shows it: a copy of `sh`
/// named `hooks`, running a script named `serve`.
#[cfg(target_os = "linux")]
#[test]
fn a_literal_process_id_of_the_server_is_looked_up() {
    let dir = std::env::temp_dir().join(format!("hooks-safety-resident-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("hooks");
    std::fs::copy("/bin/sh", &binary).unwrap();
    std::fs::write(dir.join("serve"), "while :; do sleep 1; done\n").unwrap();
    let mut server = std::process::Command::new(&binary)
        .arg("serve")
        .current_dir(&dir)
        .spawn()
        .unwrap();
    let mut other = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let server_kill = check(&format!("kill -9 {}", server.id()));
    let other_kill = check(&format!("kill {}", other.id()));
    let _ = server.kill();
    let _ = other.kill();
    let _ = server.wait();
    let _ = other.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(server_kill.as_deref(), Some(STOP));
    assert_eq!(other_kill, None);
}
