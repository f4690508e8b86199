/**
 * The capability vocabulary (issue 9): the capability tags routing knows, the words and Chinese
 * terms that stand for each, and the tags derived from a role's name and description when its
 * file declares no `capabilities`. Pure; every match is a set lookup or a substring test against a
 * fixed term, never a pattern built from the input.
 */
import { stems } from "@/lib/text/stems";
import { hasCjk, normalizeText, splitWords } from "@/lib/text/words";

/**
 * Words (English, lowercase) and Chinese terms that stand for capability tags. Keys with CJK
 * characters match as substrings; English keys match whole words (after a light stemming, so
 * "tests" and "testing" both reach "test"). A tag's own name matches too (`python`, `unit tests`).
 */
export const CAPABILITY_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  review: ["code-review"],
  reviewer: ["code-review"],
  审查: ["code-review"],
  评审: ["code-review"],
  审阅: ["code-review"],
  审核: ["code-review"],
  audit: ["security-review"],
  auditor: ["security-review"],
  security: ["security-review"],
  vulnerability: ["security-review"],
  owasp: ["security-review"],
  threat: ["security-review"],
  pentest: ["security-review"],
  安全: ["security-review"],
  漏洞: ["security-review"],
  审计: ["security-review"],
  diff: ["diff-analysis"],
  变更: ["diff-analysis"],
  改动: ["diff-analysis"],
  test: ["testing"],
  tester: ["testing"],
  tdd: ["testing"],
  qa: ["testing"],
  测试: ["testing"],
  单测: ["testing", "unit-tests"],
  单元测试: ["testing", "unit-tests"],
  集成测试: ["testing", "integration-tests"],
  ui: ["ui-design", "frontend"],
  ux: ["ui-design"],
  前端: ["ui-design", "frontend"],
  页面: ["ui-design", "frontend"],
  界面: ["ui-design", "frontend"],
  样式: ["css", "ui-design"],
  style: ["css"],
  css: ["css"],
  配色: ["color-scheme"],
  颜色: ["color-scheme"],
  colour: ["color-scheme"],
  color: ["color-scheme"],
  a11y: ["accessibility"],
  无障碍: ["accessibility"],
  docs: ["documentation"],
  doc: ["documentation"],
  document: ["documentation"],
  documentation: ["documentation"],
  文档: ["documentation"],
  说明: ["documentation"],
  readme: ["readme", "documentation"],
  tutorial: ["tutorials", "documentation"],
  教程: ["tutorials", "documentation"],
  research: ["research"],
  investigate: ["research"],
  调研: ["research"],
  研究: ["research"],
  调查: ["research"],
  compare: ["comparison"],
  对比: ["comparison"],
  比较: ["comparison"],
  summarize: ["summarization"],
  summary: ["summarization"],
  总结: ["summarization"],
  摘要: ["summarization"],
  implement: ["implementation"],
  实现: ["implementation"],
  开发: ["implementation"],
  bug: ["bug-fix"],
  fix: ["bug-fix"],
  修复: ["bug-fix"],
  refactor: ["refactoring"],
  重构: ["refactoring"],
  后端: ["backend"],
  server: ["backend"],
  接口: ["api"],
  db: ["database"],
  数据库: ["database"],
  py: ["python"],
  ts: ["typescript"],
  js: ["javascript"],
  // Infrastructure, operations and data: the kinds of work most imported role collections cover.
  kubernetes: ["kubernetes"],
  k8s: ["kubernetes"],
  helm: ["kubernetes"],
  kubectl: ["kubernetes"],
  docker: ["containers"],
  container: ["containers"],
  容器: ["containers"],
  terraform: ["infrastructure"],
  iac: ["infrastructure"],
  infrastructure: ["infrastructure"],
  基础设施: ["infrastructure"],
  cloud: ["cloud"],
  aws: ["cloud"],
  azure: ["cloud"],
  gcp: ["cloud"],
  云: ["cloud"],
  deploy: ["devops"],
  deployment: ["devops"],
  gitops: ["devops"],
  devops: ["devops"],
  cicd: ["devops"],
  部署: ["devops"],
  performance: ["performance"],
  latency: ["performance"],
  slow: ["performance"],
  bottleneck: ["performance"],
  profiling: ["performance"],
  optimize: ["performance"],
  optimization: ["performance"],
  optimizer: ["performance"],
  性能: ["performance"],
  慢: ["performance"],
  sql: ["sql", "database"],
  query: ["sql"],
  postgres: ["sql", "database"],
  postgresql: ["sql", "database"],
  mysql: ["sql", "database"],
  sqlite: ["sql", "database"],
  查询: ["sql"],
  debug: ["debugging"],
  debugger: ["debugging"],
  troubleshoot: ["debugging"],
  troubleshooter: ["debugging"],
  调试: ["debugging"],
  排查: ["debugging"],
  observability: ["observability"],
  monitoring: ["observability"],
  logging: ["observability"],
  metrics: ["observability"],
  tracing: ["observability"],
  监控: ["observability"],
  日志: ["observability"],
  incident: ["incident-response"],
  outage: ["incident-response"],
  故障: ["incident-response"],
  payment: ["payment"],
  billing: ["payment"],
  checkout: ["payment"],
  stripe: ["payment"],
  paypal: ["payment"],
  支付: ["payment"],
  付款: ["payment"],
  ml: ["machine-learning"],
  llm: ["machine-learning"],
  mlops: ["machine-learning"],
  机器学习: ["machine-learning"],
  mobile: ["mobile"],
  ios: ["mobile"],
  android: ["mobile"],
  flutter: ["mobile"],
  移动端: ["mobile"],
  architect: ["architecture"],
  architecture: ["architecture"],
  架构: ["architecture"],
  seo: ["seo"],
  golang: ["golang"],
  rust: ["rust"],
  java: ["java"],
  ruby: ["ruby"],
  php: ["php"],
  react: ["react"],
  html: ["html"],
};

