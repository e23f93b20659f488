//! Packs: named sets of rules, each switched on or off in the configuration (`packs`).
//!
//! A rule has an id (`git:reset-hard`), a severity, the reason a command is refused and the
//! safer alternative the agent is told. The default packs are code (they need paths, the
//! working directory and the shape of the command); the optional packs are tables of
//! patterns over the command, since their rules are regular (`vault secrets disable`,
//! `aws s3 rb`, `kubectl delete namespace`).
//!
//! Whatever the packs, a file tool's path is refused in a system directory
//! (`system:system-path`), on a secret (`secrets:secret-file`) or outside the workspace
//! (`workspace:outside`); a field of the wrong type or a command nested too deeply is refused
//! (`input:bad-field`, `input:too-deep`), and so is a patch that cannot be read whole
//! (`input:bad-patch`); a change to a write-protected file (`guard_files`, the product's
//! [`SelfProtection`](crate::SelfProtection) giving the built-in ones: its policy files, the
//! agents' hook settings), by a file tool, a command, inline code or a patch, is
//! `guard:guard-file`; a command that stops or kills a resident process of the guard (a
//! server, a proxy, their user service, as the product names them) is `guard:stop-guard`; a
//! program of the guard changing the guard's own setup (the subcommands the product names) is
//! `guard:self-admin`; a `blocked_commands` rule is `user:blocked-command`.
//!
//! ## Default packs
//!
//! | rule | severity | refused because it | instead |
//! |---|---|---|---|
//! | `filesystem:rm-root` | critical | deletes the whole file system | delete the specific directory inside the project |
//! | `filesystem:rm-home` | critical | deletes the user's home directory | delete the specific directory inside the project |
//! | `filesystem:rm-system` | critical | deletes a system directory | work on files inside the project |
//! | `filesystem:rm-workspace` | high | deletes the whole project | delete the specific build or output directory |
//! | `filesystem:rm-outside-workspace` | high | deletes a directory outside the project | delete inside the project or a temporary directory |
//! | `filesystem:rm-computed-path` | high | deletes a path computed when the command runs, which cannot be checked | name the directory directly |
//! | `filesystem:rm-outside-temp` | high | deletes recursively outside the temporary directories, which this configuration forbids | delete specific files, or ask the user |
//! | `filesystem:rm-temp-root` | high | deletes a whole temporary directory that other programs and sessions use | delete the specific directory you made under it |
//! | `filesystem:no-preserve-root` | critical | exists only to delete the whole file system | delete a specific directory |
//! | `filesystem:elevated-delete` | critical | deletes as root, which can destroy the system | delete files you own, inside the project |
//! | `filesystem:computed-program` | high | runs a program computed when the command runs, which cannot be checked | name the program directly |
//! | `system:write-system-path` | critical | writes into a protected system directory | write inside the project |
//! | `system:elevated-write` | high | changes files as root, which can break the system | work on files you own, inside the project |
//! | `system:recursive-permissions` | high | changes permissions or owners of a whole tree the system depends on | change the specific files inside the project |
//! | `system:system-path` | critical | is in a protected system directory | work on files inside the project |
//! | `secrets:secret-file` | high | reads or writes a file that holds secrets | use environment variables, or ask the user to handle the file |
//! | `disk:format` | critical | formats or partitions a disk | ask the user |
//! | `disk:device-write` | critical | overwrites a disk device | write to a file |
//! | `disk:power` | high | stops or restarts the machine | ask the user |
//! | `disk:fork-bomb` | critical | exhausts the machine's processes | do not run it |
//! | `download:pipe-to-shell` | critical | runs code from the network that nobody has read | download it to a file, read it, then run it |
//! | `download:unread-pipe` | high | runs code nobody has read | save the script to a file, read it, then run it |
//! | `git:reset-hard` | critical | throws away every uncommitted change in the working tree and the index | run `git stash` first, or `git reset --soft`/`--mixed` to move the branch and keep the changes |
//! | `git:reset-merge` | high | can discard uncommitted changes in files the reset touches | commit or `git stash` first, then reset |
//! | `git:clean-force` | critical | deletes untracked files for good; they are in no commit and cannot be recovered | look first with `git clean -n`, then delete the specific paths you mean |
//! | `git:push-force` | critical | overwrites the remote branch and can destroy commits other people pushed | use `git push --force-with-lease`, which refuses when the remote moved, or push a new branch |
//! | `git:checkout-discard` | high | overwrites the files with the committed version, losing their uncommitted changes | `git stash` the changes first, or `git diff` to see what would be lost |
//! | `git:restore-worktree` | high | overwrites the files in the working tree, losing their uncommitted changes | use `git restore --staged` to unstage only, or `git stash` first |
//! | `git:stash-clear` | critical | deletes every stash at once | drop a stash you have checked with `git stash show`, or leave them |
//! | `git:stash-drop` | medium | deletes a stash and the work saved in it | `git stash pop` or `git stash apply` to get the work back, or ask the user |
//! | `git:branch-force-delete` | high | deletes a branch even when its commits are merged nowhere | use `git branch -d`, which refuses to delete unmerged work |
//! | `git:branch-force-move` | medium | moves an existing branch, leaving its commits unreachable | create a new branch with `git branch NAME` |
//! | `git:switch-discard` | high | switches branch by throwing away uncommitted changes | commit or `git stash` first, then switch |
//! | `git:rm-force` | high | deletes files even when they have changes no commit holds | commit the changes first, or use `git rm --cached` to untrack only |
//! | `git:worktree-force-remove` | high | removes a worktree with its uncommitted changes and untracked files | run `git worktree remove` without `--force`, which refuses when there are changes |
//! | `git:plumbing-reset` | high | deletes a ref or overwrites the working tree through plumbing, with no safety net | use `git branch -d` or `git restore --staged`, or ask the user |
//! | `inline:delete-call` | critical | deletes, from code given to an interpreter, what `rm` would not be allowed to | delete the specific directory inside the project |
//!
//! ## Optional packs
//!
//! Off by default; `packs: [default, NAME, ...]` switches one on, a group (`database`) all of
//! its packs, `all` every pack.
//!
//! | pack | guards against | rules |
//! |---|---|---|
//! | `apigateway.apigee` | Apigee: deleting APIs, products, environments, undeploying | `apigateway.apigee:delete` |
//! | `apigateway.aws` | AWS API Gateway: deleting APIs, stages, keys, domains | `apigateway.aws:delete` |
//! | `apigateway.kong` | Kong: `deck reset`/`sync`, `DELETE` on the admin API | `apigateway.kong:deck-reset`, `apigateway.kong:deck-sync`, `apigateway.kong:admin-delete` |
//! | `backup.borg` | Borg: deleting, pruning, compacting archives | `backup.borg:delete` |
//! | `backup.rclone` | rclone: sync, move, delete and purge on remotes | `backup.rclone:delete`, `backup.rclone:sync` |
//! | `backup.restic` | restic: forgetting and pruning snapshots, removing keys | `backup.restic:forget` |
//! | `backup.velero` | Velero: deleting backups, restores, schedules; uninstalling | `backup.velero:delete` |
//! | `cdn.cloudflare_workers` | Cloudflare Workers: deleting workers, KV, R2, D1; rollbacks | `cdn.cloudflare_workers:delete` |
//! | `cdn.cloudfront` | CloudFront: deleting distributions and policies, invalidations | `cdn.cloudfront:delete` |
//! | `cdn.fastly` | Fastly: deleting services, domains, backends; activating versions | `cdn.fastly:delete` |
//! | `cicd.circleci` | CircleCI: deleting contexts, secrets, orbs, pipelines | `cicd.circleci:delete`, `cicd.circleci:api-delete` |
//! | `cicd.github_actions` | GitHub Actions: deleting secrets and variables, disabling workflows | `cicd.github_actions:delete`, `cicd.github_actions:api-delete` |
//! | `cicd.gitlab_ci` | GitLab CI: unregistering runners, deleting pipelines, jobs, variables | `cicd.gitlab_ci:runner-unregister`, `cicd.gitlab_ci:api-delete`, `cicd.gitlab_ci:glab-delete` |
//! | `cicd.jenkins` | Jenkins: deleting jobs, nodes, views, credentials | `cicd.jenkins:delete`, `cicd.jenkins:api-delete` |
//! | `cloud.aws` | AWS: terminating instances, deleting stacks, databases, images, logs | `cloud.aws:delete`, `cloud.aws:s3-remove` |
//! | `cloud.azure` | Azure: deleting and untagging resources | `cloud.azure:delete` |
//! | `cloud.gcp` | Google Cloud: deleting images, repositories, resources | `cloud.gcp:delete` |
//! | `containers.docker` | Docker: prunes, forced removals, volume removal | `containers.docker:prune`, `containers.docker:volume-rm`, `containers.docker:force-rm` |
//! | `database.mysql` | MySQL: dropping, truncating, deleting without `WHERE`, global grants | `database.mysql:drop`, `database.mysql:truncate`, `database.mysql:delete-without-where`, `database.mysql:admin-drop`, `database.mysql:grant-all` |
//! | `database.postgresql` | PostgreSQL: dropping, truncating, deleting without `WHERE` | `database.postgresql:drop`, `database.postgresql:truncate`, `database.postgresql:delete-without-where`, `database.postgresql:dropdb` |
//! | `database.redis` | Redis: flushing databases | `database.redis:flush` |
//! | `database.sqlite` | SQLite: dropping, truncating, deleting without `WHERE` | `database.sqlite:drop`, `database.sqlite:delete-without-where` |
//! | `dns.cloudflare` | Cloudflare DNS: deleting records and zones | `dns.cloudflare:delete`, `dns.cloudflare:api-delete`, `dns.cloudflare:terraform-destroy` |
//! | `dns.generic` | DNS tools: dynamic deletes, zone transfers | `dns.generic:nsupdate`, `dns.generic:zone-transfer` |
//! | `dns.route53` | Route 53: deleting zones, records, health checks | `dns.route53:delete` |
//! | `email.mailgun` | Mailgun: `DELETE` on the API | `email.mailgun:api-delete` |
//! | `email.postmark` | Postmark: `DELETE` on the API | `email.postmark:api-delete` |
//! | `email.sendgrid` | SendGrid: `DELETE` on the API | `email.sendgrid:api-delete` |
//! | `email.ses` | Amazon SES: deleting identities, templates, configuration sets | `email.ses:delete` |
//! | `featureflags.flipt` | Flipt: deleting flags, segments, namespaces | `featureflags.flipt:delete`, `featureflags.flipt:api-delete` |
//! | `featureflags.launchdarkly` | LaunchDarkly: deleting and archiving flags, projects | `featureflags.launchdarkly:delete`, `featureflags.launchdarkly:api-delete` |
//! | `featureflags.split` | Split: deleting and killing splits | `featureflags.split:delete`, `featureflags.split:api-delete` |
//! | `featureflags.unleash` | Unleash: deleting and archiving toggles, projects | `featureflags.unleash:delete`, `featureflags.unleash:api-delete` |
//! | `infrastructure.terraform` | Terraform: destroy, state removal | `infrastructure.terraform:destroy` |
//! | `kubernetes.kubectl` | Kubernetes: deleting resources, draining nodes | `kubernetes.kubectl:delete` |
//! | `loadbalancer.elb` | Elastic Load Balancing: deleting balancers, deregistering targets | `loadbalancer.elb:delete` |
//! | `loadbalancer.haproxy` | HAProxy: stopping, disabling servers | `loadbalancer.haproxy:stop`, `loadbalancer.haproxy:service-stop`, `loadbalancer.haproxy:runtime-disable` |
//! | `loadbalancer.nginx` | nginx: stopping | `loadbalancer.nginx:stop`, `loadbalancer.nginx:service-stop` |
//! | `loadbalancer.traefik` | Traefik: stopping, removing its container or routes | `loadbalancer.traefik:container-stop`, `loadbalancer.traefik:kubectl-delete`, `loadbalancer.traefik:service-stop` |
//! | `messaging.kafka` | Kafka: deleting topics, records, groups; resetting offsets | `messaging.kafka:delete` |
//! | `messaging.nats` | NATS: deleting and purging streams, consumers, buckets | `messaging.nats:delete` |
//! | `messaging.rabbitmq` | RabbitMQ: deleting users, vhosts, queues; resets | `messaging.rabbitmq:delete` |
//! | `messaging.sqs_sns` | SQS and SNS: deleting and purging queues, topics | `messaging.sqs_sns:delete` |
//! | `monitoring.datadog` | Datadog: deleting monitors and dashboards | `monitoring.datadog:delete`, `monitoring.datadog:api-delete`, `monitoring.datadog:terraform-destroy` |
//! | `monitoring.newrelic` | New Relic: deleting entities and applications | `monitoring.newrelic:delete`, `monitoring.newrelic:api-delete` |
//! | `monitoring.pagerduty` | PagerDuty: deleting services, schedules, users | `monitoring.pagerduty:delete`, `monitoring.pagerduty:api-delete` |
//! | `monitoring.prometheus` | Prometheus and Grafana: deleting series, rules, dashboards | `monitoring.prometheus:delete-series`, `monitoring.prometheus:grafana-delete`, `monitoring.prometheus:rule-delete`, `monitoring.prometheus:plugin-uninstall` |
//! | `monitoring.splunk` | Splunk: removing and cleaning indexes | `monitoring.splunk:remove`, `monitoring.splunk:api-delete` |
//! | `package_managers` | Package managers: publishing, uninstalling | `package_managers:publish`, `package_managers:uninstall` |
//! | `payment.braintree` | Braintree: deleting customers, cancelling subscriptions | `payment.braintree:delete`, `payment.braintree:api-delete` |
//! | `payment.square` | Square: deleting catalog objects, customers | `payment.square:delete`, `payment.square:api-delete` |
//! | `payment.stripe` | Stripe: deleting objects, rolling keys | `payment.stripe:delete`, `payment.stripe:api-delete` |
//! | `platform.github` | GitHub: deleting repositories, releases, secrets, keys | `platform.github:delete`, `platform.github:api-delete` |
//! | `platform.gitlab` | GitLab: deleting repositories, releases, variables; restores | `platform.gitlab:delete`, `platform.gitlab:rails-destroy` |
//! | `remote.rsync` | rsync: deleting on the destination, removing sources | `remote.rsync:delete` |
//! | `remote.scp` | scp: copying into a remote system directory | `remote.scp:system-target` |
//! | `remote.ssh` | ssh: destructive remote commands, forgetting keys and hosts | `remote.ssh:remote-command`, `remote.ssh:forget-keys` |
//! | `search.algolia` | Algolia: deleting and clearing indices | `search.algolia:api-delete`, `search.algolia:delete`, `search.algolia:client-delete` |
//! | `search.elasticsearch` | Elasticsearch: deleting and closing indices, delete-by-query | `search.elasticsearch:api-delete`, `search.elasticsearch:destructive-api` |
//! | `search.meilisearch` | Meilisearch: deleting indexes, documents, keys | `search.meilisearch:api-delete`, `search.meilisearch:delete-batch` |
//! | `search.opensearch` | OpenSearch: deleting indices and domains | `search.opensearch:api-delete`, `search.opensearch:destructive-api`, `search.opensearch:domain-delete` |
//! | `secrets.aws_secrets` | AWS Secrets Manager and SSM: deleting and overwriting secrets | `secrets.aws_secrets:delete` |
//! | `secrets.doppler` | Doppler: deleting secrets, configs, projects | `secrets.doppler:delete` |
//! | `secrets.onepassword` | 1Password: deleting items, vaults, users | `secrets.onepassword:delete` |
//! | `secrets.vault` | Vault: disabling engines, deleting and destroying secrets, revoking | `secrets.vault:delete` |
//! | `storage.azure_blob` | Azure Blob Storage: deleting containers and blobs | `storage.azure_blob:delete`, `storage.azure_blob:azcopy-remove` |
//! | `storage.gcs` | Google Cloud Storage: removing buckets and objects | `storage.gcs:remove`, `storage.gcs:gcloud-delete` |
//! | `storage.minio` | MinIO: removing buckets, objects, users, policies | `storage.minio:remove` |
//! | `storage.s3` | Amazon S3: removing buckets and objects, syncing with `--delete` | `storage.s3:remove`, `storage.s3:sync-delete`, `storage.s3:api-delete` |
//! | `strict_git` | Git, strictly: pushing straight to `main` or `master` | `strict_git:push-main` |
//! | `system.disk` | Disks: RAID, LVM, btrfs and device-mapper removals | `system.disk:volume-remove` |
//! | `system.permissions` | Permissions: world-writable and set-uid modes | `system.permissions:world-writable` |
//! | `system.services` | Services: stopping and disabling system services | `system.services:stop` |

