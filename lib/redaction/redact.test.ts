import { describe, expect, it } from "vitest";
import { redact, redactionMarker, type RedactionKind } from "./index";

const NOW = new Date("2026-07-11T00:00:00Z");

/** The kinds and exact substrings masked in `text`. */
function found(text: string, accountPatterns?: string[]): Array<[RedactionKind, string]> {
  return redact(text, { now: NOW, accountPatterns }).spans.map((s) => [s.kind, text.slice(s.start, s.end)]);
}

describe("redact: output shape", () => {
  it("replaces each span by a marker naming its kind and reports offsets in the original text", () => {
    const text = "请联系张三，手机 13812345678，邮箱 zhangsan@example.cn";
    const r = redact(text, { now: NOW });
    expect(r.text).toBe("请联系张三，手机 [redacted:phone]，邮箱 [redacted:email]");
    expect(r.spans).toEqual([
      { kind: "phone", start: text.indexOf("138"), end: text.indexOf("138") + 11 },
      { kind: "email", start: text.indexOf("zhang"), end: text.length },
    ]);
    expect(redactionMarker("ipv6")).toBe("[redacted:ipv6]");
  });

  it("returns text without sensitive spans unchanged", () => {
    expect(redact("nothing to see here, v1.2.3", { now: NOW })).toEqual({ text: "nothing to see here, v1.2.3", spans: [] });
  });
});

