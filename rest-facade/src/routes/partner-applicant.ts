import { capabilityRoute, DomainError, isId, validationError } from '@svc/platform';
import { BodyReader } from './body-readers.js';
import { NO_STORE } from './no-store.js';
import { APPLICATION_FIELDS, APPLICATION_SCHEMA, applicationBody, type ApplicationData } from './partner-application-operation.js';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';

/*
 * The anonymous applicant flow (ours; the spec names the three onboarding steps only), the partner
 * subgraph's startPartnerApplication, partnerApplication, savePartnerApplicationStep and
 * submitPartnerApplication:
 *
 *   POST /api/partner/applications                                   → 201 { application_id, …, resume_token }
 *   GET  /api/partner/applications/{application_id}                  → the application
 *   PUT  /api/partner/applications/{application_id}/steps/{step}     { the step's fields } → { step, valid, field_errors, application }
 *   POST /api/partner/applications/{application_id}/submit           → the application, submitted
 *   POST /api/partner/applications/sign-in   { email, password }     → the application and a fresh resume_token
 *
 * No credential: the draft's resume token, shown once when it is started, authorizes the others,
 * as the GraphQL fields' resumeToken argument does. It travels in the X-Svc-Resume-Token header,
 * never in the URL (which logs and proxies keep), and apart from Authorization, which stays the
 * partner's credential. Without the header the answer is 401; an unknown id and a wrong token
 * answer the same 404, so nobody learns which application ids exist. Both doors spend the
 * onboarding capabilities (per client address).
 */

export const RESUME_TOKEN_HEADER = 'X-Svc-Resume-Token';

const STEPS = ['organization', 'integration', 'account'] as const;
const FIELDS = `${APPLICATION_FIELDS} portalPasswordSet progress { errors { field message } }`;
const APPLICATION_ID: JsonSchema = { type: 'string', pattern: '^app_[0-9a-z]{26}$' };
const FIELD_ERRORS: JsonSchema = { type: 'array', items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } } };

type ApplicantData = ApplicationData & { portalPasswordSet: boolean; progress: ApplicationData['progress'] & { errors: { field: string; message: string }[] } };

/** The application as its applicant reads it: whether a password is set, and the problems of the started steps. */
function applicantBody(a: ApplicantData): Record<string, unknown> {
  const body = applicationBody(a);
  return { ...body, portal_password_set: a.portalPasswordSet, progress: { ...(body['progress'] as Record<string, unknown>), errors: a.progress.errors } };
}

/** The resume token of the request. @throws DomainError `UNAUTHENTICATED` without one. */
function resumeToken(input: RouteInput): string {
  const raw = input.headers[RESUME_TOKEN_HEADER.toLowerCase()];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) {
    throw new DomainError('UNAUTHENTICATED', `The ${RESUME_TOKEN_HEADER} header is required: the resume token POST /api/partner/applications answered.`, { details: { header: RESUME_TOKEN_HEADER } });
  }
  return value;
}

function applicationId(input: RouteInput): string {
  const id = input.params['application_id'] ?? '';
  if (!isId('app', id)) throw validationError([{ field: 'application_id', message: 'must be an application id (app_…)' }], 'The application id is malformed.');
  return id;
}

/** The same answer as the subgraph's for an unknown id or a wrong token. */
const noMatch = (input: RouteInput) => new DomainError('NOT_FOUND', 'No application matches this id and resume token.', { details: { application_id: input.params['application_id'] } });

/** A request with no body, or an empty JSON object: these actions take no input. */
function noBody(input: RouteInput): void {
  new BodyReader(input.body, { allowEmpty: true }).done();
  const extra = input.body && typeof input.body === 'object' ? Object.keys(input.body) : [];
  if (extra.length > 0) throw validationError(extra.map((field) => ({ field, message: 'is not a field of this request (it takes no body)' })));
}

const start: GatewayOperation = {
  document: `mutation StartPartnerApplication { startPartnerApplication { resumeToken application { ${FIELDS} } } }`,
  variables: (input) => {
    noBody(input);
    return {};
  },
  result: () => undefined,
  respond: (data) => {
    const started = data['startPartnerApplication'] as { resumeToken: string; application: ApplicantData };
    const body = { ...applicantBody(started.application), resume_token: started.resumeToken };
    return { body, headers: { ...NO_STORE, location: `/api/partner/applications/${started.application.id}` } };
  },
};

