//! What the architecture tests share: the workspace's members, and its Rust sources read as
//! tokens with the code under `#[cfg(test)]` told apart.

#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The workspace's root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// `file` of the workspace, read whole.
pub fn read(file: &str) -> String {
    fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The workspace's members, as their directories relative to the root.
pub fn members() -> Vec<String> {
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    manifest["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|member| member.as_str().unwrap().to_owned())
        .collect()
}

/// The `.rs` files under `dir`, recursively, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// A Rust file's tokens (comments are gone; doc comments are `#[doc = "..."]` attributes).
pub fn tokens(file: &Path) -> TokenStream {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e:?}", file.display()))
}

/// Whether an attribute's tokens (`cfg(test)`, `cfg(all(test, unix))`) put an item under test;
/// `not(test)` and `any(test, ...)` are code that also runs outside tests.
pub fn is_test_cfg(attribute: &TokenStream) -> bool {
    let mut tokens = attribute.clone().into_iter();
    let (Some(TokenTree::Ident(cfg)), Some(TokenTree::Group(args))) =
        (tokens.next(), tokens.next())
    else {
        return false;
    };
    let text = args.stream().to_string();
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .collect();
    cfg == "cfg"
        && (words == ["test"]
            || words.first() == Some(&"all")
                && words.contains(&"test")
                && !words.contains(&"not")
                && !words.contains(&"any"))
}

/// The attribute at `tokens[at]` (`#[...]` or `#![...]`): what is inside its brackets, and the
/// index after it.
pub fn attribute(tokens: &[TokenTree], at: usize) -> Option<(TokenStream, usize)> {
    if !matches!(tokens.get(at), Some(TokenTree::Punct(p)) if p.as_char() == '#') {
        return None;
    }
    let mut next = at + 1;
    if matches!(tokens.get(next), Some(TokenTree::Punct(p)) if p.as_char() == '!') {
        next += 1;
    }
    match tokens.get(next) {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket => {
            Some((group.stream(), next + 1))
        }
        _ => None,
    }
}

/// The index after the item that starts at `tokens[at]`: past its `;` or its body.
pub fn skip_item(tokens: &[TokenTree], mut at: usize) -> usize {
    while at < tokens.len() {
        let end = match &tokens[at] {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => g.delimiter() == Delimiter::Brace,
            _ => false,
        };
        at += 1;
        if end {
            break;
        }
    }
    at
}

/// The string literals of the code in `tokens`, as written between their quotes: attributes
/// (doc comments among them) and items under `#[cfg(test)]` left out.
pub fn string_literals(tokens: TokenStream) -> Vec<String> {
    let mut found = Vec::new();
    collect_literals(tokens, &mut found);
    found
}

fn collect_literals(tokens: TokenStream, found: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut at = 0;
    while at < tokens.len() {
        match &tokens[at] {
            TokenTree::Punct(hash) if hash.as_char() == '#' => match attribute(&tokens, at) {
                Some((inside, mut next)) if is_test_cfg(&inside) => {
                    // Past the item's other attributes, then the item.
                    while let Some((_, after)) = attribute(&tokens, next) {
                        next = after;
                    }
                    at = skip_item(&tokens, next);
                }
                Some((_, next)) => at = next,
                None => at += 1,
            },
            TokenTree::Literal(literal) => {
                if let Some(text) = string_of(&literal.to_string()) {
                    found.push(text);
                }
                at += 1;
            }
            TokenTree::Group(group) => {
                collect_literals(group.stream(), found);
                at += 1;
            }
            _ => at += 1,
        }
    }
}

/// The text of a string literal token (`"..."`, `r#"..."#`), escapes left as written; `None`
/// for any other literal.
fn string_of(token: &str) -> Option<String> {
    let raw = token.strip_prefix('r').map(|rest| rest.trim_matches('#'));
    let quoted = raw.unwrap_or(token);
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.to_owned())
}

/// Names of the variants of `enum name` in `file`, in the kebab case clap gives them
/// (`McpProxy` → `mcp-proxy`), a `#[command(name = "...")]` taking their place.
pub fn clap_variants(file: &str, name: &str) -> Vec<String> {
    let text = read(file);
    let start = text
        .find(&format!("enum {name} {{"))
        .unwrap_or_else(|| panic!("no enum {name} in {file}"));
    let mut variants = Vec::new();
    let mut renamed = None;
    let mut flattened = false;
    for line in text[start..].lines().skip(1) {
        if line == "}" {
            break;
        }
        // Variants sit at one indentation level, their fields deeper.
        let Some(code) = line.strip_prefix("    ") else {
            continue;
        };
        if code.starts_with(' ') {
            continue;
        }
        // A flattened variant is its fields' subcommands, not one of its own.
        if code.starts_with("#[command(flatten)]") {
            flattened = true;
            continue;
        }
        if let Some(rest) = code.strip_prefix("#[command(name = \"") {
            renamed = rest.split('"').next().map(str::to_owned);
            continue;
        }
        let word: String = code
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if word.starts_with(|c: char| c.is_ascii_uppercase()) {
            if std::mem::take(&mut flattened) {
                continue;
            }
            let kebab = renamed.take().unwrap_or_else(|| {
                let mut kebab = String::new();
                for (i, c) in word.chars().enumerate() {
                    if c.is_ascii_uppercase() && i > 0 {
                        kebab.push('-');
                    }
                    kebab.push(c.to_ascii_lowercase());
                }
                kebab
            });
            variants.push(kebab);
        }
    }
    variants
}
