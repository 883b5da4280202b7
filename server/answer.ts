import { FastResponse } from "srvx";

/**
 * The headers of one answer, gathered while the request is worked on: name/value pairs in two
 * arrays, names lower-case. A web `Headers` costs an object, validation and a sorted copy per
 * request; a handful of pairs costs nothing, and srvx writes them to Node as they are.
 */
export class AnswerHeaders {
  readonly #names: string[] = [];
  readonly #values: string[] = [];

  /** Replaces every value of `name` with this one. */
  set(name: string, value: string): void {
    const lower = name.toLowerCase();
    let kept = false;
    for (let i = 0; i < this.#names.length; i++) {
      if (this.#names[i] !== lower) continue;
      if (kept) {
        this.#names.splice(i, 1);
        this.#values.splice(i, 1);
        i--;
      } else {
        this.#values[i] = value;
        kept = true;
      }
    }
    if (!kept) this.append(lower, value);
  }

  /** Adds a value (a second `set-cookie`, say) beside those already there. */
  append(name: string, value: string): void {
    this.#names.push(name.toLowerCase());
    this.#values.push(value);
  }

  /** The first value of `name`, or null. */
  get(name: string): string | null {
    const index = this.#names.indexOf(name.toLowerCase());
    return index === -1 ? null : this.#values[index]!;
  }

  /** The pairs in the order they were added: what `HeadersInit` and srvx's Node writer take. */
  pairs(): [string, string][] {
    const out: [string, string][] = new Array(this.#names.length);
    for (let i = 0; i < this.#names.length; i++) out[i] = [this.#names[i]!, this.#values[i]!];
    return out;
  }
}

/**
 * An answer with a text body. For a request that came through Node (h3 on srvx's Node adapter:
 * `casekit serve`, `toNodeHandler` under Express or Fastify) this is srvx's FastResponse: its
 * status, header pairs and string body go straight to `ServerResponse.writeHead`/`end` with a
 * Content-Length, with no undici `Response`, no `Headers` and no web stream. Anywhere else
 * (in-process `app.fetch`, a fetch-based host such as Hono) it is the global `Response`, as the
 * host expects (Hono's Node server, for one, swaps the global for its own class and checks for it).
 */
export function textAnswer(request: { runtime?: { node?: unknown } | undefined }, status: number, body: string | undefined, headers: AnswerHeaders): Response {
  const init = { status, headers: headers.pairs() };
  return writesToNode(request) ? new FastResponse(body, init) : new Response(body, init);
}

/** Whether an answer to this request may be srvx's FastResponse, written straight to Node (see textAnswer). */
export function writesToNode(request: { runtime?: { node?: unknown } | undefined }): boolean {
  return Boolean(request.runtime?.node) && fastResponseIsResponse();
}

let checkedResponse: typeof Response | undefined;
let fastIsResponse = false;

/**
 * h3 passes a handler's value through as the answer only when it is `instanceof Response`, the
 * global one at that moment. A library in the same process may replace the global (Hono's Node
 * server does, on `serve`), after which srvx's FastResponse, built on the original, would not be
 * taken for a response. Checked again whenever the global changes.
 */
function fastResponseIsResponse(): boolean {
  if (checkedResponse !== globalThis.Response) {
    checkedResponse = globalThis.Response;
    fastIsResponse = FastResponse.prototype instanceof globalThis.Response;
  }
  return fastIsResponse;
}
