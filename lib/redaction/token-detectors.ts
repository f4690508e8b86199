/**
 * Well-known credential shapes, taken from the rule list of gitleaks' default configuration
 * (`config/gitleaks.toml`, github.com/gitleaks/gitleaks; rule ids in the comments) and, where
 * gitleaks has no rule, from detect-secrets (Yelp/detect-secrets `plugins/`) or the vendor's
 * documented format. Only shapes with a fixed prefix or structure are here: a long random
 * string alone is never enough (hashes, UUIDs and `LS_COLORS` must survive). The module's rule
 * holds: every quantifier bounded, a boundary lookbehind first, and a confirming check after
 * (the body mixes character classes, decodes, or its lines are base64). Pure.
 */
import { group, hasDigit, looksRandom, type Candidate, type Detector } from "./detector-kit";

/** A token may not continue a word or another token on either side. */
const B = String.raw`(?<![A-Za-z0-9_\-])`;
const A = String.raw`(?![A-Za-z0-9_\-])`;

/** The whole match, when every capture group that matched looks generated. */
function random(kind: Detector["kind"]) {
  return (m: RegExpExecArray): Candidate | null => {
    const bodies = m.slice(1).filter((g): g is string => typeof g === "string" && g.length > 0);
    if (bodies.length === 0 || !bodies.every(looksRandom)) return null;
    return { kind, start: m.index, end: m.index + m[0].length };
  };
}

/** Standard base64 of a base64url string, padded; null when it does not decode. */
function decodeBase64Url(s: string): string | null {
  try {
    const std = s.replace(/-/g, "+").replace(/_/g, "/");
    return atob(std + "=".repeat((4 - (std.length % 4)) % 4));
  } catch {
    return null;
  }
}

/** Lines a PEM body may hold before its END line: base64, or an RFC 1421 header (`Proc-Type: …`). */
const PEM_LINE = /^(?:[A-Za-z0-9+/=]{0,128}|[A-Za-z][A-Za-z\-]{0,30}: [^\n]{0,200})$/;

/**
 * A PEM private key: the whole block with its END line, or, when the text was cut before the
 * END, the BEGIN line and the base64 lines after it (a truncated key still leaks).
 */
function privateKey(m: RegExpExecArray): Candidate | null {
  const body = m[1] ?? "";
  const base64 = body.replace(/\\n|\\r|[^A-Za-z0-9+/=]/g, "");
  if (base64.length < 32) return null;
  if (m[2]) return { kind: "private_key", start: m.index, end: m.index + m[0].length };
  // Cut before its END: keep the lines that read as PEM (base64 or headers) up to the first that does not.
  const head = m[0].length - body.length;
  const sep = /\r?\n|\\n/g;
  let end = 0;
  for (let pos = 0; pos <= body.length; ) {
    sep.lastIndex = pos;
    const s = sep.exec(body);
    const lineEnd = s ? s.index : body.length;
    const line = body.slice(pos, lineEnd).replace(/\\r$/, "").trim();
    if (line && !PEM_LINE.test(line)) break;
    if (line) end = lineEnd;
    if (!s) break;
    pos = s.index + s[0].length;
  }
  return end > 0 ? { kind: "private_key", start: m.index, end: m.index + head + end } : null;
}

/** Fixed-prefix tokens; group 1 (and 2) is the generated body that must look random. */
const PREFIXED = [
  // stripe-access-token (gitleaks has sk_/rk_; pk_ and whsec_ are Stripe's publishable and webhook-signing keys)
  String.raw`(?:sk|rk|pk)_(?:test|live|prod)_([A-Za-z0-9]{10,247})`,
  String.raw`whsec_([A-Za-z0-9+/]{24,100})`,
  // gitlab-pat, gitlab-pat-routable, gitlab-deploy-token, gitlab-runner-authentication-token, gitlab-ptt,
  // gitlab-feed-token, gitlab-incoming-mail-token, gitlab-kubernetes-agent-token, gitlab-oauth-app-secret,
  // gitlab-scim-token, gitlab-feature-flag-client-token, gitlab-cicd-job-token
  String.raw`(?:glpat|gldt|glrt|glptt|glft|glimt|glagent|gloas|glsoat|glffct|glcbt)-([0-9A-Za-z_\-]{20,300})(?:\.[0-9a-z]{9})?`,
  // slack-app-token, slack-config-access-token, slack-config-refresh-token (xox[abposr]- is in ./detectors)
  String.raw`xapp-\d-([A-Za-z0-9]{1,32}-\d{1,20}-[A-Za-z0-9]{16,100})`,
  String.raw`xoxe(?:\.xox[bp])?-\d-([A-Za-z0-9]{140,170})`,
  // npm-access-token
  String.raw`npm_([A-Za-z0-9]{36})`,
  // huggingface-access-token, huggingface-organization-api-token
  String.raw`(?:hf|api_org)_([A-Za-z0-9]{34})`,
  // alibaba-access-key-id; Tencent Cloud's SecretId (AKID + 32, no gitleaks rule)
  String.raw`LTAI([A-Za-z0-9]{20})`,
  String.raw`AKID([A-Za-z0-9]{32})`,
  // digitalocean-pat, -access-token, -refresh-token; shopify-*; sentry-user-token; rubygems-api-token; databricks-api-token
  String.raw`do[opr]_v1_([a-f0-9]{64})`,
  String.raw`shp(?:at|ca|pa|ss)_([a-fA-F0-9]{32})`,
  String.raw`sntryu_([a-f0-9]{64})`,
  String.raw`rubygems_([a-f0-9]{48})`,
  String.raw`dapi([a-f0-9]{32})(?:-\d)?`,
  // pypi-upload-token, linear-api-key, perplexity-api-key, postman-api-token, notion-api-token, doppler-api-token
  String.raw`pypi-AgEIcHlwaS5vcmc([A-Za-z0-9_\-]{50,1000})`,
  String.raw`lin_api_([A-Za-z0-9]{40})`,
  String.raw`pplx-([A-Za-z0-9]{48})`,
  String.raw`PMAK-([a-f0-9]{24}-[a-f0-9]{34})`,
  String.raw`ntn_(\d{11}[A-Za-z0-9]{35})`,
  String.raw`dp\.pt\.([A-Za-z0-9]{43})`,
  // grafana-service-account-token, grafana-cloud-api-token, heroku-api-key-v2, atlassian-api-token, age-secret-key
  String.raw`glsa_([A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`,
  String.raw`glc_([A-Za-z0-9+/]{32,400}={0,3})`,
  String.raw`HRKU-AA([0-9a-zA-Z_\-]{58})`,
  String.raw`ATATT3([A-Za-z0-9_\-=]{186})`,
  String.raw`AGE-SECRET-KEY-1([QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`,
];

