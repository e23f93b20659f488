//! The rules of the optional packs, as data: pack, rule name, severity, programs, pattern
//! over `program args…`, the pattern that excuses a match, the reason and the alternative.

use super::{Rule, Severity};

/// A rule of an optional pack.
#[derive(Debug)]
pub(crate) struct PatternRule {
    pub rule: Rule,
    /// The programs it applies to, in lower case; one ending in `.` is a prefix
    /// (`gateway.` for `gateway.customer.delete`).
    pub programs: &'static [&'static str],
    /// A regex over `program args…` (and stdin text).
    pub pattern: &'static str,
    /// A regex that excuses a match; empty for none.
    pub unless: &'static str,
}

/// The rule table: one line per rule.
macro_rules! rules {
    ($( $pack:literal $name:literal $severity:ident $programs:tt
        $pattern:expr $(, unless $unless:expr)? => $reason:literal, $alternative:literal; )*) => {
        &[$(PatternRule {
            rule: Rule {
                pack: $pack,
                name: $name,
                severity: Severity::$severity,
                reason: $reason,
                alternative: $alternative,
            },
            programs: programs!($programs),
            pattern: $pattern,
            unless: or_empty!($($unless)?),
        }),*]
    };
}

/// The programs a rule applies to: a list in brackets, or the name of a shared list.
macro_rules! programs {
    ([$($program:literal),* $(,)?]) => {
        &[$($program),*]
    };
    ($list:ident) => {
        $list
    };
}

macro_rules! or_empty {
    () => {
        ""
    };
    ($pattern:expr) => {
        $pattern
    };
}

/// An HTTP `DELETE` (`curl -X DELETE`, `curl --request DELETE`, `http DELETE`) to a URL
/// matching `$host`, the method before or after the URL.
macro_rules! api_delete {
    ($host:literal) => {
        concat!(
            r"(?i)(?:(?:-X\s*|--request[=\s]+|^(?:http|https|xh)\s+)DELETE\b.*(?:",
            $host,
            r")|(?:",
            $host,
            r").*\s(?:-X\s*|--request[=\s]+)DELETE\b)"
        )
    };
}

/// `DROP DATABASE|TABLE|SCHEMA …` in SQL.
macro_rules! sql_drop {
    () => {
        r"(?i)\bdrop\s+(?:database|table|schema|view|index|user)\b"
    };
}

/// `TRUNCATE [TABLE] name` in SQL (not the `truncate -s` file tool).
macro_rules! sql_truncate {
    () => {
        r#"(?i)\btruncate\s+(?:table\s+)?[A-Za-z_"`][\w."`]*"#
    };
}

/// `DELETE FROM name` with nothing after the name: no `WHERE`.
macro_rules! sql_delete_all {
    () => {
        r#"(?im)\bdelete\s+from\s+[\w."`]+\s*(?:;|$|'|")"#
    };
}

const HTTP: &[&str] = &["curl", "http", "https", "xh", "wget"];

