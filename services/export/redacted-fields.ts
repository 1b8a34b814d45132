/**
 * Event fields an export writes redacted. An export is a file for analysts that leaves the
 * service, and the reference never exposes internal credentials (Offer object, rule 4); the log
 * keeps them whole for the internal read model, which replays need. Each credential keeps its
 * name (which endpoints have one is useful to know) and loses its value.
 */
export const REDACTED = '[redacted]';

type Redaction = (value: unknown) => unknown;

const redactMapValues = (map: unknown) =>
  map !== null && typeof map === 'object' ? Object.fromEntries(Object.keys(map).map((name) => [name, REDACTED])) : map;

/** By event type (the schema's record name), then by top-level field. */
const REDACTIONS: Readonly<Record<string, Readonly<Record<string, Redaction>>>> = {
  OfferUpserted: {
    internal: (internal) =>
      internal !== null && typeof internal === 'object' && 'credentials' in internal
        ? { ...internal, credentials: redactMapValues((internal as { credentials: unknown }).credentials) }
        : internal,
  },
};

/** How a field of an event type is redacted before it becomes a cell, or undefined when it is exported as logged. */
export function redactionOf(eventType: string, field: string): Redaction | undefined {
  return REDACTIONS[eventType]?.[field];
}

/** What the file's schema document says of a redacted column. */
export const REDACTED_NOTE = `credential values are written as "${REDACTED}" (their names are kept); the log keeps them for the internal read model`;