pub(crate) mod builtin;
pub(crate) mod catalog;
pub(crate) mod disk;
pub(crate) mod filesystem;
pub(crate) mod git;
pub(crate) mod guard;
pub(crate) mod here;
pub(crate) mod resident;
pub(crate) mod secrets;
pub(crate) mod self_admin;
pub(crate) mod system;
pub(crate) mod tables;

use std::fmt;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

/// How bad the damage a rule prevents is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Irreversible loss of the system, the home directory, history or production data.
    Critical,
    /// Loss that is hard to recover from: uncommitted work, a remote resource.
    High,
    /// Loss that can usually be undone, or a risk rather than a loss.
    Medium,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
        })
    }
}

/// One rule of a pack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The pack it belongs to.
    pub pack: &'static str,
    /// Its name within the pack (`reset-hard`); the full id is `pack:name`.
    pub name: &'static str,
    /// How bad what it prevents is.
    pub severity: Severity,
    /// Why the command is refused.
    pub reason: &'static str,
    /// What the agent should do instead.
    pub alternative: &'static str,
}

impl Rule {
    /// The rule's id, `pack:name`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.pack, self.name)
    }
}

/// A pack: its name, whether it is on by default, and what it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pack {
    /// The name used in `packs`.
    pub name: &'static str,
    /// Whether it is on without configuration.
    pub default_on: bool,
    /// What it guards against, in a line.
    pub summary: &'static str,
}

