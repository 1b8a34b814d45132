import { Type } from '@sinclair/typebox';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import { EventType, type CatalogEntryRecorded } from '../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../append.js';
import { isKnownCurrency } from '../../schemas/documents/currency.js';
import { CommandInputError, defineCommand } from '../command.js';

const decimal = Type.String({ pattern: '^-?\\d{1,18}(\\.\\d{1,8})?$', description: 'exact decimal string, e.g. 12.50' });

/** Records a diagnostic catalog entry: the smallest end-to-end check of a deployment's log. */
export const recordCatalogEntry = defineCommand({
  name: 'catalog-entry:record',
  summary: 'Append a diagnostic CatalogEntryRecorded event (checks the log end to end)',
  reads: [],
  writes: ['catalog'],
  input: Type.Object(
    {
      entry_id: Type.String({ minLength: 1, maxLength: 200, description: 'identity of the entry' }),
      name: Type.String({ minLength: 1, maxLength: 500, description: 'display name' }),
      amount: decimal,
      currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' }),
      tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, description: 'labels of up to 100 characters, comma-separated on the command line' })),
    },
    { additionalProperties: false },
  ),
  async execute(input, { runtime, now }) {
    if (!isKnownCurrency(input.currency)) throw new CommandInputError('currency', `is not an ISO 4217 currency code (${JSON.stringify(input.currency)})`);
    const value: CatalogEntryRecorded = {
      event_id: uuidV7(),
      entry_id: input.entry_id,
      name: input.name,
      amount: input.amount,
      currency: input.currency,
      tags: input.tags ?? [],
      recorded_at: now().getTime(),
    };
    const [appended] = await appendEvents(runtime, 'catalog', [newEvent(EventType.CatalogEntryRecorded, value.entry_id, value)]);
    return { event_id: value.event_id, ...appended };
  },
});