describe("redact: each kind", () => {
  it("e-mail addresses, not package versions, decorators or @2x assets", () => {
    expect(found("a.b+c@mail.example.co.uk, x@y.io.")).toEqual([["email", "a.b+c@mail.example.co.uk"], ["email", "x@y.io"]]);
    expect(found("lodash@4.17.21 @decorator icon@2x.png user@localhost")).toEqual([]);
  });

  it("international and Chinese mobile phone numbers", () => {
    expect(found("+44 20 7946 0958 / +1 (415) 555-2671 / +81 3.1234.5678")).toEqual([
      ["phone", "+44 20 7946 0958"], ["phone", "+1 (415) 555-2671"], ["phone", "+81 3.1234.5678"],
    ]);
    expect(found("手机13812345678，+86 138 1234 5678，138-1234-5678")).toEqual([
      ["phone", "13812345678"], ["phone", "+86 138 1234 5678"], ["phone", "138-1234-5678"],
    ]);
  });

  it("no phone in timestamps, order numbers, 11 digits not starting 1[3-9], or short +n", () => {
    expect(found("ts 1752251700, 1752251700123ms, 12812345678, ORD-13812345678, +1 point, +12 3")).toEqual([]);
  });

  it("OpenAI, GitHub and AWS keys, labelled AWS secrets", () => {
    const keys = [
      "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
      "sk-proj-AbC1dEf2GhI3jKl4MnO5pQr6StU7vWx8",
      "ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz",
      "gho_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz",
      "github_pat_11ABCDEFG0123456789abc_defghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW",
      "AKIAIOSFODNN7EXAMPLE",
      "ASIAY34FZKBOKMUTVV7A",
    ];
    for (const k of keys) expect(found(`key ${k} here`)).toEqual([["api_key", k]]);
    expect(found("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toEqual([
      ["api_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ]);
    // The same 40 characters without a label are not a key.
    expect(found("blob wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toEqual([]);
    expect(found("task-runner-configuration-file, sk-learn, scikit sk-this-is-only-words-here")).toEqual([]);
  });

  it("JWTs and bearer tokens; the longer bearer span wins over the JWT inside it", () => {
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlMTIz";
    expect(found(`token ${jwt}.`)).toEqual([["jwt", jwt]]);
    expect(found(`Authorization: Bearer ${jwt}`)).toEqual([["bearer_token", `Bearer ${jwt}`]]);
    expect(found("Authorization: Bearer 9f8e7d6c5b4a3928")).toEqual([["bearer_token", "Bearer 9f8e7d6c5b4a3928"]]);
    expect(found("Bearer authentication, Bearer $TOKEN, Bearer <token>")).toEqual([]);
  });

  it("valid IPv4 only; no versions, out-of-range octets or leading zeros", () => {
    expect(found("10.0.0.1, 255.255.255.255 and 1.1.1.1.")).toEqual([
      ["ipv4", "10.0.0.1"], ["ipv4", "255.255.255.255"], ["ipv4", "1.1.1.1"],
    ]);
    expect(found("999.1.1.1 1.2.3 v1.2.3.4 1.2.3.4.5 010.1.1.1 10.0.0.256")).toEqual([]);
  });

  it("IPv6 in full, compressed, loopback and IPv4-mapped forms; not times, MACs or C++ scopes", () => {
    expect(found("::1, 2001:db8::8a2e:370:7334, [fe80::1]:80, ::ffff:192.0.2.1, 2001:0db8:0000:0000:0000:ff00:0042:8329.")).toEqual([
      ["ipv6", "::1"], ["ipv6", "2001:db8::8a2e:370:7334"], ["ipv6", "fe80::1"], ["ipv6", "::ffff:192.0.2.1"],
      ["ipv6", "2001:0db8:0000:0000:0000:ff00:0042:8329"],
    ]);
    expect(found("12:30:45, 00:1A:2B:3C:4D:5E, std::vector, a::b, 1::2::3, 2001:db8:12345::1")).toEqual([]);
  });

  it("Chinese resident ID cards with a valid checksum and birth date only", () => {
    expect(found("身份证 11010519491231002X，另一个 11010519491231002x。")).toEqual([
      ["id_card", "11010519491231002X"], ["id_card", "11010519491231002x"],
    ]);
    // Wrong check character; impossible birth date (Feb 30) with its own correct check digit; unknown province.
    expect(found("110105194912310021 110105194902300027 990105194912310025")).toEqual([]);
    // A birth year after the clock's year is not plausible.
    expect(found("110105203001010015", undefined)).toEqual([]);
  });

  it("Luhn-valid bank cards with an issuer prefix, contiguous or grouped; not other digit runs", () => {
    expect(found("4111111111111111, 4111 1111 1111 1111, 5500-0000-0000-0004, 3782 822463 10005, 6222021234567890128")).toEqual([
      ["bank_card", "4111111111111111"], ["bank_card", "4111 1111 1111 1111"], ["bank_card", "5500-0000-0000-0004"],
      ["bank_card", "3782 822463 10005"], ["bank_card", "6222021234567890128"],
    ]);
    expect(found("4111 1111 1111 1111 123")).toEqual([["bank_card", "4111 1111 1111 1111"]]);
    // Luhn fails; Luhn passes but no issuer prefix (a millisecond timestamp); too short.
    expect(found("4111111111111112 1752251700005 411111111111")).toEqual([]);
  });

  it("labelled secrets (a UUID or SHA counts only under a secret label)", () => {
    expect(found("token: 550e8400-e29b-41d4-a716-446655440000")).toEqual([["secret", "550e8400-e29b-41d4-a716-446655440000"]]);
    expect(found("密码：Pa55w0rd-2026，请保管")).toEqual([["secret", "Pa55w0rd-2026"]]);
    expect(found("request id 550e8400-e29b-41d4-a716-446655440000, commit 3f786850e387550fdab836ed7e6dc881de23001b")).toEqual([]);
    expect(found("max_tokens: 4096, password: changeme, tokenised_value_123456")).toEqual([]);
  });

  it("configured account ids, only when patterns are given", () => {
    const text = "账号 acct_7Hq2Lm9Xw4Za1BcD 和 UID-0012345";
    expect(found(text)).toEqual([]);
    expect(found(text, ["acct_{alnum:16}", "UID-{digit:6-10}"])).toEqual([
      ["account_id", "acct_7Hq2Lm9Xw4Za1BcD"], ["account_id", "UID-0012345"],
    ]);
    expect(found("xacct_7Hq2Lm9Xw4Za1BcD acct_7Hq2Lm9Xw4Za1BcDE", ["acct_{alnum:16}"])).toEqual([]);
  });
});

describe("redact: variants", () => {
  it("full-width digits and symbols are seen, and offsets still point into the original", () => {
    const text = "手机：１３８１２３４５６７８，邮箱ｚｓ＠ｅｘａｍｐｌｅ．ｃｎ";
    expect(found(text)).toEqual([["phone", "１３８１２３４５６７８"], ["email", "ｚｓ＠ｅｘａｍｐｌｅ．ｃｎ"]]);
  });

  it("an e-mail whose local part starts with an underscore; an IPv4 range written with a dash", () => {
    expect(found("_admin@example.com")).toEqual([["email", "_admin@example.com"]]);
    expect(found("10.0.0.1-10.0.0.255")).toEqual([["ipv4", "10.0.0.1"], ["ipv4", "10.0.0.255"]]);
  });

  it("a Luhn-valid number of a local issuer counts under a card label only", () => {
    // 9558 is ICBC's own 19-digit prefix; 8800… has no known issuer but is Luhn-valid.
    expect(found("工行 9558801234567890128")).toEqual([["bank_card", "9558801234567890128"]]);
    expect(found("银行卡号：8800000000000005")).toEqual([["bank_card", "8800000000000005"]]);
    expect(found("batch 8800000000000005")).toEqual([]);
  });
});

describe("redact: credentials in URLs, versions, other key prefixes", () => {
  it("masks the password of scheme://user:password@host, not the user or host name", () => {
    expect(found("mongodb://admin:Passw0rd123@db.internal:27017/app")).toEqual([["secret", "Passw0rd123"]]);
    expect(found("https://user:hunter22@example.com/")).toEqual([["secret", "hunter22"]]);
    expect(found("postgres://app:pw@10.1.2.3/db")).toEqual([["secret", "pw"], ["ipv4", "10.1.2.3"]]);
  });

  it("a dotted quad after a version word is a version, elsewhere an address", () => {
    expect(found("Version 1.0.0.0 released, 版本号：2.3.4.5, v 3.1.0.2")).toEqual([]);
    expect(found("server 1.0.0.1 answered")).toEqual([["ipv4", "1.0.0.1"]]);
  });

  it("Slack and Google API keys", () => {
    expect(found("SLACK xoxb-1234567890-0987654321-AbCdEfGhIjKl")).toEqual([["api_key", "xoxb-1234567890-0987654321-AbCdEfGhIjKl"]]);
    expect(found("maps AIzaSyA1234567890abcdefghijklmnopqrstuv")).toEqual([["api_key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"]]);
  });
});

describe("redact: national phone formats (no country code)", () => {
  it("North American numbers: (415) 555-2671, 415-555-2671, 415.555.2671, 415 555 2671, 1-800-…", () => {
    expect(found("(415) 555-2671, 415-555-2671; 415.555.2671 or 415 555 2671, toll-free 1-800-555-0199.")).toEqual([
      ["phone", "(415) 555-2671"], ["phone", "415-555-2671"], ["phone", "415.555.2671"], ["phone", "415 555 2671"], ["phone", "1-800-555-0199"],
    ]);
    // +1 stays one international number, not a national one inside it.
    expect(found("+1 415-555-2671")).toEqual([["phone", "+1 415-555-2671"]]);
  });

  it("numbers with a trunk 0: UK, German, French, Chinese landline, Japanese", () => {
    expect(found("London 020 7946 0958, mobile 07700 900123, Manchester 0161 496 0000")).toEqual([
      ["phone", "020 7946 0958"], ["phone", "07700 900123"], ["phone", "0161 496 0000"],
    ]);
    expect(found("Berlin 030 12345678, (030) 12345678, 030/12345678, Handy 0171 1234567")).toEqual([
      ["phone", "030 12345678"], ["phone", "(030) 12345678"], ["phone", "030/12345678"], ["phone", "0171 1234567"],
    ]);
    expect(found("Paris 01 23 45 67 89；北京 010-12345678，深圳 0755-12345678；東京 03-1234-5678, 090-1234-5678")).toEqual([
      ["phone", "01 23 45 67 89"], ["phone", "010-12345678"], ["phone", "0755-12345678"], ["phone", "03-1234-5678"], ["phone", "090-1234-5678"],
    ]);
    // Chinese mobiles grouped 3-4-4 were already caught, and still are.
    expect(found("手机 138 0013 8000")).toEqual([["phone", "138 0013 8000"]]);
  });

  it("a number followed by more digits keeps only its valid part", () => {
    expect(found("call 020 7946 0958 10 times")).toEqual([["phone", "020 7946 0958"]]);
  });

  it("leaves versions, ports, durations, dates, ISBNs, hashes, UUIDs and service codes alone", () => {
    expect(found("1.2.3, v20.9.0, 2026.8.31, node v415.555.2671, :3000, port 8080, 1500ms, 00:15:30, 3m12s")).toEqual([]);
    expect(found("2026-08-31, 31/08/2026, 08-31-2026, 05.11.2026, 03 06 2026 12 30")).toEqual([]);
    expect(found("ISBN 978-3-16-148410-0, ISBN 0-306-40615-2, 0306406152, 978-0-306-40615-7")).toEqual([]);
    expect(found("https://github.com/x/y/commit/3f786850e387550fdab836ed7e6dc881de23001b and /api/items/123e4567-e89b-12d3-a456-426614174000/edit")).toEqual([]);
    // Area codes start 2–9 and N11 is a service code; seven digits are too few; 01-… pairs with dashes are not French.
    expect(found("123-456-7890, 911-555-1234, 415-911-1234, 555-1234, 01-02-03-04-05")).toEqual([]);
    // The existing address rules still decide an address with a port.
    expect(found("127.0.0.1:8080")).toEqual([["ipv4", "127.0.0.1"]]);
  });
});

describe("redact: key shapes from gitleaks' rules (config/gitleaks.toml)", () => {
  const STRIPE = ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_51HqLyjWDarjtT1zdp7dcXyZ", "pk_live_51HqLyjWDarjtT1zdp7dcXyZ", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
  const OTHERS = [
    "glpat-xY3kP9mQ2rT5vW8zA1bC",
    "npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "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",
    "SK0123456789abcdef0123456789abcdef",
    "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef0123456789",
    "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    "MTE0NjE4NzEyMzQ1Njc4OTAxMg.GhIjKl.aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456",
    "LTAI5tBcDeFgHiJkLmNoPq12",
    "AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE",
    `dop_v1_${"0123456789abcdef".repeat(4)}`,
    "shpat_0123456789abcdef0123456789abcdef",
    `sk-ant-api03-${"aB3".repeat(31)}AA`,
    "sk-proj-AbC1dEf2GhI3jKl4MnO5pQr6StU7vWx8",
  ];

  it("Stripe secret, restricted, publishable and webhook keys", () => {
    for (const k of STRIPE) expect(found(`STRIPE ${k} here`)).toEqual([["api_key", k]]);
  });

  it("GitLab, npm, Hugging Face, SendGrid, Twilio, Slack app, Telegram, Discord, Alibaba, Tencent, DigitalOcean, Shopify, Anthropic and OpenAI keys", () => {
    for (const k of OTHERS) expect(found(`key ${k} here`)).toEqual([["api_key", k]]);
    expect(found("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX")).toEqual([
      ["api_key", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"],
    ]);
  });

  it("the key of an Azure storage connection string", () => {
    const key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    expect(found(`DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${key};EndpointSuffix=core.windows.net`)).toEqual([["secret", key]]);
  });

  it("PEM private keys, masked whole: RSA, EC, OpenSSH, PKCS#8 and inside JSON; a cut key up to its last base64 line", () => {
    const body = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yVQ8pQ7Kx9a1b2c3d4e5f6g7h8i9j0";
    for (const type of ["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "]) {
      const pem = `-----BEGIN ${type}PRIVATE KEY-----\n${body}\n-----END ${type}PRIVATE KEY-----`;
      expect(found(`key:\n${pem}\nthanks`)).toEqual([["private_key", pem]]);
    }
    const json = "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----";
    expect(found(`{"private_key": "${json}\\n"}`)).toEqual([["private_key", json]]);
    const cut = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDk";
    expect(found(`${cut}\nand the text goes on.`)).toEqual([["private_key", cut]]);
    // A header or a placeholder body is not a key.
    expect(found("-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY----- and -----BEGIN PUBLIC KEY-----")).toEqual([]);
  });

  it("leaves look-alikes: words with sk-, short or placeholder bodies, hashes and config names", () => {
    expect(found("desk-lamp, task-runner, sk-learn, SKIP, SK-12, hf_short, npm_config_cache, sk_live_xxxxxxxxxxxxxxxx")).toEqual([]);
    expect(found("glpat-xxxxxxxxxxxxxxxxxxxx, SKaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, LTAIxxxxxxxxxxxxxxxxxxxx, 12345:Abcdefghijklmnopqrstuvwxyzabcdefgh")).toEqual([]);
    expect(found("sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 SG.com Microsoft.Extensions.Configuration")).toEqual([]);
  });
});

describe("redact: overlaps", () => {
  it("the longest span wins: an e-mail whose local part is a mobile number is one e-mail", () => {
    expect(found("13812345678@qq.com")).toEqual([["email", "13812345678@qq.com"]]);
  });

  it("on equal length the more specific kind wins: an ID card that is also Luhn-valid stays an id_card", () => {
    // 36 (Jiangxi) is also a Diners Club prefix, and this ID (checked by hand) passes Luhn too.
    expect(found("身份证 360102199001010755")).toEqual([["id_card", "360102199001010755"]]);
    expect(found("token: sk-abcdefghijklmnopqrstuvwxyz0123456789")).toEqual([["api_key", "sk-abcdefghijklmnopqrstuvwxyz0123456789"]]);
  });

  it("spans never overlap and the masked text rebuilds from them", () => {
    const text = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlMTIz from 10.0.0.1 by a@b.cn, 13812345678";
    const r = redact(text, { now: NOW });
    for (let i = 1; i < r.spans.length; i++) expect(r.spans[i]!.start).toBeGreaterThanOrEqual(r.spans[i - 1]!.end);
    let rebuilt = "";
    let at = 0;
    for (const s of r.spans) {
      rebuilt += text.slice(at, s.start) + redactionMarker(s.kind);
      at = s.end;
    }
    expect(rebuilt + text.slice(at)).toBe(r.text);
    expect(r.spans.map((s) => s.kind)).toEqual(["bearer_token", "ipv4", "email", "phone"]);
  });
});

describe("redact: bounded work on hostile input (1 MB)", () => {
  const MB = 1 << 20;
  const repeat = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);

  it.each([
    "a", "1", "@", ".", ":", "-", "+", "x@", "1.", "1:", "a:", "+1 ", "sk-", "eyJ.", "Bearer ", "token: ", "AKIA", "1-", "acct_", "UID-1", "acct_a1",
    "(415) ", "415-", "415.555.", "030/", "01-", "(0", "sk_live_", "whsec_", "glpat-", "SG.", "SK0", "123456:A", "AccountKey=", "MTE0.", "-----BEGIN PRIVATE KEY-----",
  ])(
    "finishes on 1 MB of %j with nothing masked",
    (unit) => {
      const text = repeat(unit);
      const r = redact(text, { now: NOW, accountPatterns: ["acct_{alnum:8-16}", "UID-{digit:6-10}"] });
      expect(r.spans).toEqual([]);
      expect(r.text).toBe(text);
    },
  );

  it("finishes on 1 MB of near-matches and masks exactly the real ones", () => {
    const unit = "13812345678 4111111111111112 999.1.1.1 a@b ";
    const n = Math.ceil(MB / unit.length);
    const text = unit.repeat(n) + " 13912345678";
    const r = redact(text, { now: NOW });
    expect(r.spans.every((s) => s.kind === "phone")).toBe(true);
    expect(r.spans.length).toBe(n + 1);
  });

  it("settles 1 MB of overlapping candidates of many lengths", () => {
    // Every e-mail here also contains a phone-like local part of a different length.
    const units = Array.from({ length: 2000 }, (_, i) => `1381234${String(5678 + i).padStart(4, "0")}${"x".repeat(i % 50)}@e${i}.cn `);
    const text = units.join("").repeat(Math.ceil(MB / units.join("").length));
    const r = redact(text, { now: NOW });
    expect(r.spans.every((s) => s.kind === "email")).toBe(true);
    expect(r.spans.length).toBe(text.split("@").length - 1);
  });

  it("finishes on 1 MB of long digit, hex and key-like runs", () => {
    const runs = [
      repeat("1234567890"), repeat("abcdef0123:"), `sk-${repeat("A1")}`, `eyJ${repeat("a")}.eyJ${repeat("b")}`,
      `sk_live_${repeat("A1")}`, `glpat-${repeat("a1")}`, `SG.${repeat("a1")}.${repeat("b2")}`, repeat("0 12 "), repeat("415 555 "),
      `-----BEGIN PRIVATE KEY-----\n${repeat("A")}`, `-----BEGIN PRIVATE KEY-----${repeat("-A")}`,
    ];
    for (const text of runs) {
      expect(redact(text, { now: NOW }).spans.length).toBeLessThanOrEqual(1);
    }
  });
});