/// The optional packs and what each guards against.
pub(crate) const PACKS: &[(&str, &str)] = &[
    (
        "apigateway.apigee",
        "Apigee: deleting APIs, products, environments, undeploying",
    ),
    (
        "apigateway.aws",
        "AWS API Gateway: deleting APIs, stages, keys, domains",
    ),
    (
        "apigateway.kong",
        "Kong: `deck reset`/`sync`, `DELETE` on the admin API",
    ),
    (
        "backup.borg",
        "Borg: deleting, pruning, compacting archives",
    ),
    (
        "backup.rclone",
        "rclone: sync, move, delete and purge on remotes",
    ),
    (
        "backup.restic",
        "restic: forgetting and pruning snapshots, removing keys",
    ),
    (
        "backup.velero",
        "Velero: deleting backups, restores, schedules; uninstalling",
    ),
    (
        "cdn.cloudflare_workers",
        "Cloudflare Workers: deleting workers, KV, R2, D1; rollbacks",
    ),
    (
        "cdn.cloudfront",
        "CloudFront: deleting distributions and policies, invalidations",
    ),
    (
        "cdn.fastly",
        "Fastly: deleting services, domains, backends; activating versions",
    ),
    (
        "cicd.circleci",
        "CircleCI: deleting contexts, secrets, orbs, pipelines",
    ),
    (
        "cicd.github_actions",
        "GitHub Actions: deleting secrets and variables, disabling workflows",
    ),
    (
        "cicd.gitlab_ci",
        "GitLab CI: unregistering runners, deleting pipelines, jobs, variables",
    ),
    (
        "cicd.jenkins",
        "Jenkins: deleting jobs, nodes, views, credentials",
    ),
    (
        "cloud.aws",
        "AWS: terminating instances, deleting stacks, databases, images, logs",
    ),
    ("cloud.azure", "Azure: deleting and untagging resources"),
    (
        "cloud.gcp",
        "Google Cloud: deleting images, repositories, resources",
    ),
    (
        "containers.docker",
        "Docker: prunes, forced removals, volume removal",
    ),
    (
        "database.mysql",
        "MySQL: dropping, truncating, deleting without `WHERE`, global grants",
    ),
    (
        "database.postgresql",
        "PostgreSQL: dropping, truncating, deleting without `WHERE`",
    ),
    ("database.redis", "Redis: flushing databases"),
    (
        "database.sqlite",
        "SQLite: dropping, truncating, deleting without `WHERE`",
    ),
    (
        "dns.cloudflare",
        "Cloudflare DNS: deleting records and zones",
    ),
    ("dns.generic", "DNS tools: dynamic deletes, zone transfers"),
    (
        "dns.route53",
        "Route 53: deleting zones, records, health checks",
    ),
    ("email.mailgun", "Mailgun: `DELETE` on the API"),
    ("email.postmark", "Postmark: `DELETE` on the API"),
    ("email.sendgrid", "SendGrid: `DELETE` on the API"),
    (
        "email.ses",
        "Amazon SES: deleting identities, templates, configuration sets",
    ),
    (
        "featureflags.flipt",
        "Flipt: deleting flags, segments, namespaces",
    ),
    (
        "featureflags.launchdarkly",
        "LaunchDarkly: deleting and archiving flags, projects",
    ),
    ("featureflags.split", "Split: deleting and killing splits"),
    (
        "featureflags.unleash",
        "Unleash: deleting and archiving toggles, projects",
    ),
    (
        "infrastructure.terraform",
        "Terraform: destroy, state removal",
    ),
    (
        "kubernetes.kubectl",
        "Kubernetes: deleting resources, draining nodes",
    ),
    (
        "loadbalancer.elb",
        "Elastic Load Balancing: deleting balancers, deregistering targets",
    ),
    (
        "loadbalancer.haproxy",
        "HAProxy: stopping, disabling servers",
    ),
    ("loadbalancer.nginx", "nginx: stopping"),
    (
        "loadbalancer.traefik",
        "Traefik: stopping, removing its container or routes",
    ),
    (
        "messaging.kafka",
        "Kafka: deleting topics, records, groups; resetting offsets",
    ),
    (
        "messaging.nats",
        "NATS: deleting and purging streams, consumers, buckets",
    ),
    (
        "messaging.rabbitmq",
        "RabbitMQ: deleting users, vhosts, queues; resets",
    ),
    (
        "messaging.sqs_sns",
        "SQS and SNS: deleting and purging queues, topics",
    ),
    (
        "monitoring.datadog",
        "Datadog: deleting monitors and dashboards",
    ),
    (
        "monitoring.newrelic",
        "New Relic: deleting entities and applications",
    ),
    (
        "monitoring.pagerduty",
        "PagerDuty: deleting services, schedules, users",
    ),
    (
        "monitoring.prometheus",
        "Prometheus and Grafana: deleting series, rules, dashboards",
    ),
    ("monitoring.splunk", "Splunk: removing and cleaning indexes"),
    (
        "package_managers",
        "Package managers: publishing, uninstalling",
    ),
    (
        "payment.braintree",
        "Braintree: deleting customers, cancelling subscriptions",
    ),
    (
        "payment.square",
        "Square: deleting catalog objects, customers",
    ),
    ("payment.stripe", "Stripe: deleting objects, rolling keys"),
    (
        "platform.github",
        "GitHub: deleting repositories, releases, secrets, keys",
    ),
    (
        "platform.gitlab",
        "GitLab: deleting repositories, releases, variables; restores",
    ),
    (
        "remote.rsync",
        "rsync: deleting on the destination, removing sources",
    ),
    ("remote.scp", "scp: copying into a remote system directory"),
    (
        "remote.ssh",
        "ssh: destructive remote commands, forgetting keys and hosts",
    ),
    ("search.algolia", "Algolia: deleting and clearing indices"),
    (
        "search.elasticsearch",
        "Elasticsearch: deleting and closing indices, delete-by-query",
    ),
    (
        "search.meilisearch",
        "Meilisearch: deleting indexes, documents, keys",
    ),
    (
        "search.opensearch",
        "OpenSearch: deleting indices and domains",
    ),
    (
        "secrets.aws_secrets",
        "AWS Secrets Manager and SSM: deleting and overwriting secrets",
    ),
    (
        "secrets.doppler",
        "Doppler: deleting secrets, configs, projects",
    ),
    (
        "secrets.onepassword",
        "1Password: deleting items, vaults, users",
    ),
    (
        "secrets.vault",
        "Vault: disabling engines, deleting and destroying secrets, revoking",
    ),
    (
        "storage.azure_blob",
        "Azure Blob Storage: deleting containers and blobs",
    ),
    (
        "storage.gcs",
        "Google Cloud Storage: removing buckets and objects",
    ),
    (
        "storage.minio",
        "MinIO: removing buckets, objects, users, policies",
    ),
    (
        "storage.s3",
        "Amazon S3: removing buckets and objects, syncing with `--delete`",
    ),
    (
        "strict_git",
        "Git, strictly: pushing straight to `main` or `master`",
    ),
    (
        "system.disk",
        "Disks: RAID, LVM, btrfs and device-mapper removals",
    ),
    (
        "system.permissions",
        "Permissions: world-writable and set-uid modes",
    ),
    (
        "system.services",
        "Services: stopping and disabling system services",
    ),
];