/// Why a tool call must not run: the rule that fired and what the agent is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The pack whose rule fired (`user` for `blocked_commands`, `input` for a field that
    /// cannot be checked).
    pub pack: String,
    /// The rule's name within the pack.
    pub rule: String,
    /// How bad what it prevents is.
    pub severity: Severity,
    /// What the agent is told: what was refused, why, and what to do instead.
    pub message: String,
}

impl Denial {
    /// A denial by `rule`, with `message` for the agent.
    pub(crate) fn new(rule: &Rule, message: String) -> Self {
        Denial {
            pack: rule.pack.to_owned(),
            rule: rule.name.to_owned(),
            severity: rule.severity,
            message,
        }
    }

    /// A denial by `rule` about `what`, told with the rule's reason and alternative.
    pub(crate) fn explained(rule: &Rule, what: &str) -> Self {
        Denial::explained_as(rule, what, None)
    }

    /// [`Denial::explained`] with `reason` instead of the rule's, when there is one: the words
    /// of the product whose process or program the rule keeps.
    pub(crate) fn explained_as(rule: &Rule, what: &str, reason: Option<&str>) -> Self {
        Denial::new(
            rule,
            format!(
                "`{}` {}; instead, {}",
                shorten(what),
                reason.unwrap_or(rule.reason),
                rule.alternative
            ),
        )
    }

