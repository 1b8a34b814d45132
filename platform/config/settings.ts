import { existsSync } from 'node:fs';
import { isIP } from 'node:net';

/**
 * Every environment variable the service reads, with its parser and its documentation.
 * The README table is written from this list, so the two cannot drift apart.
 */
export interface Setting<T> {
  name: string;
  doc: string;
  /** Shown in the README; `undefined` means "unset unless given". */
  defaultText?: string;
  parse(raw: string | undefined): T;
}

export class SettingError extends Error {
  constructor(readonly variable: string, readonly problem: string) {
    super(`${variable} ${problem}`);
  }
}

/**
 * A setting's problem as a command's failure line says it, after its `error: `: every entry point
 * and command words it alike (README, Commands), e.g. `error: configuration: PORT must be …`.
 */
export const configurationProblem = (error: SettingError) => `configuration: ${error.message}`;

function fail(name: string, problem: string): never {
  throw new SettingError(name, problem);
}

const blank = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';

export function integer(name: string, doc: string, fallback: number, min: number, max: number): Setting<number> {
  return {
    name,
    doc,
    defaultText: String(fallback),
    parse(raw) {
      if (blank(raw)) return fallback;
      if (!/^\d+$/.test(raw.trim())) fail(name, `must be a whole number from ${min} to ${max}, got "${raw}"`);
      const value = Number(raw.trim());
      if (value < min || value > max) fail(name, `must be a whole number from ${min} to ${max}, got ${value}`);
      return value;
    },
  };
}

/** An integer whose default is computed when the setting is read (its doc says how); shown as unset. */
export function derivedInteger(name: string, doc: string, fallback: () => number, min: number, max: number): Setting<number> {
  const setting = integer(name, doc, 0, min, max);
  return { name, doc, parse: (raw) => (blank(raw) ? fallback() : setting.parse(raw)) };
}

export function text(name: string, doc: string, fallback: string, pattern?: RegExp, expected?: string): Setting<string> {
  return {
    name,
    doc,
    defaultText: fallback === '' ? '(empty)' : fallback,
    parse(raw) {
      if (blank(raw)) return fallback;
      if (pattern && !pattern.test(raw)) fail(name, `must be ${expected ?? `like ${pattern}`}, got "${raw}"`);
      return raw;
    },
  };
}

export function optionalText(name: string, doc: string): Setting<string | undefined> {
  return { name, doc, parse: (raw) => (blank(raw) ? undefined : raw) };
}

/**
 * `raw` as a refusal may quote it: whatever stands before its last `@` (a user and password) left
 * out. A URL that does not parse is often one whose password holds a `/`, `?` or `#`, so this
 * does not rely on parsing it.
 */
export function withoutUserinfo(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? '';
  return `${scheme}[redacted]${raw.slice(at)}`;
}

/**
 * A URL of one of `protocols`. `userinfo: false` refuses a user or password in it, for a client
 * that would not send them (and whose errors would quote the URL with them).
 */
