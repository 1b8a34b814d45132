import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface OpenLoopResult {
  /** Requests sent (each one answered or failed before the result is returned). */
  sent: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Answers a second, from the first scheduled start (after the warm-up) to the last answer. */
  perSecond: number;
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1)));

/**
 * Open-loop load: `rate` POSTs a second, evenly spaced, each started on schedule whatever the
 * earlier answers, and each latency counted from its scheduled start, so a queue in the service
 * shows in the figures instead of slowing the load. (autocannon's overallRate sends each
 * connection's quota for the second back to back and then idles, which measures a burst at full
 * concurrency rather than a steady rate.) Returns once every request sent has its answer, so the
 * counts are exact. With `warmupS`, the load runs that much longer first, at the same rate, and
 * those requests are not counted: the agent opens its sockets and the code warms up then.
 */
export async function openLoop(options: {
  url: string;
  rate: number;
  durationS: number;
  warmupS?: number;
  headers: Record<string, string>;
  body: () => string;
  /** Each answer with the body that was sent (e.g. to retry refusals afterwards), its time from the scheduled start and its headers. */
  onAnswer?: (status: number, answer: string, sent: string, elapsedMs: number, headers: IncomingHttpHeaders) => void;
  /** Each request that got no answer (refused, reset), with the body that was sent. */
  onError?: (error: Error, sent: string) => void;
  maxSockets?: number;
}): Promise<OpenLoopResult> {
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 });
  const warmup = Math.round(options.rate * (options.warmupS ?? 0));
  const total = warmup + Math.round(options.rate * options.durationS);
  const spacing = 1000 / options.rate;
  const latencies: number[] = [];
  const answers: Promise<void>[] = [];
  const counts = { ok: 0, non2xx: 0, errors: 0 };
  let lastAnswerAt = 0;

  const send = (scheduledAt: number, counted: boolean) =>
    new Promise<void>((resolve) => {
      const body = options.body();
      const outgoing = request(
        { agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...options.headers, 'content-length': Buffer.byteLength(body) } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => options.onAnswer && chunks.push(chunk));
          response.on('end', () => {
            options.onAnswer?.(response.statusCode!, Buffer.concat(chunks).toString('utf8'), body, performance.now() - scheduledAt, response.headers);
            if (!counted) return resolve();
            lastAnswerAt = performance.now();
            latencies.push(lastAnswerAt - scheduledAt);
            if (response.statusCode! >= 200 && response.statusCode! < 300) counts.ok += 1;
            else counts.non2xx += 1;
            resolve();
          });
        },
      );
      outgoing.on('error', (error) => {
        options.onError?.(error, body);
        if (counted) counts.errors += 1;
        resolve();
      });
      outgoing.end(body);
    });

  const start = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / spacing) + 1);
      while (answers.length < due) answers.push(send(start + answers.length * spacing, answers.length >= warmup));
      if (answers.length < total) setTimeout(tick, 1);
      else done();
    };
    tick();
  });
  await Promise.all(answers);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const measuredFrom = start + warmup * spacing;
  return {
    sent: total - warmup,
    ...counts,
    perSecond: Math.round((counts.ok * 1000) / Math.max(1, lastAnswerAt - measuredFrom)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
