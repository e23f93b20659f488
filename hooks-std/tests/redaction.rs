//! The redaction module on secrets of our own making: provider formats, secrets found by
//! their name, and the placeholders and look-alikes it leaves alone.
//!
//! Every fake key is built here from a seeded generator, so that no literal in this file
//! looks like a live credential to a scanner.

#![allow(clippy::unwrap_used)]

use hooks_std::redaction::{RedactionConfig, RedactionModule};
use serde_json::json;

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";
const UPPER_ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `length` characters of `alphabet`, random-looking and the same on every run.
fn fake(seed: u64, length: usize, alphabet: &str) -> String {
    let alphabet = alphabet.as_bytes();
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..length)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(alphabet[(state % alphabet.len() as u64) as usize])
        })
        .collect()
}

fn redaction() -> RedactionModule {
    RedactionModule::new(RedactionConfig::default()).unwrap()
}

/// The text redacted, or the text itself when nothing was.
fn redacted(text: &str) -> String {
    redaction()
        .redact_text(text)
        .map_or_else(|| text.to_owned(), |(clean, _)| clean)
}

#[test]
fn provider_keys_are_masked_under_their_provider_name() {
    let cases = [
        ("gitlab_token", format!("glpat-{}", fake(1, 20, ALNUM))),
        (
            "huggingface_token",
            format!("hf_{}", fake(2, 34, "abcdefghijkmnopqrstuvwxyzABCDEFGH")),
        ),
        ("npm_token", format!("npm_{}", fake(3, 36, ALNUM))),
        ("pypi_token", format!("pypi-AgE{}", fake(4, 60, ALNUM))),
        (
            "sendgrid_key",
            format!("SG.{}.{}", fake(5, 22, ALNUM), fake(6, 43, ALNUM)),
        ),
        ("vault_token", format!("hvs.{}", fake(7, 90, ALNUM))),
        ("digitalocean_token", format!("dop_v1_{}", fake(8, 64, HEX))),
        (
            "grafana_token",
            format!("glsa_{}_{}", fake(9, 32, ALNUM), fake(10, 8, HEX)),
        ),
        ("databricks_token", format!("dapi{}", fake(11, 32, HEX))),
        ("groq_key", format!("gsk_{}", fake(12, 52, ALNUM))),
        ("replicate_token", format!("r8_{}", fake(13, 37, ALNUM))),
        ("nvidia_key", format!("nvapi-{}", fake(14, 64, ALNUM))),
        (
            "anthropic_key",
            format!("sk-ant-api03-{}", fake(15, 40, ALNUM)),
        ),
        ("openai_key", format!("sk-proj-{}", fake(16, 40, ALNUM))),
        ("stripe_key", format!("rk_prod_{}", fake(17, 40, ALNUM))),
        (
            "slack_token",
            format!("xapp-1-{}-{}", fake(18, 11, UPPER_ALNUM), fake(19, 40, HEX)),
        ),
        ("github_token", format!("ghs_{}", fake(20, 36, ALNUM))),
        (
            "aws_access_key",
            format!("ASIA{}", fake(21, 16, UPPER_ALNUM)),
        ),
        (
            "google_oauth_token",
            format!("ya29.{}", fake(22, 60, ALNUM)),
        ),
        (
            "azure_client_secret",
            format!("{}8Q~{}", fake(23, 3, ALNUM), fake(24, 34, ALNUM)),
        ),
        (
            "telegram_bot_token",
            format!("7{}:AA{}", fake(25, 9, "0123456789"), fake(26, 33, ALNUM)),
        ),
        ("shopify_token", format!("shpat_{}", fake(27, 32, HEX))),
        (
            "tailscale_key",
            format!("tskey-auth-{}", fake(28, 40, ALNUM)),
        ),
        ("pinecone_key", format!("pcsk_{}", fake(29, 60, ALNUM))),
        (
            "age_key",
            format!(
                "AGE-SECRET-KEY-1{}",
                fake(30, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
            ),
        ),
    ];
    for (name, key) in &cases {
        let text = format!("export TOKEN_FOR_CI={key} # rotated");
        let (clean, count) = redaction()
            .redact_text(&text)
            .unwrap_or_else(|| panic!("{name}: nothing masked in {text}"));
        assert_eq!(
            clean,
            format!("export TOKEN_FOR_CI=[REDACTED:{name}] # rotated"),
            "{name}"
        );
        assert_eq!(count, 1, "{name}");
    }
}

#[test]
fn webhooks_keep_their_host_and_lose_their_secret_path() {
    let slack = format!(
        "https://hooks.slack.com/services/T{}/B{}/{}",
        fake(31, 8, UPPER_ALNUM),
        fake(32, 8, UPPER_ALNUM),
        fake(33, 24, ALNUM)
    );
    assert_eq!(
        redacted(&format!("notify {slack} done")),
        "notify https://hooks.slack.com/services/[REDACTED:slack_webhook] done"
    );
    let discord = format!(
        "https://discord.com/api/webhooks/{}/{}",
        fake(34, 18, "0123456789"),
        fake(35, 68, ALNUM)
    );
    assert_eq!(
        redacted(&discord),
        "https://discord.com/api/webhooks/[REDACTED:discord_webhook]"
    );
}

#[test]
fn secrets_are_found_by_their_name_and_only_the_value_goes() {
    let value = fake(40, 24, ALNUM);
    for (text, clean) in [
        (
            format!("DB_PASSWORD={value}"),
            "DB_PASSWORD=[REDACTED:password]".to_owned(),
        ),
        (
            format!("password = \"{value}\""),
            "password = \"[REDACTED:password]\"".to_owned(),
        ),
        (
            format!("api_key: '{value}'"),
            "api_key: '[REDACTED:secret]'".to_owned(),
        ),
        (
            format!("{{\"client_secret\": \"{value}\"}}"),
            "{\"client_secret\": \"[REDACTED:secret]\"}".to_owned(),
        ),
        (
            format!("deploy --password {value} --yes"),
            "deploy --password [REDACTED:password] --yes".to_owned(),
        ),
        (
            format!("-H 'Authorization: Token {value}'"),
            "-H 'Authorization: Token [REDACTED:secret]'".to_owned(),
        ),
        (
            format!("curl -u deploy:{value} https://ci.internal"),
            "curl -u deploy:[REDACTED:password] https://ci.internal".to_owned(),
        ),
        (
            format!("jdbc:sqlserver://db:1433;database=app;user=sa;password={value};encrypt=true"),
            "jdbc:sqlserver://db:1433;database=app;user=sa;password=[REDACTED:password];encrypt=true"
                .to_owned(),
        ),
        (
            format!("Server=db;User ID=app;Password={value};Pooling=true"),
            "Server=db;User ID=app;Password=[REDACTED:password];Pooling=true".to_owned(),
        ),
        (
            format!("<secret>{value}</secret>"),
            "<secret>[REDACTED:secret]</secret>".to_owned(),
        ),
    ] {
        assert_eq!(redacted(&text), clean, "{text}");
    }
}

#[test]
fn basic_credentials_in_base64_are_judged_by_their_password() {
    let encode = |plain: &str| -> String {
        let alphabet = BASE64.as_bytes();
        let mut out = String::new();
        for chunk in plain.as_bytes().chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        while !out.len().is_multiple_of(4) {
            out.push('=');
        }
        out
    };
    let real = encode(&format!("builder:{}", fake(41, 16, ALNUM)));
    let docker = format!("{{\"auths\": {{\"registry.test\": {{\"auth\": \"{real}\"}}}}}}");
    assert!(!redacted(&docker).contains(&real));
    let header = format!("Authorization: Basic {real}");
    assert_eq!(redacted(&header), "Authorization: Basic [REDACTED:secret]");
    // The documentation's `user:password` is not a credential.
    let placeholder = encode("my_user:my_password");
    let docs = format!("{{\"auth\": \"{placeholder}\"}}");
    assert_eq!(redacted(&docs), docs);
}

#[test]
fn placeholders_and_references_are_kept() {
    let xs = "x".repeat(36);
    for text in [
        "password = \"${DB_PASSWORD}\"".to_owned(),
        "api_key: <your key here>".to_owned(),
        "export API_TOKEN=$API_TOKEN".to_owned(),
        "token: {{ secrets.DEPLOY_TOKEN }}".to_owned(),
        "curl -u \"$USER:$PASSWORD\" https://ci.internal".to_owned(),
        "curl --user <user:password> https://ci.internal".to_owned(),
        "Authorization: Bearer XXXXXXXXXXXXXXXX".to_owned(),
        "Authorization: Bearer $(vault print-token --role=ci)".to_owned(),
        format!("ghp_{xs}"),
        format!("AKIA{}EXAMPLE", fake(42, 9, UPPER_ALNUM)),
        "SLACK_BOT_TOKEN=xoxb-your-bot-token-here".to_owned(),
        "-----BEGIN PRIVATE KEY-----\nPASTE-THE-KEY-BODY-IN-THIS-SPOT\n-----END PRIVATE KEY-----"
            .to_owned(),
        "secret_key = \"insert_key_here\"".to_owned(),
        format!("api_key = \"abcdefghijklmnopqrstuvwxyz{}\"", "0123456789"),
        "password = settings.database.password".to_owned(),
        "password = getpass()".to_owned(),
        "mongodb://<user>:<password>@cluster.internal/db".to_owned(),
    ] {
        assert_eq!(redacted(&text), text, "{text}");
    }
}

#[test]
fn look_alikes_are_kept() {
    let commit = fake(50, 40, HEX);
    let digest = fake(51, 64, HEX);
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        fake(52, 8, HEX),
        fake(53, 4, HEX),
        fake(54, 4, HEX),
        fake(55, 4, HEX),
        fake(56, 12, HEX)
    );
    for text in [
        format!("https://github.com/team/app/blob/{commit}/src/main.rs"),
        format!("FROM rust@sha256:{digest}"),
        format!("\"kms_key_id\": \"{uuid}\","),
        format!("clientId = \"{uuid}\""),
        // Stripe's publishable keys are meant for browsers.
        format!("STRIPE_PUBLISHABLE_KEY=pk_live_{}", fake(57, 24, ALNUM)),
        "access_token_url='https://auth.example.test/oauth/access_token'".to_owned(),
        "const sessionKeyName = \"SESSION_TOKEN\"".to_owned(),
        format!("assets/img-{}.png", fake(58, 32, LOWER_ALNUM)),
        "tokenizer = load_tokenizer(path)".to_owned(),
    ] {
        assert_eq!(redacted(&text), text, "{text}");
    }
}