export function optionalUrl(
  name: string,
  doc: string,
  protocols: string[],
  options: { userinfo?: boolean; queryOrFragment?: boolean; path?: { pattern: RegExp; expected: string } } = {},
): Setting<string | undefined> {
  return {
    name,
    doc,
    parse(raw) {
      if (blank(raw)) return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        fail(name, `must be a URL (${protocols.join(' or ')}), got "${withoutUserinfo(raw)}"`);
      }
      if (!protocols.includes(url.protocol)) fail(name, `must use ${protocols.join(' or ')}, got "${url.protocol}"`);
      // The URL ends its user and password at the first @ before the host's first / ? or #: an @
      // after that is most likely a password holding one of them, which the clients would then
      // send somewhere else, and quote in their errors as the host.
      if (/@/.test(url.pathname + url.search + url.hash)) {
        fail(name, `has an @ after its host; a user or password holding / ? # or @ must be percent-encoded (%2F %3F %23 %40), got "${withoutUserinfo(raw)}"`);
      }
      if (options.userinfo === false && (url.username !== '' || url.password !== '')) {
        fail(name, `must not carry a user or password (user:password@), got "${withoutUserinfo(raw)}"`);
      }
      // A base that others' paths are appended to: a ?query or #fragment in it would swallow them.
      if (options.queryOrFragment === false && (url.search !== '' || url.hash !== '' || /[?#]/.test(raw))) {
        fail(name, `must not carry a ?query or #fragment (paths are added after it), got "${withoutUserinfo(raw)}"`);
      }
      if (options.path && !options.path.pattern.test(url.pathname)) fail(name, `must have ${options.path.expected} as its path, got "${url.pathname}"`);
      return raw;
    },
  };
}

export function brokerList(name: string, doc: string): Setting<string[] | undefined> {
  return {
    name,
    doc,
    parse(raw) {
      if (blank(raw)) return undefined;
      const brokers = raw.split(',').map((part) => part.trim());
      for (const broker of brokers) {
        const match = /^([A-Za-z0-9.\-_]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(broker);
        if (!match || Number(match[2]) > 65535) fail(name, `must be host:port[,host:port...], got "${brokers.map(withoutUserinfo).join(',')}"`);
      }
      return brokers;
    },
  };
}

export function optionalFile(name: string, doc: string): Setting<string | undefined> {
  return {
    name,
    doc,
    parse(raw) {
      if (blank(raw)) return undefined;
      if (!existsSync(raw)) fail(name, `names a file that does not exist: "${raw}"`);
      return raw;
    },
  };
}

export function optionalSecret(name: string, doc: string, minLength: number): Setting<string | undefined> {
  return {
    name,
    doc,
    parse(raw) {
      if (blank(raw)) return undefined;
      if (raw.length < minLength) fail(name, `must be at least ${minLength} characters long`);
      return raw;
    },
  };
}

export function optionalHex(name: string, doc: string, length: number): Setting<string | undefined> {
  return {
    name,
    doc,
    parse(raw) {
      if (blank(raw)) return undefined;
      if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(raw.trim())) fail(name, `must be ${length} hexadecimal characters`);
      return raw.trim().toLowerCase();
    },
  };
}

export function oneOf<T extends string>(name: string, doc: string, fallback: T, values: readonly T[]): Setting<T> {
  return {
    name,
    doc,
    defaultText: fallback,
    parse(raw) {
      if (blank(raw)) return fallback;
      if (!(values as readonly string[]).includes(raw)) fail(name, `must be one of ${values.join(', ')}, got "${raw}"`);
      return raw as T;
    },
  };
}

/** A comma-separated subset of `values` (spaces around items ignored, repeats kept once, in the given order). */
export function subsetOf<T extends string>(name: string, doc: string, values: readonly T[]): Setting<T[]> {
  return {
    name,
    doc,
    defaultText: '(empty)',
    parse(raw) {
      if (blank(raw)) return [];
      const items = raw.split(',').map((item) => item.trim());
      const unknown = items.find((item) => !(values as readonly string[]).includes(item));
      if (unknown !== undefined) fail(name, `must be a comma-separated list of ${values.join(', ')}, got "${unknown}"`);
      return [...new Set(items as T[])];
    },
  };
}

/** A comma-separated list of IP addresses or CIDR networks (IPv4 or IPv6); empty by default. */
export function networkList(name: string, doc: string): Setting<string[]> {
  return {
    name,
    doc,
    defaultText: '(empty)',
    parse(raw) {
      if (blank(raw)) return [];
      const items = raw.split(',').map((item) => item.trim());
      for (const item of items) {
        const [address, prefix, extra] = item.split('/');
        const family = isIP(address ?? '');
        const maxPrefix = family === 6 ? 128 : 32;
        const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
        if (family === 0 || !prefixOk || extra !== undefined) fail(name, `must be a comma-separated list of IP addresses or CIDR networks, got "${item}"`);
        // A zone (fe80::1%eth0) is never part of a peer's address as the socket gives it: it would match nothing.
        if (address!.includes('%')) fail(name, `must list addresses without a zone (%...), got "${item}"`);
        // Every address: any client could name its own source address; the proxy check refuses it too.
        if (prefix !== undefined && Number(prefix) === 0) fail(name, `must not hold a /0 network, which is every address, got "${item}"; list the networks the addresses are in`);
      }
      return [...new Set(items)];
    },
  };
}