/** Detectors of well-known token shapes; added to the built-in list by ./detectors. */
export const TOKEN_DETECTORS: readonly Detector[] = [
  {
    kind: "api_key",
    regex: new RegExp(`${B}(?:${PREFIXED.join("|")})${A}`, "g"),
    accept: random("api_key"),
  },
  {
    // sendgrid-api-token: SG.<22>.<43>.
    kind: "api_key",
    regex: new RegExp(String.raw`(?<![A-Za-z0-9_\-.])SG\.([A-Za-z0-9_\-]{16,32})\.([A-Za-z0-9_\-]{30,64})${A}`, "g"),
    accept: random("api_key"),
  },
  {
    // twilio-api-key: SK and 32 hex digits (letters and digits both, as a random hex string has).
    kind: "api_key",
    regex: new RegExp(String.raw`${B}SK([0-9a-fA-F]{32})${A}`, "g"),
    accept: (m) => (hasDigit(m[1] ?? "") && /[a-fA-F]/.test(m[1] ?? "") ? { kind: "api_key", start: m.index, end: m.index + m[0].length } : null),
  },
  {
    // telegram-bot-api-token: the bot id, a colon, then 33–35 characters starting with A (gitleaks asks
    // for "telegr" nearby; the three character classes stand in for it here).
    kind: "api_key",
    regex: new RegExp(String.raw`(?<![0-9A-Za-z_:\-])\d{5,16}:(A[A-Za-z0-9_\-]{32,34})${A}`, "g"),
    accept: (m) => {
      const body = m[1] ?? "";
      return /[a-z]/.test(body) && /\d/.test(body.slice(1)) ? { kind: "api_key", start: m.index, end: m.index + m[0].length } : null;
    },
  },
  {
    // Discord bot token (detect-secrets DiscordBotTokenDetector): base64 of the bot's numeric id,
    // a 6-character timestamp and an HMAC. Confirmed by decoding the first part to digits.
    kind: "api_key",
    regex: /(?<![A-Za-z0-9_\-.])([MNO][A-Za-z0-9_\-]{23,25})\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}(?![A-Za-z0-9_\-]|\.[A-Za-z0-9_\-])/g,
    accept: (m) => (/^\d{17,20}$/.test(decodeBase64Url(m[1] ?? "") ?? "") ? { kind: "api_key", start: m.index, end: m.index + m[0].length } : null),
  },
  {
    // slack-webhook-url: the path after hooks.slack.com is the secret.
    kind: "api_key",
    regex: /(?<![A-Za-z0-9.\-])hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9+/]{43,56})(?![A-Za-z0-9+/])/g,
    accept: (m) => (looksRandom(m[1] ?? "") ? group("api_key", m, 1) : null),
  },
  {
    // azure-ad-client-secret: three characters, a digit, "Q~", then 31–34 more.
    kind: "api_key",
    regex: /(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~\-])/g,
    accept: (m) => (looksRandom(m[0]) ? { kind: "api_key", start: m.index, end: m.index + m[0].length } : null),
  },
  {
    // Azure storage account and Service Bus keys in a connection string (detect-secrets
    // AzureStorageKeyDetector: `AccountKey=` and 88 base64 characters; Service Bus keys are 44).
    kind: "secret",
    regex: /(?<![A-Za-z0-9])(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})(?![A-Za-z0-9+/=])/g,
    accept: (m) => (looksRandom(m[1] ?? "") ? group("secret", m, 1) : null),
  },
  {
    // private-key: a PEM block (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP … PRIVATE KEY), masked whole.
    // The body takes base64, whitespace, header text and escaped newlines (a key inside JSON), and
    // a single dash but never five, so it stops at the END line; the END line is optional.
    kind: "private_key",
    regex: /(?<!-)-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----((?:[A-Za-z0-9+/=\s:,.\\]|-(?!----)){32,16384})(-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?/g,
    accept: privateKey,
  },
];
