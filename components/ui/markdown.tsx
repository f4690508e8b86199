import ReactMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";

/**
 * GitHub-flavoured Markdown. Raw HTML in the source is not rendered (react-markdown's default),
 * so a role prompt or a model answer cannot inject markup into the page.
 */
export function Markdown({ children, testId }: { children: string; testId?: string }) {
  return (
    <div className="markdown text-sm" data-testid={testId}>
      <ReactMarkdown remarkPlugins={[remarkGfm]}>{children}</ReactMarkdown>
    </div>
  );
}
