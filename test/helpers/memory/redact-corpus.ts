/**
 * The redaction corpus: positive samples (text with sensitive spans and their exact expected
 * offsets) and negative samples (look-alikes that must stay). Hand-written templates, filled by
 * the seeded generators of ./corpus-generators, so the corpus is reproducible. Expected spans
 * come from how each sample is built, never from running the redactor.
 */
import { compose, makeGen, type Part, type Sample } from "./corpus-generators";

export type { Sample } from "./corpus-generators";

const SEED = 20260711;

/** Builds the positive samples. */
function positives(): Sample[] {
  const g = makeGen(SEED);
  const out: Sample[] = [];
  const add = (...parts: Part[]) => out.push(compose(parts));

  // Hand-written, one or two per shape the brief names.
  add("请联系张三，手机 ", ["phone", "13812345678"], "，邮箱 ", ["email", "zhangsan@example.cn"]);
  add("Call ", ["phone", "+44 20 7946 0958"], " or ", ["phone", "+1 (415) 555-2671"], ".");
  add("国际号码 ", ["phone", "+86 138 1234 5678"], "，备用 ", ["phone", "138-1234-5678"]);
  add("OPENAI_API_KEY=", ["api_key", "sk-proj-Xy7kQ2mN9pLr4sTv8wZa1bCd3eFg5hJk6lMn0oPq"]);
  add("export GITHUB_TOKEN ", ["api_key", "ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz"]);
  add("aws_access_key_id = ", ["api_key", "AKIAIOSFODNN7EXAMPLE"], "\naws_secret_access_key = ", ["api_key", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]);
  add("Authorization: ", ["bearer_token", "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"]);
  add("curl -H 'Authorization: ", ["bearer_token", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlMTIz"], "' https://api.example.com/v1/me");
  add("session ", ["jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"], " expired");
  add("server at ", ["ipv4", "192.168.1.10"], ":8080 and ", ["ipv6", "2001:db8::8a2e:370:7334"], ".");
  add("loopback ", ["ipv6", "::1"], ", mapped ", ["ipv6", "::ffff:192.0.2.128"]);
  add("DNS is ", ["ipv4", "1.1.1.1"], " or ", ["ipv4", "8.8.8.8"], "; subnet ", ["ipv4", "10.0.0.0"], "/8");
  add("URL http://[", ["ipv6", "fe80::1ff:fe23:4567:890a"], "]:3000/health");
  add("身份证号 ", ["id_card", "11010519491231002X"], "，卡号 ", ["bank_card", "6222 0212 3456 7890 128"]);
  add("card ", ["bank_card", "4111 1111 1111 1111"], " exp 12/29");
  add("Amex ", ["bank_card", "3782-822463-10005"], ", Visa ", ["bank_card", "4012888888881881"]);
  add("客户账号 ", ["account_id", "acct_7Hq2Lm9Xw4Za1BcD"], " 已冻结");
  add("The user ", ["account_id", "UID-00123456"], " is gone; see ", ["account_id", "cust-0a1b2c3d4e5f60718293a4b5"], ".");
  add("password: ", ["secret", "Tr0ub4dor&3x"], " (rotate monthly)");
  add("数据库密码：", ["secret", "Pa55w0rd-2026"], "，请妥善保管");
  add("client_secret=", ["secret", "3f786850e387550fdab836ed7e6dc881de23001b"]);
  add("token: ", ["secret", "550e8400-e29b-41d4-a716-446655440000"]);
  add("mailto:", ["email", "ops-team@corp.example.co.uk"], "?subject=hi");
  add("\"email\": \"", ["email", "li.si+news@163.com"], "\", \"phone\": \"", ["phone", "15900001111"], "\"");
  add("两个手机：", ["phone", "13912345678"], "、", ["phone", "18688889999"], "。");
  add("IPv6 full ", ["ipv6", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"], " ok");

  // Harder shapes: embedded in JSON, URLs, logs, full-width forms, ranges, mixed languages.
  add("{\"user\":{\"mail\":\"", ["email", "Wang.Wu@Example.COM"], "\",\"tel\":\"", ["phone", "+86-138-0013-8000"], "\"}}");
  add("2026-07-11T12:30:45Z INFO login ok ip=", ["ipv4", "203.0.113.7"], " ua=curl/8.5.0");
  add("GET /v1/users?email=", ["email", "qa_team@example.org"], "&page=2 HTTP/1.1");
  add("手机：", ["phone", "１３９１２３４５６７８"], "（全角）");
  add("allow ", ["ipv4", "192.0.2.1"], "-", ["ipv4", "192.0.2.254"], " only");
  add("headers = {\"Authorization\": \"", ["bearer_token", "Bearer ya29.a0AfH6SMBx3Kq9LmN0pQ"], "\"}");
  add("DATABASE_PASSWORD=\"", ["secret", "s3cr3t-P@ss"], "\"");
  add("他的银行卡号是", ["bank_card", "6217001234567890122"], "，请核对");
  add("zone id ", ["ipv6", "fe80::a00:27ff:fe4e:66a1"], "%eth0 is link-local");
  add("工行卡 ", ["bank_card", "9558801234567890128"]);
  add("id_rsa uploaded by ", ["email", "_deploy@ci.example.io"], " from ", ["ipv6", "2001:db8:0:1::53"]);

  add("DATABASE_URL=postgres://app:", ["secret", "Zx9-kLm2Qw"], "@db.internal:5432/orders");
  // Equal spans: the more specific kind (api_key) wins over the URL password (secret).
  add("git remote https://bot:", ["api_key", "ghs_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f"], "@github.com/acme/app.git");

  // National phone formats, key shapes from gitleaks' rules, PEM private keys.
  add("Office ", ["phone", "(415) 555-2671"], ", cell ", ["phone", "415.555.2671"], ", fax ", ["phone", "415-555-2672"]);
  add("London ", ["phone", "020 7946 0958"], "; Berlin ", ["phone", "030 12345678"], "; Paris ", ["phone", "01 23 45 67 89"]);
  add("总机 ", ["phone", "010-12345678"], "，分部 ", ["phone", "0755-12345678"], "，东京 ", ["phone", "03-1234-5678"]);
  add("STRIPE_SECRET_KEY=", ["api_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"], " and webhook ", ["api_key", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]);
  add("{\"type\": \"service_account\", \"private_key\": \"", ["private_key", "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\\n-----END PRIVATE KEY-----"], "\\n\"}");
  add("Azure: AccountName=acme;AccountKey=", ["secret", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="], ";EndpointSuffix=core.windows.net");
  add("Anthropic key ", ["api_key", `sk-ant-api03-${"Qx7".repeat(31)}AA`], " rotated");

  // Generated, through English and Chinese templates.
  for (let i = 0; i < 20; i++) add("请联系", g.pick(["王五", "李四", "小陈"]), "，手机号码：", ["phone", g.mobile()], "，谢谢。");
  for (let i = 0; i < 10; i++) add("Reach me at ", ["phone", g.mobileGrouped(g.pick([" ", "-"]))], " after 6pm");
  for (let i = 0; i < 20; i++) add("Contact: ", ["phone", g.intlPhone()], g.pick([".", " (office)", "", ", ext. 12"]));
  for (let i = 0; i < 20; i++) add(g.pick(["Send it to ", "邮箱：", "cc: ", "From: Ops <"]), ["email", g.email()], g.pick([" today.", "", ">", "，谢谢"]));
  for (let i = 0; i < 12; i++) add(g.pick(["OPENAI_API_KEY=", "key: ", "使用密钥 "]), ["api_key", g.openai()]);
  for (let i = 0; i < 12; i++) add("git remote uses ", ["api_key", g.github()], " for pushes");
  for (let i = 0; i < 10; i++) add("AWS key id ", ["api_key", g.awsId()], " in us-east-1");
  for (let i = 0; i < 5; i++) add("AWS_SECRET_ACCESS_KEY=", ["api_key", g.awsSecret()]);
  for (let i = 0; i < 10; i++) add("Set-Cookie: session=", ["jwt", g.jwt()], "; HttpOnly");
  for (let i = 0; i < 10; i++) add("Authorization: ", ["bearer_token", `Bearer ${g.opaqueToken()}`]);
  for (let i = 0; i < 15; i++) add(g.pick(["host ", "连接 ", "ssh root@", "from "]), ["ipv4", g.ipv4()], g.pick([" failed", "，超时", ":22", "."]));
  for (let i = 0; i < 12; i++) add("listen on [", ["ipv6", g.ipv6()], "]:443");
  for (let i = 0; i < 20; i++) add(g.pick(["身份证：", "ID card ", "证件号码 "]), ["id_card", g.idCard()], g.pick(["。", " verified", ""]));
  for (let i = 0; i < 20; i++) {
    const c = g.card();
    const grouped = c.length === 16 && g.int(0, 1) ? c.replace(/(\d{4})(?=\d)/g, "$1 ") : c;
    add(g.pick(["银行卡号 ", "card number ", "refund to "]), ["bank_card", grouped], g.pick(["，开户行招商银行", " please", "."]));
  }
  for (let i = 0; i < 8; i++) {
    add("Ticket by ", ["email", g.email()], " from ", ["ipv4", g.ipv4()], ", callback ", ["phone", g.mobile()]);
  }
  for (let i = 0; i < 12; i++) {
    add(g.pick(["password: ", "api_key=", "refresh_token = \"", "密码：", "令牌为 ", "secret: "]), ["secret", g.opaqueToken()], g.pick(["", "\"", " (do not share)", "，不要外传"]));
  }
  for (let i = 0; i < 20; i++) add(g.pick(["Call me on ", "电话：", "Tel. ", "office line "]), ["phone", g.nationalPhone()], g.pick([" tomorrow.", "，谢谢", "", " (desk)"]));
  for (let i = 0; i < 15; i++) add(g.pick(["export TOKEN_VALUE=", "key: ", "使用密钥 ", "leaked "]), ["api_key", g.vendorKey()], g.pick(["", " in CI", "，已吊销"]));
  for (let i = 0; i < 6; i++) add("deploy key:\n", ["private_key", g.pem()], "\nkeep it safe");
  for (let i = 0; i < 8; i++) add("账号 ", ["account_id", `acct_${g.chars("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789", 16)}`], " 的负责人");
  return out;
}

/** Builds the negative samples: look-alikes that must not be masked. */
function negatives(): Sample[] {
  const g = makeGen(SEED + 1);
  const texts: string[] = [
    "Upgrade next to 16.0.1 and react to 19.2.0.",
    "版本号 v1.2.3，构建 2026.07.11",
    "Node 20.9.0 is required; TypeScript 5.9.2 ok",
    "999.1.1.1 is not an address, nor is 256.256.256.256",
    "the release 1.2.3.4.5 shipped",
    "lodash@4.17.21 and react@19.2.0",
    "icon@2x.png and logo@3x.webp",
    "Meeting on 2026-07-11 at 12:30:45 UTC",
    "Timestamp 1752251700 was logged",
    "Date.now() returned 1752251700123",
    "订单号 202607110001234 已发货",
    "Order ORD-20260711-0042 shipped",
    "order id 98765432101 (11 digits, not a mobile)",
    "编号 23812345678 不是手机号",
    "Price: $1,299.99 or ¥8,999.00",
    "Total 12345.67 CNY",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
    "request id 550e8400-e29b-41d4-a716-446655440000",
    "std::vector<int> v; std::map::iterator it;",
    "MAC 00:1A:2B:3C:4D:5E on eth0",
    "ratio 16:9 and 4:3; time 08:00:00",
    "see /usr/local/lib/node_modules/typescript/lib/tsc.js",
    "C:\\Users\\dev\\projects\\astrion\\package.json",
    "https://github.com/vercel/next.js/blob/canary/packages/next/README.md",
    "https://example.com/search?q=redaction&page=2",
    "The bearer of this letter is trusted",
    "Bearer authentication is described in RFC 6750",
    "Use `Bearer <token>` in the header",
    "Authorization: Bearer $TOKEN",
    "token: <your token here>",
    "max_tokens: 4096, temperature 0.2",
    "password: changeme",
    "The token is valid for 3600 seconds",
    "sk-learn is not a key, nor is task-runner-config",
    "sklearn.model_selection import train_test_split",
    "ghp_ is the prefix GitHub uses",
    "AKIA is the prefix AWS uses for long-term keys",
    "eyJ is what base64 JSON starts with",
    "const x = a.b.c.d;",
    "for (let i = 0; i < 10; i++) sum += i * 1000000;",
    "Matrix 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
    "ISBN 978-3-16-148410-0",
    "Call +1 now for a prize",
    "score +12 points, −3 later",
    "Line 42, column 17: unexpected token",
    "我们在 2026 年 7 月 11 日讨论了支付服务的订单接口",
    "支付回调测试尚未覆盖并发场景",
    "这个用户希望回答简洁并附代码示例",
    "文件 lib/memory/redact.ts 第 120 行",
    "端口 8080 和 3000 已占用",
    "user@localhost cannot receive mail",
    "@decorator and @scope/package are not e-mails",
    "a::b in C++ is a scope",
    "1.2.3 is a version, 10.0 is a float",
    "HTTP/1.1 200 OK",
    "IPv4 has 4 octets of 0-255",
    "Git tag v2.0.0-rc.1 and sha 9fceb02",
    "UUID v4: 123e4567-e89b-12d3-a456-426614174000",
    "docker image sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
    "Temperature 36.5°C, humidity 40%",
    "phone field is optional",
    "e-mail validation uses a regex",
    "The API key must be stored in settings",
    "密钥存放在设置中，不写入日志",
    "Run npm run typecheck && npm run lint",
    "0x7fffffff is the max int32",
    "exit code 137 means OOM kill",
    "10/11/2026 and 11.07.2026",
    "room 1304, floor 13, building 4",
    "ZIP 94105 and postcode SW1A 1AA",
    "内存 16 GB，磁盘 512 GB",
    "Invoice INV-2026-000123 paid",
    "Build #4821 passed in 3m12s",
    "The quick brown fox jumps over the lazy dog",
    "localhost:3000/api/conversations",
    "github.com/openai/openai-node",
    "npm view zod@4.6.7 version",
    "SELECT id FROM users WHERE created_at > '2026-07-11'",
    "grep -rn 'TODO' lib/",
    "f(x) = 3x^2 + 2x + 1",
    "会议号 123 456 789",
    "1234 5678 9012 3456 is a test pattern, not a card",
    "4111 1111 1111 1112 fails Luhn",
    "chmod 755 scripts/start.mjs",
    "CVE-2024-12345 was patched",
    "RFC 4291 defines IPv6 addressing",
    "Use :: to separate namespaces",
    "Semaphore(8) and pool size 16",
    "x = [1.0, 2.5, 3.75]",
    "{\"version\":\"2.1.0\",\"build\":20260711,\"sha\":\"9fceb02d0ae598e95dc970b74767f19372d61af8\"}",
    "INFO 2026-07-11T12:30:45.123Z request took 1752ms",
    "用户 ID 是 42，订单 1001 已完成",
    "The flight CA1234 departs at 08:45",
    "docs at https://example.com/docs/v2/api#section-3.2.1",
    "phone: TBD, email: TBD",
    "token count 128000, context 200k",
    "password must have 12+ characters",
    "pnpm add @types/node@20.11.5",
    "import x from './a/b/c.js'",
    "Version 1.0.0.0 released",
    "版本号：10.2.3.4，已发布",
    "https://example.com:8443/path/to/resource",
    "Node v20.9.0, release 2026.8.31, build 1.2.3; ports :3000 and :8443",
    "took 1500ms, then 00:15:30 in total, ETA 3m12s",
    "dates 2026-08-31, 31/08/2026, 08-31-2026, 05.11.2026",
    "ISBN 0-306-40615-2 and ISBN-13 978-0-306-40615-7, or 0306406152",
    "https://github.com/vercel/next.js/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "GET /api/items/123e4567-e89b-12d3-a456-426614174000/edit",
    "placeholder 123-456-7890 and service 911-555-1234",
    "desk-lamp, task-runner and sk-learn are words",
    "npm_config_cache and hf_hub_download are names, not keys",
    "sk_live_xxxxxxxxxxxxxxxx is a placeholder",
    "-----BEGIN PUBLIC KEY----- is public",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "SKU 1234, SKIP and SK-12",
    "版本 2.10.300，端口 3000，耗时 1500 毫秒",
  ];
  for (let i = 0; i < 20; i++) texts.push(`Card ${g.badCard()} was declined (bad checksum)`);
  for (let i = 0; i < 20; i++) texts.push(`身份证号 ${g.badIdCard()} 校验失败`);
  for (let i = 0; i < 15; i++) texts.push(`commit ${g.sha()} by ci`);
  for (let i = 0; i < 15; i++) texts.push(`trace_id=${g.uuid()}`);
  for (let i = 0; i < 10; i++) texts.push(`created_at ${1_700_000_000 + g.int(0, 99_999_999)} (unix)`);
  for (let i = 0; i < 10; i++) texts.push(`ts=${1_700_000_000_000 + g.int(0, 99_999_999)}ms`);
  for (let i = 0; i < 10; i++) texts.push(`版本 ${g.int(0, 30)}.${g.int(0, 30)}.${g.int(0, 300)}`);
  for (let i = 0; i < 10; i++) texts.push(`订单号 ${g.pick(["2", "0", "1"])}${g.pick(["0", "1", "2"])}${g.digits(9)} 已付款`);
  for (let i = 0; i < 10; i++) texts.push(`price ${g.int(1, 9999)}.${g.digits(2)} USD, qty ${g.int(1, 99)}`);
  for (let i = 0; i < 10; i++) texts.push(`${g.int(256, 999)}.${g.int(0, 255)}.${g.int(0, 255)}.${g.int(0, 255)} is out of range`);
  return texts.map((text) => ({ text, spans: [] }));
}

/** Positive samples (each with at least one span). */
export const POSITIVE_SAMPLES: readonly Sample[] = positives();

/** Negative samples (no span may be masked). */
export const NEGATIVE_SAMPLES: readonly Sample[] = negatives();

/** The account-id patterns the corpus's `account_id` spans are written for. */
export const CORPUS_ACCOUNT_PATTERNS: readonly string[] = ["acct_{alnum:16}", "UID-{digit:6-10}", "cust-{hex:24}"];
