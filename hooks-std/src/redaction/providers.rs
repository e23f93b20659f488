//! The providers' key formats: each with its name (shown as `[REDACTED:name]`), its regex as
//! the provider documents the format, and the literals one of which every match holds (the
//! prefilter). A regex with a group named `s` masks that group only, so that the text around
//! a secret still reads (`https://hooks.slack.com/services/[REDACTED:slack_webhook]`);
//! otherwise the whole match goes.
//!
//! Every match is checked against [placeholders](super::placeholder) unless the format says
//! otherwise: `ghp_xxxx...` and `AKIA...EXAMPLE` have the prefix of a key and are not one.

/// One provider's key format.
pub(crate) struct Format {
    /// The name in the replacement.
    pub(crate) name: &'static str,
    /// The format, as a regex (a group `s`, when present, is what is masked).
    pub(crate) regex: &'static str,
    /// The prefilter: every match holds one of these, in any ASCII case.
    pub(crate) literals: &'static [&'static str],
    /// Whether a match that is a placeholder is left alone. Off for formats whose own
    /// alphabet makes runs of one character plausible (age's bech32 keys).
    pub(crate) check: bool,
}

const fn format(
    name: &'static str,
    regex: &'static str,
    literals: &'static [&'static str],
) -> Format {
    Format {
        name,
        regex,
        literals,
        check: true,
    }
}

/// Passwords in URLs and private key blocks come first: a key inside either is part of them.
pub(crate) const URL_PASSWORD: Format = format(
    "url_password",
    // `scheme://user:password@host`: the password goes, the user and host stay. It may hold
    // `@` (written unescaped, as people do), so it runs to the last `@` before the host; it
    // stops at what ends a URL's authority or a quoted string.
    r#"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/?#@"'<>`]*:(?P<s>[^\s/?#"'<>`]+)@"#,
    &["@"],
);

