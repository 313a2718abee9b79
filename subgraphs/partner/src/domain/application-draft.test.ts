import { describe, expect, it } from 'vitest';
import { prepareStep, summarizeApplicationDraft, validateDraftForSubmission, type ApplicationDraft } from './application-draft.js';

const EMPTY: ApplicationDraft = { organization: null, integration: null, account: null, passwordSet: false };
const ORGANIZATION = {
  legal_name: 'Northwind Regional Hospital',
  organization_type: 'health system / hospital',
  contact: { name: 'Ari Moreno', email: 'Ari.Moreno@northwind-hospital.org' },
  npi: '1245319599',
};
const INTEGRATION = { use_case: 'population_health', capabilities: ['bulk_export'], data_direction: 'inbound' };
const AGREEMENTS = { mnda: { accepted: true, version: 'v2026-03' }, baa: { accepted: true, version: 'v2026-03' } };

describe('prepareStep', () => {
  it('stores a valid step normalized and an invalid one as entered, with step-prefixed errors', () => {
    const valid = prepareStep('organization', ORGANIZATION, EMPTY);
    expect(valid.errors).toEqual([]);
    expect(valid.stored).toMatchObject({ organization_type: 'HEALTH_SYSTEM', contact: { email: 'ari.moreno@northwind-hospital.org' } });
    const invalid = prepareStep('organization', { ...ORGANIZATION, npi: '1245319598' }, EMPTY);
    expect(invalid.errors).toEqual([{ field: 'organization.npi', message: expect.any(String) }]);
    expect(invalid.stored).toEqual({ ...ORGANIZATION, npi: '1245319598' });
  });

  it('hands back an acceptable password for hashing and never stores it', () => {
    const draft = { ...EMPTY, organization: prepareStep('organization', ORGANIZATION, EMPTY).stored };
    const account = prepareStep('account', { portal_password: 'Granite!Otter-Sky42', agreements: AGREEMENTS }, draft);
    expect(account).toMatchObject({ errors: [], passwordToHash: 'Granite!Otter-Sky42', clearPassword: false });
    expect(JSON.stringify(account.stored)).not.toContain('Granite');
  });

  it('checks the password against the saved organization and clears a refused one', () => {
    const draft = { ...EMPTY, organization: ORGANIZATION, passwordSet: true };
    const refused = prepareStep('account', { portal_password: 'Northwind!Regional9', agreements: AGREEMENTS }, draft);
    expect(refused.errors).toContainEqual({ field: 'account.portal_password', message: 'Password must not contain your organization name.' });
    expect(refused).toMatchObject({ passwordToHash: null, clearPassword: true });
    // Agreements alone keep the password already set.
    expect(prepareStep('account', { agreements: AGREEMENTS }, draft)).toMatchObject({ errors: [], clearPassword: false });
    expect(prepareStep('account', { agreements: AGREEMENTS }, EMPTY).errors).toEqual([{ field: 'account.portal_password', message: 'Choose a portal password.' }]);
  });

  it('refuses oversized input', () => {
    expect(() => prepareStep('integration', { use_case_description: 'x'.repeat(30_000) }, EMPTY)).toThrow(/too large/);
  });
});

describe('summarizeApplicationDraft and validateDraftForSubmission', () => {
  it('tracks progress step by step and resumes at the first incomplete step', () => {
    expect(summarizeApplicationDraft(EMPTY)).toEqual({ steps: { organization: 'not_started', integration: 'not_started', account: 'not_started' }, next_step: 'organization', errors: [] });
    const partial = summarizeApplicationDraft({ ...EMPTY, organization: ORGANIZATION, account: { agreements: AGREEMENTS } });
    expect(partial.steps).toEqual({ organization: 'complete', integration: 'not_started', account: 'incomplete' });
    expect(partial.next_step).toBe('integration');
    expect(partial.errors).toEqual([{ field: 'account.portal_password', message: 'Choose a portal password.' }]);
  });

  it('accepts a complete draft and names every missing step', () => {
    const complete = validateDraftForSubmission({ organization: ORGANIZATION, integration: INTEGRATION, account: { agreements: AGREEMENTS }, passwordSet: true });
    expect(complete.ok).toBe(true);
    const missing = validateDraftForSubmission({ ...EMPTY, organization: ORGANIZATION });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.errors.map((e) => e.field)).toEqual(['integration', 'account']);
  });
});