    /// The rule's id, `pack:rule`.
    pub fn id(&self) -> String {
        format!("{}:{}", self.pack, self.rule)
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pack == "user" {
            // The user's own words, as configured.
            f.write_str(&self.message)
        } else {
            write!(f, "[{}:{}] {}", self.pack, self.rule, self.message)
        }
    }
}

/// `text` cut to a length that reads well in a message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    let text = text.trim();
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// The packs made of code, on by default.
pub const DEFAULT_PACKS: &[Pack] = &[
    Pack {
        name: "filesystem",
        default_on: true,
        summary: "recursive deletion of the root, home, system directories, the whole workspace or anything outside it",
    },
    Pack {
        name: "system",
        default_on: true,
        summary: "writing into system directories, changing files as root, recursive permission changes on system trees",
    },
    Pack {
        name: "secrets",
        default_on: true,
        summary: "reading or writing keys, `.env` files, credentials and password databases",
    },
    Pack {
        name: "disk",
        default_on: true,
        summary: "formatting and partitioning disks, writing to block devices, shutting down, fork bombs",
    },
    Pack {
        name: "download",
        default_on: true,
        summary: "running code straight from the network (`curl | sh`, `bash <(curl …)`, `sh -c \"$(curl …)\"`)",
    },
    Pack {
        name: "git",
        default_on: true,
        summary: "losing uncommitted work or history: `reset --hard`, `clean -f`, `push --force`, `checkout --`, `restore`, `stash clear`, `branch -D`",
    },
    Pack {
        name: "inline",
        default_on: true,
        summary: "destructive calls in code given to an interpreter (`python -c`, `node -e`, heredocs, here-strings, pipes)",
    },
];

