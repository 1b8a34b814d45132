import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';

/**
 * The client library registers a subject's first version and then sets its compatibility. A
 * subject left between the two (a process stopped there, or another one registering it at that
 * moment) reports the registry's default, NONE: every later start of the service stopped on it
 * ("Compatibility does not match the configuration (BACKWARD != NONE)"). On the real registry.
 */
describe('registering on a subject that has no compatibility of its own', () => {
  const registry = inject('stack').schemaRegistryUrl.replace(/\/$/, '');
  const schemas = loadSchemaCatalog();
  const [type, schema] = [...schemas.entries()].find(([, known]) => known.topic === 'accounts')!;
  const headers = { 'content-type': 'application/vnd.schemaregistry.v1+json' };

  it('gives the subject BACKWARD and registers, where a level an operator chose is kept', async () => {
    const topic = `compat-${randomUUID()}.accounts`;
    const subject = `${topic}-${type}`;
    // Half registered: the first version, and no config.
    const posted = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: schema.text }) });
    expect(posted.status, await posted.text()).toBe(200);
    expect(await (await fetch(`${registry}/config/${encodeURIComponent(subject)}`)).json()).toMatchObject({ compatibilityLevel: 'NONE' });

    const prefix = topic.slice(0, -'accounts'.length);
    await registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`);
    expect(await (await fetch(`${registry}/config/${encodeURIComponent(subject)}`)).json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });

    // A level set on purpose is not ours to change: the start says so.
    const chosen = `compat-${randomUUID()}.accounts`;
    const chosenSubject = `${chosen}-${type}`;
    await fetch(`${registry}/subjects/${encodeURIComponent(chosenSubject)}/versions`, { method: 'POST', headers, body: JSON.stringify({ schema: schema.text }) });
    await fetch(`${registry}/config/${encodeURIComponent(chosenSubject)}`, { method: 'PUT', headers, body: JSON.stringify({ compatibility: 'FULL' }) });
    const chosenPrefix = chosen.slice(0, -'accounts'.length);
    await expect(registryCodec(registry, schemas).prepare((name) => `${chosenPrefix}${name}`)).rejects.toThrow(/BACKWARD != FULL/);
  });

  // Apicurio answers a PUT of a subject's compatibility with 409 ("A rule named 'COMPATIBILITY'
  // already exists") when another PUT of the same subject lands at the same moment: two
  // processes starting together on a fresh registry (API and projector) made one of them exit.
  it('lets many processes register the same new subjects at once', async () => {
    const starts = 16;
    for (let round = 0; round < 3; round += 1) {
      const prefix = `compat-${randomUUID()}.`;
      const results = await Promise.allSettled(Array.from({ length: starts }, () => registryCodec(registry, schemas).prepare((name) => `${prefix}${name}`)));
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
      const config = await fetch(`${registry}/config/${encodeURIComponent(`${prefix}accounts-${type}`)}`);
      expect(await config.json()).toMatchObject({ compatibilityLevel: 'BACKWARD' });
    }
  });
});
