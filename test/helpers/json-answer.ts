/** An HTTP answer read whole: its status, headers, the body parsed when it is JSON (else null), and the raw text. */
export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function readJsonAnswer<T>(res: Response): Promise<JsonAnswer<T>> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body: body as T, text };
}
