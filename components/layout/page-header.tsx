/** A page's title (`page-title` for the browser tests) and the line under it. Server or client. */
export function PageHeader({ title, subtitle }: { title: string; subtitle: string }) {
  return (
    <div>
      <h1 className="text-2xl font-semibold tracking-tight" data-testid="page-title">
        {title}
      </h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{subtitle}</p>
    </div>
  );
}
