import { describe, expect, it } from 'vitest';
import { ConfigError } from '@svc/platform';
import { InFlightQueries, subgraphsSharingQueries } from './in-flight-queries.js';

describe('InFlightQueries', () => {
  const query = { query: 'query Q($id: ID!) { thing(id: $id) { id } }', variables: { id: '1' } };
  const counting = () => {
    const sent: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const send = (label: string) => async () => {
      sent.push(label);
      await gate;
      return label;
    };
    return { sent, release, send };
  };

  it('shares an identical query sent with the same principal header', async () => {
    const inFlight = new InFlightQueries<string>();
    const { sent, release, send } = counting();
    const answers = Promise.all([inFlight.run(query, 'principal-a', send('first')), inFlight.run({ ...query, variables: { id: '1' } }, 'principal-a', send('second'))]);
    release();
    expect(await answers).toEqual(['first', 'first']);
    expect(sent).toEqual(['first']);
  });

  it('never shares between principals, variables or operation names', async () => {
    const inFlight = new InFlightQueries<string>();
    const { sent, release, send } = counting();
    const answers = Promise.all([
      inFlight.run(query, 'principal-a', send('a')),
      inFlight.run(query, 'principal-b', send('b')),
      inFlight.run(query, undefined, send('anonymous')),
      inFlight.run({ ...query, variables: { id: '2' } }, 'principal-a', send('other id')),
      inFlight.run({ ...query, operationName: 'Q' }, 'principal-a', send('named')),
    ]);
    release();
    expect(await answers).toEqual(['a', 'b', 'anonymous', 'other id', 'named']);
    expect(sent).toHaveLength(5);
  });

  it('never shares a mutation, a subscription, or a document that holds one', async () => {
    const inFlight = new InFlightQueries<string>();
    const { sent, release, send } = counting();
    const documents = ['mutation M { touch { id } }', 'subscription S { ticks }', 'query Q { a } mutation M { touch { id } }'];
    const answers = Promise.all(documents.flatMap((text) => [inFlight.run({ query: text }, 'p', send(text)), inFlight.run({ query: text }, 'p', send(text))]));
    release();
    await answers;
    expect(sent).toHaveLength(6);
  });

  it('forgets a request once it is answered or has failed', async () => {
    const inFlight = new InFlightQueries<string>();
    await expect(inFlight.run(query, 'p', () => Promise.reject(new Error('reset')))).rejects.toThrow('reset');
    expect(await inFlight.run(query, 'p', async () => 'again')).toBe('again');
    expect(await inFlight.run(query, 'p', async () => 'and again')).toBe('and again');
  });
});

describe('subgraphsSharingQueries (SVC_GATEWAY_DEDUPLICATE_QUERIES)', () => {
  const subgraphs = [
    { name: 'weather', ours: false },
    { name: 'stock', ours: false },
    { name: 'fhir', ours: true },
    { name: 'partner', ours: true },
  ];

  it('reads `all` as every foreign subgraph, never one of ours', () => {
    expect([...subgraphsSharingQueries('all', subgraphs)].sort()).toEqual(['stock', 'weather']);
  });

  it('takes the foreign subgraphs it names, and none when the list is empty', () => {
    expect([...subgraphsSharingQueries(['stock'], subgraphs)]).toEqual(['stock']);
    expect(subgraphsSharingQueries([], subgraphs).size).toBe(0);
  });

  it('refuses a subgraph of ours and a name the supergraph lacks, naming both', () => {
    expect(() => subgraphsSharingQueries(['stock', 'fhir', 'wether'], subgraphs)).toThrow(ConfigError);
    try {
      subgraphsSharingQueries(['stock', 'fhir', 'wether'], subgraphs);
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        'SVC_GATEWAY_DEDUPLICATE_QUERIES names subgraphs the supergraph does not have: wether',
        'SVC_GATEWAY_DEDUPLICATE_QUERIES names subgraphs of this platform, whose queries may record themselves and must each reach them: fhir',
      ]);
    }
  });
});
