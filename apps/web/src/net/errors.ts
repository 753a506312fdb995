// How a refused or unreachable request reaches the store: one error type with the server's code.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The ApiError of a refused response, from its `{ error: { code, message } }` body when it has one. */
export async function errorOf(response: Response, body?: string): Promise<ApiError> {
  const text = body ?? (await response.text().catch(() => ''));
  let error: { code?: string; message?: string } | undefined;
  try {
    error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
  } catch {
    error = undefined;
  }
  return new ApiError(
    response.status,
    error?.code ?? `HTTP_${response.status}`,
    error?.message ?? response.statusText,
  );
}

/** The text to show for a failure of any kind. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
