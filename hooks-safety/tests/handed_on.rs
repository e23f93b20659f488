//! Commands handed on to another program (xargs, parallel, find -exec, wrappers, applets,
//! remote shells, unknown tools), paths whose meaning the line changes (variables it assigns,
//! `cd` to a computed place, other users' homes), git's quieter ways to lose work, and the
//! near misses of each, which must pass.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use hooks_safety::{Guard, SafetyConfig, SelfProtection};

const WORKSPACE: &str = "/srv/project";

fn guard() -> Guard {
    Guard::new(
        SafetyConfig {
            workspace: Some(WORKSPACE.into()),
            home: Some("/home/dev".into()),
            ..SafetyConfig::default()
        },
        &SelfProtection::none(),
    )
    .unwrap()
}

/// The id of the rule that denies `line` run in the workspace, if any.
fn rule(guard: &Guard, line: &str) -> Option<String> {
    guard
        .check(line, Path::new(WORKSPACE))
        .map(|denial| denial.id())
}

fn assert_denied(table: &[(&str, &str)]) {
    let guard = guard();
    let wrong: Vec<String> = table
        .iter()
        .filter_map(|(line, id)| {
            let got = rule(&guard, line);
            (got.as_deref() != Some(*id)).then(|| format!("{line:?}: expected {id}, got {got:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn assert_allowed(lines: &[&str]) {
    let guard = guard();
    let denied: Vec<String> = lines
        .iter()
        .filter_map(|line| rule(&guard, line).map(|id| format!("{line:?}: {id}")))
        .collect();
    assert!(denied.is_empty(), "{denied:#?}");
}

#[test]
fn xargs_is_read_by_its_own_options() {
    assert_denied(&[
        (
            "printf '/\\n' | xargs --replace=P rm -rf P",
            "filesystem:rm-root",
        ),
        ("echo ~ | xargs -J X rm -rf X", "filesystem:rm-home"),
        (
            "echo /usr/lib | xargs -L1 -P2 rm -r -f",
            "filesystem:rm-system",
        ),
        ("echo / | xargs -t -r rm -rf", "filesystem:rm-root"),
        ("ls | xargs -d '\\n' rm -rf", "filesystem:rm-computed-path"),
        (
            "xargs -a targets.txt rm -r -f",
            "filesystem:rm-computed-path",
        ),
        (
            "echo / | xargs -i{} sh -c 'rm -rf {}'",
            "filesystem:rm-root",
        ),
        ("echo 'git clean -fdx' | xargs -0 sh -c", "git:clean-force"),
        ("echo / | xargs xargs rm -rf", "filesystem:rm-root"),
        ("echo / | xargs -i rm -fr", "filesystem:rm-root"),
    ]);
    assert_allowed(&[
        "git ls-files '*.rs' | xargs wc -l",
        "find . -name '*.tmp' -print0 | xargs -0 rm -f",
        "echo target | xargs -I D rm -rf D",
        "ls *.log | xargs -n1 gzip",
    ]);
}

#[test]
fn parallel_runs_its_template_with_each_argument() {
    assert_denied(&[
        ("parallel rm -rf {} ::: dist /", "filesystem:rm-root"),
        ("parallel rm -rf ::: ~", "filesystem:rm-home"),
        ("parallel ::: 'git clean -fdx' 'ls'", "git:clean-force"),
        ("printf '/\\n' | parallel rm -rf", "filesystem:rm-root"),
        (
            "parallel --sshlogin=box git push --force ::: origin",
            "git:push-force",
        ),
        (
            "parallel -j4 sh -c 'rm -rf {1}' ::: / ::: x",
            "filesystem:rm-root",
        ),
        (
            "parallel rm -rf {} :::: list.txt",
            "filesystem:rm-computed-path",
        ),
    ]);
    assert_allowed(&[
        "parallel -j4 --eta gzip {} ::: a.log b.log",
        "parallel cargo test -p {} ::: core std",
        "ls *.png | parallel convert {} {.}.jpg",
    ]);
}

#[test]
fn find_exec_sees_through_wrappers_and_keeps_its_own_delete_apart() {
    assert_denied(&[
        ("find ~ -exec env rm -rf {} \\;", "filesystem:rm-home"),
        ("find / -execdir command rm -rf {} +", "filesystem:rm-root"),
        (
            "find . -exec busybox rm -rf {} +",
            "filesystem:rm-workspace",
        ),
        ("find . -ok nice -n5 git reset --hard \\;", "git:reset-hard"),
    ]);
    assert_allowed(&[
        "find src -exec grep -l -delete {} \\;",
        "find . -name '*.rs' -exec echo -delete +",
        "find build -exec rm -rf {} +",
    ]);
}

#[test]
fn wrappers_and_applets_run_the_rest_of_their_words() {
    assert_denied(&[
        ("busybox rm -rf ~", "filesystem:rm-home"),
        ("toybox find / -delete", "filesystem:rm-root"),
        ("nice -n 19 ionice -c3 rm -rf /", "filesystem:rm-root"),
        ("timeout -s KILL 5 rm -rf ~", "filesystem:rm-home"),
        ("stdbuf -oL git reset --hard", "git:reset-hard"),
        ("setsid -f rm -rf /", "filesystem:rm-root"),
        (
            "flock -w 2 /run/lock/build git clean -fd",
            "git:clean-force",
        ),
        (
            "flock /run/lock/build -c 'git reset --hard'",
            "git:reset-hard",
        ),
        ("watch -n 60 'rm -rf ~'", "filesystem:rm-home"),
        ("env -C / rm -rf ./*", "filesystem:rm-root"),
        ("env --chdir=/home/dev rm -rf .", "filesystem:rm-home"),
        ("env -P /usr/local/bin git reset --hard", "git:reset-hard"),
        (
            "sh -c \"bash -c 'sh -c \\\"git clean -f\\\"'\"",
            "git:clean-force",
        ),
    ]);
    assert_allowed(&[
        "busybox ls -la",
        "nice -n 10 cargo build --release",
        "timeout 30 cargo test",
        "watch -n 2 git status",
        "env -C crates/app rm -rf target",
    ]);
}

#[test]
fn a_remote_command_is_judged_by_the_rules_that_do_not_depend_on_local_paths() {
    assert_denied(&[
        ("ssh -p 2200 deploy@box git reset --hard", "git:reset-hard"),
        ("ssh box 'rm -rf /'", "filesystem:rm-root"),
        (
            "ssh -i ~/.ssh/deploy -o BatchMode=yes box git clean -fdx",
            "git:clean-force",
        ),
    ]);
    assert_allowed(&[
        "ssh box uptime",
        "ssh box 'rm -rf ~/tmp/cache'",
        "ssh -v box",
    ]);
}

#[test]
fn an_unknown_program_before_a_destructive_command_is_taken_to_run_it() {
    assert_denied(&[
        ("with-retry rm -rf /", "filesystem:rm-root"),
        ("mytool --verbose git clean -f", "git:clean-force"),
        ("runner find / -delete", "filesystem:rm-root"),
    ]);
    assert_allowed(&[
        "apt-get install jq",
        "sudo apt-get install -y jq",
        "docker cp app.conf box:/etc/app.conf",
        "man rm",
        "npm run clean",
        "grep -rn 'rm -rf /' docs",
        "kubectl rm -rf build",
    ]);
}

#[test]
fn variables_assigned_in_the_line_keep_their_meaning_to_its_end() {
    assert_denied(&[
        (
            "TMPDIR=/opt rm -rf $TMPDIR/cache",
            "filesystem:rm-outside-workspace",
        ),
        (
            "TMPDIR= rm -rf $TMPDIR/cache",
            "filesystem:rm-outside-workspace",
        ),
        (
            "TMPDIR=/tmp/../etc rm -rf $TMPDIR/x",
            "filesystem:rm-system",
        ),
        (
            "TMPDIR=$(mktemp -d) rm -rf $TMPDIR/x",
            "filesystem:rm-computed-path",
        ),
        ("D=/; rm -rf $D", "filesystem:rm-root"),
        ("export T=/usr/lib; rm -rf \"${T}\"", "filesystem:rm-system"),
        ("TMPDIR=/home/dev; rm -rf $TMPDIR", "filesystem:rm-home"),
    ]);
    assert_allowed(&[
        "TMPDIR=/tmp/build rm -rf $TMPDIR/out",
        "OUT=target/debug; rm -rf $OUT",
        "rm -rf $TMPDIR/scratch",
    ]);
}

#[test]
fn a_cd_to_an_unknown_place_makes_later_relative_paths_unknown() {
    assert_denied(&[
        (
            "cd \"$WORK\" && rm -rf build",
            "filesystem:rm-computed-path",
        ),
        ("cd - && rm -rf build", "filesystem:rm-computed-path"),
        (
            "echo $(cd /; pwd) && rm -rf build",
            "filesystem:rm-computed-path",
        ),
        (
            "{ cd /opt; } && rm -rf data",
            "filesystem:rm-outside-workspace",
        ),
        ("(cd ..; rm -rf sibling)", "filesystem:rm-outside-workspace"),
        (
            "cd /opt && bash -c 'rm -rf data'",
            "filesystem:rm-outside-workspace",
        ),
        ("cd / && eval 'rm -rf *'", "filesystem:rm-root"),
        ("cd ~ && sh <<'EOF'\nrm -rf ./*\nEOF", "filesystem:rm-home"),
        ("rm -rf ../sibling", "filesystem:rm-outside-workspace"),
    ]);
    assert_allowed(&[
        "cd crates/app && rm -rf target",
        "cd crates/app && bash -c 'rm -rf target'",
        "cd \"$WORK\" && rm -rf /srv/project/build",
        "echo $(git rev-parse --show-toplevel) && rm -rf build",
    ]);
}

#[test]
fn another_users_home_is_not_ours_to_check() {
    assert_denied(&[("rm -rf ~alice/projects", "filesystem:rm-outside-workspace")]);
    assert_eq!(
        guard().check_path("~bob/.profile").map(|d| d.id()),
        Some("input:invalid-path".to_owned())
    );
    assert_allowed(&["rm -rf ~/project-cache/../../../srv/project/out"]);
}

#[test]
fn git_loses_work_in_quieter_ways_too() {
    assert_denied(&[
        (
            "git checkout origin/main Cargo.toml",
            "git:checkout-discard",
        ),
        (
            "git checkout -q v1.0 src/a.rs src/b.rs",
            "git:checkout-discard",
        ),
        (
            "git checkout HEAD~2 --pathspec-from-file=list.txt",
            "git:checkout-discard",
        ),
        ("git checkout -fb topic", "git:checkout-discard"),
        (
            "git checkout -B topic -f origin/main",
            "git:checkout-discard",
        ),
        ("git worktree remove -f ../wt", "git:worktree-force-remove"),
        (
            "git worktree remove --force /tmp/review",
            "git:worktree-force-remove",
        ),
    ]);
    assert_allowed(&[
        "git checkout -b topic origin/main",
        "git checkout release",
        "git checkout --track=direct origin/topic",
        "git worktree remove ../wt",
        "git switch -cfeature",
        "git switch -C hotfix",
        "git switch -c fix-force",
    ]);
}

#[test]
fn what_only_looks_destructive_passes() {
    assert_allowed(&[
        "cp /etc/hosts ./fixtures/",
        "cp ~/notes/todo.txt /tmp/",
        "ln -s /usr/lib/libfoo.so vendor/",
        "echo $(( 3 * 4 ))",
        "echo \"$(( rm - rf ))\"",
    ]);
    assert_denied(&[
        ("cp build/app /usr/bin/", "system:write-system-path"),
        ("echo \"$(( $(rm -rf /) ))\"", "filesystem:rm-root"),
        ("rm -rf $TMPDIR", "filesystem:rm-temp-root"),
    ]);
}

#[test]
fn windows_shells_that_wipe_a_drive_are_refused() {
    assert_denied(&[
        ("format d:", "disk:format"),
        ("format C: /FS:NTFS /Q", "disk:format"),
        ("rd /s /q C:\\", "filesystem:rm-root"),
        ("del /s /q c:", "filesystem:rm-root"),
    ]);
    assert_allowed(&["del /q build\\out.txt", "rd /s /q build", "cargo fmt"]);
}
