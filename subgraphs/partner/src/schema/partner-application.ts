import type { ObjectRef } from '@pothos/core';
import type { EntityManager } from '@mikro-orm/core';
import {
  actsFor,
  connectionType,
  decodeOptionalCursor,
  DomainError,
  isId,
  isFacadePrincipal,
  isOperator,
  pageSize,
  toPage,
  type FieldError,
  type Principal,
  type SubgraphBuilder as Builder,
  type SubgraphServices,
} from '@svc/platform';
import { partnerApplications } from '../entities/partner-applications.js';
import type { PartnerApplication } from '../entities/partner-application.js';
import type { Partner } from '../entities/partner.js';
import { partners } from '../entities/partners.js';
import { APPLICATION_REVIEW_TIME, APPLICATION_STATUSES, expectedReviewBy, historyOf, type ApplicationHistoryEntry, type ApplicationStatus } from '../domain/application-status.js';
import { openApplicationWithPassword } from '../domain/portal-login.js';
import { summarizeApplicationDraft } from '../domain/application-draft.js';
import {
  applicationForApplicant,
  draftOf,
  reviewApplication,
  saveApplicationStep,
  startApplication,
  submitApplication,
  type ReviewAction,
} from '../domain/application-workflow.js';
import { ONBOARDING_STEPS, type OnboardingProgress, type OnboardingStepKey, type StepStatus } from '../domain/onboarding.js';

type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer X> ? X : never;

const STEP_INPUT_HELP =
  'Step data as a JSON object with snake_case keys. ORGANIZATION: legal_name, organization_type (code or label), ' +
  'contact { name, email, phone?, title? }, npi?. INTEGRATION: use_case, use_case_description?, capabilities [..], data_direction. ' +
  'ACCOUNT: portal_password (hashed with argon2id at once, never stored or returned), agreements { mnda: { accepted: true, version }, baa: { accepted: true, version } }.';

/** Who took a review decision, as recorded on the application. */
function reviewerOf(principal: Principal): string {
  return principal.tokenId ?? principal.clientId ?? principal.partnerGpid ?? principal.kind;
}

/** The FieldError type: one field-level problem, addressed by a dotted path. Shared with other subgraphs. */
export function defineFieldError(builder: Builder): ObjectRef<Types, FieldError> {
  return builder.objectRef<FieldError>('FieldError').implement({
    shareable: true,
    description: 'One field-level problem of an input, addressed by a dotted snake_case path such as `organization.contact.email`.',
    fields: (t) => ({
      field: t.exposeString('field', { description: 'Dotted path of the field; array entries by index (`integration.capabilities.2`).' }),
      message: t.exposeString('message', { description: 'What is wrong, in words fit for the applicant.' }),
    }),
  });
}

/**
 * Partner applications (onboarding): an applicant without a credential starts a draft, saves the
 * three steps with a resume token, and submits; reviewers (cms.admin) approve, reject or return.
 */
