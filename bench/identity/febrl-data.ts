/**
 * The FEBRL data sets read into resolve payloads (see febrl.ts for where they come from): every
 * record in file order, with the person it belongs to (`rec-N` of `rec-N-org` / `rec-N-dup-K`).
 * `names` sends the name and date of birth only; `all` adds the postal address (country AU) and the
 * social security id as a `national_id` of AUS. A date of birth that is not a calendar date is left
 * out, as a careful integrator would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SourceOrigin } from '../../subgraphs/identity/src/domain/enums.js';
import type { DemographicsInput } from '../../subgraphs/identity/src/domain/stage1-demographics.js';

const COLUMNS = ['rec_id', 'given_name', 'surname', 'street_number', 'address_1', 'address_2', 'suburb', 'postcode', 'state', 'date_of_birth', 'soc_sec_id'] as const;
type Row = Record<(typeof COLUMNS)[number], string>;

export type FebrlFields = 'names' | 'all';

export interface FebrlRecord {
  id: string;
  /** The person: `rec-N` of `rec-N-org` / `rec-N-dup-K`. */
  person: string;
  source: SourceOrigin;
  payload: DemographicsInput;
}

function readCsv(file: string): Row[] {
  const [header, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const names = header!.split(',').map((h) => h.trim());
  for (const c of COLUMNS) if (!names.includes(c)) throw new Error(`${file}: no column ${c}`);
  return lines.map((line) => {
    const cells = line.split(',').map((c) => c.trim());
    return Object.fromEntries(COLUMNS.map((c) => [c, cells[names.indexOf(c)] ?? ''])) as Row;
  });
}

/** YYYYMMDD as an ISO date when it is a real calendar date, else null. */
function isoDate(value: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

function payloadOf(row: Row, fields: FebrlFields): DemographicsInput {
  const payload: DemographicsInput = {};
  const name = { ...(row.given_name ? { given: row.given_name } : {}), ...(row.surname ? { family: row.surname } : {}) };
  if (Object.keys(name).length > 0) payload.name = name;
  const dob = isoDate(row.date_of_birth);
  if (dob) payload.dob = dob;
  if (fields === 'all') {
    const lines = [[row.street_number, row.address_1].filter(Boolean).join(' '), row.address_2].filter(Boolean);
    if (lines.length > 0 || row.suburb || row.postcode) {
      payload.address = {
        ...(lines.length > 0 ? { lines } : {}),
        ...(row.suburb ? { city: row.suburb } : {}),
        ...(row.state ? { state: row.state } : {}),
        ...(row.postcode ? { postal_code: row.postcode } : {}),
        country: 'AU',
      };
    }
    if (row.soc_sec_id) payload.identifiers = [{ system: 'national_id', value: row.soc_sec_id, assigner: 'AUS' }];
  }
  return payload;
}

/** Dataset 3: one file to deduplicate; dataset 4: two files to link, from two source origins. */
export function readFebrl(dir: string, dataset: '3' | '4', fields: FebrlFields): FebrlRecord[] {
  const files: Array<[string, SourceOrigin]> = dataset === '3' ? [['dataset3.csv', 'provider']] : [['dataset4a.csv', 'provider'], ['dataset4b.csv', 'lake']];
  return files.flatMap(([file, source]) =>
    readCsv(join(dir, file)).map((row) => ({ id: row.rec_id, person: /^(rec-\d+)/.exec(row.rec_id)?.[1] ?? row.rec_id, source, payload: payloadOf(row, fields) })),
  );
}