#[test]
fn a_key_inside_a_named_value_is_named_by_its_provider() {
    let key = format!("glpat-{}", fake(60, 20, ALNUM));
    assert_eq!(
        redacted(&format!("GITLAB_TOKEN=\"{key}\"")),
        "GITLAB_TOKEN=\"[REDACTED:gitlab_token]\""
    );
}

#[test]
fn redacting_twice_changes_nothing_more() {
    let text = format!(
        "token = '{}'\npostgres://app:{}@db/prod\nkey {}",
        fake(61, 30, ALNUM),
        fake(62, 12, ALNUM),
        format_args!("npm_{}", fake(63, 36, ALNUM))
    );
    let (once, count) = redaction().redact_text(&text).unwrap();
    assert_eq!(count, 3);
    assert_eq!(redaction().redact_text(&once), None, "{once}");
}

#[test]
fn secrets_in_event_data_are_masked_wherever_the_text_is() {
    let key = format!("hf_{}", fake(64, 34, "abcdefghijkmnopqrstuvwxyzABCDEFGH"));
    let data = json!({
        "tool_name": "Bash",
        "tool_response": {"stdout": format!("logged in with {key}\n"), "exit_code": 0},
    });
    let (clean, count) = redaction().redact(&data).unwrap();
    assert_eq!(count, 1);
    assert_eq!(
        clean["tool_response"]["stdout"],
        "logged in with [REDACTED:huggingface_token]\n"
    );
}

#[test]
fn long_tool_output_is_redacted_like_short_text() {
    // Past the short-text scan: the automaton must find the same secrets.
    let filler = "   Compiling crate v0.1.0 (path)\n".repeat(400);
    let key = format!("dop_v1_{}", fake(65, 64, HEX));
    let password = fake(66, 20, ALNUM);
    let text = format!("{filler}DO_TOKEN={key}\n{filler}DB_PASSWORD={password}\n{filler}");
    let (clean, count) = redaction().redact_text(&text).unwrap();
    assert_eq!(count, 2);
    assert!(!clean.contains(&key) && !clean.contains(&password));
    assert!(clean.contains("DO_TOKEN=[REDACTED:digitalocean_token]"));
    assert!(clean.contains("DB_PASSWORD=[REDACTED:password]"));
}

#[test]
fn without_built_in_rules_names_are_not_looked_for() {
    let only_custom = RedactionModule::new(RedactionConfig {
        builtin: false,
        emails: false,
        ..RedactionConfig::default()
    })
    .unwrap();
    let text = format!("DB_PASSWORD={}", fake(67, 20, ALNUM));
    assert_eq!(only_custom.redact_text(&text), None);
}
