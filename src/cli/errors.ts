import { ApiError } from '../errors.ts';

/**
 * An engine error as a command-line message: `invalid_input` lists each bad field with the option that sets it,
 * `not_found` becomes the caller's sentence for the missing thing (keyed by the error's `details.field`), and any
 * other ApiError keeps its message. Other errors pass through unchanged.
 */
export function cliError(
  err: unknown,
  optionFor: Readonly<Record<string, string>>,
  notFound: Readonly<Record<string, string>> = {},
): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.code === 'not_found') {
    const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
    const sentence = (field !== undefined ? notFound[field] : undefined) ?? Object.values(notFound)[0];
    return new Error(sentence ?? err.message);
  }
  if (err.code === 'invalid_input') {
    const fields = (err.details?.fields as { path: string; message: string }[] | undefined) ?? [];
    const lines = fields.map((f) => {
      const option = optionFor[f.path];
      return `  ${f.path}: ${f.message}${option ? ` (option ${option})` : ''}`;
    });
    return new Error([err.message, ...lines].join('\n'));
  }
  return new Error(err.message);
}
