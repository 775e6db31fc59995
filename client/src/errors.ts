// The three ways a call fails, each with what a program needs to decide: the agent answered
// with an error (ApiError: status and its text), the agent could not be reached
// (ConnectionError), or it was reached but its key is not the trusted one (TrustError).

/** The agent answered with a status other than 2xx; `error` is the API's own text. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status, e.g. 404. */
    readonly status: number,
    /** The `error` text of the answer's JSON body (or a description when the body had none). */
    readonly error: string,
    /** The answer's headers (e.g. `retry-after` of a 429). */
    readonly headers: Record<string, string | string[] | undefined> = {},
  ) {
    super(error);
  }

  /** The ApiError of a non-2xx answer: its JSON `error` text, else the status line. */
  static of(status: number, statusText: string, body: string, headers: Record<string, string | string[] | undefined>): ApiError {
    let message = `${status} ${statusText}`.trim();
    try {
      const parsed = JSON.parse(body) as { error?: unknown };
      if (typeof parsed.error === 'string') message = parsed.error;
    } catch {
      // Not JSON (a proxy's page, or a body cut short): keep the status line.
    }
    return new ApiError(status, message, headers);
  }
}

/** No answer: the connection was refused, timed out, or was cut before the answer was whole. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(
    message: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The device presented a key other than the pinned one, or a certificate the trusted CA did not issue. */
export class TrustError extends Error {
  override readonly name = 'TrustError';
  constructor(
    message: string,
    /** The pin the client trusts (`sha256//...`), when it trusts by pin. */
    readonly expectedPin?: string,
    /** The pin of the key the device presented. */
    readonly presentedPin?: string,
  ) {
    super(message);
  }
}