/// Every pack, default ones first, then the optional ones by name.
pub fn all_packs() -> Vec<Pack> {
    let mut packs = DEFAULT_PACKS.to_vec();
    packs.extend(catalog::packs());
    packs
}

/// The set of packs switched on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Enabled {
    /// The names, in a set: the lookup costs the same however many packs are on.
    set: FxHashSet<&'static str>,
}

impl Enabled {
    /// Resolves the configured list: pack names, `default` (the default packs), `all`, or a
    /// group (`database` for every `database.*` pack).
    pub(crate) fn resolve(requested: &[String]) -> Result<Self, String> {
        let packs = all_packs();
        let mut names: Vec<&'static str> = Vec::new();
        for wanted in requested {
            let matched: Vec<&'static str> = packs
                .iter()
                .filter(|pack| match wanted.as_str() {
                    "all" => true,
                    "default" => pack.default_on,
                    group => {
                        pack.name == group
                            || pack
                                .name
                                .strip_prefix(group)
                                .is_some_and(|rest| rest.starts_with('.'))
                    }
                })
                .map(|pack| pack.name)
                .collect();
            if matched.is_empty() {
                let valid: Vec<&str> = packs.iter().map(|p| p.name).collect();
                return Err(format!(
                    "`packs`: there is no pack `{wanted}`; valid names are `default`, `all`, a \
                     group such as `database`, or one of: {}",
                    valid.join(", ")
                ));
            }
            for name in matched {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        Ok(Enabled {
            set: names.into_iter().collect(),
        })
    }

    /// Whether the pack `name` is on.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.set.contains(name)
    }

    /// How many packs are on.
    #[cfg(test)]
    pub(crate) fn count(&self) -> usize {
        self.set.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_default_and_all_resolve_to_packs() {
        let defaults = Enabled::resolve(&["default".to_owned()]).unwrap_or_default();
        assert!(defaults.has("git") && defaults.has("filesystem"));
        assert!(!defaults.has("database.postgresql"));
        let database = Enabled::resolve(&["database".to_owned()]).unwrap_or_default();
        assert!(database.has("database.postgresql") && !database.has("git"));
        let all = Enabled::resolve(&["all".to_owned()]).unwrap_or_default();
        assert_eq!(all.count(), all_packs().len());
    }

    #[test]
    fn an_unknown_pack_is_an_error_listing_the_valid_ones() {
        let error = Enabled::resolve(&["gti".to_owned()]).unwrap_err();
        assert!(
            error.contains("no pack `gti`") && error.contains("git"),
            "{error}"
        );
    }

    #[test]
    fn the_docs_table_lists_every_rule() {
        let docs = include_str!("mod.rs");
        let ids = builtin::RULES
            .iter()
            .chain(git::RULES)
            .map(|rule| rule.id())
            .chain(tables::RULES.iter().map(|rule| rule.rule.id()));
        for id in ids {
            assert!(
                docs.contains(&format!("`{id}`")),
                "{id} is not in the docs table"
            );
        }
    }

    #[test]
    fn every_pack_name_is_unique() {
        let packs = all_packs();
        for (i, pack) in packs.iter().enumerate() {
            assert!(
                packs[..i].iter().all(|other| other.name != pack.name),
                "{}",
                pack.name
            );
        }
    }
}