export function definePartnerApplication(builder: Builder, services: SubgraphServices, partnerType: ObjectRef<Types, Partner>, fieldError: ObjectRef<Types, FieldError>) {
  const Status = builder.enumType('PartnerApplicationStatus', {
    description: 'Lifecycle: DRAFT → SUBMITTED → APPROVED | REJECTED; a reviewer may return a SUBMITTED application to DRAFT.',
    values: Object.fromEntries(APPLICATION_STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: ApplicationStatus }>,
  });
  const Step = builder.enumType('OnboardingStep', {
    description: 'The three onboarding steps, in order.',
    values: Object.fromEntries(ONBOARDING_STEPS.map((s) => [s.key.toUpperCase(), { value: s.key, description: `Step ${s.number}: ${s.title}.` }])) as Record<
      string,
      { value: OnboardingStepKey; description: string }
    >,
  });
  const StepStatusEnum = builder.enumType('OnboardingStepStatus', {
    values: { NOT_STARTED: { value: 'not_started' }, INCOMPLETE: { value: 'incomplete' }, COMPLETE: { value: 'complete' } } as const,
  });

  const StepProgress = builder.objectRef<{ step: OnboardingStepKey; status: StepStatus }>('OnboardingStepProgress').implement({
    fields: (t) => ({
      step: t.field({ type: Step, resolve: (s) => s.step }),
      status: t.field({ type: StepStatusEnum, resolve: (s) => s.status }),
    }),
  });

  const Progress = builder.objectRef<OnboardingProgress>('OnboardingProgress').implement({
    description: 'Where a saved draft stands, so the portal can resume at the right step.',
    fields: (t) => ({
      steps: t.field({ type: [StepProgress], resolve: (p) => ONBOARDING_STEPS.map((s) => ({ step: s.key, status: p.steps[s.key] })) }),
      nextStep: t.field({ type: Step, nullable: true, description: 'The first step that is not complete; null when all are.', resolve: (p) => p.next_step }),
      complete: t.boolean({ description: 'Every step is complete: the application can be submitted.', resolve: (p) => p.next_step === null }),
      errors: t.field({ type: [fieldError], description: 'Problems of the started steps, with step-prefixed paths.', resolve: (p) => p.errors }),
    }),
  });

  const HistoryEvent = builder.enumType('PartnerApplicationHistoryEvent', {
    description: 'What happened to an application.',
    values: {
      STARTED: { value: 'started', description: 'The draft was started.' },
      SUBMITTED: { value: 'submitted', description: 'The applicant submitted it for review.' },
      RETURNED: { value: 'returned', description: 'A reviewer returned it for changes, with a reason; it is a draft again.' },
      APPROVED: { value: 'approved', description: 'Approved: the partner and its portal account exist.' },
      REJECTED: { value: 'rejected', description: 'Rejected, with a reason. Final.' },
    } as const,
  });
  const HistoryEntry = builder.objectRef<ApplicationHistoryEntry>('PartnerApplicationHistoryEntry').implement({
    description: "One step of an application's history.",
    fields: (t) => ({
      event: t.field({ type: HistoryEvent, resolve: (h) => h.event }),
      at: t.field({ type: 'DateTime', resolve: (h) => new Date(h.at) }),
      reason: t.string({ nullable: true, description: "The reviewer's reason, for RETURNED and REJECTED.", resolve: (h) => h.reason ?? null }),
    }),
  });

  const Application = builder.objectRef<PartnerApplication>('PartnerApplication').implement({
    description: 'A partner application. Readable by the applicant with its resume token, and by reviewers.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'app_…' }),
      status: t.field({ type: Status, resolve: (a) => a.status }),
      organization: t.field({ type: 'JSONObject', nullable: true, description: 'Step 1 as last saved (normalized when valid).', resolve: (a) => a.organization }),
      integration: t.field({ type: 'JSONObject', nullable: true, description: 'Step 2 as last saved (normalized when valid).', resolve: (a) => a.integration }),
      account: t.field({ type: 'JSONObject', nullable: true, description: 'Step 3 as last saved, without the password: `{ agreements }`.', resolve: (a) => a.account }),
      portalPasswordSet: t.boolean({
        description: 'An acceptable portal password was chosen (only its argon2id hash is kept, and only until the application is decided).',
        resolve: (a) => a.passwordHash !== null,
      }),
      progress: t.field({ type: Progress, resolve: (a) => summarizeApplicationDraft(draftOf(a)) }),
      partnerGpid: t.exposeID('partnerGpid', { nullable: true, description: 'The CMS GPID of the partner created on approval.' }),
      partner: t.field({ type: partnerType, nullable: true, resolve: (a, _args, ctx) => (a.partnerGpid ? partners.byGpid(ctx.em, a.partnerGpid) : null) }),
      reviewer: t.string({
        nullable: true,
        description: 'Credential of the reviewer who took the last decision (visible to reviewers only).',
        resolve: (a, _args, ctx) => (isOperator(ctx.principal) ? a.reviewer : null),
      }),
      decisionReason: t.exposeString('decisionReason', { nullable: true, description: 'Why it was rejected or returned for changes.' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      submittedAt: t.expose('submittedAt', { type: 'DateTime', nullable: true }),
      decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
      history: t.field({ type: [HistoryEntry], description: 'What happened to the application, oldest first: started, submitted, returned (with the reason), approved, rejected (with the reason).', resolve: (a) => historyOf(a) }),
      reviewTime: t.string({ description: `The review time promised to applicants: "${APPLICATION_REVIEW_TIME}" (Monday to Friday, UTC) from submission.`, resolve: () => APPLICATION_REVIEW_TIME }),
      expectedReviewBy: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'When the review of a submitted application is due (reviewTime after submission); null unless it is waiting for review.',
        resolve: (a) => (a.status === 'submitted' && a.submittedAt ? expectedReviewBy(a.submittedAt) : null),
      }),
    }),
  });

  const Started = builder.objectRef<{ application: PartnerApplication; resumeToken: string }>('StartPartnerApplicationPayload').implement({
    fields: (t) => ({
      application: t.field({ type: Application, resolve: (p) => p.application }),
      resumeToken: t.exposeString('resumeToken', {
        description: 'Authorizes later saves and the submission of this draft. Shown once: only its SHA-256 is stored.',
      }),
    }),
  });

  const Opened = builder.objectRef<{ application: PartnerApplication; resumeToken: string }>('OpenPartnerApplicationPayload').implement({
    description: "An application opened with its applicant's e-mail and portal password, and a fresh resume token for this browser.",
    fields: (t) => ({
      application: t.field({ type: Application, resolve: (p) => p.application }),
      resumeToken: t.exposeString('resumeToken', { description: 'A new resume token (shown once; the previous one stops working): use it as partnerApplication(id, resumeToken) does.' }),
    }),
  });

  const Saved = builder
    .objectRef<{ application: PartnerApplication; step: OnboardingStepKey; fieldErrors: FieldError[] }>('SavePartnerApplicationStepPayload')
    .implement({
      description: 'The saved draft and the problems of the saved step. A step is saved even when it has problems, so it can be fixed later.',
      fields: (t) => ({
        application: t.field({ type: Application, resolve: (p) => p.application }),
        step: t.field({ type: Step, resolve: (p) => p.step }),
        valid: t.boolean({ description: 'The step has no problems.', resolve: (p) => p.fieldErrors.length === 0 }),
        fieldErrors: t.field({ type: [fieldError], description: 'Problems of the step, with step-prefixed paths (`organization.npi`).', resolve: (p) => p.fieldErrors }),
      }),
    });

  const ApplicationConnection = connectionType(builder, 'PartnerApplication', Application);

  builder.objectFields(partnerType, (t) => ({
    application: t.field({
      type: Application,
      nullable: true,
      description: 'The onboarding application this partner was created from (the partner itself, or operators); null for a partner registered directly by an operator.',
      authScopes: { anyScope: ['cms.partner.read', 'cms.partner.write', 'cms.admin'] },
      resolve: (partner, _args, ctx) => {
        if (!actsFor(ctx.principal, partner.gpid)) throw new DomainError('FORBIDDEN', "Another partner's application is not visible.");
        return partnerApplications.byPartner(ctx.em, partner.gpid);
      },
    }),
  }));

  builder.queryFields((t) => ({
    partnerApplication: t.field({
      type: Application,
      nullable: true,
      description: 'Resume an application: with its resume token, or as a reviewer (cms.admin) without one. Null when none matches.',
      args: { id: t.arg.id({ required: true }), resumeToken: t.arg.string() },
      resolve: async (_root, { id, resumeToken }, ctx) => {
        if (!isId('app', String(id))) return null;
        if (resumeToken) return applicationForApplicant(ctx.em, String(id), resumeToken).catch(() => null);
        return isOperator(ctx.principal) ? partnerApplications.byId(ctx.em, String(id)) : null;
      },
    }),
    partnerApplications: t.field({
      type: ApplicationConnection,
      description: 'Applications in creation order, optionally of one status (reviewers only).',
      args: { status: t.arg({ type: Status }), first: t.arg.int(), after: t.arg.string() },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const size = pageSize(args.first);
        const rows = await partnerApplications.page(ctx.em, { status: args.status ?? null, size, afterId: decodeOptionalCursor(args.after, { isKey: (key) => isId('app', key) }) });
        return toPage(rows, size, (a) => a.id);
      },
    }),
  }));

  const review = (action: ReviewAction) => async (id: string, reason: string | null, principal: Principal, em: EntityManager) => {
    const application = await reviewApplication(em, id, action, reason, reviewerOf(principal));
    services.publishCommitted();
    return application;
  };
  const approve = review('approve');
  const reject = review('reject');
  const returnForChanges = review('return_for_changes');

  builder.mutationFields((t) => ({
    startPartnerApplication: t.field({
      type: Started,
      description: 'Start a new application (no credential needed). Keep the resume token: it is shown only once.',
      resolve: (_root, _args, ctx) => startApplication(ctx.em),
    }),
    openPartnerApplication: t.field({
      type: Opened,
      description:
        "Open an application with the applicant's contact e-mail and portal password (no credential, no e-mail sent): the status page from a browser that does not hold the resume token. " +
        'Counted, locked and answered like portalLogin (the same counters): an unknown e-mail and a wrong password answer alike (UNAUTHENTICATED). For an approved partner, the application it was created from.',
      args: {
        email: t.arg.string({ required: true }),
        password: t.arg.string({ required: true }),
        clientAddress: t.arg.string({ description: 'The client address the REST facade saw; honoured only from the facade, as for portalLogin.' }),
      },
      resolve: async (_root, args, ctx) => {
        const clientAddress = isFacadePrincipal(ctx.principal) ? (args.clientAddress ?? null) : (ctx.principal.clientAddress ?? null);
        return openApplicationWithPassword(ctx.em, { email: args.email, password: args.password, clientAddress }, new Date());
      },
    }),
    savePartnerApplicationStep: t.field({
      type: Saved,
      description: `Save one step of a draft, valid or not, and get its field-level problems. ${STEP_INPUT_HELP}`,
      args: {
        applicationId: t.arg.id({ required: true }),
        resumeToken: t.arg.string({ required: true }),
        step: t.arg({ type: Step, required: true }),
        input: t.arg({ type: 'JSONObject', required: true }),
      },
      resolve: async (_root, args, ctx) => {
        const { application, prepared } = await saveApplicationStep(ctx.em, String(args.applicationId), args.resumeToken, args.step, args.input);
        return { application, step: prepared.step, fieldErrors: prepared.errors };
      },
    }),
    submitPartnerApplication: t.field({
      type: Application,
      description: 'Submit a complete draft for review. Refused with VALIDATION_ERROR (extensions.fieldErrors) while a step has problems.',
      args: { applicationId: t.arg.id({ required: true }), resumeToken: t.arg.string({ required: true }) },
      resolve: async (_root, args, ctx) => {
        const application = await submitApplication(ctx.em, String(args.applicationId), args.resumeToken);
        services.publishCommitted();
        return application;
      },
    }),
    approvePartnerApplication: t.field({
      type: Application,
      description: 'Approve a submitted application: creates the partner (CMS GPID) and its portal account (reviewers only).',
      args: { id: t.arg.id({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { id }, ctx) => approve(String(id), null, ctx.principal, ctx.em),
    }),
    rejectPartnerApplication: t.field({
      type: Application,
      description: 'Reject a submitted application, with a reason shown to the applicant (reviewers only). Final.',
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { id, reason }, ctx) => reject(String(id), reason, ctx.principal, ctx.em),
    }),
    returnPartnerApplication: t.field({
      type: Application,
      description: 'Return a submitted application to the applicant as a draft, with a reason (reviewers only).',
      args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: (_root, { id, reason }, ctx) => returnForChanges(String(id), reason, ctx.principal, ctx.em),
    }),
  }));

  return Application;
}
