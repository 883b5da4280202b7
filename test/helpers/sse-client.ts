import http from "node:http";

export interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: { id: string; event: string; data: string }[];
  comments: string[];
  fields: string[];
  ended: boolean;
  /** The response is over, ended or cut (a cut body never emits `end`). */
  closed: boolean;
  raw: string;
  close(): void;
}

/** An SSE client on a raw request: parses events as they arrive (WHATWG field syntax). */
export function connect(url: string, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      const received: Received = { status: response.statusCode!, headers: response.headers, events: [], comments: [], fields: [], ended: false, closed: false, raw: "", close: () => request.destroy() };
      let pending = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        received.raw += chunk;
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf("\n\n")) !== -1) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const event = { id: "", event: "message", data: "" };
          let isEvent = false;
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) received.comments.push(line.slice(1).trim());
            else {
              const [field, ...rest] = line.split(":");
              const value = rest.join(":").replace(/^ /, "");
              received.fields.push(field!);
              if (field === "id") event.id = value;
              if (field === "event") event.event = value;
              if (field === "data") {
                event.data = value;
                isEvent = true;
              }
            }
          }
          if (isEvent) received.events.push(event);
        }
      });
      response.on("end", () => (received.ended = true));
      response.on("close", () => (received.closed = true));
      response.on("error", () => {});
      resolve(received);
    });
    request.on("error", reject);
  });
}

/** The events of an event stream answered in process (a web stream), read until `done` holds for them; then it is cancelled. */
export async function sseEventsOf(response: Response, done: (events: { id: string; data: string }[]) => boolean): Promise<{ raw: string; events: { id: string; data: string }[] }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: { id: string; data: string }[] = [];
  let raw = "";
  let pending = "";
  while (!done(events)) {
    const { done: ended, value } = await reader.read();
    if (ended) break;
    raw += value;
    pending += value;
    let end: number;
    while ((end = pending.indexOf("\n\n")) !== -1) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id !== undefined && data !== undefined) events.push({ id, data });
    }
  }
  await reader.cancel();
  return { raw, events };
}