/** Every tag of the vocabulary. */
export const CAPABILITY_VOCABULARY: ReadonlySet<string> = new Set(Object.values(CAPABILITY_SYNONYMS).flat());

/** Characters of a role's name and description read for derivation (a description is at most 4000). */
export const DERIVE_READ_CHARS = 4200;

const ENGLISH_TERMS = new Map<string, readonly string[]>();
const CJK_TERMS: Array<[string, readonly string[]]> = [];
for (const [term, tags] of Object.entries(CAPABILITY_SYNONYMS)) {
  if (hasCjk(term)) CJK_TERMS.push([term, tags]);
  else ENGLISH_TERMS.set(term, tags);
}
// A tag's own name is a keyword of it: one-word tags as a word, two-word tags as two adjacent words.
const TWO_WORD_TAGS = new Map<string, string>();
for (const tag of CAPABILITY_VOCABULARY) {
  const parts = tag.split("-");
  if (parts.length === 1 && !ENGLISH_TERMS.has(tag)) ENGLISH_TERMS.set(tag, [tag]);
  if (parts.length === 2) TWO_WORD_TAGS.set(parts.join(" "), tag);
}

/**
 * The vocabulary tags a role's name and description name: English keywords in the order the
 * text names them, then Chinese terms in the order the text names them. Used when a role declares no `capabilities`: such a role is still routed to (issue 9),
 * and every place that shows these tags marks them as derived.
 */
export function deriveCapabilities(name: string, description: string): string[] {
  const text = `${name}\n${description}`.slice(0, DERIVE_READ_CHARS);
  const found = new Set<string>();
  const list = splitWords(text).words;
  for (let i = 0; i < list.length; i++) {
    const variants = stems(list[i]!);
    for (const v of variants) for (const tag of ENGLISH_TERMS.get(v) ?? []) found.add(tag);
    const next = list[i + 1];
    if (next === undefined) continue;
    for (const v of stems(next)) {
      const tag = TWO_WORD_TAGS.get(`${list[i]} ${v}`) ?? TWO_WORD_TAGS.get(`${list[i]} ${v}s`);
      if (tag) found.add(tag);
    }
  }
  const lower = normalizeText(text);
  const cjk: Array<[number, readonly string[]]> = [];
  for (const [term, tags] of CJK_TERMS) {
    const at = lower.indexOf(term);
    if (at >= 0) cjk.push([at, tags]);
  }
  cjk.sort((a, b) => a[0] - b[0]);
  for (const [, tags] of cjk) for (const tag of tags) found.add(tag);
  return [...found];
}
