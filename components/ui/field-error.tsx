/** An inline validation message under a form field; renders nothing without a message. */
export function FieldError({ id, message, testId }: { id: string; message: string | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" data-testid={testId} className="mt-1 text-xs font-medium text-red-600 dark:text-red-400">
      {message}
    </p>
  );
}
