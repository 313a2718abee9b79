import { describe, expect, it } from 'vitest';
import {
  summarizeOnboardingProgress,
  validateAccountStep,
  validateAgreements,
  validateApplicationSubmission,
  validateIntegrationStep,
  validateOrganizationStep,
} from './onboarding.js';

const organization = {
  legal_name: '  Northwind   Community Hospital ',
  organization_type: 'Health System / Hospital',
  contact: { name: 'Jane Doe', email: 'Jane.Doe@Northwind.example', phone: '(202) 555-0143', title: 'CIO' },
  npi: '1245319599',
};
const integration = {
  use_case: 'care_coordination',
  capabilities: ['fhir_read', 'webhooks', 'fhir_read'],
  data_direction: 'bidirectional',
};
const agreements = { mnda: { accepted: true, version: 'v2026-03' }, baa: { accepted: true, version: 'v2026-03' } };
const account = { portal_password: 'Tr4il-Maple-Quartz', agreements };

const fields = (result: { ok: boolean; errors?: { field: string }[] }): string[] => (result.ok ? [] : (result.errors ?? []).map((e) => e.field));

describe('step 1: organization', () => {
  it('normalizes a valid step', () => {
    const result = validateOrganizationStep(organization);
    expect(result).toEqual({
      ok: true,
      value: {
        legal_name: 'Northwind Community Hospital',
        organization_type: 'HEALTH_SYSTEM',
        contact: { name: 'Jane Doe', email: 'jane.doe@northwind.example', phone: '+12025550143', title: 'CIO' },
        npi: '1245319599',
      },
    });
  });

  it('treats phone, title and npi as optional', () => {
    const result = validateOrganizationStep({ ...organization, npi: '', contact: { name: 'Jane Doe', email: 'jane@northwind.example' } });
    expect(result.ok && result.value).toMatchObject({ npi: null, contact: { phone: null, title: null } });
  });

  it('reports every problem with a step-relative path', () => {
    const result = validateOrganizationStep({
      legal_name: 'N',
      organization_type: 'Hospital',
      contact: { name: '', email: 'jane@', phone: '555' },
      npi: '1234567890',
    });
    expect(fields(result).sort()).toEqual(['contact.email', 'contact.name', 'contact.phone', 'legal_name', 'npi', 'organization_type']);
  });

  it('requires the contact and refuses a non-object', () => {
    expect(fields(validateOrganizationStep({ ...organization, contact: undefined }))).toEqual(['contact']);
    expect(fields(validateOrganizationStep('nope'))).toEqual(['']);
  });

  it('bounds the legal name at 200 characters', () => {
    expect(validateOrganizationStep({ ...organization, legal_name: 'x'.repeat(200) }).ok).toBe(true);
    expect(fields(validateOrganizationStep({ ...organization, legal_name: 'x'.repeat(201) }))).toEqual(['legal_name']);
  });
});

describe('step 2: integration', () => {
  it('drops duplicate capabilities', () => {
    const result = validateIntegrationStep(integration);
    expect(result.ok && result.value).toEqual({
      use_case: 'care_coordination',
      use_case_description: null,
      capabilities: ['fhir_read', 'webhooks'],
      data_direction: 'bidirectional',
    });
  });

  it('needs a description for the use case "other", up to 2,000 characters', () => {
    expect(fields(validateIntegrationStep({ ...integration, use_case: 'other' }))).toEqual(['use_case_description']);
    expect(validateIntegrationStep({ ...integration, use_case: 'other', use_case_description: 'd'.repeat(2000) }).ok).toBe(true);
    expect(fields(validateIntegrationStep({ ...integration, use_case_description: 'd'.repeat(2001) }))).toEqual(['use_case_description']);
  });

  it('addresses an unknown capability by its index', () => {
    expect(fields(validateIntegrationStep({ ...integration, capabilities: ['fhir_read', 'telepathy'] }))).toEqual(['capabilities.1']);
    expect(fields(validateIntegrationStep({ ...integration, capabilities: [] }))).toEqual(['capabilities']);
  });

  it('checks the use case and the data direction', () => {
    expect(fields(validateIntegrationStep({ ...integration, use_case: 'fun', data_direction: 'sideways' }))).toEqual(['use_case', 'data_direction']);
    expect(fields(validateIntegrationStep({}))).toEqual(['use_case', 'capabilities', 'data_direction']);
  });
});

describe('step 3: account', () => {
  it('accepts a strong password and both agreements', () => {
    const result = validateAccountStep(account);
    expect(result.ok && result.value.agreements).toEqual({
      mnda: { accepted: true, version: 'v2026-03', document_id: 'cms_mnda_v2026_03' },
      baa: { accepted: true, version: 'v2026-03', document_id: 'cms_hipaa_baa_v2026_03' },
    });
  });

  it('refuses a wrong or missing version and a missing acceptance', () => {
    const result = validateAgreements({ mnda: { accepted: true, version: 'v2025-09' }, baa: { accepted: false } });
    expect(fields(result)).toEqual(['agreements.mnda.version', 'agreements.baa.accepted', 'agreements.baa.version']);
    expect(fields(validateAgreements({ mnda: agreements.mnda }))).toEqual(['agreements.baa']);
    expect(fields(validateAgreements(undefined))).toEqual(['agreements']);
  });

  it('compares the password with the applicant context', () => {
    const result = validateAccountStep({ ...account, portal_password: 'Northwind#Tiger7' }, { organization_name: 'Northwind Community Hospital' });
    expect(fields(result)).toEqual(['portal_password']);
  });
});

describe('submission', () => {
  it('returns the validated application', () => {
    const result = validateApplicationSubmission({ organization, integration, account });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.organization.organization_type).toBe('HEALTH_SYSTEM');
      expect(result.value.account.portal_password).toBe('Tr4il-Maple-Quartz');
    }
  });

  it('prefixes field paths with the step', () => {
    const result = validateApplicationSubmission({
      organization: { ...organization, contact: { ...organization.contact, email: 'not-an-email' } },
      integration,
      account: { ...account, agreements: { ...agreements, baa: { accepted: true, version: 'v2025-01' } } },
    });
    expect(fields(result)).toEqual(['organization.contact.email', 'account.agreements.baa.version']);
  });

  it('reports missing steps on the step key', () => {
    expect(fields(validateApplicationSubmission({ organization }))).toEqual(['integration', 'account']);
  });

  it('checks the password against the organization even when step 1 has other problems', () => {
    const result = validateApplicationSubmission({
      organization: { ...organization, npi: '1' },
      integration,
      account: { ...account, portal_password: 'Jane.Doe#Rocks77' },
    });
    expect(fields(result)).toEqual(['organization.npi', 'account.portal_password']);
  });
});

describe('draft progress', () => {
  it('tells where to resume', () => {
    expect(summarizeOnboardingProgress({})).toEqual({
      steps: { organization: 'not_started', integration: 'not_started', account: 'not_started' },
      next_step: 'organization',
      errors: [],
    });
    const partial = summarizeOnboardingProgress({ organization, integration: { use_case: 'research' } });
    expect(partial.steps).toEqual({ organization: 'complete', integration: 'incomplete', account: 'not_started' });
    expect(partial.next_step).toBe('integration');
    expect(partial.errors.map((error) => error.field)).toEqual(['integration.capabilities', 'integration.data_direction']);
    expect(summarizeOnboardingProgress({ organization, integration, account }).next_step).toBeNull();
  });
});
