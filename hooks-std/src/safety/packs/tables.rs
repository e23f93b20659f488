//! The rules of the optional packs, as data: pack, rule name, severity, programs, pattern
//! over the arguments, the pattern that excuses a match, the reason and the alternative.

use super::catalog::PatternRule;
use super::{Rule, Severity};

/// One rule line of the table.
macro_rules! rules {
    ($( $pack:literal $name:literal $severity:ident [$($program:literal),* $(,)?]
        $pattern:literal $(unless $unless:literal)? => $reason:literal, $alternative:literal; )*) => {
        &[$(PatternRule {
            rule: Rule {
                pack: $pack,
                name: $name,
                severity: Severity::$severity,
                reason: $reason,
                alternative: $alternative,
            },
            programs: &[$($program),*],
            pattern: $pattern,
            unless: concat!("" $(, $unless)?),
        }),*]
    };
}

/// The optional packs and what each guards against.
pub(crate) const PACKS: &[(&str, &str)] = &[(
    "database.postgresql",
    "PostgreSQL: dropping databases and tables, truncating, deleting without `WHERE`",
)];

/// Every rule of the optional packs.
pub(crate) const RULES: &[PatternRule] = rules! {
    "database.postgresql" "drop" Critical ["psql"] r"(?i)\bdrop\s+(database|table|schema)\b"
        => "drops a database object and its data", "back it up with `pg_dump` and ask the user to run it";
};
