import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCidr } from '../../commands/partners/cidr.js';
import { configurePartner, partnerConfiguredEvent } from '../../commands/partners/configure.js';
import { validateInput } from '../../commands/validate.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { evolvePartners } from '../../projections/partners/evolve.js';
import { EventType } from '../../schemas/generated/events.js';

describe('checkCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.0.2.7', '192.0.2.7/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['::/0', '::/0'],
    ['::ffff:192.0.2.0/120', '::ffff:192.0.2.0/120'],
    ['0:0:0:0:0:0:0:1', '::1/128'],
    ['2001:0DB8:0000::/32', '2001:db8::/32'],
    ['::ffff:102:304', '::ffff:1.2.3.4/128'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1/128'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1/128'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8/128'],
    ['1:0:3:4:5:6:7:8', '1:0:3:4:5:6:7:8/128'],
  ])('accepts %s as %s', (entry, cidr) => {
    expect(checkCidr(entry)).toEqual({ ok: true, cidr });
  });

  it.each([
    ['10.0.0.1/8', /host bits set; the network is 10\.0\.0\.0\/8/],
    ['2001:db8::1/32', /host bits set; the network is 2001:db8::\/32/],
    ['10.0.0.0/33', /longer than 32 bits/],
    ['2001:db8::/129', /longer than 128 bits/],
    ['10.0.0.0/', /invalid prefix/],
    ['10.0.0.0/x', /invalid prefix/],
    ['10.0.0/8', /not an IPv4 or IPv6/],
    ['256.0.0.0/8', /not an IPv4 or IPv6/],
    ['fe80::1%eth0', /not an IPv4 or IPv6/],
    ['10.0.0.0/8/8', /not an IPv4 or IPv6/],
    ['example.com', /not an IPv4 or IPv6/],
  ])('rejects %s', (entry, message) => {
    const checked = checkCidr(entry);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toMatch(message);
  });
});

describe('partnerConfiguredEvent', () => {
  const now = new Date('2026-01-02T03:04:05Z');

  it('mints a UUIDv7 partner id, defaults enabled, writes explicit prefixes', () => {
    const event = partnerConfiguredEvent({ name: 'Acme', source_ip_allowlist: ['192.0.2.7', '2001:db8::/32'] }, now);
    expect(event.partner_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event).toMatchObject({ name: 'Acme', enabled: true, source_ip_allowlist: ['192.0.2.7/32', '2001:db8::/32'], goal_mappings: [], configured_at: now.getTime() });
  });

  it.each([
    [{ name: 'A', source_ip_allowlist: ['10.0.0.0/8', '10.0.0.1/8'] }, 'source_ip_allowlist[1]'],
    [{ name: 'A', source_ip_allowlist: ['10.0.0.0/8', '10.0.0.0/8'] }, 'source_ip_allowlist[1]'],
    [{ name: 'A', goal_mappings: [{ event_name: 'buy', goal_event: 'sale' }, { event_name: 'buy', goal_event: 'install' }] }, 'goal_mappings[1].event_name'],
  ])('names the field of a bad input', (input, field) => {
    expect(() => partnerConfiguredEvent(input, now)).toThrow(expect.objectContaining({ name: 'CommandInputError', field }));
  });

  it('refuses a blank name (the schema: every other name in the admin commands is not blank either)', () => {
    expect(() => validateInput(configurePartner.input, { name: '   ' })).toThrow(expect.objectContaining({ name: 'CommandInputError', field: 'name' }));
  });

  it.each([
    ['::1', '0:0:0:0:0:0:0:1'],
    ['2001:db8::/32', '2001:0db8::/32'],
    ['::ffff:1.2.3.4', '::ffff:102:304'],
  ])('refuses %s and %s together: two spellings of one network', (first, second) => {
    expect(() => partnerConfiguredEvent({ name: 'A', source_ip_allowlist: [first, second] }, now)).toThrow(
      expect.objectContaining({ name: 'CommandInputError', field: 'source_ip_allowlist[1]' }),
    );
  });
});

describe('checkCidr canonical text', () => {
  const group = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
  it('every spelling of an IPv6 address gives one text, which reads back as itself', () => {
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((value) => value.toString(16).padStart(4, '0')).join(':');
        const short = groups.map((value) => value.toString(16).toUpperCase()).join(':');
        const canonical = checkCidr(full);
        expect(canonical.ok).toBe(true);
        if (!canonical.ok) return;
        expect(checkCidr(short)).toEqual(canonical);
        expect(checkCidr(canonical.cidr)).toEqual(canonical);
        expect(canonical.cidr).not.toMatch(/:::|(^|:)0[0-9a-f]/);
      }),
    );
  });
});

describe('evolvePartners', () => {
  it('keeps the last configuration of each partner in a batch, without repeated children', () => {
    const at = (offset: number, value: Record<string, unknown>): LoggedEvent => ({
      topic: 'partners', partition: 0, offset: String(offset), key: String(value.partner_id), type: EventType.PartnerConfigured,
      value, schemaId: 1, timestamp: new Date(0),
    });
    const base = { name: 'P', enabled: true, source_ip_allowlist: [], goal_mappings: [], configured_at: 1 };
    const rows = evolvePartners([
      at(0, { ...base, event_id: 'e1', partner_id: 'p1', enabled: false }),
      at(1, { ...base, event_id: 'e2', partner_id: 'p2' }),
      at(2, {
        ...base, event_id: 'e3', partner_id: 'p1', source_ip_allowlist: ['10.0.0.0/8', '10.0.0.0/8'],
        goal_mappings: [{ event_name: 'a', goal_event: 'x' }, { event_name: 'a', goal_event: 'y' }],
      }),
    ]);
    expect([...rows.keys()]).toEqual(['p1', 'p2']);
    expect(rows.get('p1')).toMatchObject({ enabled: true, last_event_id: 'e3', networks: ['10.0.0.0/8'], goal_mappings: [{ event_name: 'a', goal_event: 'y' }] });
  });
});
