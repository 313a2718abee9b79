import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import {
  LEGAL_DOCUMENTS,
  LEGAL_TEMPLATE_VERSION,
  canonicalLegalText,
  currentLegalDocument,
  getLegalDocument,
  legalDocumentUrl,
  loadLegalDocument,
  sectionHeadings,
  sha256Hex,
} from './legal-documents.js';

// A signature records these digests: changing a text requires a new template version, never an edit.
const PINNED_SHA256: Record<string, string> = {
  cms_mnda_v2026_03: '5a21d3422ca791b98116eb44301fd65eeeb34f8b83b269343ed33d951b0620a9',
  cms_hipaa_baa_v2026_03: 'ec72b5310fa9b5d5716cbdf7067793257d15cd4adf9ea4f8ceed2300c9b5e068',
  consent_data_sharing_v2026_03: '6ae4cbc2261cefaa124a7568836e641161cc0109a74d45a918f6d87f9f421c65',
  consent_research_use_v2026_03: 'bcbaefb91e7dd8a444d227ee1b30aef5982511f534eb62871047c541246ed660',
};

describe('legal document catalog', () => {
  it('lists the MNDA, the BAA and two consent forms of version v2026-03', () => {
    expect(LEGAL_TEMPLATE_VERSION).toBe('v2026-03');
    expect(LEGAL_DOCUMENTS.map((entry) => entry.kind).sort()).toEqual(['baa', 'consent', 'consent', 'mnda']);
    for (const entry of LEGAL_DOCUMENTS) {
      expect(entry.version).toBe('v2026-03');
      expect(entry.file_name).toBe(`${entry.id}.txt`);
    }
    expect(currentLegalDocument('mnda')).toMatchObject({ file_name: 'cms_mnda_v2026_03.txt', sections: 10 });
    expect(currentLegalDocument('baa')).toMatchObject({ file_name: 'cms_hipaa_baa_v2026_03.txt', sections: 8 });
  });

  it('refuses unknown ids with NOT_FOUND', () => {
    expect(() => getLegalDocument('cms_mnda_v1999_01')).toThrow(DomainError);
    expect(() => getLegalDocument('nope')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('resolves files next to the package, not the working directory', () => {
    expect(legalDocumentUrl('cms_mnda_v2026_03.txt').pathname).toMatch(/\/subgraphs\/partner\/legal\/cms_mnda_v2026_03\.txt$/);
    expect(() => legalDocumentUrl('../secrets.txt')).toThrow(RangeError);
  });
});

describe.each(LEGAL_DOCUMENTS.map((entry) => [entry.id, entry] as const))('%s', (id, entry) => {
  it('has the catalogued number of consecutively numbered sections', async () => {
    const document = await loadLegalDocument(id);
    const numbers = sectionHeadings(document.content).map((heading) => Number(heading.split('.')[0]));
    expect(numbers).toEqual(Array.from({ length: entry.sections }, (_, index) => index + 1));
  });

  it('has a stable SHA-256 of its canonical text', async () => {
    const first = await loadLegalDocument(id);
    const second = await loadLegalDocument(id);
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(second.sha256).toBe(first.sha256);
    expect(first.sha256).toBe(sha256Hex(first.content));
    expect(first.sha256).toBe(PINNED_SHA256[id]);
    expect(first.byte_length).toBe(Buffer.byteLength(first.content));
  });

  it('is finished text: no work markers, only bracketed signing fields', async () => {
    const { content } = await loadLegalDocument(id);
    expect(content).not.toMatch(/TODO|TBD|FIXME|lorem ipsum|XXX/i);
    expect(content).toContain('v2026-03');
    for (const [field] of content.matchAll(/\[[^\]]+\]/g)) expect(field).toMatch(/^\[[A-Z][A-Za-z0-9 ,/.-]+\]$/);
  });
});

describe('required terms', () => {
  it('MNDA: 2-year term, 3 years survival, Delaware law', async () => {
    const { content } = await loadLegalDocument('cms_mnda_v2026_03');
    const text = content.replace(/\s+/g, ' ');
    expect(sectionHeadings(content)).toHaveLength(10);
    expect(text).toContain('continues for a term of two (2) years');
    expect(text).toContain('survive the expiration or termination of this Agreement for a period of three (3) years');
    expect(text).toContain('governed by and construed in accordance with the laws of the State of Delaware');
    expect(text).toContain('MUTUAL NON-DISCLOSURE AGREEMENT');
  });

  it('BAA: HIPAA obligations and a term until PHI is returned or destroyed', async () => {
    const { content } = await loadLegalDocument('cms_hipaa_baa_v2026_03');
    const text = content.replace(/\s+/g, ' ');
    expect(sectionHeadings(content)).toEqual([
      '1. DEFINITIONS',
      '2. PERMITTED USES AND DISCLOSURES',
      '3. SAFEGUARDS',
      '4. REPORTING AND BREACH NOTIFICATION',
      '5. SUBCONTRACTORS',
      '6. ACCESS, AMENDMENT AND ACCOUNTING',
      '7. TERM, TERMINATION AND RETURN OR DESTRUCTION OF PHI',
      '8. GENERAL PROVISIONS',
    ]);
    expect(text).toContain('45 CFR Parts 160 and 164');
    expect(text).toContain('remains in effect until all PHI');
    expect(text).toContain('has been returned to Covered Entity or destroyed');
    for (const citation of ['164.502(b)', '164.504(e)', '164.308', '164.312', '164.410', '164.502(e)(1)(ii)', '164.524', '164.526', '164.528', '164.504(e)(2)(ii)(J)']) {
      expect(text).toContain(citation);
    }
  });
});

describe('hashing', () => {
  it('does not depend on line endings or a byte-order mark', () => {
    const lf = 'A\nB\n';
    expect(sha256Hex(canonicalLegalText('\uFEFFA\r\nB\r\n'))).toBe(sha256Hex(lf));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes exactly the bytes of a file checked out with LF endings', async () => {
    const raw = await readFile(legalDocumentUrl('cms_hipaa_baa_v2026_03.txt'), 'utf8');
    const { sha256 } = await loadLegalDocument('cms_hipaa_baa_v2026_03');
    expect(sha256).toBe(sha256Hex(canonicalLegalText(raw)));
  });
});