const read: GatewayOperation = {
  document: `query PartnerApplicationForApplicant($id: ID!, $resumeToken: String) { partnerApplication(id: $id, resumeToken: $resumeToken) { ${FIELDS} } }`,
  variables: (input) => ({ resumeToken: resumeToken(input), id: applicationId(input) }),
  result: (data, input) => {
    const application = data['partnerApplication'] as ApplicantData | null;
    if (!application) throw noMatch(input);
    return applicantBody(application);
  },
};

const saveStep: GatewayOperation = {
  document: `mutation SavePartnerApplicationStep($id: ID!, $resumeToken: String!, $step: OnboardingStep!, $input: JSONObject!) {
  savePartnerApplicationStep(applicationId: $id, resumeToken: $resumeToken, step: $step, input: $input) { step valid fieldErrors { field message } application { ${FIELDS} } } }`,
  variables: (input) => {
    const token = resumeToken(input);
    const id = applicationId(input);
    const step = (input.params['step'] ?? '').toLowerCase();
    if (!(STEPS as readonly string[]).includes(step)) throw validationError([{ field: 'step', message: `must be one of ${STEPS.join(', ')}` }], 'The step is unknown.');
    new BodyReader(input.body).done();
    return { id, resumeToken: token, step: step.toUpperCase(), input: input.body };
  },
  result: (data) => {
    const saved = data['savePartnerApplicationStep'] as { step: string; valid: boolean; fieldErrors: { field: string; message: string }[]; application: ApplicantData };
    return { step: saved.step.toLowerCase(), valid: saved.valid, field_errors: saved.fieldErrors, application: applicantBody(saved.application) };
  },
};

const submit: GatewayOperation = {
  document: `mutation SubmitPartnerApplication($id: ID!, $resumeToken: String!) { submitPartnerApplication(applicationId: $id, resumeToken: $resumeToken) { ${FIELDS} } }`,
  variables: (input) => {
    const token = resumeToken(input);
    const id = applicationId(input);
    noBody(input);
    return { id, resumeToken: token };
  },
  result: (data) => applicantBody(data['submitPartnerApplication'] as ApplicantData),
};

/**
 * The status page from a browser without the resume token: the applicant's contact e-mail and
 * portal password open the application (the subgraph's openPartnerApplication), counted and locked
 * like sign-in, whose counters and capability it shares.
 */
const signIn: GatewayOperation = {
  document: `mutation OpenPartnerApplication($email: String!, $password: String!, $clientAddress: String) {
  openPartnerApplication(email: $email, password: $password, clientAddress: $clientAddress) { resumeToken application { ${FIELDS} } } }`,
  // The subgraph counts failures per client address only when the facade vouches for the address.
  asFacade: true,
  variables: ({ body, clientIp }) => {
    const reader = new BodyReader(body);
    const email = reader.string('email', true);
    const password = reader.string('password', true);
    reader.done();
    return { email, password, clientAddress: clientIp ?? null };
  },
  result: () => undefined,
  respond: (data) => {
    const opened = data['openPartnerApplication'] as { resumeToken: string; application: ApplicantData };
    return { body: { ...applicantBody(opened.application), resume_token: opened.resumeToken }, headers: NO_STORE };
  },
};

const APPLICANT_SCHEMA: JsonSchema = {
  ...APPLICATION_SCHEMA,
  properties: {
    ...(APPLICATION_SCHEMA['properties'] as Record<string, JsonSchema>),
    portal_password_set: { type: 'boolean', description: 'An acceptable portal password was chosen (only its argon2id hash is kept, until the application is decided).' },
    progress: {
      type: 'object',
      properties: {
        ...((APPLICATION_SCHEMA['properties'] as Record<string, JsonSchema>)['progress']!['properties'] as Record<string, JsonSchema>),
        errors: { ...FIELD_ERRORS, description: 'Problems of the started steps, with step-prefixed paths (organization.npi).' },
      },
    },
  },
};

const RESUME_HEADER = {
  [RESUME_TOKEN_HEADER]: { schema: { type: 'string', pattern: '^svc_app_' }, description: 'The resume token POST /api/partner/applications answered (shown once).', required: true },
};
const APPLICATION_PATH = { application_id: { schema: APPLICATION_ID, description: 'The application (app_…).' } };
const NOTE = `The ${RESUME_TOKEN_HEADER} header carries the draft's resume token (no credential); an unknown id and a wrong token both answer 404`;

