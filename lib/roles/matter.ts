import "server-only";
/**
 * The gray-matter adapter: reads a role file's frontmatter data with gray-matter, whose YAML
 * engine is the `yaml` package with the very options the line-preserving editor parses with
 * (lib/roles/frontmatter.ts), so what the library reads and what the editor rewrites agree.
 *
 * gray-matter also reads a language after the opening fence (`---yaml`); only YAML is accepted:
 * its built-in JSON and JavaScript engines are replaced by ones that refuse, since the JavaScript
 * one would run the file's text as code.
 */
import matter from "gray-matter";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { YAML_PARSE_OPTIONS, type FrontmatterParts } from "./frontmatter";

function refuse(language: string) {
  return {
    parse: (): object => {
      throw new Error(`frontmatter in ${language} is not read: only YAML`);
    },
    stringify: (): string => {
      throw new Error(`frontmatter in ${language} is not written: only YAML`);
    },
  };
}

/**
 * gray-matter's options. Always passed: gray-matter caches every parse by its input text when
 * called without options, a cache that never shrinks.
 */
const MATTER_OPTIONS = {
  language: "yaml",
  engines: {
    // logLevel "error": YAML errors throw (as parseDocument reports them); warnings are not printed.
    // gray-matter ends the frontmatter at "\n---", which leaves the "\r" of a CRLF file's last line.
    yaml: {
      parse: (text: string): object => parseYaml(text.replace(/\r$/, ""), { ...YAML_PARSE_OPTIONS, logLevel: "error" }) as object,
      stringify: (data: object): string => stringifyYaml(data),
    },
    json: refuse("json"),
    javascript: refuse("javascript"),
    js: refuse("javascript"),
    coffee: refuse("coffee"),
    toml: refuse("toml"),
  },
};

/** What gray-matter read: the frontmatter's data and the language it was read as. */
interface MatterData {
  data: Record<string, unknown>;
  language: string;
}

export type ReadMatterResult = { ok: true; value: MatterData } | { ok: false; message: string };

/**
 * Reads the frontmatter data of a file already split by `splitFrontmatter`. gray-matter gets the
 * file with its closing fence written `---` (it knows no `...` fence) and without the body, and
 * the frontmatter text it found must be the one the splitter found, byte for byte.
 */
export function readMatter(parts: FrontmatterParts): ReadMatterResult {
  const input = `${parts.open}${parts.yaml}---${parts.eol}`;
  let file: matter.GrayMatterFile<string>;
  try {
    file = matter(input, MATTER_OPTIONS);
  } catch (error) {
    return { ok: false, message: (error as Error).message.split("\n")[0] ?? "unreadable frontmatter" };
  }
  const found = file.matter.replace(/^\r?\n/, "");
  const expected = parts.yaml.replace(/\n$/, "");
  if (found !== expected) return { ok: false, message: "gray-matter found a different end of the frontmatter: a line inside it starts with '---'" };
  const data: unknown = file.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return { ok: false, message: "the frontmatter must be a mapping of 'key: value' lines" };
  return { ok: true, value: { data: data as Record<string, unknown>, language: file.language || "yaml" } };
}
