//! What a server may ask the user: the protocol forbids a server to ask for a password, a key
//! or a token in a form elicitation (form answers travel through the client and the server in
//! the clear; sensitive input belongs in a URL elicitation, on the server's own page). The
//! proxy refuses such a form before the client, or the user, ever sees it.

use rmcp::model::ElicitRequestParams;

/// Words in a form field's name, title or description that ask for a secret.
const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "api key",
    "private key",
    "private_key",
    "access key",
    "access_key",
    "credential",
    "otp",
    "2fa",
    "mfa code",
];

/// Why the proxy refuses `request`, when it asks a secret in a form.
pub(crate) fn refusal(request: &ElicitRequestParams) -> Option<String> {
    let ElicitRequestParams::FormElicitationParams {
        requested_schema, ..
    } = request
    else {
        // A URL elicitation is how a server is meant to ask for a secret.
        return None;
    };
    requested_schema
        .properties
        .iter()
        .find_map(|(field, definition)| {
            let text = format!(
                "{field} {}",
                serde_json::to_string(definition).unwrap_or_default()
            )
            .to_lowercase();
            let word = SECRET_WORDS.iter().find(|word| has_word(&text, word))?;
            Some(format!(
                "the MCP proxy refused a form elicitation whose field `{field}` asks for a \
                 secret (`{word}`): the protocol forbids asking for passwords, keys or tokens \
                 in a form; ask for it through a URL elicitation instead"
            ))
        })
}

/// Whether `word` is in `text` as a word of its own (`otp` is not `hotpot`; `api_key` and
/// `token_value` count).
fn has_word(text: &str, word: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphanumeric());
    text.match_indices(word).any(|(at, _)| {
        boundary(text[..at].chars().next_back()) && boundary(text[at + word.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use rmcp::model::{ElicitationSchema, PrimitiveSchemaDefinition, StringSchema};

    use super::*;

    fn form(field: &str, title: &str) -> ElicitRequestParams {
        let schema = StringSchema::new().title(title.to_owned());
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Please fill in".to_owned(),
            requested_schema: ElicitationSchema::new(BTreeMap::from([(
                field.to_owned(),
                PrimitiveSchemaDefinition::String(schema),
            )])),
        }
    }

    #[test]
    fn a_form_asking_a_secret_is_refused_by_name_or_title() {
        assert!(refusal(&form("github_token", "GitHub")).is_some());
        assert!(refusal(&form("value", "Your API key")).is_some());
        assert!(refusal(&form("pw", "Password")).is_some());
    }

    #[test]
    fn an_ordinary_form_passes() {
        assert_eq!(refusal(&form("name", "Your name")), None);
        assert_eq!(refusal(&form("dish", "Favourite hotpot")), None);
    }
}