function route(id: string, method: RouteSpec['method'], path: string, summary: string, capability: 'onboarding.start' | 'onboarding.resume', successStatus: RouteSpec['successStatus'] = 200): Omit<RouteSpec, 'operation'> {
  return { id, method, path, summary, auth: 'none', scopes: [], successStatus, ...capabilityRoute(capability) };
}

const WITH_RESUME_TOKEN = (description: string): JsonSchema => ({
  ...APPLICANT_SCHEMA,
  required: [...(APPLICANT_SCHEMA['required'] as string[]), 'resume_token'],
  properties: { ...(APPLICANT_SCHEMA['properties'] as Record<string, JsonSchema>), resume_token: { type: 'string', description } },
});

export const partnerApplicantRoutes: RouteSpec[] = [
  {
    ...route('partners.applications.start', 'POST', '/api/partner/applications', 'Start a partner application (no credential); keep the resume_token of the answer: it is shown once and authorizes the other applicant routes', 'onboarding.start', 201),
    operation: start,
    responseBody: {
      ...APPLICANT_SCHEMA,
      required: [...(APPLICANT_SCHEMA['required'] as string[]), 'resume_token'],
      properties: { ...(APPLICANT_SCHEMA['properties'] as Record<string, JsonSchema>), resume_token: { type: 'string', description: `svc_app_…: send it in the ${RESUME_TOKEN_HEADER} header. Only its SHA-256 is stored.` } },
    },
  },
  {
    ...route('partners.applications.get', 'GET', '/api/partner/applications/{application_id}', `Resume a partner application: its status, saved steps and progress. ${NOTE}`, 'onboarding.resume'),
    operation: read,
    headerParameters: RESUME_HEADER,
    pathParameters: APPLICATION_PATH,
    responseBody: APPLICANT_SCHEMA,
  },
  {
    ...route('partners.applications.save-step', 'PUT', '/api/partner/applications/{application_id}/steps/{step}', `Save one step of a draft, valid or not, and get its problems. ${NOTE}`, 'onboarding.resume'),
    operation: saveStep,
    headerParameters: RESUME_HEADER,
    pathParameters: { ...APPLICATION_PATH, step: { schema: { type: 'string', enum: [...STEPS] }, description: 'The onboarding step: 1 organization, 2 integration, 3 account.' } },
    requestBody: {
      type: 'object',
      additionalProperties: true,
      description:
        'The step\'s fields, snake_case. organization: legal_name, organization_type (code or label), contact { name, email, phone?, title? }, npi?. ' +
        'integration: use_case, use_case_description?, capabilities [..], data_direction. account: portal_password (hashed with argon2id at once, never stored or returned), ' +
        'agreements { mnda: { accepted: true, version }, baa: { accepted: true, version } }. A step with problems is saved too, so it can be fixed later.',
    },
    responseBody: {
      type: 'object',
      required: ['step', 'valid', 'field_errors', 'application'],
      properties: {
        step: { type: 'string', enum: [...STEPS] },
        valid: { type: 'boolean', description: 'The step has no problems.' },
        field_errors: { ...FIELD_ERRORS, description: 'Problems of the step, with step-prefixed paths (organization.npi).' },
        application: APPLICANT_SCHEMA,
      },
    },
  },
  {
    ...route('partners.applications.submit', 'POST', '/api/partner/applications/{application_id}/submit', `Submit a complete draft for review (422 lists the problems while a step has any; 409 once submitted). ${NOTE}`, 'onboarding.resume'),
    operation: submit,
    headerParameters: RESUME_HEADER,
    pathParameters: APPLICATION_PATH,
    responseBody: APPLICANT_SCHEMA,
  },
  {
    id: 'partners.applications.sign-in',
    method: 'POST',
    path: '/api/partner/applications/sign-in',
    summary:
      "Open an application with the applicant's contact e-mail and portal password (no e-mail is sent): its status, history and a fresh resume_token (the previous one stops working). " +
      'The same counters, lockout and answers as POST /cms/partner-login: 401 alike for an unknown e-mail and a wrong password, 423 and 429 with Retry-After',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    ...capabilityRoute('partner.login'),
    operation: signIn,
    requestBody: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 1, maxLength: 128, writeOnly: true } },
    },
    responseBody: WITH_RESUME_TOKEN(`svc_app_…: send it in the ${RESUME_TOKEN_HEADER} header. Shown once; only its SHA-256 is stored.`),
  },
];
