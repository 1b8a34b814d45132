import { Type, type Static } from '@sinclair/typebox';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { EventType, type PartnerConfigured } from '../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../append.js';
import { CommandInputError, defineCommand } from '../command.js';
import { canonicalUuid, displayText } from '../input.js';
import { checkCidr } from './cidr.js';

const closed = { additionalProperties: false } as const;

const partnerConfigureInput = Type.Object(
  {
    partner_id: Type.Optional(canonicalUuid('partner to configure; minted (UUIDv7) when absent')),
    name: displayText('display name of the partner'),
    enabled: Type.Optional(Type.Boolean({ description: 'whether its postback route accepts requests (default true)' })),
    source_ip_allowlist: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 100,
        description: 'IPv4/IPv6 CIDR networks postbacks may come from, comma-separated; a bare address is one host',
      }),
    ),
    goal_mappings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            event_name: Type.String({ minLength: 1, maxLength: 100, description: 'event_name a postback carries' }),
            goal_event: Type.String({ minLength: 1, maxLength: 100, description: 'goals[].event it counts as' }),
          },
          closed,
        ),
        { maxItems: 100, description: 'event_name → goal mapping, as JSON [{"event_name":"purchase","goal_event":"sale"}]' },
      ),
    ),
  },
  closed,
);
export type PartnerConfigureInput = Static<typeof partnerConfigureInput>;

/** The event for a validated input: checks what the schema cannot (CIDRs, repeated names). Pure. */
export function partnerConfiguredEvent(input: PartnerConfigureInput, now: Date): PartnerConfigured {
  const networks = (input.source_ip_allowlist ?? []).map((entry, index) => {
    const checked = checkCidr(entry);
    if (!checked.ok) throw new CommandInputError(`source_ip_allowlist[${index}]`, checked.message);
    return checked.cidr;
  });
  const repeatedNetwork = networks.findIndex((network, index) => networks.indexOf(network) !== index);
  if (repeatedNetwork >= 0) throw new CommandInputError(`source_ip_allowlist[${repeatedNetwork}]`, `repeats ${networks[repeatedNetwork]}`);
  const mappings = input.goal_mappings ?? [];
  const names = mappings.map((mapping) => mapping.event_name);
  const repeatedName = names.findIndex((name, index) => names.indexOf(name) !== index);
  if (repeatedName >= 0) throw new CommandInputError(`goal_mappings[${repeatedName}].event_name`, `repeats "${names[repeatedName]}"; map each event_name once`);
  return {
    event_id: uuidV7(),
    partner_id: input.partner_id ?? uuidV7(),
    name: input.name.trim(),
    enabled: input.enabled ?? true,
    source_ip_allowlist: networks,
    goal_mappings: mappings.map(({ event_name, goal_event }) => ({ event_name, goal_event })),
    configured_at: now.getTime(),
  };
}

/** The event of a configuration, keyed by its partner. */
export const partnerEvent = (value: PartnerConfigured): NewEvent => newEvent(EventType.PartnerConfigured, value.partner_id, value);

/** Sets a partner's whole configuration (enabled flag, source networks, goal mapping). */
export const configurePartner = defineCommand({
  name: 'partner:configure',
  summary: 'Create or replace a partner: enabled flag, source IP allowlist (CIDRs), event_name → goal mapping',
  reads: [],
  writes: ['partners'],
  input: partnerConfigureInput,
  async execute(input, { runtime, now }) {
    const value = partnerConfiguredEvent(input, now());
    const [appended] = await appendEvents(runtime, 'partners', [partnerEvent(value)]);
    return { partner_id: value.partner_id, event_id: value.event_id, ...appended };
  },
});