/// The provider formats, most specific first (the first to claim a span keeps it).
pub(crate) const FORMATS: &[Format] = &[
    Format {
        name: "private_key",
        // A block with its END line, or one cut short (the base64 lines after BEGIN).
        regex: r"-----BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,-]*)",
        literals: &["PRIVATE KEY"],
        // Judged by its body (below), not as a word.
        check: false,
    },
    // Model providers.
    format(
        "anthropic_key",
        r"\bsk-ant-[a-z0-9]{2,8}-[A-Za-z0-9_-]{16,}|\bsk-ant-[A-Za-z0-9_-]{16,}",
        &["sk-ant-"],
    ),
    format("openrouter_key", r"\bsk-or-v1-[a-f0-9]{64}\b", &["sk-or-"]),
    format(
        "openai_key",
        r"\bsk-(?:proj-|svcacct-|admin-|live-)?[A-Za-z0-9_-]{16,}",
        &["sk-"],
    ),
    format("groq_key", r"\bgsk_[A-Za-z0-9]{48,}\b", &["gsk_"]),
    format("xai_key", r"\bxai-[A-Za-z0-9]{70,}\b", &["xai-"]),
    format("replicate_token", r"\br8_[A-Za-z0-9]{37}\b", &["r8_"]),
    format("nvidia_key", r"\bnvapi-[A-Za-z0-9_-]{60,}", &["nvapi-"]),
    format(
        "langsmith_key",
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b",
        &["lsv2_"],
    ),
    format("pinecone_key", r"\bpcsk_[A-Za-z0-9_]{40,}", &["pcsk_"]),
    format("perplexity_key", r"\bpplx-[A-Za-z0-9]{40,}\b", &["pplx-"]),
    format(
        "huggingface_token",
        r"\b(?:hf_|api_org_)[A-Za-z]{34}\b",
        &["hf_", "api_org_"],
    ),
    format("elevenlabs_key", r"\bsk_[a-f0-9]{48}\b", &["sk_"]),
    format("fireworks_key", r"\bfw_[A-Za-z0-9]{24}\b", &["fw_"]),
    // Source control.
    format(
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    ),
    format(
        "gitlab_token",
        r"\b(?:glpat|glptt|gldt|glrt|glrtr|glcbt|gloas|glimt|glsoat|glffct|glft|glagent|glwt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9]{2}\.[A-Za-z0-9]{9})?|\bGR1348941[A-Za-z0-9_-]{20}",
        &[
            "glpat-",
            "glptt-",
            "gldt-",
            "glrt-",
            "glrtr-",
            "glcbt-",
            "gloas-",
            "glimt-",
            "glsoat-",
            "glffct-",
            "glft-",
            "glagent-",
            "glwt-",
            "GR1348941",
        ],
    ),
    format("bitbucket_token", r"\bATBB[A-Za-z0-9_=.-]{20,}", &["ATBB"]),
    format(
        "atlassian_token",
        r"\bAT(?:ATT|CTT)[A-Za-z0-9_=-]{20,}",
        &["ATATT", "ATCTT"],
    ),
    format(
        "sourcegraph_token",
        r"\bsgp_(?:local_)?[A-Za-z0-9_]{40,}|\bslk_[a-f0-9]{64}\b",
        &["sgp_", "slk_"],
    ),
    // Package registries.
    format("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", &["npm_"]),
    format("pypi_token", r"\bpypi-AgE[A-Za-z0-9_-]{50,}", &["pypi-"]),
    format(
        "rubygems_key",
        r"\brubygems_[A-Za-z0-9]{48}\b",
        &["rubygems_"],
    ),
    format("nuget_key", r"\boy2[a-z0-9]{43}\b", &["oy2"]),
    format(
        "docker_hub_token",
        r"\bdckr_pat_[A-Za-z0-9_-]{27,}",
        &["dckr_pat_"],
    ),
    format("crates_io_token", r"\bcio[A-Za-z0-9]{32}\b", &["cio"]),
    format(
        "artifactory_token",
        r"\bAKCp[A-Za-z0-9]{60,}|\bcmVmdGtu[A-Za-z0-9]{56}\b",
        &["AKCp", "cmVmdGtu"],
    ),
    format("clojars_token", r"\bCLOJARS_[a-z0-9]{60}\b", &["CLOJARS_"]),
    format(
        "terraform_token",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
        &[".atlasv1."],
    ),
    format("pulumi_token", r"\bpul-[a-z0-9]{40}\b", &["pul-"]),
    // Clouds.
    format(
        "aws_access_key",
        r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
        &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
    ),
    format(
        "aws_bedrock_key",
        r"\bABSK[A-Za-z0-9+/]{100,}={0,2}",
        &["ABSK"],
    ),
    format("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", &["AIza"]),
    format(
        "google_oauth_token",
        r"\bya29\.[0-9A-Za-z_-]{20,}|\b1//0[0-9A-Za-z_-]{40,}|\bGOCSPX-[0-9A-Za-z_-]{28}",
        &["ya29.", "1//0", "GOCSPX-"],
    ),
    format(
        "azure_client_secret",
        r"(?:^|[^A-Za-z0-9_~.-])(?P<s>[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})",
        &["Q~"],
    ),
    format(
        "azure_sas_signature",
        r"\bsig=(?P<s>[A-Za-z0-9%+/=_-]{20,})",
        &["sig="],
    ),
    format(
        "digitalocean_token",
        r"\bdo[por]_v1_[a-f0-9]{64}\b",
        &["_v1_"],
    ),
    format("heroku_key", r"\bHRKU-[A-Za-z0-9_-]{20,}", &["HRKU-"]),
    format(
        "flyio_token",
        r"\bFlyV1 fm[12][ar]?_[A-Za-z0-9+/=,_-]{20,}|\bfm[12][ar]?_[A-Za-z0-9+/=_-]{40,}|\bfo1_[A-Za-z0-9_-]{40,}",
        &["fm1", "fm2", "fo1_"],
    ),
    format(
        "cloudflare_token",
        r"\bcf(?:ut|at|k)_[A-Za-z0-9]{40,}|\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b",
        &["cfut_", "cfat_", "cfk_", "v1.0-"],
    ),
    format(
        "vercel_token",
        r"\bvc[pirka]_[A-Za-z0-9]{24,}",
        &["vcp_", "vci_", "vcr_", "vck_", "vca_"],
    ),
    format("netlify_token", r"\bnfp_[A-Za-z0-9]{36}\b", &["nfp_"]),
    format(
        "supabase_key",
        r"\bsbp_[a-z0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}",
        &["sbp_", "sb_secret_"],
    ),
    format(
        "databricks_token",
        r"\bdapi[a-f0-9]{32}(?:-\d)?\b",
        &["dapi"],
    ),
    format(
        "tailscale_key",
        r"\btskey-[a-z]+-[A-Za-z0-9_-]{10,}",
        &["tskey-"],
    ),
    format(
        "onepassword_token",
        r"\bops_eyJ[A-Za-z0-9+/=_-]{100,}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        &["ops_", "A3-"],
    ),
    Format {
        name: "age_key",
        regex: r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
        literals: &["AGE-SECRET-KEY-"],
        check: false,
    },
    format(
        "vault_token",
        r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}",
        &["hvs.", "hvb.", "hvr."],
    ),
    format(
        "doppler_token",
        r"\bdp\.(?:ct|pt|st|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b",
        &["dp."],
    ),
    format(
        "grafana_token",
        r"\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b",
        &["glc_", "glsa_"],
    ),
    format(
        "sentry_token",
        r"\bsntry[us]_[A-Za-z0-9+/=_-]{60,}",
        &["sntry"],
    ),
    format(
        "newrelic_key",
        r"\bNR(?:AK|JS|II)-[A-Z0-9]{19,27}\b|\b[A-Za-z0-9]{36}NRAL\b",
        &["NRAK-", "NRJS-", "NRII-", "NRAL"],
    ),
    format(
        "sonar_token",
        r"\bsq(?:p|a|u|co)_[A-Za-z0-9]{40,}\b",
        &["sqp_", "sqa_", "squ_", "sqco_"],
    ),
    // CI.
    format("buildkite_token", r"\bbkua_[a-z0-9]{40}\b", &["bkua_"]),
    format(
        "circleci_token",
        r"\bCCI(?:PAT|RT)_[A-Za-z0-9]{22}_[a-f0-9]{40}\b",
        &["CCIPAT_", "CCIRT_"],
    ),
    // Payments and commerce.
    format(
        "stripe_key",
        r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{32,}",
        &["_live_", "_test_", "_prod_", "whsec_"],
    ),
    format(
        "square_token",
        r"\b(?:sandbox-)?sq0(?:atp|csp|idp|ids|idb|ige)-[A-Za-z0-9_-]{22,}|\bEAAA[A-Za-z0-9_=+-]{56,}",
        &["sq0", "EAAA"],
    ),
    format(
        "facebook_token",
        // An access token, or an app token (`<app id>|<secret>`) near the word.
        r"\bEAA[B-Z][A-Za-z0-9]{80,}|(?i:facebook)[^\n]{0,40}?\b\d{15,16}\|(?P<s>[A-Za-z0-9_-]{27})\b",
        &["EAA", "facebook", "Facebook", "FACEBOOK"],
    ),
    format(
        "plaid_token",
        r"\baccess-(?:sandbox|development|production)-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
        &["access-"],
    ),
    format(
        "shopify_token",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        &["shpat_", "shpca_", "shppa_", "shpss_"],
    ),
    // Messaging, mail and chat webhooks.
    format(
        "slack_token",
        r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxoxe\.xox[bp]-[A-Za-z0-9-]{20,}|\bxapp-\d-[A-Za-z0-9-]{20,}",
        &["xox", "xapp-"],
    ),
    format(
        "slack_webhook",
        r"\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/+-]{20,})",
        &[".slack.com/"],
    ),
    format(
        "discord_webhook",
        r"\bdiscord(?:app)?\.com/api/webhooks/(?P<s>\d+/[A-Za-z0-9_-]{50,})",
        &["discord"],
    ),
    format(
        "teams_webhook",
        r"\.webhook\.office\.com/(?P<s>webhook[a-z0-9]*/[^\s'\x22<>]{20,})",
        &[".webhook.office.com/"],
    ),
    format(
        "discord_token",
        // The first part is a user id (a number) in base64, hence its first two letters.
        r"\b(?:MT|Mj|Mz|ND|NT|Nj|Nz|OD|OT)[A-Za-z\d_-]{22,24}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,38}\b",
        &["MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"],
    ),
    format(
        "telegram_bot_token",
        r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b",
        &[":AA"],
    ),
    format("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", &["SK"]),
    format(
        "sendgrid_key",
        r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
        &["SG."],
    ),
    format(
        "brevo_key",
        r"\bx(?:keysib|smtpsib)-[A-Za-z0-9_-]{40,}",
        &["xkeysib-", "xsmtpsib-"],
    ),
    format("mailgun_key", r"\bkey-[a-f0-9]{32}\b", &["key-"]),
    format("mailchimp_key", r"\b[a-f0-9]{32}-us\d{1,2}\b", &["-us"]),
    format("postman_key", r"\bPMAK-[A-Za-z0-9_-]{40,}", &["PMAK-"]),
    // Productivity and other SaaS.
    format("linear_key", r"\blin_api_[A-Za-z0-9]{40}\b", &["_api_"]),
    format(
        "notion_token",
        r"\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,50})\b",
        &["secret_", "ntn_"],
    ),
    format(
        "figma_token",
        r"\bfig[dpro]_[A-Za-z0-9_-]{30,}={0,2}",
        &["figd_", "figp_", "figr_", "figo_"],
    ),
    format(
        "hubspot_token",
        r"\bpat-(?:na|eu)\d-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
        &["pat-"],
    ),
    format(
        "launchdarkly_key",
        r"\b(?:api|sdk|mob)-[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}\b",
        &["api-", "sdk-", "mob-"],
    ),
    format(
        "contentful_token",
        r"\bCFPAT-[A-Za-z0-9_-]{43}\b",
        &["CFPAT-"],
    ),
    format("dropbox_token", r"\bsl\.[A-Za-z0-9_-]{130,}", &["sl."]),
    format(
        "planetscale_token",
        r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}",
        &["pscale_"],
    ),
    format("scalingo_token", r"\btk-us-[A-Za-z0-9_-]{48}", &["tk-us-"]),
    format(
        "intra42_secret",
        r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b",
        &["-s4t2"],
    ),
    format("infracost_key", r"\bico-[A-Za-z0-9]{32}\b", &["ico-"]),
    format("octopus_key", r"\bAPI-[A-Z0-9]{26}\b", &["API-"]),
    format("prefect_key", r"\bpnu_[A-Za-z0-9]{36}\b", &["pnu_"]),
    format("readme_key", r"\brdme_[a-z0-9]{70}\b", &["rdme_"]),
    format(
        "openshift_token",
        r"\bsha256~[A-Za-z0-9_-]{43}",
        &["sha256~"],
    ),
];

/// JSON Web Tokens (signed or not) and bearer tokens: after the providers, whose tokens they
/// may carry.
pub(crate) const AFTER_PROVIDERS: &[Format] = &[
    format(
        "jwt",
        r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*)?",
        &["eyJ"],
    ),
    format(
        "bearer_token",
        r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}=*",
        &["bearer"],
    ),
];

/// Email addresses, under their own switch.
pub(crate) const EMAIL: Format = format(
    "email",
    r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b",
    &["@"],
);

/// Whether the body of a private key block holds key material: at least 40 base64
/// characters once the lines, escapes and headers are put aside, and not a placeholder.
pub(crate) fn is_key_material(block: &str) -> bool {
    let body: String = block
        .lines()
        .flat_map(|line| line.split("\\n"))
        .filter(|line| !line.contains("-----") && !line.contains(": "))
        .flat_map(str::chars)
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
        .collect();
    body.len() >= 40
        && !super::placeholder::is_placeholder(&body)
        && !super::placeholder::is_identifier_like(&body)
}
