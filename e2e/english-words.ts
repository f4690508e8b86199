/**
 * Finds English words left in a page shown in Chinese (the zh-CN walk, e2e/zh-walk.spec.ts).
 *
 * What counts as a person-visible string: every text node under <body> that is rendered (not in a
 * hidden subtree), and the `placeholder`, `title`, `aria-label` and `alt` of rendered elements.
 * What is not checked, by rule rather than by a list of today's strings:
 * - content marked as not to be translated: `<code>`, `<pre>`, `<kbd>`, `<samp>`, any element
 *   with HTML's `translate="no"` (user data: titles, paths, role files, model names), and any
 *   element whose `lang` says it is in another language on purpose (the language switcher's "English");
 * - a token that is a path, file name, URL, e-mail, version, command flag or code identifier
 *   (has a `/`, `\`, `.` between letters, `_`, `@`, `:`, a digit, an inner capital, or is in ALL CAPS);
 * - proper names: {@link PRODUCT_NAMES} and the names the data holds (`allowed`, passed in), and
 *   at the very end of a text the beginning of such a name (a stopped stream cut inside it).
 */
import type { Page } from "@playwright/test";

/** Names of products, formats and protocols that stay as they are in Chinese text. */
const PRODUCT_NAMES = [
  "Astrion", "OpenAI", "Ollama", "vLLM", "LM", "Studio", "Claude", "Code", "GitHub", "Git", "Markdown", "YAML", "JSON", "ZIP",
  "Node", "npm", "frontmatter", "Chromium", "Docker", "Python", "TypeScript", "JavaScript", "Next", "Bearer", "Linux", "macOS", "Windows",
  "DeepSeek", "Qwen", "Anthropic", "Azure", "Groq", "Mistral", "Together", "OpenRouter", "Fireworks", "Gemini", "Google",
  "Server", "Sent", "Events", "Model", "Context", "Protocol", // "Server-Sent Events", "Model Context Protocol"
  // Claude Code's tool names, which a role file's `tools:` holds as they are
  "Read", "Grep", "Glob", "LS", "Write", "Edit", "MultiEdit", "Bash", "WebFetch", "WebSearch", "NotebookEdit", "Task", "TodoWrite",
  // keys of the keyboard, printed on it as they are
  "Enter", "Shift", "Esc", "Ctrl", "Tab", "Alt",
  // the unit models are billed in, written as it is in Chinese model documentation ("百万 tokens")
  "token", "tokens", "Token",
];

/** The product's own name, which stays as it is. */
const PRODUCT = "Astrion Team";

/** One English word found, where, and the text around it. */
export interface EnglishWord {
  where: string;
  word: string;
  text: string;
}

/** A rendered text and the `data-testid` of its nearest marked element (to find where it comes from). */
export interface VisibleText {
  text: string;
  at: string;
}

/** The rendered texts of the page (text nodes and labelling attributes), skipping what is marked not to translate. */
export async function visibleTexts(page: Page): Promise<VisibleText[]> {
  return page.evaluate(() => {
    // A form control's text is what the person typed (or the file they opened): data.
    const SKIP = new Set(["CODE", "PRE", "KBD", "SAMP", "SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TEXTAREA", "svg", "SVG"]);
    const out: { text: string; at: string }[] = [];
    const at = (el: Element) => el.closest("[data-testid]")?.getAttribute("data-testid") ?? el.tagName.toLowerCase();
    const hidden = (el: Element): boolean => {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden") return true;
      const rect = el.getBoundingClientRect();
      return rect.width === 0 && rect.height === 0 && style.position !== "fixed" && el.children.length === 0;
    };
    const walk = (el: Element) => {
      if (SKIP.has(el.tagName) || el.getAttribute("translate") === "no") return;
      const lang = el.getAttribute("lang");
      if (lang && el !== document.documentElement && !lang.toLowerCase().startsWith("zh")) return;
      if (hidden(el)) return;
      for (const attr of ["placeholder", "title", "aria-label", "alt"]) {
        const value = el.getAttribute(attr);
        if (value) out.push({ text: value, at: `${at(el)}@${attr}` });
      }
      for (const node of el.childNodes) if (node.nodeType === Node.TEXT_NODE && node.textContent?.trim()) out.push({ text: node.textContent.trim(), at: at(el) });
      for (const child of el.children) walk(child);
    };
    walk(document.body);
    return out;
  });
}

/** A token that is a path, URL, identifier, code, version or acronym rather than a word of English prose. */
function isCodeLike(token: string): boolean {
  if (token.includes("`")) return true; // `code`, as Markdown and the titles write it
  if (/^[a-z_]+:$/.test(token)) return true; // a file's key (`tools:`): Chinese text writes its own colon full-width
  return /[\\/._@:#$%=<>{}[\]|~^*+\d`'"-]/.test(token.replace(/^[-'"`(]+|[-'"`).,;:!?]+$/g, "")) || /[a-z][A-Z]/.test(token) || /^[A-Z]{2,}s?$/.test(token);
}

/** The English words of `texts` that are not code-like and not an allowed name (`allowed`: exact words, from {@link namesToWords}). */
export function englishWords(texts: readonly VisibleText[], where: string, allowed: ReadonlySet<string>): EnglishWord[] {
  const found: EnglishWord[] = [];
  for (const { text, at } of texts) {
    // a stopped stream can end inside a name: the last word then counts if it begins an allowed one
    const cut = /([A-Za-z]+)$/.exec(text)?.[1];
    for (const token of text.replaceAll(PRODUCT, " ").split(/[\s\u3000，。、；：！？（）【】「」《》“”‘’·…]+/)) {
      if (!token || isCodeLike(token)) continue;
      for (const word of token.match(/[A-Za-z]{2,}/g) ?? []) {
        if (allowed.has(word)) continue;
        if (word === cut && text.endsWith(word) && [...allowed].some((name) => name.length > word.length && name.startsWith(word))) continue;
        found.push({ where: `${where} [${at}]`, word, text: text.length > 160 ? `${text.slice(0, 160)}…` : text });
      }
    }
  }
  return found;
}

/** The words of names the data holds (role names, model labels, titles, file names), allowed as names. */
export function namesToWords(names: Iterable<string>): Set<string> {
  const words = new Set<string>(PRODUCT_NAMES);
  for (const name of names) for (const w of name.match(/[A-Za-z]{2,}/g) ?? []) words.add(w);
  return words;
}