/// Every rule of the optional packs.
pub(crate) const RULES: &[PatternRule] = rules! {
    "apigateway.apigee" "delete" High ["gcloud", "apigeecli"] r"\s(?:delete|undeploy)\b"
        => "deletes or undeploys an Apigee resource", "list or describe it, and ask the user to remove it";
    "apigateway.aws" "delete" High ["aws"] r"\sapigateway(?:v2)?\s+delete-"
        => "deletes an API Gateway resource", "use the `get-` commands, and ask the user to delete";
    "apigateway.kong" "deck-reset" Critical ["deck"] r"^deck\s+(?:gateway\s+)?reset\b"
        => "deletes every entity in the Kong gateway", "use `deck diff` and `deck dump`";
    "apigateway.kong" "deck-sync" High ["deck"] r"^deck\s+(?:gateway\s+)?sync\b"
        => "makes the gateway match a file, deleting whatever it lacks", "run `deck diff` first and let the user sync";
    "apigateway.kong" "admin-delete" High HTTP api_delete!(r":8001")
        => "deletes an entity through the Kong admin API", "read it with GET, and ask the user to delete";
    "backup.borg" "delete" Critical ["borg"] r"^borg\s+(?:delete|prune|compact|repo-delete|rdelete|recreate|break-lock)\b"
        => "deletes or rewrites backup archives", "use `borg list`, `borg info` or `borg check`";
    "backup.rclone" "delete" Critical ["rclone"] r"^rclone\s+(?:delete|deletefile|purge|rmdir|rmdirs|cleanup|dedupe|move|moveto)\b"
        => "deletes or moves files on a remote", "use `rclone copy`, or `--dry-run` first";
    "backup.rclone" "sync" High ["rclone"] r"^rclone\s+sync\b", unless r"\s(?:--dry-run|-n)\b"
        => "makes the destination match the source, deleting what it lacks", "run it with `--dry-run`, or use `rclone copy`";
    "backup.restic" "forget" Critical ["restic"] r"\s(?:forget|prune)\b|\skey\s+remove\b|\sunlock\s+--remove-all\b|\scache\s+--cleanup\b"
        => "deletes snapshots or repository data", "use `restic snapshots` and `restic check`";
    "backup.velero" "delete" Critical ["velero"] r"\s(?:delete|uninstall)\b"
        => "deletes backups, restores or schedules", "use `get` and `describe`";
    "cdn.cloudflare_workers" "delete" High ["wrangler"] r"\s(?:delete|rollback)\b"
        => "deletes or rolls back a worker or its storage", "list it, and ask the user";
    "cdn.cloudfront" "delete" High ["aws"] r"\scloudfront\s+(?:delete-\S+|create-invalidation)\b"
        => "deletes a CloudFront resource or invalidates its cache", "use the `get-` and `list-` commands";
    "cdn.fastly" "delete" High ["fastly"] r"\s(?:delete|activate)\b"
        => "deletes a Fastly resource or activates a version in production", "use `list` and `describe`";
    "cicd.circleci" "delete" High ["circleci"] r"\s(?:delete|remove-secret)\b"
        => "deletes a CircleCI context, secret, orb or pipeline", "use `list` and `info`";
    "cicd.circleci" "api-delete" High HTTP api_delete!(r"circleci\.com")
        => "deletes through the CircleCI API", "read it with GET";
    "cicd.github_actions" "delete" High ["gh"] r"\s(?:secret|variable|cache)\s+(?:delete|remove)\b|\sworkflow\s+disable\b|\srun\s+cancel\b"
        => "deletes secrets or variables, or stops workflows", "use `list`, and ask the user";
    "cicd.github_actions" "api-delete" High ["gh"] r"\sapi\s.*(?:-X\s*|--method[=\s]+)DELETE\b"
        => "deletes through the GitHub API", "read it with GET";
    "cicd.gitlab_ci" "runner-unregister" High ["gitlab-runner"] r"\sunregister\b"
        => "unregisters CI runners", "use `gitlab-runner list`";
    "cicd.gitlab_ci" "api-delete" High HTTP api_delete!(r"/api/v4/")
        => "deletes through the GitLab API", "read it with GET";
    "cicd.gitlab_ci" "glab-delete" High ["glab"] r"\s(?:variable|ci)\s+delete\b|\sapi\s.*(?:-X\s*|--method[=\s]+)DELETE\b"
        => "deletes CI variables or pipelines", "use `list` and `view`";
    "cicd.jenkins" "delete" High ["java", "jenkins-cli"] r"\sdelete-\w+"
        => "deletes Jenkins jobs, nodes, views or credentials", "use the `get-` and `list-` commands";
    "cicd.jenkins" "api-delete" High HTTP r"/doDelete\b"
        => "deletes through the Jenkins API", "read it with GET";
    "cloud.aws" "delete" Critical ["aws"] r"\s(?:terminate-\S+|delete-\S+|batch-delete-\S+)", unless r"\s--dry-?run\b"
        => "terminates or deletes an AWS resource", "use `describe-`/`list-`, or `--dry-run`";
    "cloud.aws" "s3-remove" Critical ["aws"] r"\ss3\s+(?:rm|rb)\b", unless r"\s--dryrun\b"
        => "removes S3 objects or buckets", "use `aws s3 ls`, or `--dryrun`";
    "cloud.azure" "delete" Critical ["az"] r"\s(?:delete|untag|purge)\b"
        => "deletes an Azure resource", "use `show` and `list`";
    "cloud.gcp" "delete" Critical ["gcloud"] r"\sdelete\b"
        => "deletes a Google Cloud resource", "use `describe` and `list`";
    "containers.docker" "prune" High ["docker", "podman"] r"\s(?:system|volume|image|container|network|builder|buildx)\s+prune\b"
        => "deletes every unused container, image, volume or network at once", "remove the specific ones by name";
    "containers.docker" "volume-rm" High ["docker", "podman"] r"\svolume\s+rm\b"
        => "deletes a volume and its data", "inspect it, and ask the user";
    "containers.docker" "force-rm" High ["docker", "podman"] r"^\S+\s+(?:container\s+|image\s+)?(?:rm|rmi)\b.*\s(?:-[a-z]*f[a-z]*|--force)\b"
        => "removes running containers or used images by force", "stop it first, and remove it without `-f`";
    "database.mysql" "drop" Critical ["mysql", "mariadb", "drop"] sql_drop!()
        => "drops a database object and its data", "back it up with `mysqldump`, and ask the user";
    "database.mysql" "truncate" Critical ["mysql", "mariadb", "truncate"] sql_truncate!()
        => "deletes every row of a table", "delete the rows you mean with a `WHERE` clause";
    "database.mysql" "delete-without-where" Critical ["mysql", "mariadb", "delete"] sql_delete_all!()
        => "deletes every row of a table", "add a `WHERE` clause";
    "database.mysql" "admin-drop" Critical ["mysqladmin"] r"\sdrop\b"
        => "drops a database", "back it up, and ask the user";
    "database.mysql" "grant-all" High ["mysql", "mariadb", "grant"] r"(?i)\bgrant\s+all\b.*\bon\s+\*\.\*"
        => "grants every privilege on every database", "grant what is needed on one database";
    "database.postgresql" "drop" Critical ["psql", "drop"] sql_drop!()
        => "drops a database object and its data", "back it up with `pg_dump`, and ask the user";
    "database.postgresql" "truncate" Critical ["psql", "truncate"] sql_truncate!()
        => "deletes every row of a table", "delete the rows you mean with a `WHERE` clause";
    "database.postgresql" "delete-without-where" Critical ["psql", "delete"] sql_delete_all!()
        => "deletes every row of a table", "add a `WHERE` clause";
    "database.postgresql" "dropdb" Critical ["dropdb", "dropuser"] r"^\S+\s+\S"
        => "drops a database or role", "back it up with `pg_dump`, and ask the user";
    "database.redis" "flush" Critical ["redis-cli", "valkey-cli"] r"(?i)\s(?:flushall|flushdb)\b"
        => "deletes every key", "delete the keys you mean";
    "database.sqlite" "drop" Critical ["sqlite3", "sqlite"] sql_drop!()
        => "drops a table and its data", "copy the database file first, and ask the user";
    "database.sqlite" "delete-without-where" Critical ["sqlite3", "sqlite"] sql_delete_all!()
        => "deletes every row of a table", "add a `WHERE` clause";
    "dns.cloudflare" "delete" High ["wrangler"] r"\sdns-records\s+delete\b"
        => "deletes DNS records", "list them, and ask the user";
    "dns.cloudflare" "api-delete" High HTTP api_delete!(r"api\.cloudflare\.com")
        => "deletes through the Cloudflare API", "read it with GET";
    "dns.cloudflare" "terraform-destroy" Critical ["terraform", "tofu"] r"\sdestroy\b"
        => "destroys managed infrastructure", "run `terraform plan -destroy` and let the user apply";
    "dns.generic" "nsupdate" High ["nsupdate"] r"(?i)\sdelete\b|\s-l\b"
        => "changes live DNS zones", "ask the user";
    "dns.generic" "zone-transfer" Medium ["dig"] r"(?i)\saxfr\b"
        => "requests a full zone transfer", "query the records you need";
    "dns.route53" "delete" High ["aws"] r"\sroute53\s+(?:delete-\S+|change-resource-record-sets\b.*DELETE)"
        => "deletes DNS zones or records", "use the `list-` and `get-` commands";
    "email.mailgun" "api-delete" High HTTP api_delete!(r"api\.mailgun\.net")
        => "deletes through the Mailgun API", "read it with GET";
    "email.postmark" "api-delete" High HTTP api_delete!(r"api\.postmarkapp\.com")
        => "deletes through the Postmark API", "read it with GET";
    "email.sendgrid" "api-delete" High HTTP api_delete!(r"api\.sendgrid\.com")
        => "deletes through the SendGrid API", "read it with GET";
    "email.ses" "delete" High ["aws"] r"\ssesv?2?\s+delete-\S+"
        => "deletes SES identities, templates or configuration", "use the `get-` and `list-` commands";
    "featureflags.flipt" "delete" High ["flipt"] r"\sdelete\b"
        => "deletes feature flags or segments", "use `list` and `get`";
    "featureflags.flipt" "api-delete" High HTTP api_delete!(r"flipt|/api/v1/namespaces")
        => "deletes through the Flipt API", "read it with GET";
    "featureflags.launchdarkly" "delete" High ["ldcli"] r"\s(?:delete|archive)\b"
        => "deletes or archives flags, projects or environments", "use `list` and `get`";
    "featureflags.launchdarkly" "api-delete" High HTTP api_delete!(r"launchdarkly\.com")
        => "deletes through the LaunchDarkly API", "read it with GET";
    "featureflags.split" "delete" High ["split"] r"\s(?:delete|kill)\b"
        => "deletes or kills splits", "use `list` and `get`";
    "featureflags.split" "api-delete" High HTTP api_delete!(r"api\.split\.io")
        => "deletes through the Split API", "read it with GET";
    "featureflags.unleash" "delete" High ["unleash"] r"\s(?:delete|archive)\b"
        => "deletes or archives toggles or projects", "use `list` and `get`";
    "featureflags.unleash" "api-delete" High HTTP api_delete!(r"/api/admin/")
        => "deletes through the Unleash admin API", "read it with GET";
    "infrastructure.terraform" "destroy" Critical ["terraform", "tofu", "terragrunt"] r"\sdestroy\b|\sapply\b.*\s-destroy\b|\sstate\s+rm\b|\sworkspace\s+delete\b"
        => "destroys managed infrastructure or forgets it", "run `terraform plan` and let the user apply";
    "kubernetes.kubectl" "delete" Critical ["kubectl", "oc"] r"\s(?:delete|drain)\b|\sreplace\s.*--force\b"
        => "deletes cluster resources or evicts a node's workloads", "use `get` and `describe`, and ask the user";
    "loadbalancer.elb" "delete" High ["aws"] r"\selbv?2?\s+(?:delete-\S+|deregister-\S+)"
        => "deletes load balancers or takes targets out of service", "use the `describe-` commands";
    "loadbalancer.haproxy" "stop" High ["haproxy"] r"\s-s[ft]\b"
        => "replaces or stops the running HAProxy", "check the configuration with `haproxy -c`";
    "loadbalancer.haproxy" "service-stop" High ["systemctl", "service"] r"^systemctl\s+(?:stop|disable|mask|kill)\s+haproxy\b|^service\s+haproxy\s+stop\b"
        => "stops HAProxy", "use `status`";
    "loadbalancer.haproxy" "runtime-disable" High ["socat"] r"(?i)\b(?:disable|shutdown)\s+(?:server|sessions|frontend|backend)\b"
        => "takes servers out of service through the runtime API", "use `show stat`";
    "loadbalancer.nginx" "stop" High ["nginx"] r"\s-s\s+(?:stop|quit)\b"
        => "stops nginx", "use `nginx -t` or `nginx -s reload`";
    "loadbalancer.nginx" "service-stop" High ["systemctl", "service"] r"^systemctl\s+(?:stop|disable|mask|kill)\s+nginx\b|^service\s+nginx\s+stop\b"
        => "stops nginx", "use `status`";
    "loadbalancer.traefik" "container-stop" High ["docker", "podman"] r"\s(?:stop|kill|rm)\b.*\btraefik"
        => "stops or removes Traefik", "use `docker logs` or `docker inspect`";
    "loadbalancer.traefik" "kubectl-delete" High ["kubectl"] r"\sdelete\s+(?:.*\btraefik|ingressroute)"
        => "deletes Traefik or its routes", "use `get` and `describe`";
    "loadbalancer.traefik" "service-stop" High ["systemctl", "service"] r"^systemctl\s+(?:stop|disable|mask|kill)\s+traefik\b|^service\s+traefik\s+stop\b"
        => "stops Traefik", "use `status`";
    "messaging.kafka" "delete" Critical ["kafka-topics", "kafka-topics.sh", "kafka-consumer-groups", "kafka-consumer-groups.sh", "kafka-acls", "kafka-acls.sh", "kafka-configs", "kafka-configs.sh", "kafka-delete-records", "kafka-delete-records.sh", "rpk"]
        r"\s--(?:delete|remove|delete-config|reset-offsets)\b|^kafka-delete-records|^rpk\s.*\sdelete\b"
        => "deletes topics, records, groups or settings, or moves consumers", "use `--list` and `--describe`";
    "messaging.nats" "delete" High ["nats"] r"\s(?:delete|del|rm|purge)\b"
        => "deletes or purges streams, consumers or keys", "use `ls` and `info`";
    "messaging.rabbitmq" "delete" High ["rabbitmqctl", "rabbitmqadmin"] r"\s(?:delete_\w+|clear_\w+|forget_cluster_node|reset|force_reset|delete|purge)\b"
        => "deletes users, vhosts, queues or messages, or resets a node", "use the `list` commands";
    "messaging.sqs_sns" "delete" High ["aws"] r"\s(?:sqs|sns)\s+(?:delete-\S+|purge-queue|unsubscribe|remove-permission)\b"
        => "deletes or purges queues, topics or subscriptions", "use the `get-` and `list-` commands";
    "monitoring.datadog" "delete" High ["datadog-ci"] r"\sdelete\b"
        => "deletes monitors or dashboards", "use `list` and `get`";
    "monitoring.datadog" "api-delete" High HTTP api_delete!(r"datadoghq\.")
        => "deletes through the Datadog API", "read it with GET";
    "monitoring.datadog" "terraform-destroy" Critical ["terraform", "tofu"] r"\sdestroy\b"
        => "destroys managed monitoring", "run `terraform plan -destroy` and let the user apply";
    "monitoring.newrelic" "delete" High ["newrelic"] r"\sdelete\b"
        => "deletes entities or applications", "use `search` and `get`";
    "monitoring.newrelic" "api-delete" High HTTP r"(?i)api\.newrelic\.com.*(?:\sDELETE\b|\bdelete\w*\()|(?:-X\s*|--request[=\s]+)DELETE\b.*api\.newrelic\.com"
        => "deletes through the New Relic API", "read it with GET or a query";
    "monitoring.pagerduty" "delete" High ["pd"] r"\sdelete\b"
        => "deletes services, schedules or users", "use `list` and `get`";
    "monitoring.pagerduty" "api-delete" High HTTP api_delete!(r"api\.pagerduty\.com")
        => "deletes through the PagerDuty API", "read it with GET";
    "monitoring.prometheus" "delete-series" Critical HTTP r"/api/v1/admin/tsdb/delete_series"
        => "deletes stored metrics", "query them instead";
    "monitoring.prometheus" "grafana-delete" High HTTP api_delete!(r"grafana|/api/(?:dashboards|datasources|alert-notifications)")
        => "deletes Grafana dashboards or data sources", "read them with GET";
    "monitoring.prometheus" "rule-delete" High ["kubectl"] r"\sdelete\s+prometheusrules?\b"
        => "deletes alerting rules", "use `get` and `describe`";
    "monitoring.prometheus" "plugin-uninstall" Medium ["grafana-cli", "grafana"] r"\suninstall\b"
        => "removes a Grafana plugin", "list plugins, and ask the user";
    "monitoring.splunk" "remove" High ["splunk"] r"\s(?:remove|clean|delete)\b"
        => "removes indexes, events or users", "search instead";
    "monitoring.splunk" "api-delete" High HTTP api_delete!(r":8089")
        => "deletes through the Splunk API", "read it with GET";
    "package_managers" "publish" High ["npm", "pnpm", "yarn", "cargo", "poetry", "twine", "gem", "mvn", "mvnw", "gradle", "gradlew", "dotnet", "flit", "hatch", "uv"]
        r"\s(?:publish|unpublish|yank|deploy|release:perform|push)\b|\supload\b|\spublish\w+"
        => "publishes a package for everyone, or withdraws one", "build and test locally, and let the user publish";
    "package_managers" "uninstall" Medium ["pip", "pip3", "brew", "poetry", "apt", "apt-get", "dnf", "yum", "pacman"] r"\s(?:uninstall|remove|purge|autoremove)\b|\s-R\w*\b"
        => "uninstalls packages others may depend on", "ask the user";
    "payment.braintree" "delete" Critical ["braintree.", "gateway."] r"(?i)^(?:braintree|gateway)\.[\w.]*\.(?:delete|cancel)\b"
        => "deletes Braintree records or cancels subscriptions", "find or search instead";
    "payment.braintree" "api-delete" Critical HTTP api_delete!(r"braintreegateway\.com")
        => "deletes through the Braintree API", "read it with GET";
    "payment.square" "delete" Critical ["square"] r"\sdelete\b"
        => "deletes Square objects", "use `list`";
    "payment.square" "api-delete" Critical HTTP api_delete!(r"squareup\.com")
        => "deletes through the Square API", "read it with GET";
    "payment.stripe" "delete" Critical ["stripe"] r"\s(?:delete|roll)\b"
        => "deletes Stripe objects or rolls API keys", "use `list`";
    "payment.stripe" "api-delete" Critical HTTP api_delete!(r"api\.stripe\.com")
        => "deletes through the Stripe API", "read it with GET";
    "platform.github" "delete" Critical ["gh"] r"\s(?:delete|remove|archive)\b|\srun\s+cancel\b"
        => "deletes or archives repositories, releases, issues, keys or secrets", "use `list` and `view`";
    "platform.github" "api-delete" Critical ["gh"] r"\sapi\s.*(?:-X\s*|--method[=\s]+)DELETE\b"
        => "deletes through the GitHub API", "read it with GET";
    "platform.gitlab" "delete" Critical ["glab"] r"\s(?:delete|archive)\b|\sapi\s.*(?:-X\s*|--method[=\s]+)DELETE\b"
        => "deletes or archives projects, releases or variables", "use `list` and `view`";
    "platform.gitlab" "rails-destroy" Critical ["gitlab-rails", "gitlab-rake"] r"(?i)destroy|delete|backup:restore|\bdrop\b"
        => "destroys GitLab data or restores over it", "ask the user";
    "remote.rsync" "delete" High ["rsync"] r"\s--(?:delete\S*|del|remove-source-files)\b", unless r"\s(?:--dry-run|-[a-zA-Z]*n[a-zA-Z]*)(?:\s|$)"
        => "deletes files on the destination or the source", "run it with `--dry-run` first, or without `--delete`";
    "remote.scp" "system-target" High ["scp"] r"\s\S*:/(?:(?:etc|boot|bin|sbin|lib|lib64|usr/(?:local/)?s?bin|usr/lib|var/lib)(?:/\S*)?)?$"
        => "copies into a remote system directory", "copy to a home or temporary directory";
    "remote.ssh" "remote-command" High ["ssh"] r#"(?:\s|['";&|])(?:sudo\s+)?(?:rm\s|git\s+(?:reset\s+--hard|clean\s+-\w*f|push\s.*--force\b)|mkfs|dd\s+.*of=/dev/)"#
        => "runs a destructive command on a remote machine", "run a read-only command, and ask the user";
    "remote.ssh" "forget-keys" Medium ["ssh-keygen", "ssh-add"] r"^ssh-keygen\b.*\s-R\b|^ssh-add\s+-[dD]\b"
        => "removes known hosts or loaded keys", "list them with `-l`";
    "search.algolia" "api-delete" High HTTP api_delete!(r"algolia\.(?:net|io)")
        => "deletes an Algolia index", "read it with GET";
    "search.algolia" "delete" High ["algolia"] r"\s(?:delete|clear)\b"
        => "deletes or clears indices, rules or keys", "use `list` and `browse`";
    "search.algolia" "client-delete" High ["node", "nodejs", "python", "python3", "ruby"] r"\b(?:deleteIndex|clearObjects|deleteObjects|deleteBy|clear_objects|delete_index)\s*\("
        => "deletes or clears an Algolia index from code", "search instead";
    "search.elasticsearch" "api-delete" High HTTP api_delete!(r":9200|elasticsearch")
        => "deletes indices or documents", "read them with GET";
    "search.elasticsearch" "destructive-api" High HTTP r"(?::9200|elasticsearch)\S*/(?:_delete_by_query|_close\b|_cluster/settings)"
        => "deletes documents by query, closes indices or changes cluster settings", "search instead";
    "search.meilisearch" "api-delete" High HTTP api_delete!(r":7700|meilisearch")
        => "deletes indexes, documents or keys", "read them with GET";
    "search.meilisearch" "delete-batch" High HTTP r"(?::7700|meilisearch)\S*/delete-batch\b"
        => "deletes documents", "read them with GET";
    "search.opensearch" "api-delete" High HTTP api_delete!(r":9200|opensearch")
        => "deletes indices or documents", "read them with GET";
    "search.opensearch" "destructive-api" High HTTP r"(?::9200|opensearch)\S*/(?:_delete_by_query|_close\b|_cluster/settings)"
        => "deletes documents by query or closes indices", "search instead";
    "search.opensearch" "domain-delete" Critical ["aws"] r"\sopensearch\s+delete-\S+"
        => "deletes OpenSearch domains or connections", "use `describe-` and `list-`";
    "secrets.aws_secrets" "delete" Critical ["aws"] r"\ssecretsmanager\s+(?:delete-\S+|update-secret|put-secret-value|remove-\S+)\b|\sssm\s+delete-parameters?\b"
        => "deletes or overwrites secrets", "read them with `get-secret-value` or `describe-secret`";
    "secrets.doppler" "delete" Critical ["doppler"] r"\sdelete\b"
        => "deletes secrets, configs or projects", "use `get` and `list`";
    "secrets.onepassword" "delete" Critical ["op"] r"\sdelete\b"
        => "deletes items, vaults, users or tokens", "use `get` and `list`";
    "secrets.vault" "delete" Critical ["vault"] r"\s(?:delete|destroy|disable|revoke)\b"
        => "deletes secrets, disables engines or revokes access", "use `read`, `list` and `status`";
    "storage.azure_blob" "delete" Critical ["az"] r"\sstorage\s.*\s(?:delete|delete-batch)\b"
        => "deletes storage accounts, containers or blobs", "use `list` and `show`";
    "storage.azure_blob" "azcopy-remove" Critical ["azcopy"] r"\s(?:remove|rm)\b|--delete-destination[=\s]+true\b"
        => "deletes blobs", "use `azcopy list`";
    "storage.gcs" "remove" Critical ["gsutil"] r"\s(?:rb|rm)\b|\srsync\b.*\s-\w*d\b"
        => "removes buckets or objects", "use `gsutil ls`";
    "storage.gcs" "gcloud-delete" Critical ["gcloud"] r"\sstorage\s+(?:\S+\s+)?(?:delete|rm)\b"
        => "removes buckets or objects", "use `gcloud storage ls`";
    "storage.minio" "remove" Critical ["mc"] r"\s(?:rb|rm)\b|\sadmin\s.*\s(?:delete|remove|disable|unset)\b|\smirror\b.*\s--remove\b"
        => "removes buckets, objects, users or policies", "use `mc ls` and `mc stat`";
    "storage.s3" "remove" Critical ["aws"] r"\ss3\s+(?:rm|rb)\b", unless r"\s--dryrun\b"
        => "removes S3 objects or buckets", "use `aws s3 ls`, or `--dryrun`";
    "storage.s3" "sync-delete" Critical ["aws"] r"\ss3\s+sync\b.*\s--delete\b", unless r"\s--dryrun\b"
        => "deletes objects the source lacks", "run it with `--dryrun`, or without `--delete`";
    "storage.s3" "api-delete" Critical ["aws"] r"\ss3api\s+delete-\S+"
        => "deletes S3 objects, buckets or policies", "use the `get-`, `head-` and `list-` commands";
    "strict_git" "push-main" High ["git"] r"^git\s+push\b.*\s(?:\S*:)?(?:master|main)(?:\s|$)"
        => "pushes straight to the main branch", "push a branch and open a pull request";
    "system.disk" "volume-remove" Critical ["mdadm", "btrfs", "dmsetup", "nbd-client", "pvremove", "vgremove", "lvremove", "lvreduce", "pvmove", "vgreduce"]
        r"^(?:pvremove|vgremove|lvremove|lvreduce|pvmove|vgreduce)\b|^mdadm\s.*--(?:stop|zero-superblock|create|remove|fail)\b|^btrfs\s.*(?:subvolume\s+delete|device\s+remove|check\s+--repair)\b|^dmsetup\s+(?:remove|remove_all|wipe_table)\b|^nbd-client\b.*\s-d\b"
        => "removes or rewrites disks, arrays, volumes or mappings", "use the listing commands, and ask the user";
    "system.permissions" "world-writable" High ["chmod"] r"\s0?777\s|\s[ugoa]*\+s\s|\s[0-7]?[4-7][0-7]{3}\s"
        => "makes files writable by everyone or set-uid", "grant the narrowest mode that works, such as 755 or 644";
    "system.services" "stop" High ["systemctl", "service"] r"^systemctl\s+(?:stop|disable|mask|kill)\b|^service\s+\S+\s+stop\b"
        => "stops or disables a system service", "use `status`, and ask the user";
};
